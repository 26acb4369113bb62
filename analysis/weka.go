package analysis

import (
	"errors"
	"math"
	"sort"
	"sync"
)

// This file is a port of the parts of Weka 3.6 (jinteractiveworld depends on
// weka-stable 3.6.10; the port follows Weka 3.6.14, EM revision 9988, the
// 3.6 release the tests run as a peer) that its EMModel uses: weka.clusterers.EM
// with the number of clusters chosen by cross-validation, its SimpleKMeans
// initialisation (Euclidean distance on attributes normalised to their
// range), and the Instances helpers they call (randomize, trainCV/testCV,
// variance, attributeStats). Summation order, random draws, tie rules and
// the restart-on-failure behaviour follow the Java code, so the same input
// in the same order gives the same clusters, bit for bit.
//
// What differs from the Java code is only how the work is scheduled, never
// an operation on a value:
//   - the folds of a cross-validation round are fitted in parallel (each
//     fold starts from its own seeded generator in Weka too) and their
//     log-likelihoods summed in fold order;
//   - the shuffled folds, the attribute ranges k-means normalises by and
//     the attribute standard deviations EM falls back to are computed once
//     per data set instead of once per use (they are the same every round);
//   - values used in every row of an E step (log σ, 2σ², log prior) are
//     computed once per step, and exp(x - max) once per row and cluster;
//   - k-means takes the square root of a squared distance only when it can
//     beat the best so far (sqrt is monotonic, so the comparisons and ties
//     are unchanged);
//   - loops are interchanged where each accumulator still sees its terms in
//     the same order.

// errEMEmpty is Weka's "Cluster empty!" / "Can't normalize array" failure,
// which makes EM restart with a new seed.
var errEMEmpty = errors.New("EM: empty cluster")

const (
	emMaxIterations = 100
	emMinStdDev     = 1e-6
	emMinGain       = 1e-6
	emCVFolds       = 10
	emKMeansRuns    = 10
	kmeansMaxIter   = 500
	emMaxRestarts   = 1000 // not in Weka: bounds a restart loop that would otherwise never end
)

var emNormConst = math.Log(math.Sqrt(2 * math.Pi))

// dataset is a set of instances in the order Weka holds them, row-major,
// with values derived from it computed once on first use.
type dataset struct {
	x        []float64 // n rows of natts values
	n, natts int

	sdOnce sync.Once
	sd     []float64 // attributeStdDev of each attribute

	normOnce sync.Once
	lo, hi   []float64 // attribute ranges (EuclideanDistance)
	norm     []float64 // x normalised by lo, hi
}

func newDataset(rows [][]float64) *dataset {
	d := &dataset{n: len(rows)}
	if len(rows) > 0 {
		d.natts = len(rows[0])
	}
	d.x = make([]float64, 0, d.n*d.natts)
	for _, r := range rows {
		d.x = append(d.x, r...)
	}
	return d
}

// subset is a new data set of the rows idx of d, in that order.
func (d *dataset) subset(idx []int) *dataset {
	s := &dataset{n: len(idx), natts: d.natts, x: make([]float64, 0, len(idx)*d.natts)}
	for _, i := range idx {
		s.x = append(s.x, d.row(i)...)
	}
	return s
}

func (d *dataset) row(i int) []float64 { return d.x[i*d.natts : (i+1)*d.natts : (i+1)*d.natts] }

// stdDev is attributeStats(j).numericStats.stdDev of the data set.
func (d *dataset) stdDev(j int) float64 {
	d.sdOnce.Do(func() {
		d.sd = make([]float64, d.natts)
		vals := make([]float64, d.n)
		for a := range d.sd {
			for i := range vals {
				vals[i] = d.x[i*d.natts+a]
			}
			d.sd[a] = attributeStdDev(vals)
		}
	})
	return d.sd[j]
}

// normalized returns the rows normalised to the attribute ranges of the
// data set, as EuclideanDistance does, and a function normalising one value.
func (d *dataset) normalized() []float64 {
	d.normOnce.Do(func() {
		d.lo = make([]float64, d.natts)
		d.hi = make([]float64, d.natts)
		for j := range d.lo {
			d.lo[j], d.hi[j] = math.Inf(1), math.Inf(-1)
			for i := 0; i < d.n; i++ {
				d.lo[j] = math.Min(d.lo[j], d.x[i*d.natts+j])
				d.hi[j] = math.Max(d.hi[j], d.x[i*d.natts+j])
			}
		}
		d.norm = make([]float64, len(d.x))
		for i, v := range d.x {
			d.norm[i] = d.normValue(v, i%d.natts)
		}
	})
	return d.norm
}

func (d *dataset) normValue(x float64, j int) float64 {
	if d.hi[j] == d.lo[j] {
		return 0
	}
	return (x - d.lo[j]) / (d.hi[j] - d.lo[j])
}

// fitPool runs EM fits, at most cap(sem) at once; a nil pool runs them in
// the calling goroutine. onFit, when set, is called after every fit.
type fitPool struct {
	sem   chan struct{}
	onFit func()
}

func newFitPool(workers int, onFit func()) *fitPool {
	return &fitPool{sem: make(chan struct{}, max(workers, 1)), onFit: onFit}
}

// do runs f holding one of the pool's slots.
func (p *fitPool) do(f func()) {
	if p == nil {
		f()
		return
	}
	p.sem <- struct{}{}
	defer func() { <-p.sem }()
	f()
}

// each runs f(0) … f(n-1) concurrently, each holding a slot, and returns
// when all have returned.
func (p *fitPool) each(n int, f func(i int)) {
	if p == nil || n == 1 {
		for i := 0; i < n; i++ {
			p.do(func() { f(i) })
		}
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.do(func() { f(i) })
		}()
	}
	wg.Wait()
}

func (p *fitPool) fitted() {
	if p != nil && p.onFit != nil {
		p.onFit()
	}
}

// wekaEM is a fitted EM clusterer.
type wekaEM struct {
	k        int
	mean, sd [][]float64
	priors   []float64
	loglik   float64 // mean log-likelihood of the data
	st       *emState
	// prepErr is the failure logJointDensitiesForInstance would raise for
	// every instance (a prior that is not positive).
	prepErr error
}

// fitEM clusters data (rows of attributes, in the order Weka would see them)
// with EM choosing the number of clusters by 10-fold cross-validated
// log-likelihood when there are more than 9 rows. The folds run on pool.
func fitEM(data [][]float64, seed int32, pool *fitPool) (*wekaEM, error) {
	full := newDataset(data)
	k, restarts := 1, 0
	if full.n > 9 {
		var err error
		if k, restarts, err = cvClusters(full, seed, pool); err != nil {
			return nil, err
		}
	}
	var e *wekaEM
	var err error
	pool.do(func() {
		st := newEMState(full, seed, k)
		st.restarts = restarts
		st.init(full)
		var ll float64
		if ll, err = st.iterate(full); err != nil {
			return
		}
		e = &wekaEM{k: st.k, priors: st.priors, loglik: ll, st: st}
		for c := 0; c < st.k; c++ {
			e.mean = append(e.mean, st.mean[c*full.natts:(c+1)*full.natts])
			e.sd = append(e.sd, st.sd[c*full.natts:(c+1)*full.natts])
		}
		e.prepErr = st.prepare()
	})
	pool.fitted()
	if err != nil {
		return nil, err
	}
	return e, nil
}

// cvFold is one fold of the cross-validation: the training rows shuffled
// as Weka shuffles them, and the test rows.
type cvFold struct{ train, test *dataset }

// foldResult is what one fold contributes to a round of CVClusters.
type foldResult struct {
	ll       float64
	restarts int
	fitErr   error // iterate failed: the whole fit fails
	testErr  error // E on the test rows failed: the search stops
}

// cvClusters is EM.CVClusters of Weka 3.6: the number of clusters, and the
// restarts spent finding it.
func cvClusters(full *dataset, seed int32, pool *fitPool) (k, restarts int, err error) {
	numFolds := min(emCVFolds, full.n)
	// Every round shuffles a copy of the data with a generator seeded
	// afresh, then each training fold with the same generator: the folds
	// are the same in every round and are built once.
	cvr := newJavaRandom(int64(seed))
	order := make([]int, full.n)
	for i := range order {
		order[i] = i
	}
	randomize(order, cvr)
	folds := make([]cvFold, numFolds)
	for i := range folds {
		first, size := foldBounds(full.n, numFolds, i)
		train := append(append([]int(nil), order[:first]...), order[first+size:]...)
		randomize(train, cvr)
		folds[i] = cvFold{train: full.subset(train), test: full.subset(order[first : first+size])}
	}

	cvLogLikely := -math.MaxFloat64
	numClusters := 1
	for {
		// Weka stops the search at the first fold with fewer training
		// rows than clusters; the folds before it still run.
		m := numFolds
		for i, f := range folds {
			if numClusters > f.train.n {
				m = i
				break
			}
		}
		res := make([]foldResult, m)
		pool.each(m, func(i int) {
			res[i] = runFold(full, folds[i], seed, numClusters)
		})
		for range m {
			pool.fitted()
		}
		templl := 0.0
		failed := false
		for _, r := range res {
			restarts += r.restarts
			if r.fitErr != nil {
				return 0, 0, r.fitErr
			}
			if restarts > emMaxRestarts {
				return 0, 0, errEMEmpty
			}
			if r.testErr != nil {
				failed = true // Weka: seed++, ok = false, and the search ends
				break
			}
			templl += r.ll
		}
		if failed || m < numFolds {
			break
		}
		templl /= float64(numFolds)
		if !(templl > cvLogLikely) {
			break
		}
		cvLogLikely = templl
		numClusters++
	}
	return numClusters - 1, restarts, nil
}

// runFold fits numClusters clusters to a fold's training rows and scores
// its test rows. Its restarts are counted from zero; the caller adds them up
// in fold order, as the sequential search would.
func runFold(full *dataset, f cvFold, seed int32, numClusters int) foldResult {
	st := newEMState(full, seed, numClusters)
	st.init(f.train)
	if _, err := st.iterate(f.train); err != nil {
		return foldResult{restarts: st.restarts, fitErr: err}
	}
	ll, err := st.estep(f.test, false)
	return foldResult{ll: ll, restarts: st.restarts, testErr: err}
}

// emState is the working state of one EM fit (a wekaEM in Java).
type emState struct {
	seed int32
	full *dataset // m_theInstances: restarts re-initialise from it
	rr   *javaRandom
	k    int
	// k × natts parameters, row-major, and the k priors
	mean, sd []float64
	priors   []float64
	weights  []float64 // rows × k membership weights
	wsum     []float64 // k
	// prev* hold the parameters before the last M step; EM restores them
	// when an iteration lowers the log-likelihood.
	prevMean, prevSD, prevPriors []float64
	// restarts counts restarts after failures, bounded by emMaxRestarts.
	restarts int
	// per E step: log σ and 2σ² per cluster and attribute, log prior per
	// cluster; per row: joint densities and their exponentials
	logSD, twoVar, logPrior, joint, ex []float64
	km                                 kmeansScratch
}

// newEMState is a fit of k clusters with m_rr seeded as EM seeds it.
func newEMState(full *dataset, seed int32, k int) *emState {
	st := &emState{seed: seed, full: full, k: k, rr: newJavaRandom(int64(seed))}
	for i := 0; i < 10; i++ {
		st.rr.nextDouble()
	}
	return st
}

// init is EM.EM_Init: the best (lowest squared error) of 10 k-means runs
// seeds the normal distributions and priors.
func (e *emState) init(inst *dataset) {
	var best *kmeansResult
	bestSqE := math.MaxFloat64
	for i := 0; i < emKMeansRuns; i++ {
		sk := simpleKMeans(inst, e.k, e.rr.nextInt(), &e.km)
		if sk.SqErr < bestSqE {
			bestSqE = sk.SqErr
			best = sk
		}
	}
	if best == nil { // every run had a NaN error; Weka would fail with a NullPointerException
		best = simpleKMeans(inst, e.k, 0, &e.km)
	}
	e.k = len(best.Centroids)
	natts := inst.natts
	e.weights = growFloats(e.weights, inst.n*e.k)
	clear(e.weights)
	e.mean = make([]float64, e.k*natts)
	e.sd = make([]float64, e.k*natts)
	e.prevMean = make([]float64, e.k*natts)
	e.prevSD = make([]float64, e.k*natts)
	e.wsum = make([]float64, e.k)
	e.priors = make([]float64, e.k)
	e.prevPriors = make([]float64, e.k)
	for i := 0; i < e.k; i++ {
		for j := 0; j < natts; j++ {
			e.mean[i*natts+j] = best.Centroids[i][j]
			stdv := best.StdDevs[i][j]
			if stdv < emMinStdDev {
				stdv = inst.stdDev(j)
				if math.IsInf(stdv, 0) {
					stdv = emMinStdDev
				}
				if stdv < emMinStdDev {
					stdv = emMinStdDev
				}
			}
			if stdv <= 0 {
				stdv = emMinStdDev
			}
			e.sd[i*natts+j] = stdv
		}
	}
	for j := 0; j < e.k; j++ {
		e.priors[j] = float64(best.Sizes[j])
	}
	_ = normalize(e.priors)
}

// iterate is EM.iterate: E and M steps until the mean log-likelihood gains
// less than 1e-6 (going back to the previous parameters when it fell) or 100
// iterations, restarting with the next seed after a
// failure (and with one cluster fewer after 5 failures).
func (e *emState) iterate(inst *dataset) (float64, error) {
	llkold, llk := 0.0, 0.0
	seed := e.seed
	restartCount := 0
	for {
		err := func() error {
			for i := 0; i < emMaxIterations; i++ {
				llkold = llk
				var err error
				llk, err = e.estep(inst, true)
				if err != nil {
					return err
				}
				if i > 0 && llk-llkold < emMinGain {
					if llk-llkold < 0 {
						e.mean, e.prevMean = e.prevMean, e.mean
						e.sd, e.prevSD = e.prevSD, e.sd
						e.priors, e.prevPriors = e.prevPriors, e.priors
					}
					break
				}
				if err := e.mstep(inst); err != nil {
					return err
				}
			}
			return nil
		}()
		if err == nil {
			return llk, nil
		}
		e.restarts++
		if e.restarts > emMaxRestarts {
			return 0, err
		}
		seed++
		restartCount++
		e.rr = newJavaRandom(int64(seed))
		for z := 0; z < 10; z++ {
			e.rr.nextDouble()
			e.rr.nextInt()
		}
		if restartCount > 5 {
			e.k--
			restartCount = 0
		}
		e.init(e.full)
	}
}

// prepare computes the per-cluster values of the densities; it fails as
// logJointDensitiesForInstance does when a prior is not positive.
func (e *emState) prepare() error {
	natts := len(e.mean) / max(e.k, 1)
	e.logSD = growFloats(e.logSD, len(e.sd))
	e.twoVar = growFloats(e.twoVar, len(e.sd))
	e.logPrior = growFloats(e.logPrior, e.k)
	e.joint = growFloats(e.joint, e.k)
	e.ex = growFloats(e.ex, e.k)
	for i, s := range e.sd[:e.k*natts] {
		e.twoVar[i] = 2 * s * s
		e.logSD[i] = math.Log(s)
	}
	for i := 0; i < e.k; i++ {
		if !(e.priors[i] > 0) {
			return errEMEmpty
		}
		e.logPrior[i] = math.Log(e.priors[i])
	}
	return nil
}

func growFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// logJoint is DensityBasedClusterer.logJointDensitiesForInstance into
// e.joint (after prepare).
func (e *emState) logJoint(row []float64) []float64 {
	natts := len(row)
	if natts == 3 { // the learner's x, y, theta, unrolled
		x0, x1, x2 := row[0], row[1], row[2]
		for i := 0; i < e.k; i++ {
			mean := e.mean[i*3 : i*3+3 : i*3+3]
			twoVar := e.twoVar[i*3 : i*3+3 : i*3+3]
			logSD := e.logSD[i*3 : i*3+3 : i*3+3]
			d0, d1, d2 := x0-mean[0], x1-mean[1], x2-mean[2]
			lp := 0.0 + (-(d0 * d0 / twoVar[0]) - emNormConst - logSD[0]) +
				(-(d1 * d1 / twoVar[1]) - emNormConst - logSD[1]) +
				(-(d2 * d2 / twoVar[2]) - emNormConst - logSD[2])
			e.joint[i] = lp + e.logPrior[i]
		}
		return e.joint[:e.k]
	}
	for i := 0; i < e.k; i++ {
		mean := e.mean[i*natts : (i+1)*natts]
		twoVar := e.twoVar[i*natts : (i+1)*natts]
		logSD := e.logSD[i*natts : (i+1)*natts]
		lp := 0.0
		for j, v := range row {
			diff := v - mean[j]
			lp += -(diff * diff / twoVar[j]) - emNormConst - logSD[j]
		}
		e.joint[i] = lp + e.logPrior[i]
	}
	return e.joint[:e.k]
}

// expJoint sets e.ex to exp(joint - max) and returns max and the sum of
// e.ex: logSumExp is max + log(sum), logs2probs is e.ex / sum.
func (e *emState) expJoint(joint []float64) (max, sum float64) {
	max = joint[maxIndex(joint)]
	ex := e.ex[:len(joint)]
	for i, v := range joint {
		ex[i] = math.Exp(v - max)
		sum += ex[i]
	}
	return max, sum
}

// estep is EM.E: the mean log density of inst, updating the membership
// weights when change is set.
func (e *emState) estep(inst *dataset, change bool) (float64, error) {
	if err := e.prepare(); err != nil && inst.n > 0 {
		return 0, err
	}
	loglk, sow := 0.0, 0.0
	k := e.k
	for l := 0; l < inst.n; l++ {
		joint := e.logJoint(inst.row(l))
		max, sum := e.expJoint(joint)
		loglk += max + math.Log(sum)
		sow++
		if change {
			if math.IsNaN(sum) || sum == 0 {
				return 0, errEMEmpty
			}
			w := e.weights[l*k : (l+1)*k]
			for i, v := range e.ex[:k] {
				w[i] = v / sum
			}
		}
	}
	return loglk / sow, nil
}

// mstep is EM.M: priors and weighted means and standard deviations. The
// parameters it replaces are kept (Weka 3.6.14, EM revision 9988).
func (e *emState) mstep(inst *dataset) error {
	natts, k := inst.natts, e.k
	copy(e.prevMean, e.mean)
	copy(e.prevSD, e.sd)
	copy(e.prevPriors, e.priors)
	clear(e.mean)
	clear(e.sd)
	clear(e.wsum)
	clear(e.priors)
	for l := 0; l < inst.n; l++ {
		for j, w := range e.weights[l*k : (l+1)*k] {
			e.priors[j] += w
		}
	}
	if err := normalize(e.priors); err != nil {
		return err
	}
	// Weka loops cluster, attribute, row; each sum gets its terms in row
	// order here too. Its per-attribute weight sums are all equal.
	if natts == 3 {
		x := inst.x[:inst.n*3]
		for i := 0; i < k; i++ {
			var m0, m1, m2, s0, s1, s2, ws float64
			for l := 0; l < inst.n; l++ {
				w := e.weights[l*k+i]
				v0, v1, v2 := x[l*3], x[l*3+1], x[l*3+2]
				m0 += v0 * w
				m1 += v1 * w
				m2 += v2 * w
				s0 += v0 * v0 * w
				s1 += v1 * v1 * w
				s2 += v2 * v2 * w
				ws += w
			}
			e.mean[i*3], e.mean[i*3+1], e.mean[i*3+2] = m0, m1, m2
			e.sd[i*3], e.sd[i*3+1], e.sd[i*3+2] = s0, s1, s2
			e.wsum[i] = ws
		}
	} else {
		for l := 0; l < inst.n; l++ {
			row := inst.row(l)
			for i, w := range e.weights[l*k : (l+1)*k] {
				mean := e.mean[i*natts : (i+1)*natts]
				sd := e.sd[i*natts : (i+1)*natts]
				for j, v := range row {
					mean[j] += v * w
					sd[j] += v * v * w
				}
				e.wsum[i] += w
			}
		}
	}
	for j := 0; j < natts; j++ {
		for i := 0; i < k; i++ {
			ij := i*natts + j
			wsum := e.wsum[i]
			if wsum <= 0 {
				e.sd[ij] = math.MaxFloat64
				e.mean[ij] = emMinStdDev
				continue
			}
			v := (e.sd[ij] - (e.mean[ij] * e.mean[ij] / wsum)) / wsum
			if v < 0 {
				v = 0
			}
			sd := math.Sqrt(v)
			if sd <= emMinStdDev {
				sd = inst.stdDev(j)
				if sd <= emMinStdDev {
					sd = emMinStdDev
				}
			}
			if sd <= 0 {
				sd = emMinStdDev
			}
			if math.IsInf(sd, 0) {
				sd = emMinStdDev
			}
			e.sd[ij] = sd
			e.mean[ij] /= wsum
		}
	}
	return nil
}

// assign is clusterInstance: the index of the most probable cluster.
func (e *wekaEM) assign(row []float64) (int, error) {
	if e.prepErr != nil {
		return 0, e.prepErr
	}
	st := e.st
	_, sum := st.expJoint(st.logJoint(row))
	if math.IsNaN(sum) || sum == 0 {
		return 0, errEMEmpty
	}
	p := st.ex[:st.k]
	for i := range p {
		p[i] /= sum
	}
	return maxIndex(p), nil
}

// maxIndex is Utils.maxIndex: the first index of the largest value.
func maxIndex(a []float64) int {
	idx := 0
	max := 0.0
	for i, v := range a {
		if i == 0 || v > max {
			idx, max = i, v
		}
	}
	return idx
}

func normalize(a []float64) error {
	sum := 0.0
	for _, v := range a {
		sum += v
	}
	if math.IsNaN(sum) || sum == 0 {
		return errEMEmpty
	}
	for i := range a {
		a[i] /= sum
	}
	return nil
}

// randomize is Instances.randomize on row indices.
func randomize(idx []int, r *javaRandom) {
	for j := len(idx) - 1; j > 0; j-- {
		k := r.nextIntn(int32(j + 1))
		idx[j], idx[k] = idx[k], idx[j]
	}
}

// foldBounds returns the first index and size of fold i (Instances.testCV).
func foldBounds(n, folds, i int) (first, size int) {
	size = n / folds
	offset := n % folds
	if i < n%folds {
		size++
		offset = i
	}
	return i*(n/folds) + offset, size
}

// attributeStdDev is attributeStats(j).numericStats.stdDev of the values
// (which it sorts): the sample standard deviation summed over distinct
// values in ascending order, +Inf for a single value and NaN for none.
func attributeStdDev(vals []float64) float64 {
	sort.Float64s(vals)
	var sum, sumSq, count float64
	for i := 0; i < len(vals); {
		k := i
		for k < len(vals) && vals[k] == vals[i] {
			k++
		}
		v, c := vals[i], float64(k-i)
		sum += v * c
		sumSq += v * v * c
		count += c
		i = k
	}
	switch {
	case count == 0:
		return math.NaN()
	case count == 1:
		return math.Inf(1)
	}
	sd := (sumSq - (sum*sum)/count) / (count - 1)
	if sd < 0 {
		sd = 0
	}
	return math.Sqrt(sd)
}

// kmeansResult is what EM reads from a SimpleKMeans run.
type kmeansResult struct {
	Centroids [][]float64
	StdDevs   [][]float64
	Sizes     []int
	SqErr     float64
}

// simpleKMeans is SimpleKMeans.buildClusterer of Weka 3.6 with the default
// EuclideanDistance (attributes normalised by their range in data).
//
// Each iteration assigns every instance to its nearest centroid. Distances
// that cannot change the assignment are not computed (Hamerly's bounds):
// an upper bound on the distance to the assigned centroid and a lower bound
// on the distance to every other one are kept per instance and moved by
// how far the centroids moved. An instance is skipped only when the bounds
// prove that its centroid is nearer than any other by a relative margin of
// 2^-40, far beyond the rounding of the distances, so the assignments are
// those of the full search; the bounds are widened at every update to stay
// valid under rounding, and NaN or infinite values disable the shortcut.
func simpleKMeans(d *dataset, k int, seed int32, sc *kmeansScratch) *kmeansResult {
	n, natts := d.n, d.natts
	norm := d.normalized()
	if sc == nil {
		sc = &kmeansScratch{}
	}
	// perm is the order of the instances, which Weka shuffles while it
	// picks the starting centroids.
	perm := growInts(sc.perm, n)
	assign := growInts(sc.assign, n)
	upper := growFloats(sc.upper, n) // bound on the distance to assign[i]
	lower := growFloats(sc.lower, n) // bound on the distance to any other centroid
	sc.perm, sc.assign, sc.upper, sc.lower = perm, assign, upper, lower
	clear(assign)
	for i := range perm {
		perm[i] = i
	}
	rnd := newJavaRandom(int64(seed))
	var centroids [][]float64
	for j := n - 1; j >= 0; j-- {
		idx := int(rnd.nextIntn(int32(j + 1)))
		cand := d.row(perm[idx])
		dup := false
		for _, c := range centroids {
			if equalRows(c, cand) {
				dup = true
				break
			}
		}
		if !dup {
			centroids = append(centroids, append([]float64(nil), cand...))
		}
		perm[j], perm[idx] = perm[idx], perm[j]
		if len(centroids) == k {
			break
		}
	}
	// The instances in their shuffled order, raw and normalised, so that
	// every pass below reads memory in order.
	xs := growFloats(sc.xs, n*natts)
	ns := growFloats(sc.ns, n*natts)
	sc.xs, sc.ns = xs, ns
	for i, p := range perm {
		copy(xs[i*natts:(i+1)*natts], d.row(p))
		copy(ns[i*natts:(i+1)*natts], norm[p*natts:(p+1)*natts])
	}
	numClusters := len(centroids)
	cnorm := make([]float64, numClusters*natts)
	prev := make([]float64, numClusters*natts)
	move := make([]float64, numClusters)
	count := make([]int, numClusters)
	sums := make([]float64, numClusters*natts)
	sumSqs := make([]float64, numClusters*natts)
	for i := range upper {
		upper[i] = math.Inf(1)
	}
	renumbered := false // the last iteration dropped empty clusters
	for iter := 1; ; iter++ {
		for c, cen := range centroids {
			for j, v := range cen {
				cnorm[c*natts+j] = d.normValue(v, j)
			}
		}
		cn := cnorm[:numClusters*natts]
		if iter > 1 && !renumbered {
			moveBounds(upper, lower, assign, move[:numClusters], prev[:len(cn)], cn)
		}
		copy(prev, cn)
		converged := true
		for i := range assign {
			best := assign[i]
			if !(upper[i]*(1+boundMargin) < lower[i]) {
				var bestSq, otherSq float64
				best, bestSq, otherSq = nearest(ns[i*natts:(i+1)*natts], cn)
				upper[i] = boundUp(math.Sqrt(bestSq))
				lower[i] = boundDown(math.Sqrt(otherSq))
			}
			if best != assign[i] {
				converged = false
			}
			assign[i] = best
		}
		if iter == kmeansMaxIter {
			converged = true
		}
		// The members of each cluster in instance order: their means are
		// the new centroids and, in the last iteration, their variances
		// the standard deviations.
		clear(count[:numClusters])
		clear(sums[:numClusters*natts])
		clear(sumSqs[:numClusters*natts])
		for i, c := range assign {
			count[c]++
			row := xs[i*natts : (i+1)*natts]
			s := sums[c*natts : (c+1)*natts]
			if natts == 3 {
				s = s[:3:3]
				s[0] += row[0]
				s[1] += row[1]
				s[2] += row[2]
			} else {
				for j, v := range row {
					s[j] += v
				}
			}
			if converged {
				sq := sumSqs[c*natts : (c+1)*natts]
				for j, v := range row {
					sq[j] += v * v
				}
			}
		}
		centroids = centroids[:0:0]
		var sizes []int
		var sds [][]float64
		for c := 0; c < numClusters; c++ {
			if count[c] == 0 {
				continue
			}
			m := make([]float64, natts)
			nf := float64(count[c])
			for j := range m {
				m[j] = sums[c*natts+j] / nf
			}
			centroids = append(centroids, m)
			if converged {
				sd := make([]float64, natts)
				for j := range sd {
					sd[j] = math.Sqrt(variance(sums[c*natts+j], sumSqs[c*natts+j], count[c]))
				}
				sds = append(sds, sd)
				sizes = append(sizes, count[c])
			}
		}
		if converged {
			// Weka's squared error: each instance's distance to its
			// centroid, squared, summed per cluster in instance order.
			sqErr := make([]float64, numClusters)
			for i, c := range assign {
				dist := math.Sqrt(sqDist(ns[i*natts:(i+1)*natts], cn[c*natts:(c+1)*natts]))
				if !(dist < math.MaxInt32) { // no centroid was nearer than Weka's start
					dist = math.MaxInt32
				}
				sqErr[c] += dist * dist
			}
			res := &kmeansResult{Centroids: centroids, StdDevs: sds, Sizes: sizes}
			for _, v := range sqErr {
				res.SqErr += v
			}
			return res
		}
		if len(centroids) != numClusters {
			// empty clusters: the centroids are renumbered (assign keeps
			// the old numbers, as in Weka) and the bounds are void
			for i := range upper {
				upper[i] = math.Inf(1)
			}
		}
		renumbered = len(centroids) != numClusters
		numClusters = len(centroids)
	}
}

// kmeansScratch holds the per-instance buffers of simpleKMeans for reuse
// by the next run.
type kmeansScratch struct {
	perm, assign         []int
	upper, lower, xs, ns []float64
}

func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// boundMargin is the relative margin by which bounds must separate an
// instance's centroid from the others to skip its distances.
const boundMargin = 0x1p-40

// boundUp and boundDown widen a computed bound for its rounding.
func boundUp(x float64) float64   { return x + math.Abs(x)*boundMargin + 0x1p-1000 }
func boundDown(x float64) float64 { return x - math.Abs(x)*boundMargin - 0x1p-1000 }

// moveBounds updates each instance's bounds after the centroids moved from
// prev to cur: the distance to the assigned centroid grows by at most its
// move, the distance to any other falls by at most the largest move.
func moveBounds(upper, lower []float64, assign []int, move, prev, cur []float64) {
	natts := len(prev) / len(move)
	maxMove := 0.0
	for c := range move {
		m := boundUp(math.Sqrt(sqDist(prev[c*natts:(c+1)*natts], cur[c*natts:(c+1)*natts])))
		if !(m <= math.MaxFloat64) { // NaN or infinite: no bound holds
			for i := range upper {
				upper[i] = math.Inf(1)
			}
			return
		}
		move[c] = m
		maxMove = max(maxMove, m)
	}
	for i, a := range assign {
		upper[i] = boundUp(upper[i] + move[a])
		lower[i] = boundDown(lower[i] - maxMove)
	}
}

// sqDist is the squared Euclidean distance of a and b, summed as Weka sums
// it (unrolled for the learner's three attributes).
func sqDist(a, b []float64) float64 {
	if len(a) == 3 {
		b = b[:3:3]
		d0, d1, d2 := a[0]-b[0], a[1]-b[1], a[2]-b[2]
		return d0*d0 + d1*d1 + d2*d2
	}
	s := 0.0
	for j, v := range a {
		d := v - b[j]
		s += d * d
	}
	return s
}

// nearest returns the first of the centroids (rows of len(a) values) at
// the smallest Euclidean distance from a, as Weka's
// SimpleKMeans.clusterProcessedInstance picks it: distances compared after
// the square root, the first of equal ones wins. It also returns the
// squared distance to it and the smallest squared distance to any other.
//
// The square root is taken only where it can decide. sqrt is monotonic, so
// a squared distance s >= the best one cannot win. One below the best by a
// relative margin of 2^-48 wins after rounding too (correctly rounded sqrt
// moves each side by at most 2^-53 relative, and halves the margin), so
// only near-ties need their square roots.
func nearest(a, centroids []float64) (best int, bestSq, otherSq float64) {
	const margin = 1 - 0x1p-48
	natts := len(a)
	bestSq = math.Inf(1)
	minDist := float64(math.MaxInt32) // Weka's starting minimum
	exact := true                     // minDist is sqrt(bestSq) (or the start)
	s1, s2, i1 := math.Inf(1), math.Inf(1), -1
	for c := 0; c*natts < len(centroids); c++ {
		s := sqDist(a, centroids[c*natts:(c+1)*natts])
		if s < s1 {
			s1, s2, i1 = s, s1, c
		} else if s < s2 {
			s2 = s
		}
		if !(s < bestSq) {
			continue
		}
		var wins bool
		if math.IsInf(bestSq, 1) {
			wins = s < 0x1p60 // sqrt(s) < 2^30 < the starting minimum
		} else {
			wins = bestSq > 0x1p-1000 && s < bestSq*margin
		}
		if wins {
			best, bestSq, exact = c, s, false
			continue
		}
		if !exact {
			minDist, exact = math.Sqrt(bestSq), true
		}
		if d := math.Sqrt(s); d < minDist {
			best, bestSq, minDist = c, s, d
		}
	}
	otherSq = s1
	if i1 == best {
		otherSq = s2
	}
	return best, bestSq, otherSq
}

// variance is Instances.variance from the sum and sum of squares of n
// values: the sample variance, 0 for fewer than 2 values.
func variance(sum, sumSq float64, n int) float64 {
	if n <= 1 {
		return 0
	}
	nf := float64(n)
	v := (sumSq - (sum * sum / nf)) / (nf - 1)
	if v < 0 {
		return 0
	}
	return v
}

func equalRows(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
