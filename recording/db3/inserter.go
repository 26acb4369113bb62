package db3

import (
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"
)

// batchRows is how many messages one INSERT writes: one statement per
// message costs more than the row.
const batchRows = 64

// batchBytes sends a batch before it holds batchRows messages once its
// messages hold this many bytes, bounding the memory of large messages.
const batchBytes = 4 << 20

// batches is how many batches an inserter fills and inserts in turn.
const batches = 3

// batch is messages waiting to be inserted: timestamp, topic id and data
// of each, the data copied into arena.
type batch struct {
	rows  []any
	arena []byte
}

// inserter inserts the messages of a Writer on its own goroutine, in one
// transaction, while the caller reads and converts the next ones: the
// INSERTs are most of the time a conversion to sqlite3 takes.
type inserter struct {
	tx     *sql.Tx
	one    *sql.Stmt // inserts one row
	many   *sql.Stmt // inserts batchRows rows
	cur    *batch    // the batch being filled
	work   chan *batch
	free   chan *batch
	wg     sync.WaitGroup // batches sent and not yet inserted
	failed atomic.Bool    // err is set
	err    error          // the first insert error
	done   chan struct{}  // closed when the goroutine returns
}

// newInserter begins the transaction every message is inserted in and
// starts the goroutine that inserts them.
func newInserter(db *sql.DB) (*inserter, error) {
	tx, err := db.Begin()
	if err != nil {
		return nil, err
	}
	in := &inserter{tx: tx, cur: &batch{}, work: make(chan *batch, batches), free: make(chan *batch, batches), done: make(chan struct{})}
	const row = "INSERT INTO messages (timestamp, topic_id, data) VALUES (?, ?, ?)"
	if in.one, err = tx.Prepare(row); err == nil {
		in.many, err = tx.Prepare(row + strings.Repeat(", (?, ?, ?)", batchRows-1))
	}
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	for range batches - 1 {
		in.free <- &batch{}
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
			if err := in.insert(b.rows); err != nil {
				in.err = err
				in.failed.Store(true)
			}
		}
		clear(b.rows) // let the data go
		b.rows, b.arena = b.rows[:0], b.arena[:0]
		in.free <- b
		in.wg.Done()
	}
}

// insert writes rows with the batch statement when they fill it, else one
// by one.
func (in *inserter) insert(rows []any) error {
	if len(rows) == 3*batchRows {
		_, err := in.many.Exec(rows...)
		return err
	}
	for i := 0; i < len(rows); i += 3 {
		if _, err := in.one.Exec(rows[i : i+3]...); err != nil {
			return err
		}
	}
	return nil
}

// add queues a message; its data is copied. It returns an earlier
// insert's error.
func (in *inserter) add(ts, topic int64, data []byte) error {
	if in.failed.Load() {
		return in.err
	}
	b := in.cur
	start := len(b.arena)
	b.arena = append(b.arena, data...)
	row := b.arena[start:len(b.arena):len(b.arena)]
	if row == nil {
		row = []byte{} // an empty BLOB, not NULL
	}
	b.rows = append(b.rows, ts, topic, row)
	if len(b.rows) == 3*batchRows || len(b.arena) >= batchBytes {
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
// may use the transaction, and returns the first insert error.
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
		err = in.tx.Commit()
	} else {
		in.tx.Rollback()
	}
	return err
}

// rollback stops the goroutine and discards the transaction.
func (in *inserter) rollback() {
	in.sync()
	in.stop()
	in.tx.Rollback()
}

func (in *inserter) stop() {
	in.one.Close()
	in.many.Close()
	close(in.work)
	<-in.done
}
