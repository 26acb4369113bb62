package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// pandasScript reads CSV files with pandas.read_csv (Debian python3-pandas,
// run with testenv.Python): one JSON job per stdin line, {"path", "kw":
// read_csv keyword arguments, "ints": columns read with an int converter},
// one JSON line per job on stdout. Cells are tagged with the Python type
// pandas gave them: "t<ns>" a Timestamp, "b<bool>", "i<int>", "f<repr>" a
// float (NaN included), "s<text>" a str, null NA/NaT/None.
const pandasScript = `
import json, sys
import numpy as np, pandas as pd

def cell(v):
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, pd.Timestamp):
        return "t%d" % v.value
    if isinstance(v, (bool, np.bool_)):
        return "b" + ("true" if v else "false")
    if isinstance(v, (int, np.integer)):
        return "i%d" % int(v)
    if isinstance(v, (float, np.floating)):
        return "f" + repr(float(v))
    if isinstance(v, str):
        return "s" + v
    return "?" + type(v).__name__

def toint(s):
    return pd.NA if s == "" else int(s)

for line in sys.stdin:
    job = json.loads(line)
    kw = job.get("kw") or {}
    if job.get("ints"):
        kw["converters"] = {c: toint for c in job["ints"]}
    try:
        df = pd.read_csv(job["path"], **kw)
        out = {"columns": [str(c) for c in df.columns],
               "dtypes": [str(t) for t in df.dtypes],
               "rows": [[cell(v) for v in row] for row in df.itertuples(index=False, name=None)]}
    except Exception as e:
        out = {"error": "%s: %s" % (type(e).__name__, e)}
    print(json.dumps(out), flush=True)
`

// pandasJob is one read_csv call.
type pandasJob struct {
	Path string         `json:"path"`
	Kw   map[string]any `json:"kw,omitempty"`
	Ints []string       `json:"ints,omitempty"`
}

// pandasResult is one file as pandasScript reads it.
type pandasResult struct {
	Columns []string
	DTypes  []string
	Rows    [][]*string
	Error   string
}

// pandas runs read_csv for each job.
func pandas(t *testing.T, jobs ...pandasJob) []pandasResult {
	t.Helper()
	testenv.RequirePeer(t, "pandas")
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, j := range jobs {
		if err := enc.Encode(j); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(testenv.Python, "-c", pandasScript)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pandas: %v\n%s", err, stderr.String())
	}
	var res []pandasResult
	d := json.NewDecoder(bytes.NewReader(out))
	for d.More() {
		var r pandasResult
		if err := d.Decode(&r); err != nil {
			t.Fatalf("pandas output: %v", err)
		}
		res = append(res, r)
	}
	if len(res) != len(jobs) {
		t.Fatalf("pandas: %d results for %d files\n%s", len(res), len(jobs), stderr.String())
	}
	return res
}

// csvWant is what one CSV cell holds: the value cat gives (v) of plan p,
// absent where the row has no such element (first:N past an array's end,
// the element columns of an empty exploded array); json marks an array
// written as one JSON cell.
type csvWant struct {
	p      *plan
	v      any
	absent bool
	json   bool
}

// csvRows lays out one message as cat gives it (msg) in the CSV columns of
// arrays mode a, as export's CSV writer does: structs spread over dot
// paths, arrays as JSON cells, first:N columns or exploded rows. It
// returns the column names and one map per CSV row.
func csvRows(p *plan, msg map[string]any, a Arrays) (names []string, rows []map[string]csvWant) {
	row := map[string]csvWant{}
	var elems []map[string]csvWant
	var empty map[string]csvWant // the element cells of an empty exploded array
	exploded := false
	var walk func(p *plan, name string, v any, absent, elem bool, into map[string]csvWant, cols *[]string)
	walk = func(p *plan, name string, v any, absent, elem bool, into map[string]csvWant, cols *[]string) {
		switch p.kind {
		case kSkip:
			return
		case kStruct:
			m, _ := v.(map[string]any)
			for _, f := range p.fields {
				walk(f, name+"."+f.name, m[f.name], absent || m == nil, elem, into, cols)
			}
			return
		case kList, kFixed:
			xs, _ := v.([]any)
			if a.Mode == ArraysExplode && !elem && name == a.Path {
				exploded = true
				index := &plan{kind: kInt}
				*cols = append(*cols, name+"._index")
				empty = map[string]csvWant{name + "._index": {p: index, absent: true}}
				walk(p.elem, name, nil, true, true, empty, cols)
				for j, x := range xs {
					e := map[string]csvWant{name + "._index": {p: index, v: json.Number(strconv.Itoa(j))}}
					walk(p.elem, name, x, false, true, e, new([]string))
					elems = append(elems, e)
				}
				return
			}
			if a.Mode == ArraysFirst {
				for k := 0; k < a.N; k++ {
					var x any
					if k < len(xs) {
						x = xs[k]
					}
					walk(p.elem, name+"."+strconv.Itoa(k), x, absent || k >= len(xs), elem, into, cols)
				}
				return
			}
			*cols = append(*cols, name)
			into[name] = csvWant{p: p, v: v, absent: absent, json: true}
			return
		}
		*cols = append(*cols, name)
		into[name] = csvWant{p: p, v: v, absent: absent}
	}
	for _, f := range p.fields {
		walk(f, f.name, msg[f.name], false, false, row, &names)
	}
	if !exploded {
		return names, []map[string]csvWant{row}
	}
	if len(elems) == 0 { // an empty exploded array: one row, element cells empty
		elems = []map[string]csvWant{empty}
	}
	for _, e := range elems {
		r := map[string]csvWant{}
		for k, v := range row {
			r[k] = v
		}
		for k, v := range e {
			r[k] = v
		}
		rows = append(rows, r)
	}
	return names, rows
}

// pdCatLeaf renders cat's scalar of plan p exactly (times in ns).
func pdCatLeaf(p *plan, v any) string {
	switch p.kind {
	case kTime, kDuration:
		m := v.(map[string]any)
		return strconv.FormatInt(num(m["sec"])*1e9+num(m["nsec"]), 10)
	case kStamp, kSpan:
		m := v.(map[string]any)
		return strconv.FormatInt(num(m["sec"])*1e9+num(m["nanosec"]), 10)
	case kBinary:
		return v.(string)
	case kFloat32, kFloat64:
		return floatText(p.kind, v)
	}
	return v.(json.Number).String()
}

// pdJSONLeaf renders a scalar of a CSV JSON cell as pdCatLeaf does.
func pdJSONLeaf(p *plan, v any) string {
	switch p.kind {
	case kTime, kStamp:
		if s, ok := v.(string); ok {
			tm, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return "bad time " + s
			}
			return strconv.FormatInt(tm.UnixNano(), 10)
		}
	case kBinary:
		return v.(string)
	case kFloat32, kFloat64:
		return floatText(p.kind, v)
	}
	return v.(json.Number).String()
}

// isText: pandas should read the column as text (dtype str).
func (w csvWant) isText() bool {
	return w.json || w.p.kind == kString || w.p.kind == kBinary
}

// isInt: the column holds integers (times too with --time-format ns).
func (w csvWant) isInt(ns bool) bool {
	switch w.p.kind {
	case kInt, kUint, kDuration, kSpan:
		return true
	case kTime, kStamp:
		return ns
	}
	return false
}

// pdMatch reports whether pandas' cell g is w: exact types and values
// (floats bit for bit, at float32 for float32 fields; NaN as any NaN).
func pdMatch(w csvWant, g *string, ns bool) bool {
	na := g == nil || *g == "fnan"
	if w.absent {
		return na || (w.isText() && *g == "s")
	}
	if g == nil {
		return false
	}
	switch {
	case w.json:
		if !strings.HasPrefix(*g, "s") {
			return false
		}
		d := json.NewDecoder(strings.NewReader((*g)[1:]))
		d.UseNumber()
		var x any
		if err := d.Decode(&x); err != nil {
			return false
		}
		return canon(w.p, x, pdJSONLeaf) == canon(w.p, w.v, pdCatLeaf)
	case w.p.kind == kString:
		return *g == "s"+w.v.(string)
	case w.p.kind == kBinary:
		return *g == "s"+w.v.(string)
	case w.p.kind == kBool:
		return *g == "b"+fmt.Sprint(w.v)
	case w.p.kind == kFloat32 || w.p.kind == kFloat64:
		if !strings.HasPrefix(*g, "f") {
			return false
		}
		f, err := strconv.ParseFloat((*g)[1:], 64)
		if err != nil {
			return false
		}
		want := catFloat(w.v)
		if w.p.kind == kFloat32 {
			return math.Float32bits(float32(f)) == math.Float32bits(float32(want)) || math.IsNaN(f) && math.IsNaN(want)
		}
		return math.Float64bits(f) == math.Float64bits(want) || math.IsNaN(f) && math.IsNaN(want)
	case w.p.kind == kTime || w.p.kind == kStamp:
		if ns {
			return *g == "i"+pdCatLeaf(w.p, w.v)
		}
		return *g == "t"+pdCatLeaf(w.p, w.v)
	}
	return *g == "i"+pdCatLeaf(w.p, w.v) // integers, durations
}

// catFloat is the float64 of a float cat prints.
func catFloat(v any) float64 {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			panic(err)
		}
		return f
	case string:
		return map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}[x]
	}
	panic(fmt.Sprintf("float %T", v))
}

// pandasNA are the cells pandas' read_csv reads as NaN by default.
var pandasNA = map[string]bool{"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true,
	"-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true, "NA": true, "NULL": true,
	"NaN": true, "n/a": true, "nan": true, "null": true}

// pdDefaultMiss names the documented way (README, "CSV has no types")
// pandas' defaults read w as g, or "" when that is not one of them.
// hasAbsent: the column has absent cells.
func pdDefaultMiss(w csvWant, g *string, ns, hasAbsent bool) string {
	na := g == nil || *g == "fnan"
	switch {
	case w.isText() && !w.absent:
		text := w.v.(string)
		if w.json {
			return "" // JSON cells start with [ and are read as text
		}
		switch {
		case na && pandasNA[text]:
			return "text read as NaN"
		case g != nil && (strings.HasPrefix(*g, "i") || strings.HasPrefix(*g, "f") || strings.HasPrefix(*g, "b")):
			return "text read as a number or bool"
		case g != nil && strings.Contains(text, "\x00") && *g == "s"+text[:strings.IndexByte(text, 0)]:
			return "text cut at NUL"
		}
	case w.isText() && w.absent:
		return ""
	case w.p.kind == kFloat64 && g != nil && strings.HasPrefix(*g, "f"):
		f, err := strconv.ParseFloat((*g)[1:], 64)
		want := catFloat(w.v)
		if err == nil && math.Signbit(f) == math.Signbit(want) && ulps(f, want) <= 3 {
			return "float a few ULPs off"
		}
	case w.isInt(ns) && hasAbsent && !w.absent:
		switch {
		case g != nil && strings.HasPrefix(*g, "s"):
			return "uint64 with absent cells read as text"
		case na || strings.HasPrefix(*g, "f"):
			return "integer with absent cells read as float"
		}
	case w.isInt(ns) && hasAbsent && w.absent && g != nil && *g == "s":
		return "uint64 with absent cells read as text"
	}
	return ""
}

// ulps is the distance of a and b (same sign, finite) in units in the last
// place.
func ulps(a, b float64) uint64 {
	x, y := math.Float64bits(math.Abs(a)), math.Float64bits(math.Abs(b))
	if x > y {
		return x - y
	}
	return y - x
}

// pdNUL allows only what pandas' C parser does to a string holding NUL: it
// ends the string there.
func pdNUL(w csvWant, g *string, _, _ bool) string {
	if w.isText() && !w.absent && !w.json && g != nil {
		text := w.v.(string)
		if strings.Contains(text, "\x00") && *g == "s"+text[:strings.IndexByte(text, 0)] {
			return "text cut at NUL"
		}
	}
	return ""
}

// pandasCheck is one CSV file and the rows it should hold.
type pandasCheck struct {
	name string
	path string
	cols []string
	rows []map[string]csvWant
	ns   bool // --time-format ns
}

// newPandasCheck lays out the messages c.cat exported with options opts
// (rows logged at logTime(i), read from in.bag).
func newPandasCheck(t *testing.T, c *nativeCase, dir string, a Arrays, ns bool, logTime func(int) int64) *pandasCheck {
	t.Helper()
	root, err := compilePlan(c.t)
	if err != nil {
		t.Fatal(err)
	}
	p, err := topicPath(c.topic)
	if err != nil {
		t.Fatal(err)
	}
	pc := &pandasCheck{name: c.name, path: filepath.Join(dir, p+".csv"), ns: ns}
	stamp := &plan{kind: kTime}
	for i, m := range c.cat {
		names, rows := csvRows(root.plan, m, a)
		if i == 0 {
			pc.cols = append([]string{root.meta[0], root.meta[1], root.meta[2], root.meta[3]}, names...)
		}
		for _, r := range rows {
			lt := logTime(i)
			r[root.meta[0]] = csvWant{p: stamp, v: map[string]any{"sec": json.Number(strconv.FormatInt(lt/1e9, 10)), "nsec": json.Number(strconv.FormatInt(lt%1e9, 10))}}
			r[root.meta[1]] = csvWant{p: stamp, v: map[string]any{"sec": json.Number(strconv.FormatInt(lt/1e9, 10)), "nsec": json.Number(strconv.FormatInt(lt%1e9+1, 10))}}
			r[root.meta[2]] = csvWant{p: &plan{kind: kUint}, v: json.Number(strconv.Itoa(i))}
			r[root.meta[3]] = csvWant{p: &plan{kind: kString}, v: "in.bag"}
			pc.rows = append(pc.rows, r)
		}
	}
	return pc
}

// jobs are the two reads of the file: pandas' defaults (with parse_dates,
// as a user reads times), and the arguments README gives for exact values.
func (pc *pandasCheck) jobs() (def, readme pandasJob) {
	var dates, text, ints []string
	na := map[string][]string{}
	for _, n := range pc.cols {
		w := pc.rows[0][n]
		absent := false
		for _, r := range pc.rows {
			absent = absent || r[n].absent
		}
		switch {
		case w.isText():
			text = append(text, n)
			continue
		case (w.p.kind == kTime || w.p.kind == kStamp) && !pc.ns:
			dates = append(dates, n)
		case w.isInt(pc.ns) && absent:
			ints = append(ints, n)
			continue
		}
		na[n] = []string{"", "NaN"}
	}
	def = pandasJob{Path: pc.path, Kw: map[string]any{"parse_dates": dates}}
	dtype := map[string]string{}
	for _, n := range text {
		dtype[n] = "str"
	}
	readme = pandasJob{Path: pc.path, Ints: ints, Kw: map[string]any{"parse_dates": dates, "dtype": dtype,
		"keep_default_na": false, "na_values": na, "float_precision": "round_trip"}}
	return def, readme
}

// check compares pandas' reading r (read_csv with how) with the rows:
// every cell must match, or differ in a way allow names (counted in seen).
func (pc *pandasCheck) check(t *testing.T, how string, r pandasResult, allow func(w csvWant, g *string, ns, hasAbsent bool) string, seen map[string]int) {
	t.Helper()
	if r.Error != "" {
		t.Errorf("%s: pandas (%s): %s", pc.name, how, r.Error)
		return
	}
	if strings.Join(r.Columns, ",") != strings.Join(pc.cols, ",") {
		t.Errorf("%s: pandas (%s) columns\n%v\nwant\n%v", pc.name, how, r.Columns, pc.cols)
		return
	}
	if len(r.Rows) != len(pc.rows) {
		t.Errorf("%s: pandas (%s) %d rows, want %d", pc.name, how, len(r.Rows), len(pc.rows))
		return
	}
	absent := map[string]bool{}
	for _, row := range pc.rows {
		for n, w := range row {
			absent[n] = absent[n] || w.absent
		}
	}
	bad := 0
	for i, row := range r.Rows {
		for k, g := range row {
			n := pc.cols[k]
			w := pc.rows[i][n]
			if pdMatch(w, g, pc.ns) {
				continue
			}
			if allow != nil {
				if why := allow(w, g, pc.ns, absent[n]); why != "" {
					seen[why]++
					continue
				}
			}
			if bad++; bad <= 5 {
				got := "NA"
				if g != nil {
					got = strconv.Quote(*g)
				}
				want := "absent"
				if !w.absent {
					want = fmt.Sprintf("%#v", w.v)
				}
				t.Errorf("%s: pandas (%s) row %d column %s (dtype %s): %s, cat %s", pc.name, how, i, n, r.DTypes[k], got, want)
			}
		}
	}
}

// tEdges holds what CSV readers guess wrong: integer extremes, NaN and
// infinities, -0, strings pandas takes for NaN, numbers or bools (code
// holds only such strings), quotes,
// CR and LF, emoji, NUL, byte arrays whose base64 reads as a number or NaN,
// times with nanoseconds and at the ends of their range, and arrays of each
// (empty in some messages).
const tEdgesText = "int64 i\nuint64 u\nint32 i32\nfloat64 f\nfloat32 g\nbool b\nstring s\nstring code\nuint8[] blob\ntime t\nduration d\n" +
	"int64[] is\nuint64[] us\nfloat64[] fs\nstring[] ss\ntime[] ts\nbool[] bs\n"

// edgeCase builds the messages of tEdges: encoded with ros1.Encode,
// decoded by the codec, and as cat prints them.
func edgeCase(t *testing.T) *nativeCase {
	t.Helper()
	typ, err := msgdef.FromSchema("v/Edges", "ros1msg", []byte(tEdgesText), msgdef.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	texts := []string{"NA", "", "007", "NaN", `say "hi", ok`, "a\r\nb\rc\nd", "emoji 🤖 ✓", "True", "1e5", "null",
		"None", "#N/A", "n/a", "-nan", " lead", "x\x00y", "\r", "nan", "-0", "１２"}
	codes := []string{"007", "1e5", "-0", "3.50", "+1", ""} // all read as numbers or NaN
	blobs := [][]byte{{}, b64("null"), b64("1234"), {0, 1, 2, 255}, b64("NULL"), b64("+Inf")}
	rng := rand.New(rand.NewSource(7))
	var msgs []*value.Struct
	for k, s := range texts {
		i := int64(k)
		u := uint64(k)
		f := rng.NormFloat64() * math.Pow(10, float64(rng.Intn(20)-10))
		g := float64(float32(rng.NormFloat64()))
		tm := value.Time{Sec: 1700000000 + i, Nsec: rng.Int63n(1e9)}
		d := value.Duration{Sec: i - 5, Nsec: rng.Int63n(1e9)}
		is := []any{i, -i * 1e15}
		us := []any{u, u << 40}
		fs := []any{f, 0.1 + 0.2}
		ss := []any{s, texts[(k+1)%len(texts)]}
		ts := []any{tm}
		bs := []any{k%2 == 0}
		switch k {
		case 0:
			i, u, f, g = math.MinInt64, math.MaxUint64, math.NaN(), math.Inf(-1)
			tm, d = value.Time{Sec: 0, Nsec: 1}, value.Duration{Sec: math.MinInt32}
			is, us = []any{int64(math.MinInt64), int64(1<<53 + 1), int64(-1)}, []any{uint64(math.MaxUint64), uint64(1 << 63), uint64(0)}
			fs = []any{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}
			ss = []any{"", "null", "None"}
			ts = []any{value.Time{Sec: math.MaxUint32, Nsec: 999999999}, value.Time{}}
		case 1:
			i, u, f, g = math.MaxInt64, 1<<63, math.Inf(1), math.Copysign(0, -1)
			tm, d = value.Time{Sec: math.MaxUint32, Nsec: 999999999}, value.Duration{Sec: math.MaxInt32, Nsec: 999999999}
			is, us, fs, ss, ts, bs = []any{}, []any{}, []any{}, []any{}, []any{}, []any{}
		case 2:
			i, u, f, g = 1<<53+1, 0, math.Copysign(0, -1), float64(math.SmallestNonzeroFloat32)
			tm = value.Time{Sec: 1700000000, Nsec: 123456789}
		case 3:
			f = 0.1 + 0.2
		}
		msgs = append(msgs, &value.Struct{Type: typ, Fields: []any{i, u, int64(int32(i)), f, g, k%3 == 0, s, codes[k%len(codes)],
			blobs[k%len(blobs)], tm, d, is, us, fs, ss, ts, bs}})
	}
	return ros1Case(t, "/edges", typ, tEdgesText, msgs)
}

// TestPandasReadsCSV exports the edge messages (tEdges) and a few random
// messages of every native type as CSV, in every layout (arrays as JSON,
// first:N, explode; times RFC 3339 or ns), and reads each
// file with pandas.read_csv twice. With the arguments README gives
// (parse_dates, dtype=str for text, keep_default_na=False with na_values
// for the other columns, an int converter for integer columns with absent
// cells, float_precision="round_trip") every cell must be cat's value, of
// the right type, bit for bit. With pandas' defaults (and parse_dates)
// every difference must be one README documents, and the edge messages
// must show each of them.
func TestPandasReadsCSV(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pandas")
	}
	testenv.RequirePeer(t, "pandas")
	edges := edgeCase(t)
	natives := nativeCases(t, 3)
	logTime := func(i int) int64 { return 1700000000e9 + int64(i)*1e9 + 123456789 }
	type layout struct {
		name  string
		cases []*nativeCase
		a     Arrays
		ns    bool
		opts  []Option
	}
	layouts := []layout{
		{"edges json", []*nativeCase{edges}, Arrays{}, false, nil},
		{"edges ns", []*nativeCase{edges}, Arrays{}, true, []Option{WithTimeFormat(TimeNs)}},
		{"edges first:3", []*nativeCase{edges}, Arrays{Mode: ArraysFirst, N: 3}, false, nil},
		{"edges first:3 ns", []*nativeCase{edges}, Arrays{Mode: ArraysFirst, N: 3}, true, []Option{WithTimeFormat(TimeNs)}},
		{"edges explode:is", []*nativeCase{edges}, Arrays{Mode: ArraysExplode, Path: "is"}, false, nil},
		{"edges explode:us", []*nativeCase{edges}, Arrays{Mode: ArraysExplode, Path: "us"}, false, nil},
		{"edges explode:ss", []*nativeCase{edges}, Arrays{Mode: ArraysExplode, Path: "ss"}, false, nil},
		{"native json", natives, Arrays{}, false, nil},
		{"native first:2", natives, Arrays{Mode: ArraysFirst, N: 2}, false, nil},
	}
	var checks []*pandasCheck
	var jobs []pandasJob
	for _, l := range layouts {
		opts := append([]Option{WithFormat(CSV), WithArrays(l.a)}, l.opts...)
		dir := exportCases(t, l.cases, logTime, opts...)
		for _, c := range l.cases {
			pc := newPandasCheck(t, c, dir, l.a, l.ns, logTime)
			pc.name = l.name + ": " + c.name
			def, readme := pc.jobs()
			checks = append(checks, pc)
			jobs = append(jobs, def, readme)
		}
	}
	res := pandas(t, jobs...)
	seen := map[string]int{}
	edgeSeen := map[string]int{}
	for i, pc := range checks {
		s := seen
		if strings.HasPrefix(pc.name, "edges") {
			s = edgeSeen
		}
		pc.check(t, "defaults", res[2*i], pdDefaultMiss, s)
		pc.check(t, "README's arguments", res[2*i+1], pdNUL, map[string]int{})
	}
	for why, n := range seen {
		edgeSeen[why] += 0
		t.Logf("pandas defaults, native types: %s: %d cells", why, n)
	}
	var whys []string
	for why := range edgeSeen {
		whys = append(whys, why)
	}
	sort.Strings(whys)
	for _, why := range whys {
		t.Logf("pandas defaults, edge messages: %s: %d cells", why, edgeSeen[why])
	}
	for _, why := range []string{"text read as NaN", "text read as a number or bool", "text cut at NUL", "float a few ULPs off",
		"integer with absent cells read as float", "uint64 with absent cells read as text"} {
		if edgeSeen[why] == 0 {
			t.Errorf("the edge messages do not show what README documents of pandas' defaults: %s", why)
		}
	}
	t.Logf("%d files read by pandas, twice", len(checks))
}
