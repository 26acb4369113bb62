package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// peerFacts writes a recording of two toaster fact streams with Debian's
// rosbag and genpy (classes generated from the registry's full texts) —
// whole, and split in two files as rosbag record --split does — and prints
// the facts analysis computed with plain python from the snapshots it drew,
// following the documented meaning (analyze --help, README, the doc
// comments of analysis.Facts):
//
//   - a fact (topic, subject, property, target) holds from the first
//     snapshot of its topic that lists it — or from its timeStart, when set
//     and earlier, but never before the topic's previous snapshot, which did
//     not list it — to the first snapshot without it, or to the timeEnd of
//     its last snapshot when that lies between the two;
//   - at the end of the recording it closes at the last snapshot, censored;
//   - its confidence holds from each snapshot to the next (the confidence of
//     the first snapshot also before it, back to the start); of snapshots at
//     the same time the one recorded last holds.
const peerFacts = `
import json, sys
import numpy as np
import genpy, genpy.dynamic, rosbag

out, split1, split2, defs = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4]))
FactList = genpy.dynamic.generate_dynamic("toaster_msgs/FactList", defs["toaster_msgs/FactList"])["toaster_msgs/FactList"]
Fact = genpy.dynamic.generate_dynamic("toaster_msgs/Fact", defs["toaster_msgs/Fact"])["toaster_msgs/Fact"]

rng = np.random.default_rng(7)
T0 = 1_700_000_000_000_000_000
S = 1_000_000_000
# (topic, subject, property, target, p(on -> off), p(off -> on), sets timeStart, sets timeEnd)
streams = {
    "/agent_monitor/factList": [
        ("HERAKLES_HUMAN1", "IsLookingAt", "PR2_ROBOT", 0.15, 0.3, True, False),
        ("HERAKLES_HUMAN1", "IsLookingAt", "GREY_TAPE", 0.2, 0.25, True, False),
        ("HERAKLES_HUMAN1", "IsMoving", "", 0.3, 0.3, True, True),
        ("HERAKLES_HUMAN2", "IsFacing", "PR2_ROBOT", 0.1, 0.2, False, False),
        ("PR2_ROBOT", "IsMoving", "", 0.25, 0.35, True, True),
        ("PR2_ROBOT", "IsHolding", "RED_CUBE", 0.0, 0.0, True, False),  # held all along, from before the recording
    ],
    "/area_manager/factList": [
        ("HERAKLES_HUMAN1", "IsInArea", "KITCHEN", 0.1, 0.15, True, False),
        ("HERAKLES_HUMAN2", "IsInArea", "KITCHEN", 0.12, 0.2, False, False),
        ("RED_CUBE", "IsOn", "TABLE", 0.05, 0.5, True, True),
    ],
}
# snapshots at 2 Hz on both topics at the same times (ties across topics);
# the agent monitor publishes twice at some instants (ties within a topic:
# the second, with updated confidences, holds).
snapshots = {tp: [] for tp in streams}   # topic -> [(t, {key: (conf, start, end)})] in recording order
for tp, facts in streams.items():
    state = {}
    for f in facts:
        sub, prop, tgt, poff, pon, setstart, setend = f
        on = prop == "IsHolding" or rng.random() < 0.5
        state[f] = {"on": on, "conf": float(np.round(rng.uniform(0.5, 1.0), 3)),
                    "start": T0 - int(rng.integers(1, 30)) * S // 7 if on and setstart else 0}
    prev_t = None
    for k in range(80):
        t = T0 + k * S // 2
        snap = {}
        for f in facts:
            sub, prop, tgt, poff, pon, setstart, setend = f
            st = state[f]
            if k > 0:
                if st["on"] and rng.random() < poff:
                    st["on"] = False
                elif not st["on"] and rng.random() < pon:
                    st["on"] = True
                    if setstart:
                        # it began between the two snapshots; but back
                        # after one snapshot without it (a detection that
                        # dropped out), now and then with the timeStart of
                        # before
                        if not (st.get("off_since") == k - 1 and rng.random() < 0.5):
                            st["start"] = int(rng.integers(prev_t + 1, t + 1))
                    st["conf"] = float(np.round(rng.uniform(0.4, 1.0), 3))
                elif st["on"] and rng.random() < 0.3:
                    st["conf"] = float(np.round(np.clip(st["conf"] + rng.normal(0, 0.15), 0.05, 1.0), 3))
            if not st["on"] and st.get("was_on", True):
                st["off_since"] = k
            st["was_on"] = st["on"]
            if st["on"]:
                end = 0
                if setend and k < 79 and rng.random() < 0.2:
                    # it will be gone at the next snapshot, and the monitor
                    # already knows when it ended
                    end = t + int(rng.integers(0, S // 2))
                snap[(sub, prop, tgt)] = (st["conf"], st["start"], end)
                if end:
                    st["on"] = False
        snapshots[tp].append((t, snap))
        if tp == "/agent_monitor/factList" and k % 9 == 4:
            again = {key: (float(np.round(min(1.0, c + 0.05), 3)), s, e) for key, (c, s, e) in snap.items()}
            snapshots[tp].append((t, again))
        prev_t = t

def fact_msg(key, v, t):
    f = Fact()
    f.subjectId, f.property, f.targetId = key
    f.propertyType, f.subProperty = "state", "agent"
    f.subjectOwnerId, f.targetOwnerId = "", ""
    f.valueType, f.factObservability, f.doubleValue, f.stringValue = False, 1.0, 0.0, "true"
    f.confidence, f.time, f.timeStart, f.timeEnd = v[0], t, v[1], v[2]
    return f

def to_time(ns):
    return genpy.Time(ns // S, ns % S)

msgs = []
for tp, snaps in snapshots.items():
    for t, snap in snaps:
        fl = FactList()
        for key in sorted(snap, key=lambda k: (k[2], k[0], k[1])):  # not in key order
            fl.factList.append(fact_msg(key, snap[key], t))
        msgs.append((t, tp, fl))
# file order: by time, the area manager first at equal times, a topic's
# snapshots in the order drawn
msgs.sort(key=lambda m: (m[0], m[1] != "/area_manager/factList"))
cut = T0 + 23 * S
with rosbag.Bag(out, "w") as bag:
    for t, tp, fl in msgs:
        bag.write(tp, fl, to_time(t))
with rosbag.Bag(split1, "w", compression="bz2") as b1, rosbag.Bag(split2, "w") as b2:
    for t, tp, fl in msgs:
        (b1 if t < cut else b2).write(tp, fl, to_time(t))

# the analysis, from the snapshots drawn
intervals = []
for tp, snaps in snapshots.items():
    # of snapshots at one time, the last recorded holds for the confidence;
    # every one of them counts as a snapshot
    keys = sorted({k for _, s in snaps for k in s})
    for key in keys:
        cur = None
        prev_t = None   # the previous snapshot of the topic
        for i, (t, snap) in enumerate(snaps):
            if key in snap:
                conf, start, end = snap[key]
                if cur is None:
                    s0 = t
                    if 0 < start < t and (prev_t is None or start > prev_t):
                        s0 = start
                    elif 0 < start < t:
                        s0 = prev_t
                    cur = {"start": s0, "w": conf * (t - s0), "last_t": t, "conf": conf, "end": end, "n": 1}
                else:
                    cur["w"] += cur["conf"] * (t - cur["last_t"])
                    cur.update(last_t=t, conf=conf, end=end)
                    cur["n"] += 1
            elif cur is not None:
                e = t
                if cur["end"] and cur["last_t"] <= cur["end"] < t:
                    e = cur["end"]
                cur["w"] += cur["conf"] * (e - cur["last_t"])
                intervals.append((tp, key, cur["start"], e, cur["w"], cur["n"], False))
                cur = None
            prev_t = t
        if cur is not None:
            intervals.append((tp, key, cur["start"], cur["last_t"], cur["w"], cur["n"], True))

intervals.sort(key=lambda iv: (iv[0], iv[1], iv[2], iv[3]))
rows, facts = [], []
for tp, key, s, e, w, n, cens in intervals:
    d = e - s
    rows.append({"topic": tp, "subject_id": key[0], "property": key[1], "target_id": key[2],
        "start_ns": s, "end_ns": e, "duration_s": d / 1e9, "confidence_weighted_s": w / 1e9,
        "mean_confidence": w / d if d > 0 else None, "snapshots": n, "censored": cens})
    if rows[-1]["mean_confidence"] is None:
        del rows[-1]["mean_confidence"]   # one snapshot, no duration: not checked
groups = {}
for r in rows:
    groups.setdefault((r["topic"], r["subject_id"], r["property"], r["target_id"]), []).append(r)
for k in sorted(groups):
    g = groups[k]
    d = np.array([r["end_ns"] - r["start_ns"] for r in g], dtype=float) / 1e9
    facts.append({"topic": k[0], "subject_id": k[1], "property": k[2], "target_id": k[3], "count": len(g),
        "total_duration_s": float(d.sum()), "mean_duration_s": float(d.mean()),
        "confidence_weighted_duration_s": float(sum(r["confidence_weighted_s"] for r in g)),
        "censored": sum(r["censored"] for r in g)})
print(json.dumps({"facts": facts, "intervals": rows}))
`

// writeDefs writes the registry's full texts of the named types as JSON
// (name -> text) for genpy.dynamic.
func writeDefs(t *testing.T, dir string, names ...string) string {
	t.Helper()
	defs := map[string]string{}
	for _, name := range names {
		typ, err := msgdef.Default().Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		defs[name] = msgdef.FullText(typ)
	}
	path := filepath.Join(dir, "defs.json")
	b, _ := json.Marshal(defs)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runPeer runs a python peer and returns what it printed.
func runPeer(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Python, append([]string{"-c", script}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("peer: %v\n%s", err, stderr.String())
	}
	return out
}

// peerAnalyze runs baglab analyze KIND --json on the files and decodes the
// result, numbers as json.Number.
func peerAnalyze(t *testing.T, kind string, files ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := run(t, append([]string{"analyze", kind, "--json", "--quiet"}, files...)...)
	if code != 0 {
		t.Fatalf("analyze %s: exit %d: %s", kind, code, stderr)
	}
	return decodeNumbers(t, []byte(stdout))
}

// decodeNumbers decodes a JSON object keeping numbers as json.Number.
func decodeNumbers(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return doc
}

// comparePeer reports every place where got (baglab's --json) differs from
// want (the peer's): objects compare the keys want has, arrays element by
// element, numbers within a relative 1e-9 (absolute near 0), integers
// given as JSON numbers above 2^53 exactly as decoded, "NaN" only with
// "NaN", anything else exactly. It returns the number of differences.
func comparePeer(t *testing.T, path string, got, want any) int {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: baglab %v, peer an object", path, got)
			return 1
		}
		n := 0
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s.%s: missing in baglab's result (peer %v)", path, k, w[k])
				n++
				continue
			}
			n += comparePeer(t, path+"."+k, gv, w[k])
		}
		return n
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: baglab has %d rows, peer %d\n baglab: %s\n   peer: %s", path, len(g), len(w), short(got), short(want))
			return 1
		}
		n := 0
		for i := range w {
			if n > 20 {
				t.Errorf("%s: more differences left out", path)
				return n
			}
			n += comparePeer(t, fmt.Sprintf("%s[%d]", path, i), g[i], w[i])
		}
		return n
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			t.Errorf("%s = %v, peer %v", path, got, w)
			return 1
		}
		if !strings.ContainsAny(string(w), ".eE") { // an integer: exactly
			if g != w {
				t.Errorf("%s = %v, peer %v", path, g, w)
				return 1
			}
			return 0
		}
		gf, err1 := g.Float64()
		wf, err2 := w.Float64()
		if err1 != nil || err2 != nil || math.Abs(gf-wf) > 1e-9*math.Max(1, math.Abs(wf)) {
			t.Errorf("%s = %v, peer %v", path, g, w)
			return 1
		}
		return 0
	default:
		if got != want {
			t.Errorf("%s = %v, peer %v", path, got, want)
			return 1
		}
		return 0
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// TestAnalyzeFactsPeer compares baglab's facts analysis of a recording
// Debian's rosbag wrote with the intervals and sums python computed from the
// snapshots it drew; the same recording split in two files (the first bz2)
// gives the same numbers.
func TestAnalyzeFactsPeer(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "numpy")
	dir := t.TempDir()
	defs := writeDefs(t, dir, "toaster_msgs/FactList", "toaster_msgs/Fact")
	whole, part1, part2 := filepath.Join(dir, "facts.bag"), filepath.Join(dir, "facts_0.bag"), filepath.Join(dir, "facts_1.bag")
	want := decodeNumbers(t, runPeer(t, peerFacts, whole, part1, part2, defs))
	if iv := want["intervals"].([]any); len(iv) < 40 {
		t.Fatalf("the peer drew %d intervals, want a few dozen", len(iv))
	}
	for name, files := range map[string][]string{"whole": {whole}, "split": {part1, part2}} {
		t.Run(name, func(t *testing.T) {
			got := peerAnalyze(t, "facts", files...)
			w := map[string]any{"facts": want["facts"], "intervals": want["intervals"]}
			comparePeer(t, "facts", got, w)
		})
	}
}
