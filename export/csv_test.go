package export

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

var (
	tPlacement = ty("test/Placement", sub("position", tPoint), fld("name", msgdef.String), arr(fld("tags", msgdef.String), -1))
	tScene     = ty("test/Scene", sub("header", tHeader), arr(sub("placements", tPlacement), -1),
		arr(fld("scores", msgdef.Float64), -1), fld("note", msgdef.String), arr(fld("blob", msgdef.Uint8), -1),
		fld("d", msgdef.Duration), sub("goal", tEmpty))
)

func placement(x float64, name string, tags ...string) *value.Struct {
	ts := make([]any, len(tags))
	for i, s := range tags {
		ts[i] = s
	}
	return &value.Struct{Type: tPlacement, Fields: []any{
		&value.Struct{Type: tPoint, Fields: []any{x, 2.5, math.Inf(-1)}}, name, ts}}
}

// scenes are two messages: three placements and none.
func scenes() []*value.Struct {
	return []*value.Struct{
		{Type: tScene, Fields: []any{
			&value.Struct{Type: tHeader, Fields: []any{uint64(1), value.Time{Sec: 1700000000, Nsec: 5}, "map"}},
			[]any{placement(1, "cup", "red", "small"), placement(math.NaN(), `say "hi", ok`), placement(-0.5, "two\nlines", "x")},
			[]any{0.25, math.Inf(1)},
			"note, with comma",
			[]byte{0, 1, 2, 255},
			value.Duration{Sec: -1, Nsec: 500},
			&value.Struct{Type: tEmpty},
		}},
		{Type: tScene, Fields: []any{
			&value.Struct{Type: tHeader, Fields: []any{uint64(2), value.Time{Sec: 1700000001}, ""}},
			[]any{}, []any{}, "", []byte{}, value.Duration{}, &value.Struct{Type: tEmpty},
		}},
	}
}

// exportCSV writes the scenes as CSV on topic /scene and returns the rows.
func exportCSV(t *testing.T, opts ...Option) (string, [][]string) {
	t.Helper()
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	e, err := New(dir, append([]Option{WithFormat(CSV), WithAllocator(mem)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	s := e.Source("a.bag")
	ch := &record.Channel{Topic: "/scene"}
	for i, v := range scenes() {
		if err := s.Write(&record.Message{Channel: ch, LogTime: 1700000000e9 + int64(i), PublishTime: 1700000000e9 + int64(i), Sequence: uint64(i), Source: "a.bag"}, tScene, emitter(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "scene.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := csv.NewReader(f)
	for _, o := range opts { // the delimiter the test chose
		var c config
		o(&c)
		if c.csvComma != 0 {
			rd.Comma = c.csvComma
		}
	}
	rows, err := rd.ReadAll() // also checks every row has the header's width
	if err != nil {
		t.Fatal(err)
	}
	return path, rows
}

// record maps a CSV row by header name.
func rowMap(rows [][]string, i int) map[string]string {
	m := map[string]string{}
	for k, name := range rows[0] {
		m[name] = rows[i][k]
	}
	return m
}

func TestCSVDefault(t *testing.T) {
	path, rows := exportCSV(t)
	wantHeader := "log_time,publish_time,sequence,source_file,header.seq,header.stamp,header.frame_id,placements,scores,note,blob,d"
	if h := strings.Join(rows[0], ","); h != wantHeader {
		t.Fatalf("header %s", h)
	}
	sc, _ := Schema(tScene)
	if h := strings.Join(CSVHeader(sc), ","); h != wantHeader {
		t.Errorf("CSVHeader %s", h)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rowMap(rows, 1)
	want := map[string]string{
		"log_time":     "2023-11-14T22:13:20Z",
		"header.stamp": "2023-11-14T22:13:20.000000005Z",
		"placements": `[{"position":{"x":1,"y":2.5,"z":"-Infinity"},"name":"cup","tags":["red","small"]},` +
			`{"position":{"x":"NaN","y":2.5,"z":"-Infinity"},"name":"say \"hi\", ok","tags":[]},` +
			`{"position":{"x":-0.5,"y":2.5,"z":"-Infinity"},"name":"two\nlines","tags":["x"]}]`,
		"scores": `[0.25,"Infinity"]`,
		"note":   "note, with comma",
		"blob":   "AAEC/w==",
		"d":      "-999999500",
	}
	for k, v := range want {
		if r[k] != v {
			t.Errorf("%s = %q, want %q", k, r[k], v)
		}
	}
	r = rowMap(rows, 2)
	if r["placements"] != "[]" || r["blob"] != "" || r["header.frame_id"] != "" || r["sequence"] != "1" {
		t.Errorf("empty row %v", r)
	}
	// DuckDB reads the file back with the same cells (RFC 4180 quoting).
	res := duckdb(t, "SELECT note, placements, \"header.stamp\" AS s FROM read_csv("+sqlString(path)+", header=true, all_varchar=true) ORDER BY sequence")
	if res[0].Error != "" {
		t.Fatal(res[0].Error)
	}
	if g := res[0].Rows[0]; g["note"] != want["note"] || g["placements"] != want["placements"] || g["s"] != want["header.stamp"] {
		t.Errorf("duckdb read %v", g)
	}
}

func TestCSVTimeNs(t *testing.T) {
	_, rows := exportCSV(t, WithTimeFormat(TimeNs), WithCSVDelimiter(';'))
	r := rowMap(rows, 1)
	if r["log_time"] != "1700000000000000000" || r["header.stamp"] != "1700000000000000005" {
		t.Errorf("times %q %q", r["log_time"], r["header.stamp"])
	}
}

func TestCSVExplode(t *testing.T) {
	_, rows := exportCSV(t, WithArrays(Arrays{Mode: ArraysExplode, Path: "placements"}))
	wantHeader := "log_time,publish_time,sequence,source_file,header.seq,header.stamp,header.frame_id," +
		"placements._index,placements.position.x,placements.position.y,placements.position.z,placements.name,placements.tags," +
		"scores,note,blob,d"
	if h := strings.Join(rows[0], ","); h != wantHeader {
		t.Fatalf("header %s", h)
	}
	if len(rows) != 1+3+1 {
		t.Fatalf("%d rows", len(rows))
	}
	var got []string
	for i := 1; i < len(rows); i++ {
		r := rowMap(rows, i)
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s|%s", r["sequence"], r["placements._index"], r["placements.position.x"], r["placements.name"], r["placements.tags"], r["note"]))
	}
	want := []string{
		`0|0|1.0|cup|["red","small"]|note, with comma`,
		`0|1|NaN|say "hi", ok|[]|note, with comma`,
		"0|2|-0.5|two\nlines|[\"x\"]|note, with comma",
		`1|||||`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := rowMap(rows, 3); r["placements.position.z"] != "-Inf" {
		t.Errorf("z %q", r["placements.position.z"])
	}
}

// TestCSVExplodeAlong: an array Along the exploded one gives its element
// k on the row of element k (empty where it is shorter), not a JSON cell;
// Along alone explodes nothing.
func TestCSVExplodeAlong(t *testing.T) {
	_, rows := exportCSV(t, WithArrays(Arrays{Mode: ArraysExplode, Path: "placements", Along: []string{"scores", "nothere"}}))
	wantHeader := "log_time,publish_time,sequence,source_file,header.seq,header.stamp,header.frame_id," +
		"placements._index,placements.position.x,placements.position.y,placements.position.z,placements.name,placements.tags," +
		"scores,note,blob,d"
	if h := strings.Join(rows[0], ","); h != wantHeader {
		t.Fatalf("header %s", h)
	}
	var got []string
	for i := 1; i < len(rows); i++ {
		r := rowMap(rows, i)
		got = append(got, fmt.Sprintf("%s|%s|%s|%s", r["sequence"], r["placements._index"], r["placements.name"], r["scores"]))
	}
	want := []string{`0|0|cup|0.25`, `0|1|say "hi", ok|Inf`, "0|2|two\nlines|", `1|||`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, rows = exportCSV(t, WithArrays(Arrays{Mode: ArraysExplode, Path: "nothere", Along: []string{"scores"}}))
	if len(rows) != 3 || rowMap(rows, 1)["scores"] != "[0.25,\"Infinity\"]" {
		t.Errorf("without the exploded array: %q", rows)
	}
}

func TestCSVFirstN(t *testing.T) {
	_, rows := exportCSV(t, WithArrays(Arrays{Mode: ArraysFirst, N: 2}))
	wantHeader := "log_time,publish_time,sequence,source_file,header.seq,header.stamp,header.frame_id," +
		"placements.0.position.x,placements.0.position.y,placements.0.position.z,placements.0.name,placements.0.tags.0,placements.0.tags.1," +
		"placements.1.position.x,placements.1.position.y,placements.1.position.z,placements.1.name,placements.1.tags.0,placements.1.tags.1," +
		"scores.0,scores.1,note,blob,d"
	if h := strings.Join(rows[0], ","); h != wantHeader {
		t.Fatalf("header %s", h)
	}
	r := rowMap(rows, 1)
	for k, v := range map[string]string{
		"placements.0.name": "cup", "placements.0.tags.1": "small", "placements.1.position.x": "NaN",
		"placements.1.tags.0": "", "scores.1": "Inf", "placements.1.name": `say "hi", ok`,
	} {
		if r[k] != v {
			t.Errorf("%s = %q, want %q", k, r[k], v)
		}
	}
	r = rowMap(rows, 2)
	if r["placements.0.name"] != "" || r["scores.0"] != "" || r["sequence"] != "1" {
		t.Errorf("empty row %v", r)
	}
}

// TestCSVHeaderStable: the header comes from the definition, so a topic
// whose first message has empty arrays still gets every column, in every
// file of the topic.
func TestCSVHeaderStable(t *testing.T) {
	sc, _ := Schema(tScene)
	a := CSVHeader(sc, WithArrays(Arrays{Mode: ArraysFirst, N: 3}))
	b := CSVHeader(sc, WithArrays(Arrays{Mode: ArraysFirst, N: 3}))
	if strings.Join(a, ",") != strings.Join(b, ",") || len(a) != 4+3+3*(3+1+3)+3+3 {
		t.Errorf("header %d columns: %v", len(a), a)
	}
	// Explode of a path the type lacks falls back to JSON cells.
	if h := CSVHeader(sc, WithArrays(Arrays{Mode: ArraysExplode, Path: "nothing"})); strings.Join(h, ",") != strings.Join(CSVHeader(sc), ",") {
		t.Errorf("fallback header %v", h)
	}
}

func TestParseOptions(t *testing.T) {
	for s, want := range map[string]Arrays{
		"json": {}, "explode:a.b": {Mode: ArraysExplode, Path: "a.b"}, "first:3": {Mode: ArraysFirst, N: 3},
	} {
		got, err := ParseArrays(s)
		if err != nil || !reflect.DeepEqual(got, want) || got.String() != s {
			t.Errorf("ParseArrays(%q) = %v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "explode:", "first:0", "first:x", "json2"} {
		if _, err := ParseArrays(bad); err == nil {
			t.Errorf("ParseArrays(%q) accepted", bad)
		}
	}
	for _, s := range []string{"zstd", "snappy", "lz4", "none"} {
		if c, err := ParseCompression(s); err != nil || c.String() != s {
			t.Errorf("compression %q: %v %v", s, c, err)
		}
	}
	if _, err := ParseCompression("gzip"); err == nil {
		t.Error("gzip accepted")
	}
	for _, s := range []string{"none", "source", "date"} {
		if p, err := ParsePartition(s); err != nil || p.String() != s {
			t.Errorf("partition %q: %v %v", s, p, err)
		}
	}
	for _, s := range []string{"parquet", "csv"} {
		if f, err := ParseFormat(s); err != nil || f.String() != s {
			t.Errorf("format %q: %v %v", s, f, err)
		}
	}
	for _, s := range []string{"rfc3339", "ns"} {
		if f, err := ParseTimeFormat(s); err != nil || f.String() != s {
			t.Errorf("time format %q: %v %v", s, f, err)
		}
	}
}

// TestCSVFloatsReadAsFloats: float columns read back as floats by readers
// that infer a CSV column's type from its first rows. Column x holds whole
// numbers for 100 rows and then 0.5 (written "0", "1", ... polars took x for
// i64 and failed at 0.5); y holds whole numbers only (DuckDB typed it
// BIGINT). The dtypes and values are polars' and DuckDB's own reads.
func TestCSVFloatsReadAsFloats(t *testing.T) {
	tFloats := ty("test/Floats", fld("x", msgdef.Float64), fld("y", msgdef.Float32))
	dir := t.TempDir()
	e, err := New(dir, WithFormat(CSV))
	if err != nil {
		t.Fatal(err)
	}
	s := e.Source("a.bag")
	ch := &record.Channel{Topic: "/floats"}
	const n = 101
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i % 3)
		if i == n-1 {
			xs[i] = 0.5
		}
		if i == 1 {
			xs[i] = math.Copysign(0, -1)
		}
		v := &value.Struct{Type: tFloats, Fields: []any{xs[i], float64(i)}}
		if err := s.Write(&record.Message{Channel: ch, LogTime: 1700000000e9 + int64(i), Sequence: uint64(i), Source: "a.bag"}, tFloats, emitter(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "floats.csv")

	pr := polars(t, path)[0]
	if pr.Error != "" {
		t.Fatalf("polars readCSV: %s", pr.Error)
	}
	if pr.DTypes["x"] != "f64" || pr.DTypes["y"] != "f64" {
		t.Errorf("polars dtypes x %s, y %s, want f64", pr.DTypes["x"], pr.DTypes["y"])
	}
	for i, r := range pr.Rows {
		x, err := strconv.ParseFloat(fmt.Sprint(r["x"]), 64)
		if err != nil || x != xs[i] || math.Signbit(x) != math.Signbit(xs[i]) || fmt.Sprint(r["y"]) != fmt.Sprintf("%d.0", i) {
			t.Errorf("polars row %d: x %v y %v, want %v %d", i, r["x"], r["y"], xs[i], i)
		}
	}

	res := duckdb(t, "SELECT DISTINCT typeof(x) AS tx, typeof(y) AS ty FROM read_csv_auto("+sqlString(path)+")",
		"SELECT count(*) AS n, sum(x) AS sx, sum(y) AS sy FROM read_csv_auto("+sqlString(path)+")")
	if res[0].Error != "" || res[1].Error != "" {
		t.Fatalf("duckdb: %s %s", res[0].Error, res[1].Error)
	}
	if len(res[0].Rows) != 1 || res[0].Rows[0]["tx"] != "DOUBLE" || res[0].Rows[0]["ty"] != "DOUBLE" {
		t.Errorf("duckdb types %v, want DOUBLE", res[0].Rows)
	}
	if g := fmt.Sprint(res[1].Rows[0]["n"], " ", res[1].Rows[0]["sx"], " ", res[1].Rows[0]["sy"]); g != "101 98.5 5050" {
		t.Errorf("duckdb count, sums %s, want 101 98.5 5050", g)
	}
}
