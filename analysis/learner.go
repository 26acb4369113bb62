package analysis

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/baglab/baglab/analysis/internal/weka"
)

// ThetaMode selects how the learner treats the rotation.
type ThetaMode uint8

const (
	// ThetaLinear treats the rotation as an ordinary number, as the original
	// learner does (a cluster around ±pi is split in two).
	ThetaLinear ThetaMode = iota
	// ThetaCircular is a documented deviation from the original: each
	// group's rotations are re-expressed as the shortest angle from the
	// group's circular mean (so the cut moves to the antipode of the mean
	// direction), rank distances use that unwrapped angle, and the model
	// rotation is wrapped back into (-pi, pi].
	ThetaCircular
)

func (m ThetaMode) String() string {
	if m == ThetaCircular {
		return "circular"
	}
	return "linear"
}

// LearnOptions configures the placement model learner.
type LearnOptions struct {
	// Seed is Weka's random seed; 0 means Weka's default, 100.
	Seed int32
	// PruneFraction prunes groups with fewer than
	// floor(PruneFraction x total placements) placements; 0 means 0.05 (as
	// interactive_world_parser), a negative value disables pruning.
	PruneFraction float64
	// Theta selects linear (original) or circular rotation handling.
	Theta ThetaMode
	// Disable skips learning (statistics only).
	Disable bool
	// Workers bounds the EM fits run at once, across groups and the
	// cross-validation folds of a group (0: GOMAXPROCS). The models do not
	// depend on it.
	Workers int
	// Progress, when set, is called after every EM fit and every group
	// learned, never concurrently.
	Progress func(LearnProgress)
}

// LearnProgress is what LearnOptions.Progress is told.
type LearnProgress struct {
	// Groups is the number of groups to learn, GroupsDone those learned.
	Groups, GroupsDone int
	// Fits counts the EM fits done so far: one per cross-validation fold
	// of every number of clusters tried, and one final fit per group.
	Fits int64
}

func (o LearnOptions) seed() int32 {
	if o.Seed == 0 {
		return 100
	}
	return o.Seed
}

func (o LearnOptions) pruneFraction() float64 {
	if o.PruneFraction == 0 {
		return 0.05
	}
	return o.PruneFraction
}

// ClusterStat describes one EM cluster of a group.
type ClusterStat struct {
	Index int `json:"index"`
	// N is the number of placements whose most likely cluster this is.
	N     int `json:"n"`
	Prior Num `json:"prior"`
	// Rank is rank_m (lower is better); +Inf for clusters with fewer than
	// two members.
	Rank       Num `json:"rank"`
	MeanX      Num `json:"mean_x"`
	MeanY      Num `json:"mean_y"`
	MeanTheta  Num `json:"mean_theta"`
	SigmaX     Num `json:"sigma_x"`
	SigmaY     Num `json:"sigma_y"`
	SigmaTheta Num `json:"sigma_theta"`
}

// Position is a geometry_msgs/Point.
type Position struct {
	X Num `json:"x"`
	Y Num `json:"y"`
	Z Num `json:"z"`
}

// ModelPlacement is the placement of a model: position and rotation.
type ModelPlacement struct {
	Position Position `json:"position"`
	Rotation Num      `json:"rotation"`
}

// LearnedModel is the interactive_world_msgs/Model learned for one group.
type LearnedModel struct {
	GroupKey
	N int `json:"n"`
	// Pruned: the group has fewer than PruneLimit placements.
	Pruned bool `json:"pruned"`
	// Skipped: the group has at most one placement.
	Skipped bool `json:"skipped"`
	// Clusters is the number of EM clusters.
	Clusters int `json:"clusters"`
	// HasPlacement is false when no cluster has two members (or learning
	// failed): no placement, decision value +Inf.
	HasPlacement  bool           `json:"has_placement"`
	Placement     ModelPlacement `json:"placement"`
	DecisionValue Num            `json:"decision_value"`
	SigmaX        Num            `json:"sigma_x"`
	SigmaY        Num            `json:"sigma_y"`
	SigmaZ        Num            `json:"sigma_z"`
	SigmaTheta    Num            `json:"sigma_theta"`
	// LogLikelihood is EM's mean log-likelihood of the group.
	LogLikelihood Num           `json:"log_likelihood"`
	ClusterStats  []ClusterStat `json:"cluster_stats,omitempty"`
	// Assignments is each placement's cluster, in the group's canonical
	// order (the order of PlacementsResult points).
	Assignments []int  `json:"-"`
	Error       string `json:"error,omitempty"`
}

// learnGroups learns models[i] from pts[i] for each i of todo. Groups are
// learned o.Workers at a time and share one pool of o.Workers slots with
// their cross-validation folds. Every EM fit has its own seeded generator
// and results are combined in a fixed order, so the models do not depend on
// the number of workers.
func learnGroups(models []LearnedModel, pts [][]point, todo []int, o LearnOptions) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	prog := LearnProgress{Groups: len(todo)}
	report := func(fits int64, groups int) {
		if o.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		prog.Fits += fits
		prog.GroupsDone += groups
		o.Progress(prog)
	}
	pool := weka.NewPool(workers, func() { report(1, 0) })
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				learnGroup(&models[i], pts[i], o, pool)
				report(0, 1)
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
}

// learnGroup runs the jinteractiveworld EMModel on one group's points
// (already in canonical order) and fills m. The cross-validation folds run
// on pool (nil: in this goroutine).
func learnGroup(m *LearnedModel, pts []point, o LearnOptions, pool *weka.Pool) {
	m.DecisionValue = Num(math.Inf(1))
	rows := make([][]float64, len(pts))
	offset := 0.0
	if o.Theta == ThetaCircular {
		th := make([]float64, len(pts))
		for i, p := range pts {
			th[i] = p.Theta
		}
		offset = computeCircular(th).Mean
	}
	for i, p := range pts {
		th := p.Theta
		if o.Theta == ThetaCircular {
			th = wrapAngle(th - offset)
		}
		rows[i] = []float64{p.X, p.Y, th}
	}
	e, err := weka.FitEM(rows, o.seed(), pool)
	if err != nil {
		m.Error = err.Error()
		return
	}
	m.Clusters = e.K
	m.LogLikelihood = Num(e.LogLik)
	members := make([][]int, e.K)
	m.Assignments = make([]int, len(rows))
	for i, r := range rows {
		c, err := e.Assign(r)
		if err != nil {
			m.Error = fmt.Sprintf("assigning placement %d: %v", i, err)
			m.Assignments = nil
			return
		}
		m.Assignments[i] = c
		members[c] = append(members[c], i)
	}
	n := float64(len(rows))
	best := -1
	ranks := clusterRanks(rows, members, n, pool, rankExactMax)
	for c := 0; c < e.K; c++ {
		rank := ranks[c]
		theta := e.Mean[c][2]
		if o.Theta == ThetaCircular {
			theta = wrapAngle(theta + offset)
		}
		m.ClusterStats = append(m.ClusterStats, ClusterStat{
			Index: c, N: len(members[c]), Prior: Num(e.Priors[c]), Rank: Num(rank),
			MeanX: Num(e.Mean[c][0]), MeanY: Num(e.Mean[c][1]), MeanTheta: Num(theta),
			SigmaX: Num(e.SD[c][0]), SigmaY: Num(e.SD[c][1]), SigmaTheta: Num(e.SD[c][2]),
		})
		if rank < float64(m.DecisionValue) {
			m.DecisionValue = Num(rank)
			best = c
		}
	}
	if best < 0 {
		return
	}
	cs := m.ClusterStats[best]
	m.HasPlacement = true
	m.Placement = ModelPlacement{Position: Position{X: cs.MeanX, Y: cs.MeanY}, Rotation: cs.MeanTheta}
	m.SigmaX, m.SigmaY, m.SigmaTheta = cs.SigmaX, cs.SigmaY, cs.SigmaTheta
}

// rankExactMax is the largest cluster whose rank_m is summed in Java's
// order. Beyond it Java's own arithmetic breaks: it multiplies the member
// count by itself less one in a 32-bit int, which overflows from 46,341
// members on and gives a negative "density" there.
const rankExactMax = 46340

// clusterRanks returns clusterRank of each cluster (members[c] are the
// rows of cluster c): clusters of at most exact members in Java's order and
// several at once on pool; larger ones with clusterRankLarge.
func clusterRanks(rows [][]float64, members [][]int, n float64, pool *weka.Pool, exact int) []float64 {
	ranks := make([]float64, len(members))
	var small []int
	for c, idx := range members {
		if len(idx) > exact {
			ranks[c] = clusterRankLarge(rows, idx, n, pool)
		} else {
			small = append(small, c)
		}
	}
	pool.Each(len(small), func(i int) { ranks[small[i]] = clusterRank(rows, members[small[i]], n) })
	return ranks
}

// clusterRank is EMModel's density: the mean Euclidean distance over
// ordered pairs of members divided by the cluster's share of the group,
// NaN-free +Inf for clusters with fewer than two members (where Java
// computes 0/0 and never picks them).
//
// The distances are summed in Java's order (every ordered pair, row by
// row) so that the value is Java's to the bit: halving the work by
// symmetry or splitting the sum would round differently, and no
// sub-quadratic method gives the same bits. Math.pow(d, 2) is d*d in Java
// (fdlibm and HotSpot special-case the exponent 2). It costs about a second
// per 3·10^8 pairs; see clusterRankLarge for clusters beyond rankExactMax.
func clusterRank(rows [][]float64, idx []int, n float64) float64 {
	nm := len(idx)
	if nm < 2 {
		return math.Inf(1)
	}
	xs, ys, ts := memberCoords(rows, idx)
	dist := 0.0
	for i := range xs {
		x, y, t := xs[i], ys[i], ts[i]
		for j := range xs {
			if i == j {
				continue
			}
			dx, dy, dt := x-xs[j], y-ys[j], t-ts[j]
			dist += math.Sqrt(dx*dx + dy*dy + dt*dt)
		}
	}
	return dist / float64(nm*(nm-1)) * 1.0 / (float64(nm) / n)
}

// clusterRankLarge is clusterRank for clusters too large for Java's formula
// (see rankExactMax), where the result is not Java's: each unordered pair
// is summed once (the distance is symmetric to the bit) and doubled, in
// fixed blocks of rows run in parallel on pool and added in block order, so
// the value depends neither on the number of workers nor on timing, and
// the count is a 64-bit product.
func clusterRankLarge(rows [][]float64, idx []int, n float64, pool *weka.Pool) float64 {
	const block = 512
	nm := len(idx)
	if nm < 2 {
		return math.Inf(1)
	}
	xs, ys, ts := memberCoords(rows, idx)
	part := make([]float64, (nm+block-1)/block)
	pool.Each(len(part), func(b int) {
		s := 0.0
		for i := b * block; i < min((b+1)*block, nm); i++ {
			x, y, t := xs[i], ys[i], ts[i]
			for j := i + 1; j < nm; j++ {
				dx, dy, dt := x-xs[j], y-ys[j], t-ts[j]
				s += math.Sqrt(dx*dx + dy*dy + dt*dt)
			}
		}
		part[b] = s
	})
	total := 0.0
	for _, p := range part {
		total += p
	}
	return 2 * total / float64(nm*(nm-1)) * 1.0 / (float64(nm) / n)
}

// memberCoords returns the x, y and theta of the rows idx, each contiguous.
func memberCoords(rows [][]float64, idx []int) (xs, ys, ts []float64) {
	xs = make([]float64, len(idx))
	ys = make([]float64, len(idx))
	ts = make([]float64, len(idx))
	for i, r := range idx {
		xs[i], ys[i], ts[i] = rows[r][0], rows[r][1], rows[r][2]
	}
	return xs, ys, ts
}
