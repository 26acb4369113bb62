package export

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestLayoutCache: the Parquet files of one schema share one layout
// whatever their rows' size (the batch size, which follows it, is set per
// file), so a fleet export keeps one layout per schema, not one per input;
// another schema gets its own. The files read back with their rows.
func TestLayoutCache(t *testing.T) {
	cfg := defaultConfig()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	cfg.mem = mem
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
