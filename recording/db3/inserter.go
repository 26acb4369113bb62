package db3

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/baglab/baglab/internal/batches"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// batchRows is how many messages one INSERT writes: one statement per
// message costs more than the row.
const batchRows = 64

// batchBytes sends a batch before it holds batchRows messages once its
// messages hold this many bytes, bounding the memory of large messages.
const batchBytes = 4 << 20

// batchCount is how many batches an inserter fills and inserts in turn.
const batchCount = 3

// maxMessage is the largest message sqlite stores (SQLITE_MAX_LENGTH).
const maxMessage = 1_000_000_000

// row is one message of a batch: its data is arena[off:off+n].
type row struct {
	ts, topic int64
	off, n    int
}

// batch is messages waiting to be inserted, their data copied into a C
// arena that the INSERT binds in place.
type batch struct {
	rows  []row
	arena uintptr // C memory of cap bytes
	used  int
	cap   int
}

// inserter inserts the messages of a Writer on a goroutine of its own
// (internal/batches), in one transaction, while the caller reads and
// converts the next ones: the INSERTs are most of the time a conversion to
// sqlite3 takes.
type inserter struct {
	c    *rawConn
	one  uintptr   // INSERT of one row
	many uintptr   // INSERT of batchRows rows
	mtls *libc.TLS // the caller's, for the arenas
	pipe *batches.Pipe[batch]
}

// newInserter begins the transaction every message is inserted in and
// starts the goroutine that inserts them.
func newInserter(c *rawConn) (*inserter, error) {
	if err := c.exec("BEGIN"); err != nil {
		return nil, err
	}
	in := &inserter{c: c, mtls: libc.NewTLS()}
	const row = "INSERT INTO messages (timestamp, topic_id, data) VALUES (?, ?, ?)"
	var err error
	if in.one, err = c.prepare(row); err == nil {
		in.many, err = c.prepare(row + strings.Repeat(", (?, ?, ?)", batchRows-1))
	}
	if err != nil {
		in.finalize()
		c.exec("ROLLBACK")
		in.mtls.Close()
		return nil, err
	}
	reset := func(b *batch) { b.rows, b.used = b.rows[:0], 0 }
	empty := func(b *batch) bool { return len(b.rows) == 0 }
	in.pipe = batches.Start(batchCount, in.insert, reset, empty)
	return in, nil
}

// insert writes b's rows with the batch statement when they fill it, else
// one by one, binding their data in place (SQLITE_STATIC: the arena
// outlives the statement's step).
func (in *inserter) insert(b *batch) error {
	tls := in.c.tls
	stmt, rows := in.many, b.rows
	if len(rows) < batchRows {
		stmt = in.one
	}
	for len(rows) > 0 {
		n := batchRows
		if stmt == in.one {
			n = 1
		}
		for i, r := range rows[:n] {
			k := int32(3 * i)
			rc := sqlite3.Xsqlite3_bind_int64(tls, stmt, k+1, r.ts)
			if rc == sqlite3.SQLITE_OK {
				rc = sqlite3.Xsqlite3_bind_int64(tls, stmt, k+2, r.topic)
			}
			if rc == sqlite3.SQLITE_OK {
				rc = sqlite3.Xsqlite3_bind_blob(tls, stmt, k+3, b.arena+uintptr(r.off), int32(r.n), 0)
			}
			if rc != sqlite3.SQLITE_OK {
				return in.c.err(rc, "bind a message")
			}
		}
		rc := sqlite3.Xsqlite3_step(tls, stmt)
		sqlite3.Xsqlite3_reset(tls, stmt)
		if rc != sqlite3.SQLITE_DONE {
			return in.c.err(rc, "insert messages")
		}
		rows = rows[n:]
	}
	return nil
}

// add queues a message, copying its data. It returns an earlier insert's
// error.
func (in *inserter) add(ts, topic int64, data []byte) error {
	if err := in.pipe.Err(); err != nil {
		return err
	}
	if len(data) > maxMessage {
		return fmt.Errorf("db3: %s: a message of %d bytes is more than sqlite stores (%d)", in.c.path, len(data), maxMessage)
	}
	b := in.pipe.Current()
	if need := b.used + len(data); need > b.cap || b.arena == 0 {
		size := max(need, 2*b.cap, 64<<10)
		p := libc.Xrealloc(in.mtls, b.arena, libc.Tsize_t(size))
		if p == 0 {
			return fmt.Errorf("db3: %s: out of memory for %d bytes of messages", in.c.path, size)
		}
		b.arena, b.cap = p, size
	}
	copy(unsafe.Slice((*byte)(cptr(b.arena+uintptr(b.used))), len(data)), data)
	b.rows = append(b.rows, row{ts: ts, topic: topic, off: b.used, n: len(data)})
	b.used += len(data)
	if len(b.rows) == batchRows || b.used >= batchBytes {
		in.pipe.Send()
	}
	return nil
}

// sync waits until every message queued is inserted, so that the caller
// may use the connection, and returns the first insert error.
func (in *inserter) sync() error { return in.pipe.Sync() }

// commit inserts what is queued, stops the goroutine and commits (or,
// after an error, rolls back).
func (in *inserter) commit() error {
	err := in.stop()
	if err == nil {
		err = in.c.exec("COMMIT")
	} else {
		in.c.exec("ROLLBACK")
	}
	return err
}

// rollback stops the goroutine and discards the transaction.
func (in *inserter) rollback() {
	in.stop()
	in.c.exec("ROLLBACK")
}

// stop inserts what is queued, ends the goroutine, frees the statements
// and arenas and returns the first insert error.
func (in *inserter) stop() error {
	err := in.pipe.Stop()
	in.finalize()
	for _, b := range in.pipe.All() {
		if b.arena != 0 {
			libc.Xfree(in.mtls, b.arena)
		}
	}
	in.mtls.Close()
	return err
}

func (in *inserter) finalize() {
	for _, s := range []uintptr{in.one, in.many} {
		if s != 0 {
			sqlite3.Xsqlite3_finalize(in.c.tls, s)
		}
	}
}
