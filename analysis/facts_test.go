package analysis

import (
	"bytes"
	"fmt"
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

// tiedFacts: 16 facts, none at 1 and 2 s; at 3 s listed (confidence 0.5)
// and, in a second snapshot at the same time, gone; back from 4 to 6 s with
// timeStart 2.5 s and confidence 0.9. Each fact has two intervals starting
// at 3 s: [3, 3] (one snapshot) and [3, 6] (censored; its timeStart lies
// before the snapshot at 3 s that did not list it).
func tiedFacts(t *testing.T, source string) []*Message {
	s := int64(1e9)
	var msgs []*Message
	add := func(at int64, fs []factSpec) {
		m := msgOf("/facts", at, factList(t, fs...))
		m.Source = source
		msgs = append(msgs, m)
	}
	for i := int64(1); i <= 6; i++ {
		var fs []factSpec
		for j := range 16 {
			switch {
			case i == 3:
				fs = append(fs, factSpec{fmt.Sprintf("s%02d", j), "IsAt", "t", 0.5, 0, 0})
			case i >= 4:
				fs = append(fs, factSpec{fmt.Sprintf("s%02d", j), "IsAt", "t", 0.9, 5 * s / 2, 0})
			}
		}
		add(i*s, fs)
		if i == 3 {
			add(i*s, nil)
		}
	}
	return msgs
}

// TestFactsTiedStarts: intervals of one fact with the same start come in
// one order (by end) on every run, and the per-fact sums with them; the
// accumulator's maps (iterated in a new order every time) must not show.
// Before intervals were ordered by fact and start only, ties in map order.
func TestFactsTiedStarts(t *testing.T) {
	var first []byte
	for run := range 20 {
		f := NewFacts()
		for _, m := range tiedFacts(t, "a.bag") {
			if err := f.Add(m); err != nil {
				t.Fatal(err)
			}
		}
		got := resultJSON(t, f)
		if run == 0 {
			first = got
			r, _ := f.Result()
			res := r.(*FactsResult)
			if len(res.Intervals) != 32 || len(res.Facts) != 16 {
				t.Fatalf("%d intervals, %d facts", len(res.Intervals), len(res.Facts))
			}
			for i, iv := range res.Intervals {
				want := FactInterval{FactKey: FactKey{Topic: "/facts", SubjectID: fmt.Sprintf("s%02d", i/2), Property: "IsAt", TargetID: "t"},
					StartNs: 3e9, EndNs: 3e9, Duration: 0, ConfidenceWeighted: 0, MeanConfidence: 0.5, Snapshots: 1}
				if i%2 == 1 {
					want.EndNs, want.Duration, want.Snapshots, want.Censored = 6e9, 3, 3, true
					want.ConfidenceWeighted, want.MeanConfidence = 0.9*3, 0.9
				}
				got := iv
				near(t, "confidence_weighted_s", float64(got.ConfidenceWeighted), float64(want.ConfidenceWeighted), 1e-12)
				near(t, "mean_confidence", float64(got.MeanConfidence), float64(want.MeanConfidence), 1e-12)
				got.ConfidenceWeighted, got.MeanConfidence = want.ConfidenceWeighted, want.MeanConfidence
				if got != want {
					t.Errorf("interval %d: %+v, want %+v", i, got, want)
				}
			}
			continue
		}
		if !bytes.Equal(got, first) {
			t.Fatalf("run %d differs from run 0:\n%s\n%s", run, got, first)
		}
	}
}

// TestFactsTiedSegments: two files covering the same times, merged in
// either order, give one result. Before, segments with the same first and
// last snapshot kept the merge order, and so did their tied intervals.
func TestFactsTiedSegments(t *testing.T) {
	var want []byte
	for _, flip := range []bool{false, true} {
		a, b := NewFacts(), NewFacts()
		for _, m := range tiedFacts(t, "a.bag") {
			a.Add(m)
		}
		for _, m := range factStudy(t)[:6] {
			m.Topic, m.LogTime, m.Source = "/facts", m.LogTime-99e9, "b.bag"
			b.Add(m)
		}
		if flip {
			a, b = b, a
		}
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		got := resultJSON(t, a)
		if !flip {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("merged the other way round:\n%s\nwant\n%s", got, want)
		}
	}
}

// TestFactsStaleTimeStart: a fact that reappears with the timeStart of its
// interval before starts at the snapshot that did not list it, within a
// file and across two files (the second beginning with it), so its
// intervals neither overlap nor count the time in between. Before, both
// reappearances started at the old timeStart, 0.5 s: [0.5, 3), [0.5, 7)
// and [0.5, 12], 20.5 s of a fact seen for at most 11.5.
func TestFactsStaleTimeStart(t *testing.T) {
	s := int64(1e9)
	var msgs []*Message
	for i := int64(1); i <= 12; i++ {
		var fs []factSpec
		if i != 3 && i != 7 {
			fs = append(fs, factSpec{"human", "IsNear", "robot", 0.5, s / 2, 0})
		}
		m := msgOf("/facts", i*s, factList(t, fs...))
		m.Source = "a.bag"
		if i > 7 {
			m.Source = "b.bag" // its first snapshot (8 s) lists the fact, a.bag's last (7 s) did not
		}
		msgs = append(msgs, m)
	}
	want := []struct{ start, end int64 }{{s / 2, 3 * s}, {3 * s, 7 * s}, {7 * s, 12 * s}}
	one, a, b := NewFacts(), NewFacts(), NewFacts()
	for _, m := range msgs {
		one.Add(m)
		if m.Source == "a.bag" {
			a.Add(m)
		} else {
			b.Add(m)
		}
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*Facts{"one accumulator": one, "merged": a} {
		r, _ := f.Result()
		res := r.(*FactsResult)
		if len(res.Intervals) != len(want) {
			t.Fatalf("%s: %d intervals, want %d: %+v", name, len(res.Intervals), len(want), res.Intervals)
		}
		for i, iv := range res.Intervals {
			d := float64(want[i].end-want[i].start) / 1e9
			if iv.StartNs != want[i].start || iv.EndNs != want[i].end {
				t.Errorf("%s: interval %d [%d, %d], want [%d, %d]", name, i, iv.StartNs, iv.EndNs, want[i].start, want[i].end)
			}
			near(t, name+" confidence_weighted_s", float64(iv.ConfidenceWeighted), 0.5*d, 1e-12)
		}
		near(t, name+" total_duration_s", float64(res.Facts[0].TotalDuration), 11.5, 1e-12)
	}
}

// TestFactsResultTwice: Result leaves the accumulator as it was, so a
// second Result (or more snapshots, then Result) gives the same numbers.
// Before, stitching segments changed the intervals kept in them.
func TestFactsResultTwice(t *testing.T) {
	f := NewFacts()
	for _, m := range factStudy(t) {
		f.Add(m)
	}
	first := resultJSON(t, f)
	if again := resultJSON(t, f); !bytes.Equal(again, first) {
		t.Fatalf("second Result differs:\n%s\n%s", again, first)
	}
}
