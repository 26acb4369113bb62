package db3

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// batchRows is how many messages one INSERT writes: one statement per
// message costs more than the row.
const batchRows = 64

// batchBytes sends a batch before it holds batchRows messages once its
// messages hold this many bytes, bounding the memory of large messages.
const batchBytes = 4 << 20

// batches is how many batches an inserter fills and inserts in turn.
const batches = 3

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

// inserter inserts the messages of a Writer on its own goroutine, in one
// transaction, while the caller reads and converts the next ones: the
// INSERTs are most of the time a conversion to sqlite3 takes.
type inserter struct {
	c      *rawConn
	one    uintptr   // INSERT of one row
	many   uintptr   // INSERT of batchRows rows
	mtls   *libc.TLS // the caller's, for the arenas
	cur    *batch    // the batch being filled
	all    []*batch
	work   chan *batch
	free   chan *batch
	wg     sync.WaitGroup // batches sent and not yet inserted
	failed atomic.Bool    // err is set
	err    error          // the first insert error
	done   chan struct{}  // closed when the goroutine returns
}

// newInserter begins the transaction every message is inserted in and
// starts the goroutine that inserts them.
func newInserter(c *rawConn) (*inserter, error) {
	if err := c.exec("BEGIN"); err != nil {
		return nil, err
	}
	in := &inserter{c: c, mtls: libc.NewTLS(), work: make(chan *batch, batches), free: make(chan *batch, batches), done: make(chan struct{})}
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
	for range batches {
		in.all = append(in.all, &batch{})
	}
	in.cur = in.all[0]
	for _, b := range in.all[1:] {
		in.free <- b
	}
	go in.run()
	return in, nil
}

// run inserts the batches sent until work closes; after an error it only
// hands them back.
func (in *inserter) run() {
	defer close(in.done)
	for b := range in.work {
		if !in.failed.Load() {
			if err := in.insert(b); err != nil {
				in.err = err
				in.failed.Store(true)
			}
		}
		b.rows, b.used = b.rows[:0], 0
		in.free <- b
		in.wg.Done()
	}
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
	if in.failed.Load() {
		return in.err
	}
	if len(data) > maxMessage {
		return fmt.Errorf("db3: %s: a message of %d bytes is more than sqlite stores (%d)", in.c.path, len(data), maxMessage)
	}
	b := in.cur
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
		in.send()
	}
	return nil
}

// send hands the current batch to the goroutine and takes a free one.
func (in *inserter) send() {
	if len(in.cur.rows) == 0 {
		return
	}
	in.wg.Add(1)
	in.work <- in.cur
	in.cur = <-in.free
}

// sync waits until every message queued is inserted, so that the caller
// may use the connection, and returns the first insert error.
func (in *inserter) sync() error {
	in.send()
	in.wg.Wait()
	if in.failed.Load() {
		return in.err
	}
	return nil
}

// commit inserts what is queued, stops the goroutine and commits (or,
// after an error, rolls back).
func (in *inserter) commit() error {
	err := in.sync()
	in.stop()
	if err == nil {
		err = in.c.exec("COMMIT")
	} else {
		in.c.exec("ROLLBACK")
	}
	return err
}

// rollback stops the goroutine and discards the transaction.
func (in *inserter) rollback() {
	in.sync()
	in.stop()
	in.c.exec("ROLLBACK")
}

// stop ends the goroutine and frees the statements and arenas.
func (in *inserter) stop() {
	close(in.work)
	<-in.done
	in.finalize()
	for _, b := range in.all {
		if b.arena != 0 {
			libc.Xfree(in.mtls, b.arena)
		}
	}
	in.mtls.Close()
}

func (in *inserter) finalize() {
	for _, s := range []uintptr{in.one, in.many} {
		if s != 0 {
			sqlite3.Xsqlite3_finalize(in.c.tls, s)
		}
	}
}
