package foxglove

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// payload is a message's bytes, shared by the client queues and the
// latched slot holding it: release, when set, runs once the last of them
// let go of it (the message was sent or dropped everywhere).
type payload struct {
	data    []byte
	refs    atomic.Int64
	release func()
}

func (p *payload) hold() { p.refs.Add(1) }

// drop lets go of p (nothing for a nil p).
func (p *payload) drop() {
	if p != nil && p.refs.Add(-1) == 0 && p.release != nil {
		p.release()
	}
}

// frame is one WebSocket message waiting to be sent: text (JSON) or
// binary, a MessageData header before a payload shared by every client
// (p, held while queued; body is its data).
type frame struct {
	data    bool // droppable
	text    bool
	hasHead bool
	head    [13]byte
	body    []byte
	p       *payload
}

// queue is one client's send queue, in order: control messages, never
// dropped, and data messages (MessageData, Time), dropped and counted when
// the client falls behind by more than o.QueueBytes or o.QueueMessages.
// One queue keeps the order the protocol needs: a PlaybackState with
// didSeek after the messages from before the seek, Ended after the last.
type queue struct {
	maxBytes int64
	maxMsgs  int
	maxCtrl  int

	mu      sync.Mutex
	frames  []frame
	nctrl   int   // control frames queued
	ndata   int   // data frames queued
	bytes   int64 // bytes of the data frames queued
	dropped int64
	closed  bool
	why     string // why the queue was closed on the client, "" when it left
	wake    chan struct{}
	done    chan struct{}
}

func newQueue(o Options) *queue {
	return &queue{maxBytes: o.QueueBytes, maxMsgs: o.QueueMessages, maxCtrl: o.ControlBacklog,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) pushControl(f frame) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if q.nctrl >= q.maxCtrl {
		q.failLocked(fmt.Sprintf("%d control messages left unread", q.nctrl))
		return
	}
	q.frames = append(q.frames, f)
	q.nctrl++
	q.signal()
}

// control queues a JSON message.
func (q *queue) control(b []byte) { q.pushControl(frame{text: true, body: b}) }

// controlBinary queues a binary control message (PlaybackState).
func (q *queue) controlBinary(b []byte) { q.pushControl(frame{body: b}) }

func (q *queue) pushData(f frame) {
	n := int64(len(f.body)) + 13
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	// An empty queue takes any message, so that one larger than the bound
	// (a big point cloud) still reaches a client that keeps up.
	if q.ndata > 0 && (q.ndata >= q.maxMsgs || q.bytes+n > q.maxBytes) {
		q.dropped++
		return
	}
	if f.p != nil {
		f.p.hold()
	}
	f.data = true
	q.frames = append(q.frames, f)
	q.ndata++
	q.bytes += n
	q.signal()
}

// data queues a MessageData message, holding p until it is sent.
func (q *queue) data(head [13]byte, p *payload) {
	q.pushData(frame{hasHead: true, head: head, body: p.data, p: p})
}

// dataRaw queues a droppable binary message (Time).
func (q *queue) dataRaw(b []byte) { q.pushData(frame{body: b}) }

// next waits for the next frame, whose payload the caller lets go of
// (f.p.drop) once it is sent; false once the queue is closed or ctx
// ends.
func (q *queue) next(ctx context.Context) (frame, bool) {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return frame{}, false
		}
		if len(q.frames) > 0 {
			f := q.frames[0]
			q.frames[0] = frame{}
			q.frames = q.frames[1:]
			if len(q.frames) == 0 {
				q.frames = nil // let the backing array go
			}
			if f.data {
				q.ndata--
				q.bytes -= int64(len(f.body)) + 13
			} else {
				q.nctrl--
			}
			q.mu.Unlock()
			return f, true
		}
		q.mu.Unlock()
		select {
		case <-q.wake:
		case <-q.done:
		case <-ctx.Done():
			return frame{}, false
		}
	}
}

// reason is why the queue was closed on the client ("" when it left).
func (q *queue) reason() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.why
}

func (q *queue) droppedTotal() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// fail closes the queue because of the client, saying why.
func (q *queue) fail(why string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.failLocked(why)
}

func (q *queue) failLocked(why string) {
	if q.closed {
		return
	}
	q.why = why
	q.closeLocked()
}

func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closeLocked()
}

func (q *queue) closeLocked() {
	if q.closed {
		return
	}
	q.closed = true
	for _, f := range q.frames {
		f.p.drop()
	}
	q.frames, q.bytes = nil, 0
	close(q.done)
}
