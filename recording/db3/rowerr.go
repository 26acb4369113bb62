package db3

import (
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/baglab/baglab/record"
)

// colKind is what a column of a row must hold.
type colKind int

const (
	kindInt  colKind = iota // an integer (or text/real that is one)
	kindText                // anything but NULL, read as text
	kindBlob                // anything but NULL, read as bytes
)

func (k colKind) String() string {
	switch k {
	case kindInt:
		return "an integer"
	case kindText:
		return "text"
	default:
		return "a BLOB"
	}
}

// fits reports whether database/sql can scan v into the Go type of k.
func (k colKind) fits(v any) bool {
	if v == nil {
		return false
	}
	switch k {
	case kindText:
		return true
	case kindBlob:
		switch v.(type) {
		case []byte, string:
			return true
		}
		return false
	}
	switch v := v.(type) {
	case int64:
		return true
	case float64:
		return v == math.Trunc(v) && v >= math.MinInt64 && v < math.MaxInt64
	case string:
		_, err := strconv.ParseInt(v, 10, 64)
		return err == nil
	case []byte:
		_, err := strconv.ParseInt(string(v), 10, 64)
		return err == nil
	}
	return false
}

// describeValue names a value as SQLite stores it.
func describeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return fmt.Sprintf("INTEGER %d", v)
	case float64:
		return fmt.Sprintf("REAL %g", v)
	case string:
		return "TEXT " + quoteShort(v)
	case []byte:
		return fmt.Sprintf("a BLOB of %d bytes", len(v))
	default:
		return fmt.Sprintf("%v", v)
	}
}

func quoteShort(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}

// rowName names a row by its id column's value.
func rowName(table string, id any) string {
	if n, ok := id.(int64); ok {
		return fmt.Sprintf("%s row %d", table, n)
	}
	return fmt.Sprintf("%s row with id %s", table, describeValue(id))
}

// columnError is bad data in one column of one row.
func columnError(file, table string, id any, col string, v any, want colKind) *record.Error {
	return &record.Error{File: file, Offset: -1, Field: table + "." + col, Err: record.ErrFormat,
		Detail: fmt.Sprintf("%s: column %s holds %s, want %s", rowName(table, id), col, describeValue(v), want)}
}

// scanRow scans the current row into dest; when that fails it reads the row
// again as plain values and names the row (cols[0] is its id) and the column
// that does not hold what kinds asks, instead of the driver's text.
func scanRow(rows *sql.Rows, file, table string, cols []string, kinds []colKind, dest ...any) error {
	err := rows.Scan(dest...)
	if err == nil {
		return nil
	}
	return diagnoseRow(rows, file, table, cols, kinds, err)
}

func diagnoseRow(rows *sql.Rows, file, table string, cols []string, kinds []colKind, scanErr error) error {
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return sqlError(file, table, scanErr)
	}
	for i, k := range kinds {
		if !k.fits(vals[i]) {
			return columnError(file, table, vals[0], cols[i], vals[i], k)
		}
	}
	detail := scanErr.Error()
	if i := strings.Index(detail, "\": "); strings.HasPrefix(detail, "sql: Scan error") && i >= 0 {
		detail = detail[i+3:]
	}
	return &record.Error{File: file, Offset: -1, Field: table, Err: record.ErrFormat,
		Detail: fmt.Sprintf("%s: %s", rowName(table, vals[0]), detail)}
}

// messageCols are the columns Messages reads, with what each must hold.
var (
	messageCols  = []string{"id", "topic_id", "timestamp", "data"}
	messageKinds = []colKind{kindInt, kindInt, kindInt, kindBlob}
)

// badMessageRow finds the first messages row whose columns do not hold
// what they must, for an aggregate query that failed with err.
func (f *dbFile) badMessageRow(err error) error {
	rows, qerr := f.db.Query("SELECT id, topic_id, timestamp, data FROM messages WHERE typeof(id) <> 'integer' OR typeof(topic_id) <> 'integer' OR typeof(timestamp) <> 'integer' ORDER BY id")
	if qerr != nil {
		return sqlError(f.path, "messages", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, topic, ts int64
		var data blobCol
		if e := scanRow(rows, f.path, "messages", messageCols, messageKinds, &id, &topic, &ts, &data); e != nil {
			return e
		}
	}
	return sqlError(f.path, "messages", err)
}

// blobCol scans a BLOB (or TEXT) column without copying it, telling NULL
// from empty. Like sql.RawBytes, b is valid until the next call to Next.
type blobCol struct {
	b    []byte
	null bool
}

// Scan implements sql.Scanner.
func (c *blobCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		c.b, c.null = nil, true
	case []byte:
		c.b, c.null = v, false
	case string:
		c.b, c.null = []byte(v), false
	default:
		return fmt.Errorf("%T is not a BLOB", src)
	}
	return nil
}

// missingTopic is a messages row whose topic_id no topics row has.
func (f *dbFile) missingTopic(rowID, topic int64, count uint64) error {
	d := fmt.Sprintf("messages row %d: column topic_id holds %d, which no row of topics has", rowID, topic)
	if count > 1 {
		d += fmt.Sprintf(" (%d messages name it)", count)
	}
	return &record.Error{File: f.path, Offset: -1, Field: "messages.topic_id", Err: record.ErrFormat, Detail: d}
}
