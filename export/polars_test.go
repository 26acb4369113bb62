package export

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// polarsResult is one file as testdata/polars/read.cjs reads it.
type polarsResult struct {
	DTypes map[string]string
	Rows   []map[string]any
	Error  string
}

// polars reads Parquet files with polars (npm nodejs-polars), the second
// independent Parquet reader of these tests.
func polars(t *testing.T, paths ...string) []polarsResult {
	t.Helper()
	testenv.RequirePeer(t, "polars")
	return nodeLines[polarsResult](t, "polars", filepath.Join("polars", "read.cjs"), paths)
}

// polarsType is the polars dtype (as polars prints it) our Parquet should
// read as for p: Datetime(ns, UTC) for times, Duration(ns) for durations,
// Struct, List, Array (fixed-size lists), Binary, String (dictionary-encoded
// strings read as String).
func polarsType(p *plan) string {
	switch p.kind {
	case kBool:
		return "bool"
	case kInt, kUint:
		s := p.typ.String() // int8 … uint64
		return strings.Replace(strings.Replace(s, "uint", "u", 1), "int", "i", 1)
	case kFloat32:
		return "f32"
	case kFloat64:
		return "f64"
	case kString:
		return "str"
	case kBinary:
		return "binary"
	case kTime, kStamp:
		return "datetime[ns, UTC]"
	case kDuration, kSpan:
		return "duration[ns]"
	case kList:
		return "list[" + polarsType(p.elem) + "]"
	case kFixed:
		return "array[" + polarsType(p.elem) + ", " + strconv.Itoa(p.n) + "]"
	case kStruct:
		var parts []string
		for _, f := range p.fields {
			if f.kind != kSkip {
				parts = append(parts, f.name+": "+polarsType(f))
			}
		}
		return "struct{" + strings.Join(parts, ", ") + "}"
	}
	return "?"
}

// normPolars renders a polars value of plan p (as read.cjs gives it) in the
// canonical text of normCat and normDuck.
func normPolars(p *plan, v any) string { return canon(p, v, polarsLeaf) }

func polarsLeaf(p *plan, v any) string {
	switch p.kind {
	case kTime, kStamp:
		return timeText(true, num(v))
	case kDuration, kSpan:
		return timeText(false, num(v))
	case kBinary:
		xs := v.([]any)
		b := make([]byte, len(xs))
		for i, x := range xs {
			b[i] = byte(num(x))
		}
		return fmt.Sprintf("b%x", b)
	case kFloat32, kFloat64:
		s := v.(string)
		switch s {
		case "inf":
			s = "Infinity"
		case "-inf":
			s = "-Infinity"
		case "NaN":
		default:
			return floatText(p.kind, json.Number(s))
		}
		return floatText(p.kind, s)
	}
	return v.(json.Number).String()
}

// TestPolarsNativeTypes exports a few messages of every native type and
// reads the files with polars and DuckDB: polars must see the documented
// dtypes (Datetime(ns, UTC), Duration(ns), Struct, List, Array, Binary,
// String), exact nanosecond log times, and in every field the value cat
// prints and DuckDB reads.
func TestPolarsNativeTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs polars and DuckDB")
	}
	cases := nativeCases(t, 3)
	logTime := func(i int) int64 { return 1700000000e9 + int64(i)*1e9 + 123456789 }
	dir := exportCases(t, cases, logTime)
	var paths, stmts []string
	for _, c := range cases {
		p, err := topicPath(c.topic)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, p+".parquet")
		paths = append(paths, path)
		stmts = append(stmts, "SELECT * FROM read_parquet("+sqlString(path)+") ORDER BY 3")
	}
	pres, dres := polars(t, paths...), duckdb(t, stmts...)
	kinds := map[string]bool{}
	for i, c := range cases {
		checkPolars(t, c, pres[i], dres[i], logTime, kinds)
	}
	for _, k := range []string{"datetime[", "duration[", "struct{", "list[", "array[", "binary", "str"} {
		if !kinds[k] {
			t.Errorf("no column of polars dtype %s among the native types", k)
		}
	}
	t.Logf("%d native types read by polars", len(cases))
}

// checkPolars compares polars' reading of one dataset with the expected
// dtypes, with cat's JSON of the messages and with DuckDB's reading.
func checkPolars(t *testing.T, c *nativeCase, pr polarsResult, dr duckResult, logTime func(int) int64, kinds map[string]bool) {
	t.Helper()
	if pr.Error != "" {
		t.Fatalf("%s: polars: %s", c.name, pr.Error)
	}
	if dr.Error != "" {
		t.Fatalf("%s: duckdb: %s", c.name, dr.Error)
	}
	root, err := compilePlan(c.t)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{root.meta[0]: "datetime[ns, UTC]", root.meta[1]: "datetime[ns, UTC]", root.meta[2]: "u64", root.meta[3]: "str"}
	for _, f := range root.plan.fields {
		if f.kind != kSkip {
			want[f.name] = polarsType(f)
		}
	}
	if len(pr.DTypes) != len(want) {
		t.Errorf("%s: polars sees %d columns, want %d: %v", c.name, len(pr.DTypes), len(want), pr.DTypes)
	}
	for name, w := range want {
		if g := pr.DTypes[name]; g != w {
			t.Errorf("%s: column %s: polars dtype %s, want %s", c.name, name, g, w)
		}
		for _, k := range []string{"datetime[", "duration[", "struct{", "list[", "array[", "binary", "str"} {
			if strings.Contains(w, k) {
				kinds[k] = true
			}
		}
	}
	if len(pr.Rows) != len(c.cat) || len(dr.Rows) != len(c.cat) {
		t.Fatalf("%s: polars %d rows, duckdb %d, want %d", c.name, len(pr.Rows), len(dr.Rows), len(c.cat))
	}
	for i, row := range pr.Rows {
		if g := num(row[root.meta[0]]); g != logTime(i) {
			t.Errorf("%s: row %d: log_time %d ns, want %d", c.name, i, g, logTime(i))
		}
		if g := num(row[root.meta[2]]); g != int64(i) {
			t.Fatalf("%s: row %d has sequence %d", c.name, i, g)
		}
		for _, f := range root.plan.fields {
			if f.kind == kSkip {
				continue
			}
			p, w, d := normPolars(f, row[f.name]), normCat(f, c.cat[i][f.name]), normDuck(f, dr.Rows[i][f.name])
			if p != w || p != d {
				t.Fatalf("%s: row %d field %s:\npolars %s\n   cat %s\nduckdb %s", c.name, i, f.name, p, w, d)
			}
		}
	}
}

// TestPolarsFixedArrayOfMessagesWithEmptyArrays exports T[N] arrays of a
// message that holds a variable-length array, some of them empty, at the
// top, inside a message and inside a list, and reads them with polars and
// DuckDB: both must read every row as cat prints it. polars takes the
// nesting levels from the stored Arrow schema, and it panicked ("assertion
// failed: start + length <= self.bytes.len()") while that schema called
// such a fixed-size list non-nullable and Parquet stored it as optional.
func TestPolarsFixedArrayOfMessagesWithEmptyArrays(t *testing.T) {
	if testing.Short() {
		t.Skip("runs polars and DuckDB")
	}
	const full = "v/I[2] a\nv/W w\nv/W[] ws\nfloat64[3] plain\n" +
		"================================================================================\nMSG: v/I\nfloat64[] v\nstring s\n" +
		"================================================================================\nMSG: v/W\nv/I[2] b\n"
	typ, err := msgdef.FromSchema("v/Top", "ros1msg", []byte(full), msgdef.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	it, wt := typ.Fields[0].Msg, typ.Fields[1].Msg
	item := func(vs ...float64) *value.Struct {
		v := []any{}
		for _, x := range vs {
			v = append(v, x)
		}
		return &value.Struct{Type: it, Fields: []any{v, fmt.Sprint(vs)}}
	}
	w := func(a, b *value.Struct) *value.Struct { return &value.Struct{Type: wt, Fields: []any{[]any{a, b}}} }
	msgs := []*value.Struct{
		{Type: typ, Fields: []any{[]any{item(), item(1.5)}, w(item(2), item()), []any{w(item(), item())}, []any{1.0, 2.0, 3.0}}},
		{Type: typ, Fields: []any{[]any{item(4, 5), item()}, w(item(), item(6)), []any{}, []any{4.0, 5.0, 6.0}}},
		{Type: typ, Fields: []any{[]any{item(), item()}, w(item(), item()), []any{w(item(7), item()), w(item(), item(8, 9))}, []any{7.0, 8.0, 9.0}}},
	}
	c := ros1Case(t, "/fixed_of_lists", typ, full, msgs)
	logTime := func(i int) int64 { return 1700000000e9 + int64(i)*1e9 }
	dir := exportCases(t, []*nativeCase{c}, logTime)
	path := filepath.Join(dir, "fixed_of_lists.parquet")
	pres, dres := polars(t, path), duckdb(t, "SELECT * FROM read_parquet("+sqlString(path)+") ORDER BY 3")
	checkPolars(t, c, pres[0], dres[0], logTime, map[string]bool{})
}
