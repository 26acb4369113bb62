package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestParquetWriterMatchesPqarrow: the parallel writer's files are, byte
// for byte, those of pqarrow's own FileWriter (which works the levels out
// with its path builder and writes the columns one after another), for
// random schemas of the shapes the exporter makes — messages (structs),
// variable and fixed-size arrays of messages and of arrays, every
// primitive, durations and timestamps — with empty arrays, several row
// groups and sliced records, written in parallel, one leaf at a time and
// with one leaf holding nearly all bytes.
func TestParquetWriterMatchesPqarrow(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for k := range 300 {
		sc := randomSchema(rng)
		cfg, mem := checkedConfig()
		if rng.Intn(2) == 0 && !hasFixedList(sc) {
			// records longer than a row group are split, as pqarrow
			// splits them (whose path builder ignores a sliced
			// fixed-size list's offset: see the sliced test)
			cfg.rowGroupRows = 1 + rng.Intn(30)
		}
		var recs []arrow.RecordBatch
		for range 1 + rng.Intn(3) {
			recs = append(recs, randomRecord(rng, mem, sc, rng.Intn(40)))
		}
		want := pqarrowFile(t, sc, &cfg, recs)
		for _, jobs := range []int{1, 2, 4} {
			if got := parquetFile(t, sc, &cfg, jobs, recs); !bytes.Equal(got, want) {
				t.Fatalf("schema %d, %d jobs: file of %d bytes differs from pqarrow's of %d\nschema: %s", k, jobs, len(got), len(want), sc)
			}
		}
		for _, r := range recs {
			r.Release()
		}
		mem.AssertSize(t, 0)
	}
}

// TestParquetWriterNullableLeavesMatchPqarrow: leaves marked nullable
// (msgdef.Field.Nullable, the in_<frame> values of --tf-frame) with nulls,
// at the top, in messages and in arrays of messages, give the bytes of
// pqarrow's FileWriter too, and read back with their nulls.
func TestParquetWriterNullableLeavesMatchPqarrow(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	nulls := 0
	for k := range 300 {
		sc := randomSchemaOf(rng, true)
		cfg, mem := checkedConfig()
		var recs []arrow.RecordBatch
		for range 1 + rng.Intn(3) {
			recs = append(recs, randomRecord(rng, mem, sc, rng.Intn(40)))
		}
		want := pqarrowFile(t, sc, &cfg, recs)
		for _, jobs := range []int{1, 2} {
			if got := parquetFile(t, sc, &cfg, jobs, recs); !bytes.Equal(got, want) {
				t.Fatalf("schema %d, %d jobs: file of %d bytes differs from pqarrow's of %d\nschema: %s", k, jobs, len(got), len(want), sc)
			}
		}
		tbl, err := pqarrow.ReadTable(t.Context(), bytes.NewReader(want), nil, pqarrow.ArrowReadProperties{}, mem)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sc.NumFields() {
			var chunks []arrow.Array
			for _, r := range recs {
				chunks = append(chunks, r.Column(i))
				nulls += countNulls(r.Column(i))
			}
			if tbl.NumRows() == 0 {
				continue
			}
			all, err := array.Concatenate(chunks, mem)
			if err != nil {
				t.Fatal(err)
			}
			got, err := array.Concatenate(tbl.Column(i).Data().Chunks(), mem)
			if err != nil {
				t.Fatal(err)
			}
			st := storageType(sc.Field(i).Type)
			if g, w := asJSON(got, st), asJSON(all, st); !bytes.Equal(g, w) {
				t.Fatalf("schema %d column %s: read back\n%s\nwant\n%s", k, sc.Field(i).Name, g, w)
			}
			all.Release()
			got.Release()
		}
		tbl.Release()
		for _, r := range recs {
			r.Release()
		}
		mem.AssertSize(t, 0)
	}
	if nulls < 1000 {
		t.Errorf("%d nulls written: the test hardly tries them", nulls)
	}
}

// countNulls counts the nulls in a and below it.
func countNulls(a arrow.Array) int {
	switch a := a.(type) {
	case *array.Struct:
		n := 0
		for i := range a.NumField() {
			n += countNulls(a.Field(i))
		}
		return n
	case array.ListLike:
		return countNulls(a.ListValues())
	}
	return a.NullN()
}

// TestParquetWriterSlicedRecords: a record that is a slice of a larger one
// (offsets in every array) reads back with the slice's values, from the
// parallel and the one-leaf-at-a-time writer. (pqarrow's own path builder
// ignores the offset of a sliced fixed-size list, so here the files are
// checked by reading them, not against its bytes.)
func TestParquetWriterSlicedRecords(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	for k := range 200 {
		sc := randomSchema(rng)
		cfg, mem := checkedConfig()
		if rng.Intn(2) == 0 {
			cfg.rowGroupRows = 1 + rng.Intn(10) // split into row groups too
		}
		whole := randomRecord(rng, mem, sc, 3+rng.Intn(30))
		lo := 1 + rng.Int63n(whole.NumRows()-2)
		rec := whole.NewSlice(lo, lo+1+rng.Int63n(whole.NumRows()-lo-1))
		whole.Release()
		for _, jobs := range []int{1, 2} {
			file := parquetFile(t, sc, &cfg, jobs, []arrow.RecordBatch{rec})
			tbl, err := pqarrow.ReadTable(t.Context(), bytes.NewReader(file), nil, pqarrow.ArrowReadProperties{}, mem)
			if err != nil {
				t.Fatal(err)
			}
			for i := range sc.NumFields() {
				got, err := array.Concatenate(tbl.Column(i).Data().Chunks(), mem)
				if err != nil {
					t.Fatal(err)
				}
				// as stored: the reader gives back a duration nested in a
				// struct as int64
				st := storageType(sc.Field(i).Type)
				g, w := asJSON(got, st), asJSON(rec.Column(i), st)
				got.Release()
				if !bytes.Equal(g, w) {
					t.Fatalf("schema %d, %d jobs, column %s of rows [%d, %d): read back\n%s\nwant\n%s", k, jobs, sc.Field(i).Name, lo, lo+rec.NumRows(), g, w)
				}
			}
			tbl.Release()
		}
		rec.Release()
		mem.AssertSize(t, 0)
	}
}

// asJSON is a's values retyped to st (the same buffers) as JSON.
func asJSON(a arrow.Array, st arrow.DataType) []byte {
	d := storageData(a.Data(), st)
	defer d.Release()
	r := array.MakeFromData(d)
	defer r.Release()
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}

// hasFixedList reports whether a column of sc holds a fixed-size list.
func hasFixedList(sc *arrow.Schema) bool {
	var has func(t arrow.DataType) bool
	has = func(t arrow.DataType) bool {
		switch t := t.(type) {
		case *arrow.FixedSizeListType:
			return true
		case *arrow.ListType:
			return has(t.Elem())
		case *arrow.StructType:
			for _, f := range t.Fields() {
				if has(f.Type) {
					return true
				}
			}
		}
		return false
	}
	for _, f := range sc.Fields() {
		if has(f.Type) {
			return true
		}
	}
	return false
}

// TestParquetWriterFailedColumn: when a leaf fails to write (here a leaf
// of the wrong type), in the parallel or the serial writer, aborting the
// file releases every buffer of the row group's column writers.
func TestParquetWriterFailedColumn(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		{Name: "b", Type: arrow.PrimitiveTypes.Int32}, {Name: "c", Type: arrow.PrimitiveTypes.Int32}}, nil)
	for _, parallel := range []bool{true, false} {
		cfg, mem := checkedConfig()
		var buf bytes.Buffer
		p, err := newParquetWriter(&buf, sc, &cfg, 100)
		if err != nil {
			t.Fatal(err)
		}
		ib := array.NewInt32Builder(mem)
		ib.AppendValues(make([]int32, 600_000), nil)
		ints := ib.NewArray()
		ib.Release()
		sb := array.NewStringBuilder(mem)
		sb.AppendValues(make([]string, 600_000), nil)
		strs := sb.NewArray()
		sb.Release()
		leaves := []leafColumn{{name: "a", values: ints}, {name: "b", values: ints}, {name: "c", values: strs}}
		write := p.writeSerial
		if parallel {
			p.jobs = 2
			write = p.writeParallel
		}
		if err := write(leaves); err == nil || !strings.Contains(err.Error(), "column c") {
			t.Errorf("parallel %v: a string leaf in an int32 column: %v", parallel, err)
		}
		p.abort()
		ints.Release()
		strs.Release()
		mem.AssertSize(t, 0)
	}
}

// TestLeafColumnsRefuseNulls: a null anywhere in a record (which the row
// builder never leaves in one) is an error naming the column, not levels
// that would silently shift the values.
func TestLeafColumnsRefuseNulls(t *testing.T) {
	typ := arrow.StructOf(arrow.Field{Name: "xs", Type: arrow.ListOfNonNullable(arrow.PrimitiveTypes.Int32)})
	b := array.NewStructBuilder(memory.DefaultAllocator, typ)
	defer b.Release()
	lb := b.FieldBuilder(0).(*array.ListBuilder)
	b.Append(true)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int32Builder).AppendNull()
	arr := b.NewArray()
	defer arr.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "m", Type: typ}}, nil)
	_, err := leafColumns(sc, []arrow.Array{arr}, 1)
	if err == nil || !strings.Contains(err.Error(), "m.xs[]") || !strings.Contains(err.Error(), "null") {
		t.Fatalf("a null in m.xs[]: got %v", err)
	}
}

// checkedConfig is the default configuration with an allocator that
// checks every buffer is released.
func checkedConfig() (config, *memory.CheckedAllocator) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	cfg := defaultConfig()
	cfg.mem = mem
	return cfg, mem
}

// parquetFile writes recs with a parquetWriter of jobs goroutines and the
// footer entry k=v.
func parquetFile(t *testing.T, sc *arrow.Schema, cfg *config, jobs int, recs []arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	p, err := newParquetWriter(&buf, sc, cfg, 100)
	if err != nil {
		t.Fatal(err)
	}
	p.jobs = jobs
	for _, rec := range recs {
		if err := p.write(rec); err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
	}
	if err := p.close([][2]string{{"k", "v"}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pqarrowFile writes recs with pqarrow's FileWriter, the layout and
// properties newParquetWriter uses.
func pqarrowFile(t *testing.T, sc *arrow.Schema, cfg *config, recs []arrow.RecordBatch) []byte {
	t.Helper()
	l, err := cfg.layouts.get(sc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(append(l.props[:len(l.props):len(l.props)], parquet.WithBatchSize(batchSize(100)))...)
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(l.storage, &buf, props, l.arrow)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if rec.NumRows() == 0 {
			continue
		}
		cols := make([]arrow.Array, rec.NumCols())
		for i, c := range rec.Columns() {
			d := storageData(c.Data(), l.storage.Field(i).Type)
			cols[i] = array.MakeFromData(d)
			d.Release()
		}
		r := array.NewRecordBatch(l.storage, cols, rec.NumRows())
		for _, c := range cols {
			c.Release()
		}
		err := fw.Write(r)
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.AppendKeyValueMetadata("k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var randomLeaves = []arrow.DataType{
	arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint8,
	arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int32,
	arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64,
	arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String,
	arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Duration_ns, &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"},
}

// randomSchema is a record schema of 1-4 columns of the exporter's shapes.
func randomSchema(rng *rand.Rand) *arrow.Schema { return randomSchemaOf(rng, false) }

// randomSchemaOf is randomSchema, with half the leaf columns and struct
// members nullable when nullable (the fields msgdef.Field.Nullable
// marks).
func randomSchemaOf(rng *rand.Rand, nullable bool) *arrow.Schema {
	fields := make([]arrow.Field, 1+rng.Intn(4))
	for i := range fields {
		fields[i] = randomField(rng, fmt.Sprintf("c%d", i), 3, nullable)
	}
	return arrow.NewSchema(fields, nil)
}

func randomField(rng *rand.Rand, name string, depth int, nullable bool) arrow.Field {
	f := arrow.Field{Name: name, Type: randomType(rng, depth, nullable)}
	if nullable && isLeafType(f.Type) {
		f.Nullable = rng.Intn(2) == 0
	}
	return f
}

func isLeafType(t arrow.DataType) bool {
	switch t.(type) {
	case *arrow.StructType, *arrow.ListType, *arrow.FixedSizeListType:
		return false
	}
	return true
}

func randomType(rng *rand.Rand, depth int, nullable bool) arrow.DataType {
	if depth == 0 || rng.Intn(3) == 0 {
		return randomLeaves[rng.Intn(len(randomLeaves))]
	}
	switch rng.Intn(3) {
	case 0:
		members := make([]arrow.Field, 1+rng.Intn(3))
		for i := range members {
			members[i] = randomField(rng, fmt.Sprintf("m%d", i), depth-1, nullable)
		}
		return arrow.StructOf(members...)
	case 1:
		return arrow.ListOfNonNullable(randomType(rng, depth-1, nullable))
	}
	return arrow.FixedSizeListOfNonNullable(int32(1+rng.Intn(3)), randomType(rng, depth-1, nullable))
}

// randomRecord is n rows of random values of sc, nulls (one in three) in
// nullable fields only; arrays have 0-3 elements, strings and blobs now
// and then 20 KB (one leaf holding nearly all bytes).
func randomRecord(rng *rand.Rand, mem memory.Allocator, sc *arrow.Schema, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for range n {
		for i := range sc.NumFields() {
			appendRandom(rng, b.Field(i), sc.Field(i).Nullable)
		}
	}
	return b.NewRecordBatch()
}

func appendRandom(rng *rand.Rand, b array.Builder, nullable bool) {
	if nullable && rng.Intn(3) == 0 {
		b.AppendNull()
		return
	}
	text := func() []byte {
		if rng.Intn(8) == 0 {
			return bytes.Repeat([]byte{byte(rng.Intn(256))}, 20000)
		}
		return []byte(fmt.Sprintf("s%d", rng.Intn(5)))
	}
	switch b := b.(type) {
	case *array.StructBuilder:
		b.Append(true)
		st := b.Type().(*arrow.StructType)
		for i := range b.NumField() {
			appendRandom(rng, b.FieldBuilder(i), st.Field(i).Nullable)
		}
	case *array.ListBuilder:
		b.Append(true)
		for range rng.Intn(4) {
			appendRandom(rng, b.ValueBuilder(), false)
		}
	case *array.FixedSizeListBuilder:
		b.Append(true)
		for range b.Type().(*arrow.FixedSizeListType).Len() {
			appendRandom(rng, b.ValueBuilder(), false)
		}
	case *array.BooleanBuilder:
		b.Append(rng.Intn(2) == 0)
	case *array.Int8Builder:
		b.Append(int8(rng.Int()))
	case *array.Uint8Builder:
		b.Append(uint8(rng.Int()))
	case *array.Int16Builder:
		b.Append(int16(rng.Int()))
	case *array.Uint16Builder:
		b.Append(uint16(rng.Int()))
	case *array.Int32Builder:
		b.Append(int32(rng.Intn(10)))
	case *array.Uint32Builder:
		b.Append(rng.Uint32())
	case *array.Int64Builder:
		b.Append(rng.Int63())
	case *array.Uint64Builder:
		b.Append(rng.Uint64())
	case *array.Float32Builder:
		b.Append(rng.Float32())
	case *array.Float64Builder:
		b.Append(rng.NormFloat64())
	case *array.StringBuilder:
		b.Append(string(text()))
	case *array.BinaryBuilder:
		b.Append(text())
	case *array.DurationBuilder:
		b.Append(arrow.Duration(rng.Int63()))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(rng.Int63()))
	default:
		panic(fmt.Sprintf("appendRandom: %T", b))
	}
}
