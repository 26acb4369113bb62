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
}

// queue is the bounded FIFO between the subscriber connections and the
// writer. Over its byte limit it drops the oldest messages, counting each
// drop on its topic.
type queue struct {
	mu     sync.Mutex
	wake   chan struct{} // signalled (non-blocking) on push and close
	items  []item
	head   int
	bytes  int64
	limit  int64 // < 0: unbounded
	closed bool
}

func newQueue(limit int64) *queue {
	return &queue{limit: limit, wake: make(chan struct{}, 1)}
}

// push appends it and returns how many messages were dropped to make room.
func (q *queue) push(it item) (dropped int) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return 0
	}
	q.items = append(q.items, it)
	q.bytes += int64(len(it.data))
	for q.limit >= 0 && q.bytes > q.limit && q.head < len(q.items) {
		old := &q.items[q.head]
		q.bytes -= int64(len(old.data))
		old.topic.dropped.Add(1)
		*old = item{}
		q.head++
		dropped++
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return dropped
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

// size is the number of bytes queued.
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
