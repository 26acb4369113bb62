package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// duckResult is one statement's result from testdata/duckdb/query.mjs.
type duckResult struct {
	Columns []struct{ Name, Type string }
	Rows    []map[string]any
	Error   string
}

// duckdb runs statements with DuckDB (npm @duckdb/node-api), the
// independent Parquet reader of these tests.
func duckdb(t *testing.T, statements ...string) []duckResult {
	t.Helper()
	testenv.RequirePeer(t, "duckdb")
	return nodeLines[duckResult](t, "duckdb", filepath.Join("duckdb", "query.mjs"), statements, "-")
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// nativeCase is one native message type with encoded random messages.
type nativeCase struct {
	name  string
	topic string
	t     *msgdef.Type
	ch    *record.Channel
	dec   Decoder
	data  [][]byte
	cat   []map[string]any // the messages as baglab cat renders them
}

// nativeCases builds n messages of every type of msgdef.Default(): ROS1
// types through their genmsg full text, ros1.Encode and ros1 decoding, ROS2
// types through cdr.Encode and cdr decoding.
func nativeCases(t *testing.T, n int) []*nativeCase {
	reg := msgdef.Default()
	var cases []*nativeCase
	for _, name := range reg.Names() {
		typ, err := reg.Lookup(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := &nativeCase{name: name, topic: "/native/" + strings.ReplaceAll(name, "/", "__")}
		var encode func(*value.Struct) ([]byte, error)
		if typ.Dialect == msgdef.ROS1 {
			full := msgdef.FullText(typ)
			if typ, err = msgdef.FromSchema(name, "ros1msg", []byte(full), msgdef.NewRegistry()); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			d, err := ros1.Compile(typ)
			if err != nil {
				t.Fatal(err)
			}
			c.dec = d
			c.ch = &record.Channel{Topic: c.topic, MessageEncoding: "ros1",
				Schema: &record.Schema{Name: name, Encoding: "ros1msg", Data: []byte(full), MD5: msgdef.MD5(typ)}}
			encode = ros1.Encode
		} else {
			d, err := cdr.Compile(typ)
			if err != nil {
				t.Fatal(err)
			}
			c.dec = d
			c.ch = &record.Channel{Topic: c.topic, MessageEncoding: "cdr",
				Schema: &record.Schema{Name: name, Encoding: "ros2msg", Data: []byte(typ.Text)}}
			encode = func(v *value.Struct) ([]byte, error) { return cdr.Encode(v, false) }
		}
		c.t = typ
		h := fnv.New64a()
		h.Write([]byte(name))
		rng := rand.New(rand.NewSource(int64(h.Sum64())))
		for i := 0; i < n; i++ {
			b, err := encode(randValue(rng, typ))
			if err != nil {
				t.Fatalf("%s: encode: %v", name, err)
			}
			c.add(t, b)
		}
		cases = append(cases, c)
	}
	return cases
}

// add appends the encoded message b to c, with what cat prints of it (the
// JSON c.dec writes).
func (c *nativeCase) add(t *testing.T, b []byte) {
	t.Helper()
	c.data = append(c.data, b)
	jw := sink.NewJSONWriter()
	if err := c.dec.Decode(b, jw); err != nil {
		t.Fatalf("%s: decode: %v", c.name, err)
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(jw.JSON()))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%s: cat JSON: %v", c.name, err)
	}
	c.cat = append(c.cat, m)
}

// ros1Case is the case of the ROS1 type typ, whose definition is text, on
// topic, holding msgs.
func ros1Case(t *testing.T, topic string, typ *msgdef.Type, text string, msgs []*value.Struct) *nativeCase {
	t.Helper()
	dec, err := ros1.Compile(typ)
	if err != nil {
		t.Fatal(err)
	}
	c := &nativeCase{name: typ.Name, topic: topic, t: typ, dec: dec,
		ch: &record.Channel{Topic: topic, MessageEncoding: "ros1",
			Schema: &record.Schema{Name: typ.Name, Encoding: "ros1msg", Data: []byte(text), MD5: msgdef.MD5(typ)}}}
	for _, m := range msgs {
		b, err := ros1.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		c.add(t, b)
	}
	return c
}

// exportCases exports the messages of cases, message i of each at
// logTime(i), from one source "in.bag" into a new folder, with opts (and
// WithVersion("test")).
func exportCases(t *testing.T, cases []*nativeCase, logTime func(int) int64, opts ...Option) string {
	t.Helper()
	dir := t.TempDir()
	e, err := New(dir, append([]Option{WithVersion("test")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	s := e.Source("in.bag")
	for _, c := range cases {
		for i := range c.data {
			if err := s.Write(c.message(i, logTime(i), "in.bag"), c.t, c.dec); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// message returns message i of c, logged at logTime in file src.
func (c *nativeCase) message(i int, logTime int64, src string) *record.Message {
	return &record.Message{Channel: c.ch, LogTime: logTime, PublishTime: logTime + 1, Sequence: uint64(i), Source: src, Offset: -1, Data: c.data[i]}
}

// duckType is the DuckDB type name our Parquet should read as for p.
func duckType(p *plan) string {
	switch p.kind {
	case kBool:
		return "BOOLEAN"
	case kInt, kUint:
		names := map[string]string{"int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER", "int64": "BIGINT",
			"uint8": "UTINYINT", "uint16": "USMALLINT", "uint32": "UINTEGER", "uint64": "UBIGINT"}
		return names[p.typ.String()]
	case kFloat32:
		return "FLOAT"
	case kFloat64:
		return "DOUBLE"
	case kString:
		return "VARCHAR"
	case kBinary:
		return "BLOB"
	case kTime, kStamp:
		return "TIMESTAMP WITH TIME ZONE"
	case kDuration, kSpan:
		return "BIGINT"
	case kList, kFixed:
		return duckType(p.elem) + "[]"
	case kStruct:
		var parts []string
		for _, f := range p.fields {
			if f.kind != kSkip {
				parts = append(parts, strconv.Quote(f.name)+" "+duckType(f))
			}
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	}
	return "?"
}

// canon renders a value of plan p in the canonical text every reader's
// values are compared in: lists and structs are walked here, strings and
// bools read the same from every reader, and leaf renders the rest of one
// reader's scalars.
func canon(p *plan, v any, leaf func(*plan, any) string) string {
	switch p.kind {
	case kList, kFixed:
		xs := v.([]any)
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = canon(p.elem, x, leaf)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case kStruct:
		m := v.(map[string]any)
		var parts []string
		for _, f := range p.fields {
			if f.kind != kSkip {
				parts = append(parts, f.name+":"+canon(f, m[f.name], leaf))
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	case kString:
		return strconv.Quote(v.(string))
	case kBool:
		return fmt.Sprint(v)
	}
	return leaf(p, v)
}

// normCat renders a value of plan p as baglab cat gives it in the
// canonical text DuckDB values are also rendered in (times in µs, the
// precision DuckDB keeps).
func normCat(p *plan, v any) string { return canon(p, v, catLeaf) }

func catLeaf(p *plan, v any) string {
	switch p.kind {
	case kTime, kDuration:
		m := v.(map[string]any)
		ns := num(m["sec"])*1e9 + num(m["nsec"])
		return timeText(p.kind == kTime, ns)
	case kStamp, kSpan:
		m := v.(map[string]any)
		ns := num(m["sec"])*1e9 + num(m["nanosec"])
		return timeText(p.kind == kStamp, ns)
	case kBinary:
		b, err := base64.StdEncoding.DecodeString(v.(string))
		if err != nil {
			panic(err)
		}
		return fmt.Sprintf("b%x", b)
	case kFloat32, kFloat64:
		return floatText(p.kind, v)
	}
	return v.(json.Number).String()
}

// normDuck renders a DuckDB JSON value of plan p canonically.
func normDuck(p *plan, v any) string { return canon(p, v, duckLeaf) }

func duckLeaf(p *plan, v any) string {
	switch p.kind {
	case kTime, kStamp:
		tm, err := time.Parse("2006-01-02 15:04:05.999999-07", v.(string))
		if err != nil {
			panic(err)
		}
		return "t" + strconv.FormatInt(tm.UnixMicro(), 10)
	case kDuration, kSpan:
		return timeText(false, num(v))
	case kBinary:
		return fmt.Sprintf("b%x", duckBlob(v.(string)))
	case kFloat32, kFloat64:
		return floatText(p.kind, v)
	}
	return fmt.Sprint(v)
}

func num(v any) int64 {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.ParseInt(x.String(), 10, 64)
		if err != nil {
			panic(err)
		}
		return n
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			panic(err)
		}
		return n
	}
	panic(fmt.Sprintf("num %T", v))
}

// timeText renders a timestamp at DuckDB's µs precision, or a duration.
func timeText(stamp bool, ns int64) string {
	if stamp {
		return "t" + strconv.FormatInt(ns/1000, 10) // DuckDB truncates to µs
	}
	return "d" + strconv.FormatInt(ns, 10)
}

func floatText(k kind, v any) string {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(x.String(), 64); err != nil {
			panic(err)
		}
	case string:
		f = map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}[x]
	}
	if k == kFloat32 {
		f = float64(float32(f))
	}
	if math.IsNaN(f) {
		return "NaN"
	}
	if f == 0 {
		return "0" // JSON.stringify writes -0 as 0
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// duckBlob undoes DuckDB's blob-to-text escaping (\xHH for bytes outside
// printable ASCII, and for \ ' ").
func duckBlob(s string) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s)+0 && s[i+1] == 'x' {
			b, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
			if err != nil {
				panic(err)
			}
			out = append(out, byte(b))
			i += 3
			continue
		}
		out = append(out, s[i])
	}
	return out
}

// checkNative compares DuckDB's reading of one dataset with cat's JSON of
// the messages, in order; extra names the partition columns expected.
func checkNative(t *testing.T, c *nativeCase, res duckResult, extra map[string]func(row int) string) {
	t.Helper()
	if res.Error != "" {
		t.Fatalf("%s: duckdb: %s", c.name, res.Error)
	}
	root, err := compilePlan(c.t)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(c.cat) {
		t.Fatalf("%s: %d rows, want %d", c.name, len(res.Rows), len(c.cat))
	}
	want := []string{"log_time TIMESTAMP WITH TIME ZONE", "publish_time TIMESTAMP WITH TIME ZONE", "sequence UBIGINT", "source_file VARCHAR"}
	for i := range want {
		want[i] = strings.Replace(want[i], strings.Fields(want[i])[0], root.meta[i], 1)
	}
	for _, f := range root.plan.fields {
		if f.kind != kSkip {
			want = append(want, f.name+" "+duckType(f))
		}
	}
	for _, k := range sortedKeys(extra) {
		want = append(want, k+" VARCHAR")
	}
	var got []string
	for _, col := range res.Columns {
		got = append(got, col.Name+" "+col.Type)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s: columns\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, row := range res.Rows {
		if num(row[root.meta[2]]) != int64(i) {
			t.Fatalf("%s: row %d has sequence %v", c.name, i, row[root.meta[2]])
		}
		for _, f := range root.plan.fields {
			if f.kind == kSkip {
				continue
			}
			w, g := normCat(f, c.cat[i][f.name]), normDuck(f, row[f.name])
			if w != g {
				t.Fatalf("%s: row %d field %s:\nduckdb %s\n   cat %s", c.name, i, f.name, g, w)
			}
		}
		for k, fn := range extra {
			if g := fmt.Sprint(row[k]); g != fn(i) {
				t.Fatalf("%s: row %d partition %s=%s, want %s", c.name, i, k, g, fn(i))
			}
		}
	}
}

// TestDuckDBNativeTypes exports random messages of every native type,
// encoded with the ROS1 and CDR encoders and decoded by the codecs, and
// reads the Parquet back with DuckDB: row counts, column types and every
// value must match what baglab cat prints for the same bytes.
func TestDuckDBNativeTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs DuckDB")
	}
	cases := nativeCases(t, 4)
	dir := exportCases(t, cases, func(i int) int64 { return 1700000000e9 + int64(i)*1e9 })
	var stmts []string
	for _, c := range cases {
		p, err := topicPath(c.topic)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, "SELECT * FROM read_parquet("+sqlString(filepath.Join(dir, p+".parquet"))+") ORDER BY "+"3")
	}
	res := duckdb(t, stmts...)
	for i, c := range cases {
		checkNative(t, c, res[i], nil)
	}
	t.Logf("%d native types checked", len(cases))
}

// TestDuckDBPartitions exports the native types from two inputs spanning
// two days, partitioned by date and by source, and reads each topic's
// folder with DuckDB's hive_partitioning.
func TestDuckDBPartitions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs DuckDB")
	}
	// A sample of the types (partitioning does not depend on them): every
	// eighth, plus one with a field named like a partition key.
	var cases []*nativeCase
	for i, c := range nativeCases(t, 4) {
		if i%8 == 0 || c.name == "sensor_msgs/TimeReference" || c.name == "std_msgs/Header" {
			cases = append(cases, c)
		}
	}
	day := int64(86400e9)
	start := int64(1700006400e9) // 2023-11-15T00:00:00Z
	for _, part := range []Partition{PartitionDate, PartitionSource} {
		t.Run(part.String(), func(t *testing.T) {
			dir := t.TempDir()
			e, err := New(dir, WithPartitionBy(part))
			if err != nil {
				t.Fatal(err)
			}
			srcs := []string{"runs/first.bag", "runs/second.mcap"}
			// messages 0,1 from the first input (day 1), 2,3 from the second (day 1, day 2)
			times := []int64{start + 10e9, start + 20e9, start + day - 1, start + day}
			for k, src := range srcs {
				s := e.Source(src)
				for _, c := range cases {
					for i := 2 * k; i < 2*k+2; i++ {
						if err := s.Write(c.message(i, times[i], src), c.t, c.dec); err != nil {
							t.Fatal(err)
						}
					}
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			var stmts []string
			for _, c := range cases {
				sc, err := Schema(c.t)
				if err != nil {
					t.Fatal(err)
				}
				glob := filepath.Join(dir, hiveKey(sc, "topic")+"="+hiveValue(c.topic), "*", "*.parquet")
				stmts = append(stmts, "SELECT * FROM read_parquet("+sqlString(glob)+", hive_partitioning=true, hive_types_autocast=false) ORDER BY 3")
			}
			res := duckdb(t, stmts...)
			for i, c := range cases {
				sc, _ := Schema(c.t)
				extra := map[string]func(int) string{hiveKey(sc, "topic"): func(int) string { return c.topic }}
				if part == PartitionDate {
					extra[hiveKey(sc, "date")] = func(row int) string { return time.Unix(0, times[row]).UTC().Format("2006-01-02") }
				} else {
					extra[hiveKey(sc, "source")] = func(row int) string { return filepath.Base(srcs[row/2]) }
				}
				checkNative(t, c, res[i], extra)
			}
			if part == PartitionDate {
				// Input 1 spans midnight: two part files named after it.
				for _, d := range []string{"2023-11-15", "2023-11-16"} {
					p := filepath.Join(dir, "topic=%2Fnative%2Fstd_msgs__Header", "date="+d, "part-1.parquet")
					if _, err := os.Stat(p); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}
