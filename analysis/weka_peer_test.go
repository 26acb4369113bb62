package analysis

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis/internal/weka"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// wekaPeer runs the real Weka EM (Debian's weka.jar) through
// testdata/weka/EMModelPeer.java on rows of x, y, theta.
type wekaPeerResult struct {
	k        int
	priors   []float64
	mean, sd [][]float64
	assign   []int
	decision float64
	best     int
}

func runWekaPeer(t *testing.T, sets [][][]float64) []wekaPeerResult {
	t.Helper()
	testenv.RequirePeer(t, "weka", "java")
	var in bytes.Buffer
	for _, rows := range sets {
		for _, r := range rows {
			fmt.Fprintf(&in, "%s %s %s\n", strconv.FormatFloat(r[0], 'g', -1, 64),
				strconv.FormatFloat(r[1], 'g', -1, 64), strconv.FormatFloat(r[2], 'g', -1, 64))
		}
		in.WriteString("---\n")
	}
	cmd := exec.Command("java", "-cp", "/usr/share/java/weka.jar", "testdata/weka/EMModelPeer.java")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("weka peer: %v\n%s", err, stderr.String())
	}
	var all []wekaPeerResult
	var res wekaPeerResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		num := func(s string) float64 {
			if s == "Infinity" {
				return math.Inf(1)
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("peer output %q: %v", sc.Text(), err)
			}
			return v
		}
		switch f[0] {
		case "clusters":
			res.k = int(num(f[1]))
		case "cluster":
			res.priors = append(res.priors, num(f[2]))
			res.mean = append(res.mean, []float64{num(f[3]), num(f[5]), num(f[7])})
			res.sd = append(res.sd, []float64{num(f[4]), num(f[6]), num(f[8])})
		case "assign":
			for _, s := range f[1:] {
				res.assign = append(res.assign, int(num(s)))
			}
		case "decision":
			res.decision = num(f[1])
			res.best = int(num(f[2]))
		case "end":
			all = append(all, res)
			res = wekaPeerResult{}
		}
	}
	if len(all) != len(sets) {
		t.Fatalf("weka peer answered %d of %d data sets", len(all), len(sets))
	}
	return all
}

// peerDatasets are the learner inputs checked against real Weka.
func peerDatasets() map[string][][]float64 {
	r := rand.New(rand.NewPCG(1, 2))
	sets := map[string][][]float64{}
	blobs := func(n int, centers [][3]float64, sd [3]float64) [][]float64 {
		var rows [][]float64
		for i := 0; i < n; i++ {
			c := centers[i%len(centers)]
			rows = append(rows, []float64{c[0] + r.NormFloat64()*sd[0], c[1] + r.NormFloat64()*sd[1], c[2] + r.NormFloat64()*sd[2]})
		}
		return rows
	}
	sets["three_separated"] = blobs(40, [][3]float64{{0, 0, 0}, {1, 2, 1}, {2, 4, 2}}, [3]float64{0.05, 0.05, 0.1})
	sets["two_separated"] = blobs(60, [][3]float64{{0.3, -0.2, 1.5}, {-0.4, 0.5, -1.5}}, [3]float64{0.03, 0.02, 0.05})
	sets["one_blob"] = blobs(25, [][3]float64{{0.1, 0.2, 0.3}}, [3]float64{0.1, 0.1, 0.2})
	sets["overlapping"] = blobs(50, [][3]float64{{0, 0, 0}, {0.1, 0.05, 0.2}}, [3]float64{0.1, 0.1, 0.3})
	sets["small_n"] = blobs(7, [][3]float64{{0, 0, 0}, {1, 1, 1}}, [3]float64{0.01, 0.01, 0.01})
	sets["ten"] = blobs(10, [][3]float64{{0, 0, 0}, {1, 1, 1}}, [3]float64{0.01, 0.01, 0.01})
	// constant theta exercises the minimum standard deviation rules
	flat := blobs(30, [][3]float64{{0, 0, 0}, {0.5, 0.5, 0}}, [3]float64{0.02, 0.02, 0})
	sets["constant_theta"] = flat
	// duplicates exercise k-means' distinct-centroid rule
	dup := blobs(12, [][3]float64{{0, 0, 0}}, [3]float64{0.01, 0.01, 0.01})
	for i := 0; i < 12; i++ {
		dup = append(dup, []float64{0.5, 0.5, 0.5})
	}
	sets["duplicates"] = dup
	// rotations around +-pi (linear theta splits them)
	sets["wrap"] = blobs(30, [][3]float64{{0.2, 0.2, math.Pi - 0.05}, {0.2, 0.2, -math.Pi + 0.05}}, [3]float64{0.01, 0.01, 0.02})
	return sets
}

// TestEMMatchesWeka checks the Go port against Weka 3.6 itself: same number
// of clusters, same cluster order, priors, means, standard deviations,
// assignments and decision value.
func TestEMMatchesWeka(t *testing.T) {
	if testing.Short() {
		t.Skip("runs java")
	}
	sets := peerDatasets()
	names := SortedKeys(sets)
	var rowsets [][][]float64
	for _, n := range names {
		rowsets = append(rowsets, sets[n])
	}
	peers := runWekaPeer(t, rowsets)
	for i, name := range names {
		rows, peer := sets[name], peers[i]
		t.Run(name, func(t *testing.T) {
			e, err := weka.FitEM(rows, 100, nil)
			if err != nil {
				t.Fatal(err)
			}
			if e.K != peer.k {
				t.Fatalf("clusters: got %d, weka %d", e.K, peer.k)
			}
			near := func(what string, got, want float64) {
				t.Helper()
				if got != want && math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: got %.17g, weka %.17g", what, got, want)
				}
			}
			for c := 0; c < e.K; c++ {
				near(fmt.Sprintf("prior[%d]", c), e.Priors[c], peer.priors[c])
				for j := 0; j < 3; j++ {
					near(fmt.Sprintf("mean[%d][%d]", c, j), e.Mean[c][j], peer.mean[c][j])
					near(fmt.Sprintf("sd[%d][%d]", c, j), e.SD[c][j], peer.sd[c][j])
				}
			}
			var m LearnedModel
			pts := make([]point, len(rows))
			for i, r := range rows {
				pts[i] = point{X: r[0], Y: r[1], Theta: r[2]}
			}
			learnGroup(&m, pts, LearnOptions{}, nil)
			for i, a := range m.Assignments {
				if a != peer.assign[i] {
					t.Fatalf("assignment %d: got %d, weka %d", i, a, peer.assign[i])
				}
			}
			near("decision_value", float64(m.DecisionValue), peer.decision)
			if peer.best >= 0 {
				b := peer.best
				near("model x", float64(m.Placement.Position.X), peer.mean[b][0])
				near("model sigma_theta", float64(m.SigmaTheta), peer.sd[b][2])
			} else if m.HasPlacement {
				t.Errorf("weka found no model, we did")
			}
		})
	}
}
