package recorder

import (
	"sync"
	"time"

	"github.com/baglab/baglab/live/rosnode"
)

// item is one received message waiting to be written.
type item struct {
	topic *topicState
	conn  *rosnode.Connection
	data  []byte
	t     time.Time
	msg   *rosnode.Message // released once data is written or dropped
}

// release hands the message's buffer back to its connection.
func (it *item) release() {
	if it.msg != nil {
		it.msg.Release()
	}
}

// queue is the bounded FIFO between the subscriber connections and the
// writer, and the subscribers' rosnode.Budget: its byte limit counts the
// queued messages and those still being received, so memory stays within
// --buffsize whatever publishers send. To make room it drops the oldest
// queued messages, counting each drop on its topic; a message it cannot
// make room for is dropped by the subscriber as it arrives.
type queue struct {
	mu     sync.Mutex
	wake   chan struct{} // signalled (non-blocking) on push and close
	items  []item
	head   int
	bytes  int64 // queued and reserved
	limit  int64 // < 0: unbounded
	closed bool

	// onEvict, when set, is called (without the lock) after queued
	// messages were dropped to make room.
	onEvict func()
}

func newQueue(limit int64) *queue {
	return &queue{limit: limit, wake: make(chan struct{}, 1)}
}

// Reserve implements rosnode.Budget: it takes n bytes, dropping the
// oldest queued messages while over the limit, and refuses them when even
// an empty queue has no room (the rest is held by messages being
// received).
func (q *queue) Reserve(n int) bool {
	q.mu.Lock()
	q.bytes += int64(n)
	var evicted []item
	for q.limit >= 0 && q.bytes > q.limit && q.head < len(q.items) {
		old := &q.items[q.head]
		q.bytes -= int64(len(old.data))
		old.topic.dropped.Add(1)
		evicted = append(evicted, *old)
		*old = item{}
		q.head++
	}
	ok := q.limit < 0 || q.bytes <= q.limit
	if !ok {
		q.bytes -= int64(n)
	}
	q.mu.Unlock()
	for i := range evicted {
		evicted[i].release()
	}
	if len(evicted) > 0 && q.onEvict != nil {
		q.onEvict()
	}
	return ok
}

// Release implements rosnode.Budget.
func (q *queue) Release(n int) {
	q.mu.Lock()
	q.bytes -= int64(n)
	q.mu.Unlock()
}

// put appends it, whose bytes were reserved; a closed queue gives them
// back instead.
func (q *queue) put(it item) {
	q.mu.Lock()
	if q.closed {
		q.bytes -= int64(len(it.data))
		q.mu.Unlock()
		it.release()
		return
	}
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take moves every queued message into dst, waiting up to wait for one to
// arrive. done reports that the queue is closed and empty.
func (q *queue) take(dst []item, wait time.Duration) (out []item, done bool) {
	q.mu.Lock()
	if q.head == len(q.items) && !q.closed {
		q.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-q.wake:
		case <-t.C:
		}
		t.Stop()
		q.mu.Lock()
	}
	defer q.mu.Unlock()
	// Take at most maxBatch bytes, so that what the writer holds stays
	// small next to the buffer and full-buffer drops hit queued messages.
	end, n := q.head, int64(0)
	for end < len(q.items) && (end == q.head || n+int64(len(q.items[end].data)) <= maxBatch) {
		n += int64(len(q.items[end].data))
		end++
	}
	dst = append(dst, q.items[q.head:end]...)
	clear(q.items[q.head:end])
	q.head, q.bytes = end, q.bytes-n
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return dst, q.closed && len(dst) == 0
}

// maxBatch bounds the bytes take hands to the writer at once.
const maxBatch = 4 << 20

// size is the number of bytes queued or being received.
func (q *queue) size() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}

// close stops accepting messages; take drains what is left.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
