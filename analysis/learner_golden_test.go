package analysis

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

var updateLearnerGolden = flag.Bool("update-learner", false, "rewrite testdata/learner_golden.txt")

// clusteredRows draws n rows of (x, y, theta) from k Gaussian clusters laid
// out on a table, as crowd-sourced placements are: the benchmark group of
// the speed issue is clusteredRows(1500, 6, 1).
func clusteredRows(n, k int, seed uint64) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 0x91ace))
	type cl struct{ x, y, th, sx, sy, st float64 }
	cs := make([]cl, k)
	for i := range cs {
		cs[i] = cl{x: 0.2 + 1.2*r.Float64(), y: 0.1 + 0.7*r.Float64(), th: -3 + 6*r.Float64(),
			sx: 0.01 + 0.05*r.Float64(), sy: 0.01 + 0.04*r.Float64(), st: 0.05 + 0.3*r.Float64()}
	}
	rows := make([][]float64, n)
	for i := range rows {
		c := cs[r.IntN(k)]
		rows[i] = []float64{c.x + c.sx*r.NormFloat64(), c.y + c.sy*r.NormFloat64(), c.th + c.st*r.NormFloat64()}
	}
	return rows
}

// learnerGoldenSets are the inputs whose models must not change by a bit
// when the learner is made faster: the Weka peer sets plus larger groups.
func learnerGoldenSets() map[string][][]float64 {
	sets := peerDatasets()
	sets["clustered_1500_6"] = clusteredRows(1500, 6, 1)
	sets["clustered_600_3"] = clusteredRows(600, 3, 2)
	sets["clustered_300_9"] = clusteredRows(300, 9, 3)
	// rounded coordinates: many equal values and equal distances (ties)
	tied := clusteredRows(400, 4, 4)
	for _, r := range tied {
		for j := range r {
			r[j] = math.Round(r[j]*20) / 20
		}
	}
	sets["tied_400_4"] = tied
	return sets
}

// modelDigest hashes every float of a learned model bit for bit.
func modelDigest(m *LearnedModel) string {
	h := sha256.New()
	put := func(f float64) { _ = binary.Write(h, binary.LittleEndian, math.Float64bits(f)) }
	_ = binary.Write(h, binary.LittleEndian, int64(m.Clusters))
	put(float64(m.LogLikelihood))
	put(float64(m.DecisionValue))
	for _, c := range m.ClusterStats {
		_ = binary.Write(h, binary.LittleEndian, int64(c.N))
		for _, f := range []Num{c.Prior, c.Rank, c.MeanX, c.MeanY, c.MeanTheta, c.SigmaX, c.SigmaY, c.SigmaTheta} {
			put(float64(f))
		}
	}
	for _, a := range m.Assignments {
		_ = binary.Write(h, binary.LittleEndian, int32(a))
	}
	h.Write([]byte(m.Error))
	return fmt.Sprintf("%x", h.Sum(nil)[:16])
}

// TestLearnerGolden checks that the learner's models (linear and circular
// theta) are bit-identical to the recorded ones, which were made by the
// sequential port that TestEMMatchesWeka checks against Weka itself.
func TestLearnerGolden(t *testing.T) {
	sets := learnerGoldenSets()
	got := map[string]string{}
	var names []string
	for _, name := range SortedKeys(sets) {
		for _, mode := range []ThetaMode{ThetaLinear, ThetaCircular} {
			rows := sets[name]
			pts := make([]point, len(rows))
			for i, r := range rows {
				pts[i] = point{X: r[0], Y: r[1], Theta: r[2]}
			}
			var m LearnedModel
			learnGroup(&m, pts, LearnOptions{Theta: mode}, nil)
			key := name + "/" + mode.String()
			names = append(names, key)
			got[key] = fmt.Sprintf("k=%d %s", m.Clusters, modelDigest(&m))
		}
	}
	const path = "testdata/learner_golden.txt"
	if *updateLearnerGolden {
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%s %s\n", n, got[n])
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, _ := strings.Cut(sc.Text(), " ")
		want[name] = rest
	}
	for _, n := range names {
		if got[n] != want[n] {
			t.Errorf("%s: got %s, recorded %s", n, got[n], want[n])
		}
	}
}
