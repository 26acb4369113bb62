package sqlitefile

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/merge"
)

// runEntries is how many entries an Index sorts in memory (16 MB); past
// that it writes each run of them, sorted, to a temporary file in the
// system's temporary folder, and
// Close merges the runs, so that an index of any size takes bounded
// memory, as SQLite's own sorter does.
const runEntries = 1 << 20

// entryBytes is the size of an entry in a spilled run.
const entryBytes = 16

// Index is an index on one integer column of a table, being written.
type Index struct {
	f                *File
	name, table, sql string
	entries          []entry          // the run being gathered
	unsorted         bool             // entries is out of order
	runSize          int              // runEntries; tests make it small
	spill            *atomicfile.File // never committed: removed by release, or by atomicfile.Cleanup on a signal
	spilled          *bufio.Writer
	runs             []int64 // entries in each run spilled, in order
	count            int     // entries added
	last             int64   // the last rowid added
}

// Index adds an index of table on one integer column: name and the
// CREATE INDEX statement (without its semicolon). Each row's value is
// given to Add; Close sorts the entries and writes the index.
func (f *File) Index(name, table, sql string) *Index {
	x := &Index{f: f, name: name, table: table, sql: sql, runSize: runEntries}
	f.objects = append(f.objects, x)
	return x
}

func (x *Index) schema() (kind, name, table, sql string) { return "index", x.name, x.table, x.sql }

// Add indexes the row rowid by key. Rows are added in increasing rowid
// order, as their table takes them (the runs merged at Close then break
// ties of key by run). An error is the File's (Insert and Close return
// it).
func (x *Index) Add(key, rowid int64) {
	if x.f.err != nil {
		return
	}
	if x.count > 0 && rowid <= x.last {
		x.f.err = fmt.Errorf("sqlitefile: index %s: rowid %d after %d", x.name, rowid, x.last)
		return
	}
	x.last = rowid
	e := entry{key, rowid}
	if n := len(x.entries); n > 0 && compareEntries(e, x.entries[n-1]) < 0 {
		x.unsorted = true
	}
	x.entries = append(x.entries, e)
	x.count++
	if len(x.entries) >= x.runSize {
		if err := x.spillRun(); err != nil {
			x.f.err = fmt.Errorf("sqlitefile: index %s: %w", x.name, err)
		}
	}
}

func compareEntries(a, b entry) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.rowid, b.rowid)
}

// spillRun sorts the entries gathered and appends them to the temporary
// file as a run.
func (x *Index) spillRun() error {
	if x.spill == nil {
		f, err := atomicfile.Create(filepath.Join(os.TempDir(), "baglab-sqlite-index"), atomicfile.Synced(false))
		if err != nil {
			return err
		}
		x.spill, x.spilled = f, bufio.NewWriterSize(f, 64<<10)
	}
	x.sortRun()
	var b [entryBytes]byte
	for _, e := range x.entries {
		binary.LittleEndian.PutUint64(b[:], uint64(e.key))
		binary.LittleEndian.PutUint64(b[8:], uint64(e.rowid))
		if _, err := x.spilled.Write(b[:]); err != nil {
			return err
		}
	}
	x.runs = append(x.runs, int64(len(x.entries)))
	x.entries = x.entries[:0]
	return nil
}

func (x *Index) sortRun() {
	if x.unsorted {
		slices.SortFunc(x.entries, compareEntries)
		x.unsorted = false
	}
}

// release removes the temporary file.
func (x *Index) release() {
	if x.spill != nil {
		x.spill.Abort()
		x.spill = nil
	}
	x.entries = nil
}

// finish writes the leaves, the entries spread evenly over as few as hold
// them with one entry between each two, and the levels above them.
func (x *Index) finish() (uint32, error) {
	root, err := x.write()
	if err != nil {
		return 0, fmt.Errorf("sqlitefile: index %s: %w", x.name, err)
	}
	return root, nil
}

func (x *Index) write() (uint32, error) {
	next, err := x.sorted()
	if err != nil {
		return 0, err
	}
	f := x.f
	perLeaf := (f.pageSize - 8) / (1 + maxIndexPayload + 2)
	n := x.count
	leaves := (n + 1 + perLeaf) / (perLeaf + 1)
	inLeaves := n - (leaves - 1)
	page := make([]byte, f.pageSize)
	var children []child
	for i := range leaves {
		count := share(inLeaves, leaves, i)
		clear(page)
		top := len(page)
		for k := range count {
			e, err := next()
			if err != nil {
				return 0, err
			}
			var buf [1 + maxIndexPayload]byte
			b := putIndexPayload(buf[:0], e)
			var cell []byte
			cell, top = cellAt(page, 8, k, top, len(b))
			copy(cell, b)
		}
		putHeader(page, indexLeaf, count, top)
		ch := child{page: f.appendPage(page)}
		if i < leaves-1 {
			if ch.sep, err = next(); err != nil {
				return 0, err
			}
		}
		children = append(children, ch)
	}
	return f.build(children, indexInterior), nil
}

// sorted returns the entries one by one in order: the one run sorted in
// memory, or the runs spilled merged.
func (x *Index) sorted() (func() (entry, error), error) {
	if x.spill == nil {
		x.sortRun()
		rest := x.entries
		return func() (entry, error) {
			e := rest[0]
			rest = rest[1:]
			return e, nil
		}, nil
	}
	if len(x.entries) > 0 {
		if err := x.spillRun(); err != nil {
			return nil, err
		}
	}
	if err := x.spilled.Flush(); err != nil {
		return nil, err
	}
	left := slices.Clone(x.runs)
	heads := make([]entry, len(x.runs))
	runs := make([]*bufio.Reader, len(x.runs))
	at := int64(0)
	for i, n := range x.runs {
		runs[i] = bufio.NewReaderSize(io.NewSectionReader(x.spill, at, n*entryBytes), 16<<10)
		at += n * entryBytes
	}
	m := merge.New(len(runs), func(src int) (int64, bool, error) {
		if left[src] == 0 {
			return 0, false, nil
		}
		left[src]--
		var b [entryBytes]byte
		if _, err := io.ReadFull(runs[src], b[:]); err != nil {
			return 0, false, fmt.Errorf("reading a spilled run: %w", err)
		}
		heads[src] = entry{int64(binary.LittleEndian.Uint64(b[:])), int64(binary.LittleEndian.Uint64(b[8:]))}
		return heads[src].key, true, nil
	})
	return func() (entry, error) {
		src, ok, err := m.Next()
		if err == nil && !ok {
			err = errors.New("merged runs ended early")
		}
		if err != nil {
			return entry{}, err
		}
		return heads[src], nil
	}, nil
}
