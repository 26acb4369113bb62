package export

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/baglab/baglab/decode/sink"
)

// csvWriter writes records as CSV rows. The header comes from the schema
// alone, so every file of a dataset and every row has the same columns.
type csvWriter struct {
	w      *csv.Writer
	schema *arrow.Schema
	cfg    *config
	row    []string
}

// cellFn appends the text of one cell for index i (a row, or an element of
// the exploded array) to dst.
type cellFn func(dst []byte, i int) []byte

// indexer maps an index to the index in the array a cell reads, or false
// when there is no value there (an array shorter than first:N).
type indexer func(i int) (int, bool)

// csvColumn is one output column.
type csvColumn struct {
	name string
	elem bool   // indexed by element of the exploded array
	cell cellFn // nil when only the header is compiled
}

// csvLayout is the column list for one schema or record.
type csvLayout struct {
	cfg     *config
	cols    []csvColumn
	explode array.ListLike // the exploded array, once bound
	// exploding is set when the schema has the array at the explode path
	// (its arrays Along explode then too).
	exploding bool
	// row is the current row; rowStart is the first element of its
	// exploded array.
	row      int
	rowStart int64
}

func newCSVWriter(w io.Writer, sc *arrow.Schema, cfg *config) (*csvWriter, error) {
	cw := &csvWriter{w: csv.NewWriter(w), schema: sc, cfg: cfg}
	cw.w.Comma = cfg.csvComma
	l := layout(cfg, sc, nil)
	header := make([]string, len(l.cols))
	for i, c := range l.cols {
		header[i] = c.name
	}
	if err := cw.w.Write(header); err != nil {
		return nil, err
	}
	cw.row = make([]string, len(header))
	return cw, nil
}

// CSVHeader returns the CSV columns written for messages whose rows have
// schema sc (see Schema) under the given options.
func CSVHeader(sc *arrow.Schema, opts ...Option) []string {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	l := layout(&cfg, sc, nil)
	names := make([]string, len(l.cols))
	for i, c := range l.cols {
		names[i] = c.name
	}
	return names
}

// layout compiles the columns of sc, bound to rec's arrays when rec is not
// nil.
func layout(cfg *config, sc *arrow.Schema, rec arrow.RecordBatch) *csvLayout {
	l := &csvLayout{cfg: cfg}
	if cfg.arrays.Mode == ArraysExplode {
		l.exploding = listAt(sc, cfg.arrays.Path)
	}
	for i, f := range sc.Fields() {
		var a arrow.Array
		if rec != nil {
			a = rec.Column(i)
		}
		l.walk(f.Name, f.Type, a, nil, false)
	}
	return l
}

// walk adds the columns of one value of type t named name; a (may be nil)
// holds the values, read at ix(i).
func (l *csvLayout) walk(name string, t arrow.DataType, a arrow.Array, ix indexer, elem bool) {
	switch t := t.(type) {
	case *arrow.StructType:
		for k, f := range t.Fields() {
			var child arrow.Array
			if a != nil {
				child = a.(*array.Struct).Field(k)
			}
			l.walk(name+"."+f.Name, f.Type, child, ix, elem)
		}
		return
	case arrow.ListLikeType:
		if l.cfg.arrays.Mode == ArraysExplode && !elem && name == l.cfg.arrays.Path {
			var values arrow.Array
			if a != nil {
				l.explode = a.(array.ListLike)
				values = l.explode.ListValues()
				l.cols = append(l.cols, csvColumn{name: name + "._index", elem: true, cell: l.indexCell()})
			} else {
				l.cols = append(l.cols, csvColumn{name: name + "._index", elem: true})
			}
			l.walk(name, t.Elem(), values, nil, true)
			return
		}
		if l.exploding && !elem && slices.Contains(l.cfg.arrays.Along, name) {
			var values arrow.Array
			var aix indexer
			if a != nil {
				values = a.(array.ListLike).ListValues()
				aix = l.alongIndexer(a.(array.ListLike), ix)
			}
			l.walk(name, t.Elem(), values, aix, true)
			return
		}
		if l.cfg.arrays.Mode == ArraysFirst {
			for k := 0; k < l.cfg.arrays.N; k++ {
				var values arrow.Array
				var kix indexer
				if a != nil {
					values = a.(array.ListLike).ListValues()
					kix = nthIndexer(a.(array.ListLike), ix, k)
				}
				l.walk(name+"."+strconv.Itoa(k), t.Elem(), values, kix, elem)
			}
			return
		}
	}
	c := csvColumn{name: name, elem: elem}
	if a != nil {
		c.cell = l.leafCell(a, ix)
	}
	l.cols = append(l.cols, c)
}

// listRange returns the offsets [s, e) of the elements of list array a
// in row i (mapped through ix when set); ok is false for a null list or
// a row ix does not map.
func listRange(a array.ListLike, ix indexer, i int) (s, e int64, ok bool) {
	if ix != nil {
		if i, ok = ix(i); !ok {
			return 0, 0, false
		}
	}
	if a.IsNull(i) {
		return 0, 0, false
	}
	s, e = a.ValueOffsets(i)
	return s, e, true
}

// nthIndexer maps a row of list array a (through ix) to its k-th element.
func nthIndexer(a array.ListLike, ix indexer, k int) indexer {
	return func(i int) (int, bool) {
		if s, e, ok := listRange(a, ix, i); ok && s+int64(k) < e {
			return int(s) + k, true
		}
		return 0, false
	}
}

// alongIndexer maps an element of the exploded array to the element of
// list array a (of the row, through ix) with the same index in its row.
func (l *csvLayout) alongIndexer(a array.ListLike, ix indexer) indexer {
	return func(j int) (int, bool) {
		s, e, ok := listRange(a, ix, l.row)
		if !ok {
			return 0, false
		}
		if k := s + int64(j) - l.rowStart; k < e {
			return int(k), true
		}
		return 0, false
	}
}

// listAt reports whether sc has a list at the dotted path of struct
// fields.
func listAt(sc *arrow.Schema, path string) bool {
	parts := strings.Split(path, ".")
	fs := sc.Fields()
	for i, name := range parts {
		k := slices.IndexFunc(fs, func(f arrow.Field) bool { return f.Name == name })
		if k < 0 {
			return false
		}
		switch t := fs[k].Type.(type) {
		case arrow.ListLikeType:
			return i == len(parts)-1
		case *arrow.StructType:
			fs = t.Fields()
		default:
			return false
		}
	}
	return false
}

// indexCell numbers the elements of the exploded array from 0.
func (l *csvLayout) indexCell() cellFn {
	return func(dst []byte, i int) []byte {
		return strconv.AppendInt(dst, int64(i)-l.rowStart, 10)
	}
}

// leafCell returns the cell function of one column of a's values.
func (l *csvLayout) leafCell(a arrow.Array, ix indexer) cellFn {
	f := l.valueFn(a)
	return func(dst []byte, i int) []byte {
		if ix != nil {
			var ok bool
			if i, ok = ix(i); !ok {
				return dst
			}
		}
		if a.IsNull(i) {
			return dst
		}
		return f(dst, i)
	}
}

// valueFn renders one value of a as a CSV cell: numbers as text (floats
// with a decimal point or an exponent), NaN/Inf as NaN, Inf, -Inf, blobs as
// base64, times per the time format, arrays and structs (where not spread
// over columns) as JSON.
func (l *csvLayout) valueFn(a arrow.Array) cellFn {
	switch a := a.(type) {
	case *array.Boolean:
		return func(dst []byte, i int) []byte { return strconv.AppendBool(dst, a.Value(i)) }
	case *array.Int8:
		return func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(a.Value(i)), 10) }
	case *array.Int16:
		return func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(a.Value(i)), 10) }
	case *array.Int32:
		return func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(a.Value(i)), 10) }
	case *array.Int64:
		return func(dst []byte, i int) []byte { return strconv.AppendInt(dst, a.Value(i), 10) }
	case *array.Uint8:
		return func(dst []byte, i int) []byte { return strconv.AppendUint(dst, uint64(a.Value(i)), 10) }
	case *array.Uint16:
		return func(dst []byte, i int) []byte { return strconv.AppendUint(dst, uint64(a.Value(i)), 10) }
	case *array.Uint32:
		return func(dst []byte, i int) []byte { return strconv.AppendUint(dst, uint64(a.Value(i)), 10) }
	case *array.Uint64:
		return func(dst []byte, i int) []byte { return strconv.AppendUint(dst, a.Value(i), 10) }
	case *array.Float32:
		return func(dst []byte, i int) []byte { return AppendCSVFloat(dst, float64(a.Value(i)), 32) }
	case *array.Float64:
		return func(dst []byte, i int) []byte { return AppendCSVFloat(dst, a.Value(i), 64) }
	case *array.String:
		return func(dst []byte, i int) []byte { return append(dst, a.Value(i)...) }
	case *array.Binary:
		return func(dst []byte, i int) []byte { return sink.AppendBase64(dst, a.Value(i)) }
	case *array.Timestamp:
		return func(dst []byte, i int) []byte { return l.appendTime(dst, int64(a.Value(i))) }
	case *array.Duration:
		return func(dst []byte, i int) []byte { return strconv.AppendInt(dst, int64(a.Value(i)), 10) }
	}
	return func(dst []byte, i int) []byte { return l.appendJSON(dst, a, i) }
}

func (l *csvLayout) appendTime(dst []byte, ns int64) []byte {
	if l.cfg.timeFormat == TimeNs {
		return strconv.AppendInt(dst, ns, 10)
	}
	return time.Unix(0, ns).UTC().AppendFormat(dst, time.RFC3339Nano)
}

// AppendCSVFloat appends the CSV text of a float of the given bit size
// (32 or 64), as the CSV export writes it: the shortest text that reads
// back to the same value (as baglab cat writes numbers), and NaN, Inf,
// -Inf. A whole number gets ".0" (2.0, -0.0), so that a float column reads
// as floats in readers that infer a column's type from its first rows
// (polars reads 100 and then fails on the first fraction of a column it
// took for integers; DuckDB types an all-whole column BIGINT, pandas
// int64). Text that would hold more than 17 digits, leading zeros
// included (0.30000000000000004, 0.00001589314829463513), is written in
// exponent form instead (3.0000000000000004e-01): pandas' default parser
// reads the first 17 digits only, leading zeros counted, and read such
// values up to 10^-10 off, where it reads the exponent form within 3 units
// in the last place.
func AppendCSVFloat(dst []byte, v float64, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	case math.IsInf(v, 1):
		return append(dst, "Inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-Inf"...)
	}
	n := len(dst)
	dst = sink.AppendJSONFloat(dst, v, bits)
	digits, point := 0, false
	for _, c := range dst[n:] {
		switch {
		case c == 'e':
			return dst
		case c == '.':
			point = true
		case c >= '0' && c <= '9':
			digits++
		}
	}
	if digits > 17 && point {
		return strconv.AppendFloat(dst[:n], v, 'e', -1, bits)
	}
	if !point {
		dst = append(dst, ".0"...)
	}
	return dst
}

// appendJSON renders value i of a as JSON: structs as objects, arrays as
// arrays, blobs as base64 strings, times as in cells (RFC 3339 strings or
// integers), NaN and infinities as the strings "NaN", "Infinity",
// "-Infinity" (as baglab cat writes them).
func (l *csvLayout) appendJSON(dst []byte, a arrow.Array, i int) []byte {
	if a.IsNull(i) {
		return append(dst, "null"...)
	}
	switch a := a.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = sink.AppendJSONString(dst, st.Field(k).Name)
			dst = append(dst, ':')
			dst = l.appendJSON(dst, a.Field(k), i)
		}
		return append(dst, '}')
	case array.ListLike:
		s, e := a.ValueOffsets(i)
		values := a.ListValues()
		dst = append(dst, '[')
		for j := s; j < e; j++ {
			if j > s {
				dst = append(dst, ',')
			}
			dst = l.appendJSON(dst, values, int(j))
		}
		return append(dst, ']')
	case *array.Float32:
		return sink.AppendJSONFloat(dst, float64(a.Value(i)), 32)
	case *array.Float64:
		return sink.AppendJSONFloat(dst, a.Value(i), 64)
	case *array.String:
		return sink.AppendJSONString(dst, a.Value(i))
	case *array.Binary:
		dst = append(dst, '"')
		dst = sink.AppendBase64(dst, a.Value(i))
		return append(dst, '"')
	case *array.Timestamp:
		if l.cfg.timeFormat == TimeNs {
			return strconv.AppendInt(dst, int64(a.Value(i)), 10)
		}
		dst = append(dst, '"')
		dst = l.appendTime(dst, int64(a.Value(i)))
		return append(dst, '"')
	}
	return l.valueFn(a)(dst, i) // booleans, integers, durations
}

// write writes the rows of rec.
func (cw *csvWriter) write(rec arrow.RecordBatch) error {
	l := layout(cw.cfg, cw.schema, rec)
	var buf []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		l.row = i
		for k, c := range l.cols {
			if !c.elem {
				buf = c.cell(buf[:0], i)
				cw.row[k] = string(buf)
			}
		}
		if l.explode == nil {
			if err := cw.w.Write(cw.row); err != nil {
				return err
			}
			continue
		}
		s, e := l.explode.ValueOffsets(i)
		l.rowStart = s
		if s == e { // empty exploded array: one row, element cells empty
			for k, c := range l.cols {
				if c.elem {
					cw.row[k] = ""
				}
			}
			if err := cw.w.Write(cw.row); err != nil {
				return err
			}
			continue
		}
		for j := s; j < e; j++ {
			for k, c := range l.cols {
				if c.elem {
					buf = c.cell(buf[:0], int(j))
					cw.row[k] = string(buf)
				}
			}
			if err := cw.w.Write(cw.row); err != nil {
				return err
			}
		}
	}
	cw.w.Flush()
	return cw.w.Error()
}

// close flushes the rows written.
func (cw *csvWriter) close() error {
	cw.w.Flush()
	return cw.w.Error()
}

// abort drops the buffered rows.
func (cw *csvWriter) abort() {}
