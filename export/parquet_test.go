package export

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/baglab/baglab/record"
)

// TestLayoutCache: the Parquet files of one schema share one layout
// whatever their rows' size (the batch size, which follows it, is set per
// file), so a fleet export keeps one layout per schema, not one per input;
// another schema gets its own. The files read back with their rows.
func TestLayoutCache(t *testing.T) {
	cfg, mem := checkedConfig()
	defer mem.AssertSize(t, 0)
	schemas := []*arrow.Schema{
		arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil),
		arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Duration_ns}}, nil),
	}
	for k, sc := range schemas {
		for _, rowBytes := range []int64{10, 5000, 300 << 10, 2 << 20} {
			var buf bytes.Buffer
			p, err := newParquetWriter(&buf, sc, &cfg, rowBytes)
			if err != nil {
				t.Fatal(err)
			}
			b := array.NewRecordBuilder(cfg.mem, sc)
			for i := range sc.NumFields() {
				switch fb := b.Field(i).(type) {
				case *array.Int64Builder:
					fb.AppendValues([]int64{1, 2, 3}, nil)
				case *array.StringBuilder:
					fb.AppendValues([]string{"a", "b", "a"}, nil)
				case *array.DurationBuilder:
					fb.AppendValues([]arrow.Duration{1, 2, 3}, nil)
				}
			}
			rec := b.NewRecordBatch()
			b.Release()
			err = p.write(rec)
			rec.Release()
			if err == nil {
				err = p.close(nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if n := r.NumRows(); n != 3 {
				t.Errorf("schema %d, rows of %d bytes: %d rows read back, want 3", k, rowBytes, n)
			}
			r.Close()
		}
		if n := len(cfg.layouts.m); n != k+1 {
			t.Errorf("after files of %d schema(s) of various row sizes the cache holds %d layouts", k+1, n)
		}
	}
}

// TestPlanCache: the Sources of one export compile each message type once
// (decode's resolver hands every input with the same definition the same
// *msgdef.Type) and share its plan, schema and Parquet layout; another type,
// or the same type with the unverified column, is compiled apart. Output
// files of the shared type still hold each input's rows.
func TestPlanCache(t *testing.T) {
	dir := t.TempDir()
	e, err := New(dir, WithPartitionBy(PartitionSource))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(11))
	var states []*chanState
	for i, path := range []string{"a.bag", "b.bag", "c.bag"} {
		s := e.Source(path)
		ch := &record.Channel{Topic: "/grasps", MessageEncoding: "ros1"} // a new channel per input
		for j := 0; j <= i; j++ {
			if err := s.Write(&record.Message{Channel: ch, Sequence: uint64(j)}, tGrasp, emitter(randValue(rng, tGrasp))); err != nil {
				t.Fatal(err)
			}
		}
		states = append(states, s.chans[ch])
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for i, cs := range states[1:] {
		if cs.root != states[0].root || cs.schema != states[0].schema {
			t.Errorf("input %d compiled %s again", i+1, tGrasp.Name)
		}
	}
	if n := len(e.cfg.plans.m); n != 1 {
		t.Errorf("%d compiled types for one type", n)
	}
	if n := len(e.cfg.layouts.m); n != 1 {
		t.Errorf("%d Parquet layouts for one type", n)
	}
	plain, _ := e.cfg.plans.get(tGrasp, false)
	marked, _ := e.cfg.plans.get(tGrasp, true)
	if plain == marked || marked.schema.NumFields() != plain.schema.NumFields()+1 {
		t.Errorf("the unverified column shares the plain plan (%d and %d fields)", plain.schema.NumFields(), marked.schema.NumFields())
	}
	for i, name := range []string{"a.bag", "b.bag", "c.bag"} {
		res := duckdb(t, "SELECT count(*) AS n FROM read_parquet("+sqlString(dir+"/topic=%2Fgrasps/source="+name+"/*.parquet")+")")
		if n := fmt.Sprint(res[0].Rows[0]["n"]); n != fmt.Sprint(i+1) {
			t.Errorf("%s: %s rows, want %d", name, n, i+1)
		}
	}
}
