package analysis

import (
	"bytes"
	"testing"

	"github.com/baglab/baglab/decode/value"
)

type factSpec struct {
	subject, property, target string
	conf                      float64
	timeStart, timeEnd        int64
}

func factList(t *testing.T, facts ...factSpec) *value.Struct {
	var fs []*value.Struct
	for _, f := range facts {
		fs = append(fs, mk(t, "toaster_msgs/Fact", map[string]any{"subjectId": f.subject, "property": f.property,
			"targetId": f.target, "confidence": f.conf, "timeStart": uint64(f.timeStart), "timeEnd": uint64(f.timeEnd)}))
	}
	return mk(t, "toaster_msgs/FactList", map[string]any{"factList": fs})
}

// factStudy: snapshots every second for 20 s from t = 100 s (times below
// are relative to it). "human IsLookingAt robot"
// holds during [2, 7) and [12, 20] (censored at the last snapshot, t=20),
// "cup IsOn table" from 0 to 20 with timeStart = -3 s, "robot IsMoving"
// during [5, 9) with timeEnd = 8.5 s.
func factStudy(t *testing.T) []*Message {
	var msgs []*Message
	s := int64(1e9)
	for i := int64(0); i <= 20; i++ {
		var fs []factSpec
		if (i >= 2 && i < 7) || i >= 12 {
			fs = append(fs, factSpec{"human", "IsLookingAt", "robot", 0.5, 0, 0})
		}
		fs = append(fs, factSpec{"cup", "IsOn", "table", 1, 97 * s, 0})
		if i >= 5 && i < 9 {
			te := int64(0)
			if i == 8 {
				te = 1085 * s / 10
			}
			fs = append(fs, factSpec{"robot", "IsMoving", "", 0.8, 0, te})
		}
		m := msgOf("/agent_monitor/factList", 100*s+i*s, factList(t, fs...))
		m.Source = "a.bag"
		if i > 10 {
			m.Source = "b.bag"
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func TestFactIntervals(t *testing.T) {
	f := NewFacts()
	for _, m := range factStudy(t) {
		f.Add(m)
	}
	r, _ := f.Result()
	res := r.(*FactsResult)
	type iv struct {
		start, end float64
		censored   bool
		weighted   float64
	}
	want := map[string][]iv{
		"cup/IsOn/table":          {{-3, 20, true, 23}},
		"human/IsLookingAt/robot": {{2, 7, false, 2.5}, {12, 20, true, 4}},
		"robot/IsMoving/":         {{5, 8.5, false, 0.8 * 3.5}},
	}
	got := map[string][]iv{}
	for _, x := range res.Intervals {
		k := x.SubjectID + "/" + x.Property + "/" + x.TargetID
		got[k] = append(got[k], iv{float64(x.StartNs)/1e9 - 100, float64(x.EndNs)/1e9 - 100, x.Censored, float64(x.ConfidenceWeighted)})
	}
	for k, w := range want {
		g := got[k]
		if len(g) != len(w) {
			t.Fatalf("%s: %d intervals %+v, want %+v", k, len(g), g, w)
		}
		for i := range w {
			if g[i].start != w[i].start || g[i].end != w[i].end || g[i].censored != w[i].censored {
				t.Errorf("%s[%d]: %+v, want %+v", k, i, g[i], w[i])
			}
			near(t, k+" weighted", g[i].weighted, w[i].weighted, 1e-12)
		}
	}
	for _, s := range res.Facts {
		if s.SubjectID == "human" && (s.Count != 2 || float64(s.TotalDuration) != 13 || float64(s.MeanDuration) != 6.5) {
			t.Errorf("human stat %+v", s)
		}
	}
}

// TestFactsMergeExact: the two files fed to separate accumulators and merged
// in either order give the result of one accumulator reading both.
func TestFactsMergeExact(t *testing.T) {
	msgs := factStudy(t)
	whole := NewFacts()
	for _, m := range msgs {
		whole.Add(m)
	}
	want := resultJSON(t, whole)
	for _, flip := range []bool{false, true} {
		a, b := NewFacts(), NewFacts()
		for _, m := range msgs {
			if m.Source == "a.bag" {
				a.Add(m)
			} else {
				b.Add(m)
			}
		}
		if flip {
			a, b = b, a
		}
		a.Merge(b)
		if got := resultJSON(t, a); !bytes.Equal(got, want) {
			t.Fatalf("merged (flip %v) differs:\n%s\n%s", flip, got, want)
		}
	}
}
