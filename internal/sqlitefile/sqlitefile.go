// Package sqlitefile writes SQLite 3 database files in one pass, without
// a SQL engine, for tables whose rows arrive in increasing rowid order
// and indexes on one integer column: the tables of a recording. The file
// format is https://www.sqlite.org/fileformat2.html; every SQLite reader
// reads what it writes, and PRAGMA integrity_check passes.
//
// Rows are laid into the leaf pages of each table's b-tree, and a payload
// longer than its leaf holds spills to overflow pages; pages are written
// to the output in the order they fill, in chunks, on a goroutine of
// their own (internal/batches), while the caller goes on. Close builds
// each tree's interior pages bottom up, sorts each index and writes its
// tree, and writes the schema table and the file header on page 1.
//
// It exists for speed: a SQLite connection inserts on the one goroutine
// it runs on, copying each row into its page cache and writing each page
// with a call of its own, which made a conversion to rosbag2's sqlite3
// storage take more than twice as long as reading its input.
package sqlitefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"unsafe"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/batches"
)

// Output is where a File is written: pages are appended in order, and
// page 1 is written in place at the end.
type Output interface {
	io.Writer
	io.WriterAt
}

// pendingByte is the offset of SQLite's lock-byte page, which holds no
// data and belongs to no tree, in files that reach it (1 GiB).
const pendingByte = 1 << 30

// chunkBytes is how many bytes of pages a chunk holds before it is sent
// to be written: writes of about atomicfile.WriteMax, which this VM takes
// steadily (a 1 GB conversion to sqlite3 took 0.42-0.76 s so, 0.51-0.87 s
// in writes of 128 KB, 11 runs each).
const chunkBytes = atomicfile.WriteMax

// headerBytes is the size of the file header that opens page 1.
const headerBytes = 100

// sqliteVersion is the SQLITE_VERSION_NUMBER the header names as the last
// to write the file: the format written is that of SQLite 3.37.
const sqliteVersion = 3_037_000

// Page types (the first byte of a b-tree page's header).
const (
	indexInterior = 0x02
	tableInterior = 0x05
	indexLeaf     = 0x0a
	tableLeaf     = 0x0d
)

// File is a SQLite database being written. Its methods are for one
// goroutine.
type File struct {
	out      Output
	pageSize int
	next     uint32 // number of the next page appended
	lockPage uint32 // the lock-byte page's number
	pipe     *batches.Pipe[chunk]
	writes   *shiftedWriter
	objects  []object
	segs     [][]byte // a row's payload, in pieces
	rest     [][]byte // what of segs is not yet copied
	scratch  []byte   // a row's header and integers
	closed   bool
	err      error
}

// chunk is consecutive pages waiting to be written, after shift bytes of
// room (shiftedWriter).
type chunk struct{ b []byte }

// current is the chunk being filled.
func (f *File) current() *chunk {
	c := f.pipe.Current()
	if len(c.b) < shift { // not used yet
		c.b = append(c.b[:0], make([]byte, shift)...)
	}
	return c
}

// object is a table or index, as the schema table lists it.
type object interface {
	finish() (root uint32, err error)
	schema() (kind, name, table, sql string)
	release() // frees what it holds beside the output, after finish or not
}

// New starts a database of pages of pageSize bytes (a power of two from
// 512 to 65536) written to out from its start.
func New(out Output, pageSize int) (*File, error) {
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return nil, fmt.Errorf("sqlitefile: page size %d is not a power of two from 512 to 65536", pageSize)
	}
	f := &File{out: out, pageSize: pageSize, next: 1, lockPage: uint32(pendingByte/pageSize + 1)}
	f.writes = &shiftedWriter{out: out}
	f.pipe = batches.Start(3, f.writes.write, func(c *chunk) { c.b = c.b[:shift] }, func(c *chunk) bool { return len(c.b) <= shift })
	f.appendPage(make([]byte, pageSize)) // page 1, written in place by Close
	return f, nil
}

// appendPage adds page p to the output and returns its number.
func (f *File) appendPage(p []byte) uint32 {
	n := f.allocate()
	c := f.current()
	c.b = append(c.b, p...)
	if len(c.b) >= chunkBytes {
		f.pipe.Send()
	}
	return n
}

// allocate returns the number of the page appended next, first appending
// the lock-byte page when that is its place.
func (f *File) allocate() uint32 {
	if f.next == f.lockPage {
		c := f.current()
		c.b = append(c.b, make([]byte, f.pageSize)...)
		f.next++
	}
	f.next++
	return f.next - 1
}

// following is the number of the page appended after the one just
// allocated.
func (f *File) following() uint32 {
	if f.next == f.lockPage {
		return f.next + 1
	}
	return f.next
}

func (f *File) usable() error {
	if f.err != nil {
		return f.err
	}
	if f.closed {
		return errors.New("sqlitefile: file is closed")
	}
	if err := f.pipe.Err(); err != nil {
		f.err = err
		return err
	}
	return nil
}

// Close finishes every table and index, writes page 1 and waits for every
// page to be written. It returns the first error of the File; it is
// idempotent, and the output is not closed.
func (f *File) Close() error {
	if f.closed {
		return f.err
	}
	err := f.usable()
	f.closed = true
	var page1 []byte
	if err == nil {
		page1, err = f.finish()
	}
	if perr := f.pipe.Stop(); err == nil {
		err = perr
	}
	f.release()
	if err == nil {
		err = f.writes.flush()
	}
	if err == nil {
		_, err = f.out.WriteAt(page1, 0)
	}
	if err != nil && f.err == nil {
		f.err = err
	}
	return f.err
}

// Abort stops the writing, leaving the output short, for the caller to
// remove. Close afterwards returns an error.
func (f *File) Abort() {
	if f.closed {
		return
	}
	f.closed = true
	if f.err == nil {
		f.err = errors.New("sqlitefile: aborted")
	}
	f.pipe.Stop()
	f.release()
}

// release frees what every object holds beside the output.
func (f *File) release() {
	for _, o := range f.objects {
		o.release()
	}
}

// finish writes every object's remaining pages and returns page 1: the
// file header and the schema table.
func (f *File) finish() ([]byte, error) {
	schema := &Table{f: f, leafOff: headerBytes}
	schema.reset()
	for i, o := range f.objects {
		root, err := o.finish()
		if err != nil {
			return nil, err
		}
		kind, name, table, sql := o.schema()
		if err := schema.place(int64(i+1), Text(kind), Text(name), Text(table), Int(int64(root)), Text(sql)); err != nil {
			return nil, err
		}
		if len(schema.children) > 0 {
			return nil, fmt.Errorf("sqlitefile: the schema of %d tables and indexes is more than a page of %d bytes holds", len(f.objects), f.pageSize)
		}
	}
	page := schema.sealLeaf()
	h := page[:headerBytes]
	copy(h, "SQLite format 3\x00")
	size := uint16(f.pageSize)
	if f.pageSize == 65536 {
		size = 1
	}
	binary.BigEndian.PutUint16(h[16:], size)
	h[18], h[19] = 1, 1                   // legacy (rollback journal) write and read versions
	h[21], h[22], h[23] = 64, 32, 32      // payload fractions, as the format fixes them
	binary.BigEndian.PutUint32(h[24:], 1) // file change counter
	binary.BigEndian.PutUint32(h[28:], f.next-1)
	binary.BigEndian.PutUint32(h[40:], 1) // schema cookie
	binary.BigEndian.PutUint32(h[44:], 4) // schema format
	binary.BigEndian.PutUint32(h[56:], 1) // text encoding: UTF-8
	binary.BigEndian.PutUint32(h[92:], 1) // version-valid-for: the change counter
	binary.BigEndian.PutUint32(h[96:], sqliteVersion)
	return page, nil
}

// Value is one column of a row: Null, Int, Text or Blob.
type Value struct {
	kind valueKind
	i    int64
	s    string
	b    []byte
}

type valueKind uint8

const (
	nullValue valueKind = iota
	intValue
	textValue
	blobValue
)

// Null is SQL NULL, as an INTEGER PRIMARY KEY column (the rowid) is
// stored.
func Null() Value { return Value{kind: nullValue} }

// Int is an integer.
func Int(i int64) Value { return Value{kind: intValue, i: i} }

// Text is a UTF-8 string.
func Text(s string) Value { return Value{kind: textValue, s: s} }

// Blob is bytes, used in place until the row is placed.
func Blob(b []byte) Value { return Value{kind: blobValue, b: b} }

// intSerial is the serial type and size of integer i, the smallest that
// holds it, as SQLite picks them.
func intSerial(i int64) (serial uint64, size int) {
	switch {
	case i == 0:
		return 8, 0
	case i == 1:
		return 9, 0
	case i >= -128 && i <= 127:
		return 1, 1
	case i >= -32768 && i <= 32767:
		return 2, 2
	case i >= -(1<<23) && i < 1<<23:
		return 3, 3
	case i >= -(1<<31) && i < 1<<31:
		return 4, 4
	case i >= -(1<<47) && i < 1<<47:
		return 5, 6
	}
	return 6, 8
}

// putInt appends the big-endian size bytes of i.
func putInt(b []byte, i int64, size int) []byte {
	for k := size - 1; k >= 0; k-- {
		b = append(b, byte(uint64(i)>>(8*k)))
	}
	return b
}

// record lays out a row's record in f.segs (and f.rest) and returns its length: the
// header and the integers in f.scratch, texts and blobs where they lie.
func (f *File) record(cols []Value) int {
	hdr := 0
	for _, c := range cols {
		hdr += varintLen(serialOf(c))
	}
	hdr += varintLen(uint64(hdr + 1))
	need := hdr + 8*len(cols)
	if cap(f.scratch) < need {
		f.scratch = make([]byte, 0, need)
	}
	b := appendVarint(f.scratch[:0], uint64(hdr))
	for _, c := range cols {
		b = appendVarint(b, serialOf(c))
	}
	f.segs = f.segs[:0]
	start := 0
	for _, c := range cols {
		switch c.kind {
		case intValue:
			_, size := intSerial(c.i)
			b = putInt(b, c.i, size)
		case textValue, blobValue:
			f.segs = append(f.segs, b[start:])
			start = len(b)
			if c.kind == textValue {
				f.segs = append(f.segs, unsafe.Slice(unsafe.StringData(c.s), len(c.s)))
			} else {
				f.segs = append(f.segs, c.b)
			}
		}
	}
	f.segs = append(f.segs, b[start:])
	f.rest = f.segs
	n := 0
	for _, s := range f.segs {
		n += len(s)
	}
	return n
}

func serialOf(c Value) uint64 {
	switch c.kind {
	case intValue:
		s, _ := intSerial(c.i)
		return s
	case textValue:
		return 13 + 2*uint64(len(c.s))
	case blobValue:
		return 12 + 2*uint64(len(c.b))
	}
	return 0
}

// take copies the next len(dst) bytes of the row's payload to dst.
func (f *File) take(dst []byte) {
	for len(dst) > 0 {
		n := copy(dst, f.rest[0])
		dst = dst[n:]
		if n == len(f.rest[0]) {
			f.rest = f.rest[1:]
		} else {
			f.rest[0] = f.rest[0][n:]
		}
	}
}

// localSize is how many of a payload's p bytes a table leaf cell holds
// (the rest goes to overflow pages), by the format's formula.
func (f *File) localSize(p int) int {
	u := f.pageSize
	maxLocal := u - 35
	if p <= maxLocal {
		return p
	}
	minLocal := (u-12)*32/255 - 23
	k := minLocal + (p-minLocal)%(u-4)
	if k <= maxLocal {
		return k
	}
	return minLocal
}

// spill writes the payload left in f.rest, rest bytes, to overflow pages
// and returns the first one's number.
func (f *File) spill(rest int) uint32 {
	first := uint32(0)
	room := f.pageSize - 4
	for rest > 0 {
		n := f.allocate()
		if first == 0 {
			first = n
		}
		next := uint32(0)
		take := min(rest, room)
		if rest > room {
			next = f.following()
		}
		c := f.current()
		at := len(c.b)
		c.b = slices.Grow(c.b, f.pageSize)[:at+f.pageSize]
		binary.BigEndian.PutUint32(c.b[at:], next)
		f.take(c.b[at+4 : at+4+take])
		clear(c.b[at+4+take : at+f.pageSize])
		rest -= take
		if len(c.b) >= chunkBytes {
			f.pipe.Send()
		}
	}
	return first
}
