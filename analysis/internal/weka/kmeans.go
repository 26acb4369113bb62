package weka

import "math"

// kmeansMaxIter is SimpleKMeans' default maximum of iterations.
const kmeansMaxIter = 500

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
