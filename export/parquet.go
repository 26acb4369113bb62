package export

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/baglab/baglab/internal/parallel"
)

// parquetWriter writes records to one Parquet file (see newLayout), the
// leaf columns of each row group in parallel: the bytes are those of
// pqarrow's FileWriter, which writes them one after another.
type parquetWriter struct {
	pw      *file.Writer
	arrow   *pqarrow.ArrowWriterProperties
	schema  *arrow.Schema // the records' schema
	storage *arrow.Schema // what Parquet stores (see storageSchema)
	convert bool          // storage differs from schema
	jobs    int           // leaves written side by side (GOMAXPROCS)
}

func codec(c Compression) compress.Compression {
	switch c {
	case Snappy:
		return compress.Codecs.Snappy
	case LZ4:
		return compress.Codecs.Lz4Raw
	case Uncompressed:
		return compress.Codecs.Uncompressed
	}
	return compress.Codecs.Zstd
}

// newParquetWriter starts a Parquet file for records of schema sc whose rows
// take about rowBytes each (from the first record).
func newParquetWriter(w io.Writer, sc *arrow.Schema, cfg *config, rowBytes int64) (*parquetWriter, error) {
	l, err := cfg.layouts.get(sc, cfg)
	if err != nil {
		return nil, err
	}
	// The page size is checked after each batch of values: with large rows
	// (point clouds, images) a batch must be a few rows, or one page holds
	// a whole row group's blobs in memory several times.
	props := parquet.NewWriterProperties(append(l.props[:len(l.props):len(l.props)], parquet.WithBatchSize(batchSize(rowBytes)))...)
	md := l.storage.Metadata()
	kv := make(metadata.KeyValueMetadata, 0, md.Len())
	for i, k := range md.Keys() {
		kv.Append(k, md.Values()[i])
	}
	pw, err := file.NewParquetWriterWithError(w, l.parquet.Root(), file.WithWriterProps(props), file.WithWriteMetadata(kv))
	if err != nil {
		return nil, fmt.Errorf("export: parquet writer: %w", err)
	}
	return &parquetWriter{pw: pw, arrow: &l.arrow, schema: sc, storage: l.storage, convert: l.convert, jobs: runtime.GOMAXPROCS(0)}, nil
}

// parquetLayout is what the Parquet files of one Arrow schema share: the
// stored schema and the writer properties but for the batch size.
type parquetLayout struct {
	storage *arrow.Schema  // what Parquet stores, with the ARROW:schema metadata
	parquet *schema.Schema // storage as a Parquet schema
	convert bool           // storage differs from the records' schema
	props   []parquet.WriterProperty
	arrow   pqarrow.ArrowWriterProperties
}

// layoutCache keeps the layouts of the schemas an export met, so that a
// fleet of inputs of the same types works each out once, not once per
// file of every input. It is keyed by the schema itself: the Sources of an
// export take their schemas from its planCache, one per message type. It
// belongs to one configuration (the allocator, version and compression of
// the layouts it keeps); ExportDataset shares it, with the planCache,
// among its inputs' Exporters.
type layoutCache struct {
	mu sync.Mutex
	m  map[*arrow.Schema]*parquetLayout
}

func newLayoutCache() *layoutCache { return &layoutCache{m: map[*arrow.Schema]*parquetLayout{}} }

// withCaches makes an Exporter share the compiled types and Parquet
// layouts of the configuration c.
func withCaches(c *config) Option {
	return func(cfg *config) { cfg.layouts, cfg.plans = c.layouts, c.plans }
}

// get returns the layout of sc's files.
func (c *layoutCache) get(sc *arrow.Schema, cfg *config) (*parquetLayout, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.m[sc]; ok {
		return l, nil
	}
	l, err := newLayout(sc, cfg)
	if err != nil {
		return nil, err
	}
	c.m[sc] = l
	return l, nil
}

// newLayout works out the layout of sc's files: one row group per record,
// statistics on, strings dictionary-encoded, and nothing in the footer
// that changes from run to run.
func newLayout(sc *arrow.Schema, cfg *config) (*parquetLayout, error) {
	storage := storageSchema(sc)
	convert := !storage.Equal(sc)
	// The stored Arrow schema keeps the duration types that Parquet lacks;
	// pyarrow restores them on read (see the package doc for other readers).
	kv := arrow.NewMetadata([]string{"ARROW:schema"},
		[]string{base64.StdEncoding.EncodeToString(flight.SerializeSchema(hintSchema(sc), cfg.mem))})
	storage = arrow.NewSchema(storage.Fields(), &kv)

	base := []parquet.WriterProperty{
		parquet.WithAllocator(cfg.mem),
		parquet.WithVersion(parquet.V2_6),
		parquet.WithCreatedBy("baglab version " + cfg.version),
		parquet.WithCompression(codec(cfg.compression)),
		// zstd level 1: half again as fast as the default level 3, for
		// files about 1-10% larger.
		parquet.WithCompressionLevel(1),
		parquet.WithStats(true),
		parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(int64(cfg.rowGroupRows)),
	}
	arrProps := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(cfg.mem))
	pqs, err := pqarrow.ToParquet(storage, parquet.NewWriterProperties(base...), arrProps)
	if err != nil {
		return nil, fmt.Errorf("export: parquet schema: %w", err)
	}
	for i := 0; i < pqs.NumColumns(); i++ {
		col := pqs.Column(i)
		if _, ok := col.LogicalType().(schema.StringLogicalType); ok {
			base = append(base, parquet.WithDictionaryPath(col.ColumnPath(), true))
		} else if col.PhysicalType() == parquet.Types.ByteArray {
			// Min/max of blobs copy megabytes per page and are dropped
			// from the footer for their size anyway.
			base = append(base, parquet.WithStatsPath(col.ColumnPath(), false))
		}
	}
	return &parquetLayout{storage: storage, parquet: pqs, convert: convert, props: base, arrow: arrProps}, nil
}

// batchSize returns how many values the column writers take at a time for
// rows of about rowBytes: about one data page (1 MiB) worth, 1..1024.
func batchSize(rowBytes int64) int64 {
	const page = 1 << 20
	switch {
	case rowBytes <= page/1024:
		return 1024
	case rowBytes >= page:
		return 1
	}
	return page / rowBytes
}

// write writes rec (of the writer's schema) as one row group, or as
// several of the writer's longest row group (as pqarrow's FileWriter.Write
// splits a record; the exporter's records are never longer).
func (p *parquetWriter) write(rec arrow.RecordBatch) error {
	most := p.pw.Properties().MaxRowGroupLength()
	for off := int64(0); off < rec.NumRows(); off += most {
		part := rec
		if off > 0 || rec.NumRows() > most {
			part = rec.NewSlice(off, min(off+most, rec.NumRows()))
			defer part.Release()
		}
		if err := p.writeRowGroup(part); err != nil {
			return err
		}
	}
	return nil
}

// writeRowGroup writes rec as one row group.
func (p *parquetWriter) writeRowGroup(rec arrow.RecordBatch) error {
	cols := rec.Columns()
	if p.convert {
		cols = make([]arrow.Array, rec.NumCols())
		for i, c := range rec.Columns() {
			d := storageData(c.Data(), p.storage.Field(i).Type)
			cols[i] = array.MakeFromData(d)
			d.Release()
			defer cols[i].Release()
		}
	}
	leaves, err := leafColumns(p.storage, cols, p.jobs)
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range leaves {
			c.values.Release()
		}
	}()
	if len(leaves) != p.pw.NumColumns() {
		return fmt.Errorf("export: parquet: %d leaf columns for a schema of %d", len(leaves), p.pw.NumColumns())
	}
	if p.jobs == 1 || dominated(leaves) {
		return p.writeSerial(leaves)
	}
	return p.writeParallel(leaves)
}

// writeParallel writes the leaves side by side: each has a column writer
// of its own in a buffered row group, so they encode and compress at once;
// the row group's Close writes them out in column order.
func (p *parquetWriter) writeParallel(leaves []leafColumn) error {
	rg, err := p.pw.AppendBufferedRowGroupChecked()
	if err != nil {
		return err
	}
	err = parallel.For(context.Background(), len(leaves), p.jobs, func(_ context.Context, i int) error {
		cw, err := rg.Column(i)
		if err != nil {
			return err
		}
		return p.writeLeaf(cw, &leaves[i])
	})
	if err != nil {
		// the row group's Close would stop at the leaves' unequal rows and
		// leave their column writers' buffers held: close them here
		for i := range leaves {
			if cw, cerr := rg.Column(i); cerr == nil {
				_ = cw.Close()
			}
		}
		return err
	}
	return rg.Close()
}

// writeSerial writes the leaves one after another straight to the file,
// without holding the row group in memory: for a row group whose bytes are
// nearly all one leaf's (point clouds, images), where there is no work to
// share and the buffered row group's copies would cost more.
func (p *parquetWriter) writeSerial(leaves []leafColumn) error {
	rg, err := p.pw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	for i := range leaves {
		cw, err := rg.NextColumn()
		if err != nil {
			return err
		}
		if err := p.writeLeaf(cw, &leaves[i]); err != nil {
			_ = cw.Close() // as in writeParallel
			return err
		}
	}
	return rg.Close()
}

// writeLeaf writes one leaf column of a row group with its column writer,
// as pqarrow's path builder does: a nullable leaf's values with a slot for
// each null (defined one level short), the leaf given as nullable.
func (p *parquetWriter) writeLeaf(cw file.ColumnChunkWriter, c *leafColumn) error {
	ctx := pqarrow.NewArrowWriteContext(context.Background(), p.arrow)
	if err := pqarrow.WriteArrowToColumn(ctx, cw, c.values, c.def, c.rep, c.nullable); err != nil {
		return fmt.Errorf("export: parquet: column %s: %w", c.name, err)
	}
	return nil
}

// dominated reports whether one leaf holds three quarters or more of the
// bytes of the leaves' values.
func dominated(leaves []leafColumn) bool {
	var total, largest int64
	for _, c := range leaves {
		n := valueBytes(c.values)
		total += n
		largest = max(largest, n)
	}
	return largest*4 >= total*3
}

// valueBytes is about how many bytes of values a holds.
func valueBytes(a arrow.Array) int64 {
	if b, ok := a.(array.BinaryLike); ok && a.Len() > 0 {
		return b.ValueOffset64(a.Len()-1) + int64(b.ValueLen(a.Len()-1)) - b.ValueOffset64(0)
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok {
		return int64(a.Len()) * int64(max(fw.BitWidth()/8, 1))
	}
	return int64(a.Len())
}

// close writes the footer with the key-value metadata kv (pairs in order).
func (p *parquetWriter) close(kv [][2]string) error {
	for _, e := range kv {
		if err := p.pw.AppendKeyValueMetadata(e[0], e[1]); err != nil {
			p.pw.Close()
			return err
		}
	}
	return p.pw.Close()
}

// abort releases the writer without caring about the file.
func (p *parquetWriter) abort() { p.pw.Close() }

// storageSchema returns the schema Parquet stores for sc: durations become
// int64 (Parquet has no duration type), and fixed-size list fields are
// marked nullable (pqarrow writes a required fixed-size list as all nulls).
// The data is the same.
func storageSchema(sc *arrow.Schema) *arrow.Schema { return rewriteSchema(sc, storageField) }

// storageType is the storage type of t (storageSchema).
func storageType(t arrow.DataType) arrow.DataType {
	return rewriteField(arrow.Field{Type: t}, storageField).Type
}

func storageField(f arrow.Field) arrow.Field {
	switch f.Type.ID() {
	case arrow.DURATION:
		f.Type = arrow.PrimitiveTypes.Int64
	case arrow.FIXED_SIZE_LIST:
		f.Nullable = true
	}
	return f
}

// hintSchema returns the Arrow schema stored in the footer for sc: sc, but
// for the fixed-size list fields whose elements hold a variable-length list,
// marked nullable as they are stored (storageField). polars takes the nesting
// levels from this schema: below such a list the levels of a non-nullable
// one are one short, and polars misreads (panics on) an empty inner list.
// Every other value sits at its maximum level, where readers agree, so the
// other fields keep their stored schema and their files their bytes.
func hintSchema(sc *arrow.Schema) *arrow.Schema {
	return rewriteSchema(sc, func(f arrow.Field) arrow.Field {
		if t, ok := f.Type.(*arrow.FixedSizeListType); ok && holdsList(t.Elem()) {
			f.Nullable = true
		}
		return f
	})
}

// rewriteSchema returns sc with fix applied to every field, nested ones
// included, the innermost first.
func rewriteSchema(sc *arrow.Schema, fix func(arrow.Field) arrow.Field) *arrow.Schema {
	fields := make([]arrow.Field, sc.NumFields())
	for i, f := range sc.Fields() {
		fields[i] = rewriteField(f, fix)
	}
	return arrow.NewSchema(fields, nil)
}

func rewriteField(f arrow.Field, fix func(arrow.Field) arrow.Field) arrow.Field {
	switch t := f.Type.(type) {
	case *arrow.StructType:
		fields := make([]arrow.Field, t.NumFields())
		for i, g := range t.Fields() {
			fields[i] = rewriteField(g, fix)
		}
		f.Type = arrow.StructOf(fields...)
	case *arrow.ListType:
		f.Type = arrow.ListOfField(rewriteField(t.ElemField(), fix))
	case *arrow.FixedSizeListType:
		f.Type = arrow.FixedSizeListOfField(t.Len(), rewriteField(t.ElemField(), fix))
	}
	return fix(f)
}

// holdsList reports whether values of type t contain a variable-length list.
func holdsList(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.ListType:
		return true
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if holdsList(f.Type) {
				return true
			}
		}
	case *arrow.FixedSizeListType:
		return holdsList(t.Elem())
	}
	return false
}

// storageData returns d retyped to the storage type st (same buffers).
func storageData(d arrow.ArrayData, st arrow.DataType) arrow.ArrayData {
	var kids []arrow.ArrayData
	switch t := st.(type) {
	case *arrow.StructType:
		for i, c := range d.Children() {
			kids = append(kids, storageData(c, t.Field(i).Type))
		}
	case arrow.ListLikeType:
		kids = []arrow.ArrayData{storageData(d.Children()[0], t.Elem())}
	}
	out := array.NewData(st, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset())
	for _, k := range kids {
		k.Release()
	}
	return out
}
