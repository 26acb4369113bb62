package sqlitefile

import (
	"encoding/binary"
	"fmt"
)

// entry is an index entry, or the key an interior table cell holds
// (rowid only).
type entry struct{ key, rowid int64 }

// child is a page of a tree level with the key that follows it: for a
// table the greatest rowid under it, for an index the entry between it
// and the next page.
type child struct {
	page uint32
	sep  entry
}

// Table is a rowid table being written.
type Table struct {
	f         *File
	name, sql string
	leafOff   int // where the leaf's page header starts (100 on page 1)
	leaf      []byte
	cells     int
	top       int   // start of the leaf's cell content area
	last      int64 // the greatest rowid placed
	placed    bool
	children  []child // the leaves written
}

// Table adds a table: name and the CREATE TABLE statement that made it
// (without its semicolon), as the schema table lists them.
func (f *File) Table(name, sql string) *Table {
	t := &Table{f: f, name: name, sql: sql}
	t.reset()
	f.objects = append(f.objects, t)
	return t
}

func (t *Table) schema() (kind, name, table, sql string) { return "table", t.name, t.name, t.sql }

func (t *Table) reset() {
	if t.leaf == nil {
		t.leaf = make([]byte, t.f.pageSize)
	} else {
		clear(t.leaf)
	}
	t.cells, t.top = 0, len(t.leaf)
}

// Insert appends a row with a rowid greater than every one before it.
// Its columns are the table's, in order; an INTEGER PRIMARY KEY column
// is Null, its value the rowid. Text and blob bytes are copied before it
// returns. After an error the File takes nothing more.
func (t *Table) Insert(rowid int64, cols ...Value) error {
	if err := t.f.usable(); err != nil {
		return err
	}
	if err := t.place(rowid, cols...); err != nil {
		t.f.err = err
		return err
	}
	return nil
}

func (t *Table) place(rowid int64, cols ...Value) error {
	if t.placed && rowid <= t.last {
		return fmt.Errorf("sqlitefile: table %s: rowid %d after %d", t.name, rowid, t.last)
	}
	f := t.f
	p := f.record(cols)
	local := f.localSize(p)
	size := varintLen(uint64(p)) + varintLen(uint64(rowid)) + local
	if local < p {
		size += 4
	}
	size = max(size, 4) // the least space SQLite counts a cell as
	if t.cells > 0 && t.top-(t.leafOff+8+2*t.cells) < size+2 {
		t.flush()
	}
	if t.top-(t.leafOff+8) < size+2 {
		return fmt.Errorf("sqlitefile: table %s: a row of %d bytes is more than page 1 holds", t.name, p)
	}
	var cell []byte
	cell, t.top = cellAt(t.leaf, t.leafOff+8, t.cells, t.top, size)
	at := len(appendVarint(appendVarint(cell[:0], uint64(p)), uint64(rowid)))
	f.take(cell[at : at+local])
	if local < p {
		binary.BigEndian.PutUint32(cell[at+local:], f.spill(p-local))
	}
	t.cells++
	t.last, t.placed = rowid, true
	return nil
}

// sealLeaf writes the leaf's page header and returns the page.
func (t *Table) sealLeaf() []byte {
	putHeader(t.leaf[t.leafOff:], tableLeaf, t.cells, t.top)
	return t.leaf
}

// flush writes the leaf and starts the next.
func (t *Table) flush() {
	t.children = append(t.children, child{page: t.f.appendPage(t.sealLeaf()), sep: entry{rowid: t.last}})
	t.reset()
}

func (t *Table) finish() (uint32, error) {
	if t.cells > 0 || len(t.children) == 0 {
		t.flush()
	}
	return t.f.build(t.children, tableInterior), nil
}

func (t *Table) release() {}

// cellAt makes room for a cell of size bytes below top, the start of the
// cell content area of page, points the page's cell pointer k (in the
// array after a header ending at hdrEnd) at it, and returns the cell and
// the new top.
func cellAt(page []byte, hdrEnd, k, top, size int) (cell []byte, newTop int) {
	top -= size
	binary.BigEndian.PutUint16(page[hdrEnd+2*k:], uint16(top))
	return page[top : top+size], top
}

// share is part i's share of total things spread evenly over parts: the
// first total%parts parts take one more.
func share(total, parts, i int) int {
	n := total / parts
	if i < total%parts {
		n++
	}
	return n
}

// putHeader writes a b-tree page header: no free blocks, no fragments.
func putHeader(h []byte, kind byte, cells, top int) {
	h[0] = kind
	binary.BigEndian.PutUint16(h[1:], 0)
	binary.BigEndian.PutUint16(h[3:], uint16(cells))
	binary.BigEndian.PutUint16(h[5:], uint16(top)) // 65536 is written 0
	h[7] = 0
}

// maxIndexPayload is the longest index record: a 3-byte header and two
// 8-byte integers.
const maxIndexPayload = 3 + 8 + 8

// putIndexPayload appends e's record with its length before it.
func putIndexPayload(b []byte, e entry) []byte {
	sk, nk := intSerial(e.key)
	sr, nr := intSerial(e.rowid)
	b = append(b, byte(3+nk+nr), 3, byte(sk), byte(sr))
	return putInt(putInt(b, e.key, nk), e.rowid, nr)
}

// build writes the interior levels above children, each level's pages
// holding its children evenly spread over as few pages as hold them,
// and returns the root's number.
func (f *File) build(children []child, kind byte) uint32 {
	maxCell := 4 + 9 // child page, rowid
	if kind == indexInterior {
		maxCell = 4 + 1 + maxIndexPayload
	}
	perPage := (f.pageSize-12)/(maxCell+2) + 1 // children: the cells' and the right-most
	page := make([]byte, f.pageSize)
	for len(children) > 1 {
		k := len(children)
		pages := (k + perPage - 1) / perPage
		up := make([]child, 0, pages)
		for i := range pages {
			count := share(k, pages, i)
			group := children[:count]
			children = children[count:]
			clear(page)
			top := len(page)
			for c, ch := range group[:count-1] {
				var buf [4 + 1 + maxIndexPayload]byte
				binary.BigEndian.PutUint32(buf[:], ch.page)
				b := buf[:4]
				if kind == indexInterior {
					b = putIndexPayload(b, ch.sep)
				} else {
					b = appendVarint(b, uint64(ch.sep.rowid))
				}
				var cell []byte
				cell, top = cellAt(page, 12, c, top, len(b))
				copy(cell, b)
			}
			putHeader(page, kind, count-1, top)
			binary.BigEndian.PutUint32(page[8:], group[count-1].page)
			up = append(up, child{page: f.appendPage(page), sep: group[count-1].sep})
		}
		children = up
	}
	return children[0].page
}

// appendVarint appends v as a SQLite varint: big-endian groups of 7 bits,
// each but the last with its high bit set; a ninth byte holds 8 bits.
func appendVarint(b []byte, v uint64) []byte {
	if v <= 0x7f {
		return append(b, byte(v))
	}
	var buf [9]byte
	if v > 1<<56-1 {
		buf[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			buf[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(b, buf[:]...)
	}
	n := varintLen(v)
	for i := n - 1; i >= 0; i-- {
		buf[i] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	buf[n-1] &= 0x7f
	return append(b, buf[:n]...)
}

// varintLen is the length of v as a SQLite varint.
func varintLen(v uint64) int {
	if v > 1<<56-1 {
		return 9
	}
	n := 1
	for v >>= 7; v != 0; v >>= 7 {
		n++
	}
	return n
}
