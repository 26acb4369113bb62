package weka

import (
	"errors"
	"math"
)

// errEMEmpty is Weka's "Cluster empty!" / "Can't normalize array" failure,
// which makes EM restart with a new seed.
var errEMEmpty = errors.New("EM: empty cluster")

const (
	emMaxIterations = 100
	emMinStdDev     = 1e-6
	emMinGain       = 1e-6
	emCVFolds       = 10
	emKMeansRuns    = 10
	emMaxRestarts   = 1000 // not in Weka: bounds a restart loop that would otherwise never end
)

var emNormConst = math.Log(math.Sqrt(2 * math.Pi))

// EM is a fitted EM clusterer.
type EM struct {
	// K is the number of clusters; Mean and SD hold each cluster's mean
	// and standard deviation per attribute, Priors its prior.
	K        int
	Mean, SD [][]float64
	Priors   []float64
	// LogLik is the mean log-likelihood of the data.
	LogLik float64
	st     *emState
	// prepErr is the failure logJointDensitiesForInstance would raise for
	// every instance (a prior that is not positive).
	prepErr error
}

// FitEM clusters data (rows of attributes, in the order Weka would see them)
// with EM choosing the number of clusters by 10-fold cross-validated
// log-likelihood when there are more than 9 rows. The folds run on pool.
func FitEM(data [][]float64, seed int32, pool *Pool) (*EM, error) {
	full := newDataset(data)
	k, restarts := 1, 0
	if full.n > 9 {
		var err error
		if k, restarts, err = cvClusters(full, seed, pool); err != nil {
			return nil, err
		}
	}
	var e *EM
	var err error
	pool.do(func() {
		st := newEMState(full, seed, k)
		st.restarts = restarts
		st.init(full)
		var ll float64
		if ll, err = st.iterate(full); err != nil {
			return
		}
		e = &EM{K: st.k, Priors: st.priors, LogLik: ll, st: st}
		for c := 0; c < st.k; c++ {
			e.Mean = append(e.Mean, st.mean[c*full.natts:(c+1)*full.natts])
			e.SD = append(e.SD, st.sd[c*full.natts:(c+1)*full.natts])
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
func cvClusters(full *dataset, seed int32, pool *Pool) (k, restarts int, err error) {
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
		pool.Each(m, func(i int) {
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

// emState is the working state of one EM fit (an EM in Java).
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

// Assign is clusterInstance: the index of the most probable cluster.
func (e *EM) Assign(row []float64) (int, error) {
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
