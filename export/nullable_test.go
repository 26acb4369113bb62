package export

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// nullablePoint is geometry_msgs/Point with its numbers marked Nullable,
// as analysis/tf's Framer marks the in_<frame> values.
var nullablePoint = func() *msgdef.Type {
	t := ty("geometry_msgs/Point", fld("x", msgdef.Float64), fld("y", msgdef.Float64), fld("z", msgdef.Float64))
	for i := range t.Fields {
		t.Fields[i].Nullable = true
	}
	return t
}()

// tNullable has nullable numbers alone, in a message and in an array of
// messages, beside a non-nullable one.
var tNullable = ty("x/N", fld("id", msgdef.Int32), sub("p", nullablePoint), arr(sub("ps", nullablePoint), -1))

// nullRow is one row of tNullable: nil for a null number.
type nullRow struct {
	p  [3]*float64
	ps [][3]*float64
}

func fnum(v float64) *float64 { return &v }

// decoder emits r, with Null for each nil.
func (r nullRow) decoder(id int64) Decoder {
	return DecoderFunc(func(_ []byte, s sink.Sink) error {
		pt := func(f *msgdef.Field, v [3]*float64) {
			s.BeginStruct(f)
			for i, x := range v {
				if x == nil {
					s.(sink.Nuller).Null(&nullablePoint.Fields[i])
				} else {
					s.Float(&nullablePoint.Fields[i], *x)
				}
			}
			s.EndStruct()
		}
		s.BeginMessage(tNullable)
		s.Int(&tNullable.Fields[0], id)
		pt(&tNullable.Fields[1], r.p)
		s.BeginArray(&tNullable.Fields[2], len(r.ps))
		for _, v := range r.ps {
			pt(&tNullable.Fields[2], v)
		}
		s.EndArray()
		s.EndMessage()
		return nil
	})
}

var nullRows = []nullRow{
	{p: [3]*float64{fnum(1), nil, fnum(3)}, ps: [][3]*float64{{nil, nil, nil}, {fnum(4), fnum(5), fnum(6)}}},
	{p: [3]*float64{nil, nil, nil}},
	{p: [3]*float64{fnum(7), fnum(8), fnum(9)}, ps: [][3]*float64{{fnum(1), fnum(2), fnum(3)}, {nil, nil, nil}, {nil, fnum(0), nil}}},
}

// TestNullableFields: fields marked Nullable get nullable columns, and a
// Null leaves a null there: an empty CSV cell (null inside a JSON cell),
// a null in Parquet as DuckDB and polars read it (IS NULL, not NaN); a Null for
// a field not marked is a bad message, with no row.
func TestNullableFields(t *testing.T) {
	sc, err := Schema(tNullable)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Field(5).String(); got != "p: type=struct<x: float64 nullable, y: float64 nullable, z: float64 nullable>" {
		t.Errorf("schema: %s", got)
	}
	if sc.Field(4).Nullable || sc.Field(5).Nullable {
		t.Errorf("id and p nullable: %s", sc)
	}
	dir := t.TempDir()
	for _, format := range []Format{Parquet, CSV} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		out := filepath.Join(dir, format.String())
		e, err := New(out, WithFormat(format), WithAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		s := e.Source("a.bag")
		ch := &record.Channel{Topic: "/n"}
		for i, r := range nullRows {
			if err := s.Write(&record.Message{Channel: ch, LogTime: int64(i), Sequence: uint64(i), Source: "a.bag"}, tNullable, r.decoder(int64(i))); err != nil {
				t.Fatal(err)
			}
		}
		// a Null where the type has no nullable field
		bad := DecoderFunc(func(_ []byte, s sink.Sink) error {
			s.BeginMessage(tNullable)
			s.(sink.Nuller).Null(&tNullable.Fields[0])
			return nil
		})
		if err := s.Write(&record.Message{Channel: ch, Source: "a.bag"}, tNullable, bad); err == nil || !strings.Contains(err.Error(), "null where int32") {
			t.Errorf("%s: Null for id: %v", format, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		mem.AssertSize(t, 0)
	}

	f, err := os.Open(filepath.Join(dir, "csv", "n.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 1; i < len(rows); i++ {
		r := rowMap(rows, i)
		got = append(got, strings.Join([]string{r["id"], r["p.x"], r["p.y"], r["p.z"], r["ps"]}, "|"))
	}
	want := []string{
		`0|1.0||3.0|[{"x":null,"y":null,"z":null},{"x":4,"y":5,"z":6}]`,
		`1||||[]`,
		`2|7.0|8.0|9.0|[{"x":1,"y":2,"z":3},{"x":null,"y":null,"z":null},{"x":null,"y":0,"z":null}]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("CSV rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	res := duckdb(t, "SELECT id, p.x AS x, p.y IS NULL AS ynull, isnan(p.y) AS ynan, "+
		"[e.x FOR e IN ps] AS psx, [e.y IS NULL FOR e IN ps] AS psynull FROM read_parquet("+sqlString(filepath.Join(dir, "parquet", "n.parquet"))+") ORDER BY id")
	if res[0].Error != "" {
		t.Fatal(res[0].Error)
	}
	js, _ := json.Marshal(res[0].Rows)
	const wantDuck = `[{"id":0,"psx":[null,4],"psynull":[true,false],"x":1,"ynan":null,"ynull":true},` +
		`{"id":1,"psx":[],"psynull":[],"x":null,"ynan":null,"ynull":true},` +
		`{"id":2,"psx":[1,null,null],"psynull":[false,true,false],"x":7,"ynan":false,"ynull":false}]`
	if string(js) != wantDuck {
		t.Errorf("DuckDB:\n%s\nwant\n%s", js, wantDuck)
	}
	pl := polars(t, filepath.Join(dir, "parquet", "n.parquet"))[0]
	if pl.Error != "" {
		t.Fatal(pl.Error)
	}
	const wantPolars = `[{"id":0,"p":{"x":"1.0","y":null,"z":"3.0"},"ps":[{"x":null,"y":null,"z":null},{"x":"4.0","y":"5.0","z":"6.0"}]},` +
		`{"id":1,"p":{"x":null,"y":null,"z":null},"ps":[]},` +
		`{"id":2,"p":{"x":"7.0","y":"8.0","z":"9.0"},"ps":[{"x":"1.0","y":"2.0","z":"3.0"},{"x":null,"y":null,"z":null},{"x":null,"y":"0.0","z":null}]}]`
	var keep []map[string]any
	for _, r := range pl.Rows {
		keep = append(keep, map[string]any{"id": r["id"], "p": r["p"], "ps": r["ps"]})
	}
	if js, _ = json.Marshal(keep); string(js) != wantPolars {
		t.Errorf("polars:\n%s\nwant\n%s", js, wantPolars)
	}
}
