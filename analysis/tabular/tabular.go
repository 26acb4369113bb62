package tabular

import (
	"encoding/csv"
	"io"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/internal/atomicfile"
)

// Writer writes one table; Dir writers put it in a file named after the
// table.
type Writer interface {
	WriteTable(t *analysis.Table) error
}

// CSVDir writes DIR/<table>.csv files.
type CSVDir string

// WriteTable implements Writer.
func (d CSVDir) WriteTable(t *analysis.Table) error {
	return atomicfile.Write(filepath.Join(string(d), t.Name+".csv"), func(w io.Writer) error { return WriteCSV(w, t) })
}

// ParquetDir writes DIR/<table>.parquet files (zstd compressed).
type ParquetDir string

// WriteTable implements Writer.
func (d ParquetDir) WriteTable(t *analysis.Table) error {
	return atomicfile.Write(filepath.Join(string(d), t.Name+".parquet"), func(w io.Writer) error { return WriteParquet(w, t) })
}

// WriteCSV writes t with a header row; floats as the CSV export writes
// them (export.AppendCSVFloat: the shortest round-tripping form, whole
// numbers with ".0" so that a float column reads as floats, the exponent
// form where the decimal one would hold more than 17 digits, NaN, Inf,
// -Inf).
func WriteCSV(w io.Writer, t *analysis.Table) error {
	if err := t.Err(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Name
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	rec := make([]string, len(t.Columns))
	var buf []byte
	for _, r := range t.Rows {
		for i, v := range r {
			if f, ok := v.(float64); ok {
				buf = export.AppendCSVFloat(buf[:0], f, 64)
				rec[i] = string(buf)
				continue
			}
			rec[i] = analysis.FormatCell(v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Schema returns the Arrow schema of t.
func Schema(t *analysis.Table) *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		var dt arrow.DataType
		switch c.Kind {
		case analysis.KindInt:
			dt = arrow.PrimitiveTypes.Int64
		case analysis.KindFloat:
			dt = arrow.PrimitiveTypes.Float64
		case analysis.KindBool:
			dt = arrow.FixedWidthTypes.Boolean
		default:
			dt = arrow.BinaryTypes.String
		}
		fields[i] = arrow.Field{Name: c.Name, Type: dt}
	}
	return arrow.NewSchema(fields, nil)
}

// WriteParquet writes t as one Parquet row group.
func WriteParquet(w io.Writer, t *analysis.Table) error {
	if err := t.Err(); err != nil {
		return err
	}
	mem := memory.NewGoAllocator()
	sc := Schema(t)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, r := range t.Rows {
		for i, v := range r {
			switch fb := b.Field(i).(type) {
			case *array.Int64Builder:
				fb.Append(v.(int64))
			case *array.Float64Builder:
				fb.Append(v.(float64))
			case *array.BooleanBuilder:
				fb.Append(v.(bool))
			case *array.StringBuilder:
				fb.Append(v.(string))
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithAllocator(mem))
	// the pqarrow writer closes an io.Closer; the caller owns w
	fw, err := pqarrow.NewFileWriter(sc, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}
