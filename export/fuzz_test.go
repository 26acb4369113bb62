package export

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/internal/testkit/deffuzz"
)

// FuzzRowBuilder decodes arbitrary bytes as ROS1 messages of a type with
// every shape into a RowBuilder: messages that do not decode leave no row,
// the others are rows; the record writes as Parquet and CSV; no panic and
// no leaked Arrow memory.
func FuzzRowBuilder(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 8; i++ {
		b, err := ros1.Encode(randValue(rng, tFuzz))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	dec, err := ros1.Compile(tFuzz)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rb, err := NewRowBuilder(mem, tFuzz)
		if err != nil {
			t.Fatal(err)
		}
		defer rb.Release()
		good := 0
		// The input, then the input behind a valid message, so that a
		// failed message sits between rows.
		for _, msg := range [][]byte{data, data[:len(data)/2], data} {
			if rb.Append(Meta{Sequence: uint64(good)}, dec, msg) == nil {
				good++
			}
		}
		rec, err := rb.NewRecordBatch()
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		if int(rec.NumRows()) != good {
			t.Fatalf("%d rows for %d good messages", rec.NumRows(), good)
		}
		cfg := defaultConfig()
		cfg.mem = mem
		cfg.compression = Uncompressed // zstd under coverage instrumentation crawls
		var buf bytes.Buffer
		pw, err := newParquetWriter(&buf, rec.Schema(), &cfg, 100)
		if err != nil {
			t.Fatal(err)
		}
		if err := pw.write(rec); err != nil {
			t.Fatal(err)
		}
		if err := pw.close(nil); err != nil {
			t.Fatal(err)
		}
		if good > 0 { // (arrow-go's reader fails on a file without row groups; DuckDB reads it)
			tbl, err := pqarrow.ReadTable(t.Context(), bytes.NewReader(buf.Bytes()), nil, pqarrow.ArrowReadProperties{}, mem)
			if err != nil {
				t.Fatal(err)
			}
			if tbl.NumRows() != int64(good) {
				t.Fatalf("parquet has %d rows, want %d", tbl.NumRows(), good)
			}
			tbl.Release()
		}
		cw, err := newCSVWriter(&buf, rec.Schema(), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := cw.write(rec); err != nil {
			t.Fatal(err)
		}
	})
}

// tFuzz is tDeep without ROS2 stamps (ROS1 wire has no such structs).
var tFuzz = ty("test/Fuzz",
	sub("header", tHeader),
	fld("i8", msgdef.Int8), fld("u64", msgdef.Uint64), fld("f32", msgdef.Float32),
	fld("d", msgdef.Duration),
	arr(fld("fixed_blob", msgdef.Uint8), 4),
	arr(fld("refs", msgdef.Int32), 2),
	arr(sub("elems", tElem), -1),
	arr(sub("pair", tElem), 2),
	sub("goal", tEmpty))

// FuzzSchema compiles arbitrary ROS1 definitions, as a recording would
// carry them (names not in the text come from the registry of known
// types), for export: a definition that parses gives a schema or an
// error, never a panic (a zero-length fixed array once panicked in
// Arrow), and messages of it go through rows, Parquet (written in
// parallel and one leaf at a time, the bytes of pqarrow's own writer) and
// CSV.
func FuzzSchema(f *testing.F) {
	for _, def := range deffuzz.Seeds(msgdef.ROS1) {
		f.Add(def, int64(1))
	}
	f.Add("sensor_msgs/PointCloud2 cloud\ninteractive_world_msgs/PlacementSet set\n", int64(2))
	f.Fuzz(func(t *testing.T, def string, seed int64) {
		typ, ok := deffuzz.Parse("fuzz/T", "ros1msg", def)
		if !ok {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rb, err := NewRowBuilder(mem, typ)
		if err != nil {
			return // too deep, say: an error, not a panic
		}
		defer rb.Release()
		dec, err := ros1.Compile(typ)
		if err != nil {
			return
		}
		rng := rand.New(rand.NewSource(seed))
		for range 3 {
			b, err := ros1.Encode(randValue(rng, typ))
			if err != nil {
				t.Fatalf("encode a value of %q: %v", def, err)
			}
			if err := rb.Append(Meta{}, dec, b); err != nil {
				t.Fatalf("append a message of %q: %v", def, err)
			}
		}
		rec, err := rb.NewRecordBatch()
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		cfg := defaultConfig()
		cfg.mem = mem
		cfg.compression = Uncompressed
		want := pqarrowFile(t, rec.Schema(), &cfg, []arrow.RecordBatch{rec})
		var got []byte
		for _, jobs := range []int{1, 2} {
			if got = parquetFile(t, rec.Schema(), &cfg, jobs, []arrow.RecordBatch{rec}); !bytes.Equal(got, want) {
				t.Fatalf("%q: the file written with %d jobs differs from pqarrow's", def, jobs)
			}
		}
		tbl, err := pqarrow.ReadTable(t.Context(), bytes.NewReader(got), nil, pqarrow.ArrowReadProperties{}, mem)
		if err != nil {
			t.Fatalf("%q: read back: %v", def, err)
		}
		if tbl.NumRows() != 3 {
			t.Fatalf("%q: %d rows read back, want 3", def, tbl.NumRows())
		}
		tbl.Release()
		var csv bytes.Buffer
		cw, err := newCSVWriter(&csv, rec.Schema(), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := cw.write(rec); err != nil {
			t.Fatal(err)
		}
	})
}
