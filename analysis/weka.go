package analysis

import (
	"errors"
	"math"
	"sort"
)

// This file is a port of the parts of Weka 3.6 (jinteractiveworld depends on
// weka-stable 3.6.10; the port follows Weka 3.6.14, EM revision 9988, the
// 3.6 release the tests run as a peer) that its EMModel uses: weka.clusterers.EM
// with the number of clusters chosen by cross-validation, its SimpleKMeans
// initialisation (Euclidean distance on attributes normalised to their
// range), and the Instances helpers they call (randomize, trainCV/testCV,
// variance, attributeStats). Loops, summation order, random draws, tie
// rules and the restart-on-failure behaviour follow the Java code, so the
// same input in the same order gives the same clusters.

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

type wekaEM struct {
	seed    int32
	rr      *javaRandom
	full    [][]float64 // m_theInstances
	k       int
	mean    [][]float64
	sd      [][]float64
	wsum    [][]float64
	priors  []float64
	weights [][]float64
	// prev* hold the parameters before the last M step; EM restores them
	// when an iteration lowers the log-likelihood.
	prevMean, prevSD [][]float64
	prevPriors       []float64
	// restarts counts restarts after failures, bounded by emMaxRestarts.
	restarts int
	// Iterations of the final fit and its mean log-likelihood.
	loglik float64
}

// fitEM clusters data (rows of attributes, in the order Weka would see them)
// with EM choosing the number of clusters by 10-fold cross-validated
// log-likelihood when there are more than 9 rows.
func fitEM(data [][]float64, seed int32) (*wekaEM, error) {
	e := &wekaEM{seed: seed, full: data}
	e.rr = newJavaRandom(int64(seed))
	for i := 0; i < 10; i++ {
		e.rr.nextDouble()
	}
	if len(data) > 9 {
		if err := e.cvClusters(); err != nil {
			return nil, err
		}
		e.rr = newJavaRandom(int64(seed))
		for i := 0; i < 10; i++ {
			e.rr.nextDouble()
		}
	} else {
		e.k = 1
	}
	e.init(e.full)
	ll, err := e.iterate(e.full)
	if err != nil {
		return nil, err
	}
	e.loglik = ll
	return e, nil
}

// cvClusters is EM.CVClusters of Weka 3.6.
func (e *wekaEM) cvClusters() error {
	cvLogLikely := -math.MaxFloat64
	increased := true
	numClusters := 1
	numFolds := emCVFolds
	if len(e.full) < numFolds {
		numFolds = len(e.full)
	}
	ok := true
	seed := e.seed
	restartCount := 0
search:
	for increased {
		increased = false
		cvr := newJavaRandom(int64(e.seed))
		trainCopy := append([][]float64(nil), e.full...)
		randomize(trainCopy, cvr)
		templl := 0.0
		for i := 0; i < numFolds; i++ {
			cvTrain := trainCV(trainCopy, numFolds, i)
			randomize(cvTrain, cvr)
			if numClusters > len(cvTrain) {
				break search
			}
			cvTest := testCV(trainCopy, numFolds, i)
			e.rr = newJavaRandom(int64(seed))
			for z := 0; z < 10; z++ {
				e.rr.nextDouble()
			}
			e.k = numClusters
			e.init(cvTrain)
			if _, err := e.iterate(cvTrain); err != nil {
				return err
			}
			tll, err := e.estep(cvTest, false)
			if err != nil {
				seed++
				restartCount++
				ok = false
				if restartCount > 5 {
					break search
				}
				break
			}
			templl += tll
		}
		if ok {
			restartCount = 0
			seed = e.seed
			templl /= float64(numFolds)
			if templl > cvLogLikely {
				cvLogLikely = templl
				increased = true
				numClusters++
			}
		}
	}
	e.k = numClusters - 1
	return nil
}

// init is EM.EM_Init: the best (lowest squared error) of 10 k-means runs
// seeds the normal distributions and priors.
func (e *wekaEM) init(inst [][]float64) {
	var best *kmeansResult
	bestSqE := math.MaxFloat64
	for i := 0; i < emKMeansRuns; i++ {
		sk := simpleKMeans(inst, e.k, e.rr.nextInt())
		if sk.SqErr < bestSqE {
			bestSqE = sk.SqErr
			best = sk
		}
	}
	if best == nil { // every run had a NaN error; Weka would fail with a NullPointerException
		best = simpleKMeans(inst, e.k, 0)
	}
	e.k = len(best.Centroids)
	natts := attCount(inst)
	e.weights = make([][]float64, len(inst))
	for i := range e.weights {
		e.weights[i] = make([]float64, e.k)
	}
	e.mean = newMatrix(e.k, natts)
	e.sd = newMatrix(e.k, natts)
	e.wsum = newMatrix(e.k, natts)
	e.priors = make([]float64, e.k)
	for i := 0; i < e.k; i++ {
		for j := 0; j < natts; j++ {
			e.mean[i][j] = best.Centroids[i][j]
			stdv := best.StdDevs[i][j]
			if stdv < emMinStdDev {
				stdv = attributeStdDev(inst, j)
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
			e.sd[i][j] = stdv
			e.wsum[i][j] = 1
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
func (e *wekaEM) iterate(inst [][]float64) (float64, error) {
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
						e.mean, e.sd, e.priors = e.prevMean, e.prevSD, e.prevPriors
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

// estep is EM.E: the mean log density of inst, updating the membership
// weights when change is set.
func (e *wekaEM) estep(inst [][]float64, change bool) (float64, error) {
	loglk, sow := 0.0, 0.0
	for l, row := range inst {
		joint, err := e.logJoint(row)
		if err != nil {
			return 0, err
		}
		loglk += logSumExp(joint)
		sow++
		if change {
			w, err := logs2probs(joint)
			if err != nil {
				return 0, err
			}
			e.weights[l] = w
		}
	}
	return loglk / sow, nil
}

// mstep is EM.M: priors and weighted means and standard deviations. The
// parameters it replaces are kept (Weka 3.6.14, EM revision 9988).
func (e *wekaEM) mstep(inst [][]float64) error {
	natts := attCount(inst)
	e.prevMean = copyMatrix(e.mean)
	e.prevSD = copyMatrix(e.sd)
	e.prevPriors = append([]float64(nil), e.priors...)
	for i := 0; i < e.k; i++ {
		for j := 0; j < natts; j++ {
			e.mean[i][j], e.sd[i][j], e.wsum[i][j] = 0, 0, 0
		}
	}
	for i := range e.priors {
		e.priors[i] = 0
	}
	for l := range inst {
		for j := 0; j < e.k; j++ {
			e.priors[j] += e.weights[l][j]
		}
	}
	if err := normalize(e.priors); err != nil {
		return err
	}
	for i := 0; i < e.k; i++ {
		for j := 0; j < natts; j++ {
			for l, row := range inst {
				w := e.weights[l][i]
				v := row[j]
				e.mean[i][j] += v * w
				e.wsum[i][j] += w
				e.sd[i][j] += v * v * w
			}
		}
	}
	for j := 0; j < natts; j++ {
		for i := 0; i < e.k; i++ {
			if e.wsum[i][j] <= 0 {
				e.sd[i][j] = math.MaxFloat64
				e.mean[i][j] = emMinStdDev
				continue
			}
			v := (e.sd[i][j] - (e.mean[i][j] * e.mean[i][j] / e.wsum[i][j])) / e.wsum[i][j]
			if v < 0 {
				v = 0
			}
			sd := math.Sqrt(v)
			if sd <= emMinStdDev {
				sd = attributeStdDev(inst, j)
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
			e.sd[i][j] = sd
			e.mean[i][j] /= e.wsum[i][j]
		}
	}
	return nil
}

// logJoint is DensityBasedClusterer.logJointDensitiesForInstance.
func (e *wekaEM) logJoint(row []float64) ([]float64, error) {
	out := make([]float64, e.k)
	for i := 0; i < e.k; i++ {
		lp := 0.0
		for j, v := range row {
			lp += logNormalDens(v, e.mean[i][j], e.sd[i][j])
		}
		if !(e.priors[i] > 0) {
			return nil, errEMEmpty
		}
		out[i] = lp + math.Log(e.priors[i])
	}
	return out, nil
}

// assign is clusterInstance: the index of the most probable cluster.
func (e *wekaEM) assign(row []float64) (int, error) {
	joint, err := e.logJoint(row)
	if err != nil {
		return 0, err
	}
	p, err := logs2probs(joint)
	if err != nil {
		return 0, err
	}
	return maxIndex(p), nil
}

func logNormalDens(x, mean, sd float64) float64 {
	diff := x - mean
	return -(diff * diff / (2 * sd * sd)) - emNormConst - math.Log(sd)
}

func logSumExp(a []float64) float64 {
	max := a[maxIndex(a)]
	sum := 0.0
	for _, v := range a {
		sum += math.Exp(v - max)
	}
	return max + math.Log(sum)
}

func logs2probs(a []float64) ([]float64, error) {
	max := a[maxIndex(a)]
	out := make([]float64, len(a))
	sum := 0.0
	for i, v := range a {
		out[i] = math.Exp(v - max)
		sum += out[i]
	}
	if err := normalizeSum(out, sum); err != nil {
		return nil, err
	}
	return out, nil
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
	return normalizeSum(a, sum)
}

func normalizeSum(a []float64, sum float64) error {
	if math.IsNaN(sum) || sum == 0 {
		return errEMEmpty
	}
	for i := range a {
		a[i] /= sum
	}
	return nil
}

func newMatrix(r, c int) [][]float64 {
	m := make([][]float64, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func copyMatrix(m [][]float64) [][]float64 {
	c := make([][]float64, len(m))
	for i := range m {
		c[i] = append([]float64(nil), m[i]...)
	}
	return c
}

func attCount(inst [][]float64) int {
	if len(inst) == 0 {
		return 0
	}
	return len(inst[0])
}

// randomize is Instances.randomize.
func randomize(inst [][]float64, r *javaRandom) {
	for j := len(inst) - 1; j > 0; j-- {
		k := r.nextIntn(int32(j + 1))
		inst[j], inst[k] = inst[k], inst[j]
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

// trainCV is Instances.trainCV without the shuffle.
func trainCV(inst [][]float64, folds, i int) [][]float64 {
	first, size := foldBounds(len(inst), folds, i)
	out := make([][]float64, 0, len(inst)-size)
	out = append(out, inst[:first]...)
	return append(out, inst[first+size:]...)
}

// testCV is Instances.testCV.
func testCV(inst [][]float64, folds, i int) [][]float64 {
	first, size := foldBounds(len(inst), folds, i)
	return append([][]float64(nil), inst[first:first+size]...)
}

// variance is Instances.variance: the sample variance, 0 for fewer than 2
// values.
func variance(inst [][]float64, j int) float64 {
	var sum, sumSq, n float64
	for _, row := range inst {
		sum += row[j]
		sumSq += row[j] * row[j]
		n++
	}
	if n <= 1 {
		return 0
	}
	v := (sumSq - (sum * sum / n)) / (n - 1)
	if v < 0 {
		return 0
	}
	return v
}

// attributeStdDev is attributeStats(j).numericStats.stdDev: the sample
// standard deviation summed over distinct values in ascending order, +Inf
// for a single value and NaN for none.
func attributeStdDev(inst [][]float64, j int) float64 {
	vals := make([]float64, len(inst))
	for i, row := range inst {
		vals[i] = row[j]
	}
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
func simpleKMeans(data [][]float64, k int, seed int32) *kmeansResult {
	inst := append([][]float64(nil), data...)
	natts := attCount(inst)
	lo := make([]float64, natts)
	hi := make([]float64, natts)
	for j := 0; j < natts; j++ {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		for _, row := range inst {
			lo[j] = math.Min(lo[j], row[j])
			hi[j] = math.Max(hi[j], row[j])
		}
	}
	norm := func(x float64, j int) float64 {
		if hi[j] == lo[j] {
			return 0
		}
		return (x - lo[j]) / (hi[j] - lo[j])
	}
	dist := func(a, b []float64) float64 {
		s := 0.0
		for j := range a {
			d := norm(a[j], j) - norm(b[j], j)
			s += d * d
		}
		return math.Sqrt(s)
	}

	// random distinct starting centroids
	rnd := newJavaRandom(int64(seed))
	var centroids [][]float64
	for j := len(inst) - 1; j >= 0; j-- {
		idx := int(rnd.nextIntn(int32(j + 1)))
		dup := false
		for _, c := range centroids {
			if equalRows(c, inst[idx]) {
				dup = true
				break
			}
		}
		if !dup {
			centroids = append(centroids, append([]float64(nil), inst[idx]...))
		}
		inst[j], inst[idx] = inst[idx], inst[j]
		if len(centroids) == k {
			break
		}
	}
	numClusters := len(centroids)
	assign := make([]int, len(inst))
	sqErr := make([]float64, numClusters)
	var members [][][]float64
	for iter := 1; ; iter++ {
		converged := true
		for i, row := range inst {
			minDist := float64(math.MaxInt32)
			best := 0
			for c := 0; c < numClusters; c++ {
				if d := dist(row, centroids[c]); d < minDist {
					minDist, best = d, c
				}
			}
			sqErr[best] += minDist * minDist
			if best != assign[i] {
				converged = false
			}
			assign[i] = best
		}
		members = make([][][]float64, numClusters)
		for i, row := range inst {
			members[assign[i]] = append(members[assign[i]], row)
		}
		centroids = centroids[:0:0]
		empty := 0
		for c := 0; c < numClusters; c++ {
			if len(members[c]) == 0 {
				empty++
				continue
			}
			centroids = append(centroids, columnMeans(members[c]))
		}
		if iter == kmeansMaxIter {
			converged = true
		}
		if empty > 0 {
			numClusters -= empty
			if converged {
				kept := members[:0:0]
				for _, m := range members {
					if len(m) > 0 {
						kept = append(kept, m)
					}
				}
				members = kept
			}
		}
		if converged {
			break
		}
		sqErr = make([]float64, numClusters)
	}
	res := &kmeansResult{Centroids: centroids}
	for _, v := range sqErr {
		res.SqErr += v
	}
	for c := 0; c < numClusters; c++ {
		sd := make([]float64, natts)
		for j := range sd {
			sd[j] = math.Sqrt(variance(members[c], j))
		}
		res.StdDevs = append(res.StdDevs, sd)
		res.Sizes = append(res.Sizes, len(members[c]))
	}
	return res
}

func columnMeans(rows [][]float64) []float64 {
	m := make([]float64, len(rows[0]))
	for j := range m {
		s := 0.0
		for _, r := range rows {
			s += r[j]
		}
		m[j] = s / float64(len(rows))
	}
	return m
}

func equalRows(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
