package sqlitefile

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/testkit/testenv"
	_ "modernc.org/sqlite"
)

// row is a row of the test table t(id INTEGER PRIMARY KEY, k INTEGER,
// name TEXT, data BLOB, n INTEGER).
type row struct {
	id, k int64
	name  string
	data  []byte
	n     *int64 // nil: NULL
}

// edgeInts are integers at every boundary of SQLite's serial types.
var edgeInts = []int64{0, 1, -1, 2, 127, 128, -128, -129, 32767, 32768, -32769, 1<<23 - 1, 1 << 23, -(1 << 23) - 1,
	1<<31 - 1, 1 << 31, -(1 << 31) - 1, 1<<47 - 1, 1 << 47, -(1 << 47) - 1, math.MaxInt64, math.MinInt64}

// makeRows makes n rows whose payloads cross every size that matters to
// a page of pageSize: all in the cell, just over what a cell holds, and
// spilling to one and several overflow pages.
func makeRows(n, pageSize int, rng *rand.Rand) []row {
	sizes := []int{0, 1, pageSize - 35 - 20, pageSize - 35, pageSize - 34, pageSize, 2*pageSize + 7, 5 * pageSize}
	rows := make([]row, n)
	id := int64(0)
	for i := range rows {
		id += 1 + rng.Int64N(3)
		size := rng.IntN(40)
		if i%17 == 0 {
			size = sizes[(i/17)%len(sizes)] + rng.IntN(3) - 1
		}
		size = max(size, 0)
		data := make([]byte, size)
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		r := row{id: id, k: rng.Int64N(50) - 25, name: strings.Repeat("é", rng.IntN(4)) + fmt.Sprint(i), data: data}
		if i%5 != 0 {
			v := edgeInts[i%len(edgeInts)]
			r.n = &v
		}
		if i%7 == 0 {
			r.k = edgeInts[(i/7)%len(edgeInts)]
		}
		rows[i] = r
	}
	return rows
}

const (
	tableSQL = "CREATE TABLE t(id INTEGER PRIMARY KEY,k INTEGER NOT NULL,name TEXT NOT NULL,data BLOB NOT NULL,n INTEGER)"
	indexSQL = "CREATE INDEX t_k ON t (k ASC)"
)

// write writes rows to a new database at path (fill).
func write(t testing.TB, path string, pageSize int, rows []row) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	fill(t, out, pageSize, rows, 0)
}

// fill writes a database of rows to out: an empty table, then table t
// and its index t_k, sorted in runs of runSize entries (0: runEntries).
func fill(t testing.TB, out Output, pageSize int, rows []row, runSize int) {
	t.Helper()
	f, err := New(out, pageSize)
	if err != nil {
		t.Fatal(err)
	}
	f.Table("empty", "CREATE TABLE empty(a TEXT)")
	tab := f.Table("t", tableSQL)
	idx := f.Index("t_k", "t", indexSQL)
	if runSize > 0 {
		idx.runSize = runSize
	}
	for _, r := range rows {
		n := Null()
		if r.n != nil {
			n = Int(*r.n)
		}
		if err := tab.Insert(r.id, Null(), Int(r.k), Text(r.name), Blob(r.data), n); err != nil {
			t.Fatal(err)
		}
		idx.Add(r.k, r.id)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// check reads path with SQLite (modernc.org/sqlite): the integrity check
// passes and the table, read in rowid order and through the index, holds
// rows.
func check(t *testing.T, path string, rows []row) {
	t.Helper()
	uri := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro"} // the path may hold '#'
	db, err := sql.Open("sqlite", uri.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lines []string
	rs, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var l string
		rs.Scan(&l)
		lines = append(lines, l)
	}
	rs.Close()
	if len(lines) != 1 || lines[0] != "ok" {
		t.Fatalf("integrity_check: %q", lines)
	}
	rs, err = db.Query("SELECT id, k, name, data, n FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rs.Next() {
		var r row
		var n sql.NullInt64
		if err := rs.Scan(&r.id, &r.k, &r.name, &r.data, &n); err != nil {
			t.Fatal(err)
		}
		if i >= len(rows) {
			t.Fatalf("row %d of %d rows", i, len(rows))
		}
		w := rows[i]
		if r.id != w.id || r.k != w.k || r.name != w.name || !bytes.Equal(r.data, w.data) || n.Valid != (w.n != nil) || (n.Valid && n.Int64 != *w.n) {
			t.Fatalf("row %d: got id %d k %d name %q %d bytes n %v, want id %d k %d name %q %d bytes n %v",
				i, r.id, r.k, r.name, len(r.data), n, w.id, w.k, w.name, len(w.data), w.n)
		}
		i++
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	rs.Close()
	if i != len(rows) {
		t.Fatalf("read %d rows, want %d", i, len(rows))
	}
	want := slices.Clone(rows)
	slices.SortStableFunc(want, func(a, b row) int { return compareEntries(entry{a.k, a.id}, entry{b.k, b.id}) })
	rs, err = db.Query("SELECT id FROM t INDEXED BY t_k WHERE k > ? ORDER BY k, id", int64(math.MinInt64))
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for rs.Next() {
		var id int64
		rs.Scan(&id)
		got = append(got, id)
	}
	rs.Close()
	var wantIDs []int64
	for _, r := range want {
		if r.k > math.MinInt64 {
			wantIDs = append(wantIDs, r.id)
		}
	}
	if !slices.Equal(got, wantIDs) {
		t.Fatalf("through the index: %d ids, want %d", len(got), len(wantIDs))
	}
	var plan string
	db.QueryRow("EXPLAIN QUERY PLAN SELECT id FROM t WHERE k = 3").Scan(new(int), new(int), new(int), &plan)
	if !strings.Contains(plan, "t_k") {
		t.Errorf("query plan %q does not use the index", plan)
	}
}

// TestRoundTrip writes tables and an index whose trees have one, two and
// three levels, at the smallest, a common and the largest page size, and
// reads them back with SQLite.
func TestRoundTrip(t *testing.T) {
	for _, pageSize := range []int{512, 4096, 65536} {
		for _, n := range []int{0, 1, 30, 2000, 60000} {
			if pageSize == 65536 && n == 60000 || testing.Short() && n == 60000 {
				continue
			}
			t.Run(fmt.Sprintf("page%d/rows%d", pageSize, n), func(t *testing.T) {
				rows := makeRows(n, pageSize, rand.New(rand.NewPCG(uint64(n), uint64(pageSize))))
				path := filepath.Join(t.TempDir(), "t.db")
				write(t, path, pageSize, rows)
				check(t, path, rows)
			})
		}
	}
}

// TestSystemSQLite has the system's own SQLite library (through Debian's
// python3) check a file and sum its table.
func TestSystemSQLite(t *testing.T) {
	testenv.RequirePeer(t, "sqlite3")
	py := testenv.Python
	rows := makeRows(5000, 1024, rand.New(rand.NewPCG(1, 2)))
	path := filepath.Join(t.TempDir(), "t.db")
	write(t, path, 1024, rows)
	script := `import sqlite3, sys, hashlib
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(c.execute("pragma integrity_check").fetchone()[0])
h = hashlib.sha256()
for (d,) in c.execute("select data from t order by id"): h.update(d)
print(c.execute("select count(*), sum(k % 1000), count(n) from t").fetchone(), h.hexdigest())
print([r[0] for r in c.execute("select id from t indexed by t_k order by k, id limit 5")])`
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var sum int64
	var nn int
	var all []byte
	want := slices.Clone(rows)
	for _, r := range rows {
		sum += r.k % 1000
		if r.n != nil {
			nn++
		}
		all = append(all, r.data...)
	}
	slices.SortStableFunc(want, func(a, b row) int { return compareEntries(entry{a.k, a.id}, entry{b.k, b.id}) })
	first := fmt.Sprint([]int64{want[0].id, want[1].id, want[2].id, want[3].id, want[4].id})
	wantOut := fmt.Sprintf("ok\n(%d, %d, %d) %x\n%s\n", len(rows), sum, nn, sha256.Sum256(all), strings.ReplaceAll(first, " ", ", "))
	if string(out) != wantOut {
		t.Errorf("system sqlite3 says\n%s\nwant\n%s", out, wantOut)
	}
}

// TestLockBytePage writes a database past 1 GiB, where SQLite keeps the
// page at that offset out of every tree.
func TestLockBytePage(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1.1 GB")
	}
	var rows []row
	for i := range 1100 {
		data := bytes.Repeat([]byte{byte(i)}, 1<<20)
		rows = append(rows, row{id: int64(i + 1), k: int64(-i), name: "x", data: data})
	}
	path := filepath.Join(t.TempDir(), "big.db")
	write(t, path, 65536, rows)
	check(t, path, rows)
}

// failing is an Output whose writes fail after n bytes.
type failing struct{ n int }

func (f *failing) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}
func (f *failing) WriteAt(p []byte, off int64) (int, error) { return f.Write(p) }

// TestErrors: a failed write is returned by Insert or Close, a rowid not
// after the last is refused, and so is a page size SQLite has not.
func TestErrors(t *testing.T) {
	if _, err := New(&failing{}, 1000); err == nil {
		t.Error("page size 1000 taken")
	}
	f, _ := New(&failing{n: 3 << 20}, 4096)
	tab := f.Table("t", tableSQL)
	var err error
	big := make([]byte, 100<<10)
	for i := range 100 {
		if err = tab.Insert(int64(i+1), Null(), Int(1), Text(""), Blob(big), Null()); err != nil {
			break
		}
	}
	if cerr := f.Close(); cerr == nil || !strings.Contains(cerr.Error(), "disk full") || (err != nil && !strings.Contains(err.Error(), "disk full")) {
		t.Errorf("insert error %v, close error %v: want disk full", err, cerr)
	}
	f, _ = New(&failing{n: 1 << 30}, 4096)
	tab = f.Table("t", tableSQL)
	tab.Insert(5, Null(), Int(1), Text(""), Blob(nil), Null())
	if err := tab.Insert(5, Null(), Int(1), Text(""), Blob(nil), Null()); err == nil || !strings.Contains(err.Error(), "rowid 5 after 5") {
		t.Errorf("a repeated rowid: %v", err)
	}
	if err := f.Close(); err == nil {
		t.Error("Close after a refused row succeeded")
	}
}

// TestVarint checks the varint encoding against its definition at every
// length.
func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 0x7f, 0x80, 0x3fff, 0x4000, 1<<56 - 1, 1 << 56, math.MaxUint64} {
		b := appendVarint(nil, v)
		if len(b) != varintLen(v) {
			t.Errorf("%#x: %d bytes, varintLen %d", v, len(b), varintLen(v))
		}
		var got uint64
		for i, c := range b {
			if i == 8 {
				got = got<<8 | uint64(c)
				break
			}
			got = got<<7 | uint64(c&0x7f)
			if c&0x80 == 0 {
				break
			}
		}
		if got != v {
			t.Errorf("%#x encodes as % x, which reads %#x", v, b, got)
		}
	}
}

// recorder is an Output that keeps what is written and where each write
// began.
type recorder struct {
	b      []byte
	starts []int
}

func (r *recorder) Write(p []byte) (int, error) {
	r.starts = append(r.starts, len(r.b))
	r.b = append(r.b, p...)
	return len(p), nil
}

func (r *recorder) WriteAt(p []byte, off int64) (int, error) {
	copy(r.b[off:], p)
	return len(p), nil
}

// TestWritesOffPages: every write of pages after the first begins shift
// bytes before a page boundary, and the file is the same as written in
// one piece: a whole number of pages that SQLite reads.
func TestWritesOffPages(t *testing.T) {
	const pageSize = 4096
	rows := makeRows(3000, pageSize, rand.New(rand.NewPCG(5, 6)))
	var r recorder
	fill(t, &r, pageSize, rows, 0)
	if len(r.starts) < 4 || len(r.b)%pageSize != 0 {
		t.Fatalf("%d writes, %d bytes", len(r.starts), len(r.b))
	}
	for i, s := range r.starts[1:] {
		if s%pageSize != pageSize-shift {
			t.Fatalf("write %d begins at %d, %d into a page", i+1, s, s%pageSize)
		}
	}
	path := filepath.Join(t.TempDir(), "t.db")
	if err := os.WriteFile(path, r.b, 0o644); err != nil {
		t.Fatal(err)
	}
	check(t, path, rows)
}

// TestIndexRuns: an index of more entries than a run holds, out of order
// and with ties, is sorted in runs spilled to a temporary file and
// merged; SQLite reads it in order, and the file is gone afterwards, as
// it is after an Abort or a signal's atomicfile.Cleanup.
func TestIndexRuns(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	rows := makeRows(5000, 1024, rand.New(rand.NewPCG(7, 8)))
	var whole recorder
	fill(t, &whole, 1024, rows, 0)
	for _, runSize := range []int{1, 333, 4999, 5000} {
		var merged recorder
		fill(t, &merged, 1024, rows, runSize)
		if !bytes.Equal(merged.b, whole.b) {
			t.Errorf("runs of %d: the file differs from the one sorted whole", runSize)
		}
		path := filepath.Join(t.TempDir(), "t.db")
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		fill(t, out, 1024, rows, runSize)
		out.Close()
		check(t, path, rows)
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Fatalf("runs of %d: left %v", runSize, left)
		}
	}
	f, err := New(&recorder{}, 1024)
	if err != nil {
		t.Fatal(err)
	}
	idx := f.Index("t_k", "t", indexSQL)
	idx.runSize = 10
	for i := range 100 {
		idx.Add(int64(-i), int64(i+1))
	}
	if left, _ := os.ReadDir(tmp); len(left) != 1 {
		t.Fatalf("%d temporary files while adding, want 1", len(left))
	}
	f.Abort()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("after Abort: left %v", left)
	}
	// rows come to an index in rowid order, as to their table
	f, _ = New(&recorder{}, 1024)
	idx = f.Index("t_k", "t", indexSQL)
	idx.Add(1, 5)
	idx.Add(0, 5)
	if err := f.Close(); err == nil || !strings.Contains(err.Error(), "rowid 5 after 5") {
		t.Errorf("a repeated rowid in an index: %v", err)
	}
	// a signal's cleanup removes it too
	f, _ = New(&recorder{}, 1024)
	idx = f.Index("t_k", "t", indexSQL)
	idx.runSize = 10
	for i := range 20 {
		idx.Add(int64(i), int64(i+1))
	}
	atomicfile.Cleanup()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("after atomicfile.Cleanup: left %v", left)
	}
	f.Abort()
}
