package export

import (
	"encoding/base64"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// parquetWriter writes records to one Parquet file (see newLayout).
type parquetWriter struct {
	fw      *pqarrow.FileWriter
	schema  *arrow.Schema // the records' schema
	storage *arrow.Schema // what Parquet stores (see storageSchema)
	convert bool          // storage differs from schema
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
	fw, err := pqarrow.NewFileWriter(l.storage, w, props, l.arrow)
	if err != nil {
		return nil, fmt.Errorf("export: parquet writer: %w", err)
	}
	return &parquetWriter{fw: fw, schema: sc, storage: l.storage, convert: l.convert}, nil
}

// parquetLayout is what the Parquet files of one Arrow schema share: the
// stored schema and the writer properties but for the batch size.
type parquetLayout struct {
	storage *arrow.Schema // what Parquet stores, with the ARROW:schema metadata
	convert bool          // storage differs from the records' schema
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
		[]string{base64.StdEncoding.EncodeToString(flight.SerializeSchema(sc, cfg.mem))})
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
	return &parquetLayout{storage: storage, convert: convert, props: base, arrow: arrProps}, nil
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

// write writes rec (of the writer's schema) as one row group.
func (p *parquetWriter) write(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if !p.convert {
		r := array.NewRecordBatch(p.storage, rec.Columns(), rec.NumRows())
		defer r.Release()
		return p.fw.Write(r)
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := storageData(c.Data(), p.storage.Field(i).Type)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	r := array.NewRecordBatch(p.storage, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	defer r.Release()
	return p.fw.Write(r)
}

// close writes the footer with the key-value metadata kv (pairs in order).
func (p *parquetWriter) close(kv [][2]string) error {
	for _, e := range kv {
		if err := p.fw.AppendKeyValueMetadata(e[0], e[1]); err != nil {
			p.fw.Close()
			return err
		}
	}
	return p.fw.Close()
}

// abort releases the writer without caring about the file.
func (p *parquetWriter) abort() { p.fw.Close() }

// storageSchema returns the schema Parquet stores for sc: durations become
// int64 (Parquet has no duration type), and fixed-size list fields are
// marked nullable (pqarrow writes a required fixed-size list as all nulls).
// The data is the same.
func storageSchema(sc *arrow.Schema) *arrow.Schema {
	fields := make([]arrow.Field, sc.NumFields())
	for i, f := range sc.Fields() {
		fields[i] = storageField(f)
	}
	return arrow.NewSchema(fields, nil)
}

func storageField(f arrow.Field) arrow.Field {
	f.Type = storageType(f.Type)
	if f.Type.ID() == arrow.FIXED_SIZE_LIST {
		f.Nullable = true
	}
	return f
}

func storageType(t arrow.DataType) arrow.DataType {
	switch t := t.(type) {
	case *arrow.DurationType:
		return arrow.PrimitiveTypes.Int64
	case *arrow.StructType:
		fields := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			fields[i] = storageField(f)
		}
		return arrow.StructOf(fields...)
	case *arrow.ListType:
		return arrow.ListOfField(storageField(t.ElemField()))
	case *arrow.FixedSizeListType:
		return arrow.FixedSizeListOfField(t.Len(), storageField(t.ElemField()))
	}
	return t
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
