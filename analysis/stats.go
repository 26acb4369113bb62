package analysis

import (
	"math"
	"sort"
)

// moments holds the mean and standard deviations of a sample, computed in
// two passes (mean first, then the sum of squared deviations) over values in
// the order given.
type moments struct {
	N                  int
	Mean, SD, SDSample float64
	Min, Max           float64
}

func computeMoments(xs []float64) moments {
	m := moments{N: len(xs), Mean: math.NaN(), SD: math.NaN(), SDSample: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	if len(xs) == 0 {
		return m
	}
	var sum float64
	m.Min, m.Max = xs[0], xs[0]
	for _, x := range xs {
		sum += x
		m.Min = math.Min(m.Min, x)
		m.Max = math.Max(m.Max, x)
	}
	m.Mean = sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		d := x - m.Mean
		ss += d * d
	}
	m.SD = math.Sqrt(ss / float64(len(xs)))
	if len(xs) > 1 {
		m.SDSample = math.Sqrt(ss / float64(len(xs)-1))
	}
	return m
}

// circular holds the circular statistics of angles in radians: the mean
// direction atan2(mean sin, mean cos) in (-pi, pi], the mean resultant length
// R in [0, 1] and the circular standard deviation sqrt(-2 ln R) (as
// scipy.stats.circstd).
type circular struct {
	Mean, R, SD float64
}

func computeCircular(angles []float64) circular {
	if len(angles) == 0 {
		return circular{math.NaN(), math.NaN(), math.NaN()}
	}
	var s, c float64
	for _, a := range angles {
		s += math.Sin(a)
		c += math.Cos(a)
	}
	n := float64(len(angles))
	s /= n
	c /= n
	r := math.Hypot(s, c)
	if r > 1 {
		r = 1
	}
	sd := math.Sqrt(math.Max(0, -2*math.Log(r))) // +0, not -0, when r = 1
	return circular{Mean: math.Atan2(s, c), R: r, SD: sd}
}

// wrapAngle maps a to (-pi, pi].
func wrapAngle(a float64) float64 {
	a = math.Mod(a+math.Pi, 2*math.Pi)
	if a <= 0 {
		a += 2 * math.Pi
	}
	return a - math.Pi
}

// wilsonZ is the 97.5% quantile of the standard normal distribution.
const wilsonZ = 1.959963984540054

// wilson returns the Wilson score 95% interval for k successes in n trials
// (NaN, NaN when n == 0).
func wilson(k, n int64) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := wilsonZ * wilsonZ
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := wilsonZ * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// Percentile returns the q-th percentile (0..100) of sorted values with
// linear interpolation between closest ranks (numpy's default method).
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := q / 100 * float64(n-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	f := pos - float64(lo)
	return sorted[lo] + (sorted[hi]-sorted[lo])*f
}

// SortedCopy returns xs sorted, leaving xs as it is.
func SortedCopy(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

func ratio(k, n int64) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}
