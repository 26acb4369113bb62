package weka

import (
	"math"
	"sort"
	"sync"
)

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

// Pool runs EM fits, at most cap(sem) at once; a nil pool runs them in
// the calling goroutine. onFit, when set, is called after every fit.
type Pool struct {
	sem   chan struct{}
	onFit func()
}

// NewPool returns a pool of workers slots (at least 1) that calls onFit,
// when set, after every fit.
func NewPool(workers int, onFit func()) *Pool {
	return &Pool{sem: make(chan struct{}, max(workers, 1)), onFit: onFit}
}

// do runs f holding one of the pool's slots.
func (p *Pool) do(f func()) {
	if p == nil {
		f()
		return
	}
	p.sem <- struct{}{}
	defer func() { <-p.sem }()
	f()
}

// Each runs f(0) … f(n-1) concurrently, each holding a slot, and returns
// when all have returned.
func (p *Pool) Each(n int, f func(i int)) {
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

func (p *Pool) fitted() {
	if p != nil && p.onFit != nil {
		p.onFit()
	}
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
