package remote

import (
	"crypto/sha256"
	"hash"
	"io"
	"sync"
	"sync/atomic"
)

// hashTap hashes an object's bytes in order as readings fetch them, so
// that a reading and the content hash of the object (an export's
// manifest digest) fetch each byte once.
type hashTap struct {
	mu     sync.Mutex
	h      hash.Hash
	next   int64        // the bytes [0, next) are hashed
	hashed atomic.Int64 // next, for evict, which holds Object.mu, not mu
	closed bool         // Sum took over
}

// Hash starts hashing the object while it is read: each block fetched is
// hashed as soon as every byte before it is, and Sum, called once the
// reading is done, fetches only what no reading did. A reading that
// leaves a gap behind it (records it steps over) gets the gap fetched
// with it, so that the hash keeps up and no block must be fetched twice.
// Calling Hash again restarts the hash.
func (obj *Object) Hash() {
	t := &hashTap{h: sha256.New()}
	obj.mu.Lock()
	obj.tap = t
	obj.mu.Unlock()
	obj.advanceHash()
}

// Sum returns the SHA-256 of the object and its length, reading (through
// the cache) the bytes that no reading since Hash fetched; it ends the
// hashing. Without Hash, it hashes the whole object.
func (obj *Object) Sum() ([]byte, int64, error) {
	obj.mu.Lock()
	t := obj.tap
	obj.tap = nil
	obj.mu.Unlock()
	if t == nil {
		t = &hashTap{h: sha256.New()}
	} else if obj.spool == nil {
		obj.advanceTap(t)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.next < obj.size {
		if _, err := io.Copy(t.h, io.NewSectionReader(obj, t.next, obj.size-t.next)); err != nil {
			return nil, 0, err
		}
	}
	return t.h.Sum(nil), obj.size, nil
}

// advanceHash hashes the blocks that follow the hashed bytes and are in,
// when the object is being hashed.
func (obj *Object) advanceHash() {
	if obj.spool != nil {
		return
	}
	obj.mu.Lock()
	t := obj.tap
	obj.mu.Unlock()
	if t != nil {
		obj.advanceTap(t)
	}
}

func (obj *Object) advanceTap(t *hashTap) {
	t.mu.Lock()
	defer t.mu.Unlock()
	B := obj.o.Block
	for !t.closed && t.next < obj.size {
		switch {
		case t.next < int64(len(obj.head)):
			t.h.Write(obj.head[t.next:])
			t.next = int64(len(obj.head))
			t.hashed.Store(t.next)
			continue
		case t.next >= obj.tailOff:
			t.h.Write(obj.tail[t.next-obj.tailOff:])
			t.next = obj.size
			t.hashed.Store(t.next)
			continue
		}
		idx := t.next / B
		obj.mu.Lock()
		b := obj.blocks[idx]
		if b == nil {
			obj.fillGap(t.next)
		}
		obj.mu.Unlock()
		if b == nil {
			return
		}
		select {
		case <-b.done:
		default:
			return // its fill hashes it
		}
		if b.err != nil {
			return
		}
		bo := idx * B
		end := min(bo+int64(len(b.data)), obj.tailOff)
		t.h.Write(b.data[t.next-bo : end-bo])
		t.next = end
		t.hashed.Store(t.next)
	}
}

// fillGap starts fetching the blocks from the hashed bytes' end at off
// that no reading asked for although the latest reading is past them (the
// records it stepped over), up to the next block asked for, in requests
// of at most ReadaheadRequest bytes. obj.mu is held.
func (obj *Object) fillGap(off int64) {
	if obj.lastEnd <= off {
		return
	}
	B := obj.o.Block
	var run []*block
	for i := off / B; i*B < obj.lastEnd && i*B < obj.tailOff && int64(len(run))*B < obj.o.ReadaheadRequest; i++ {
		if obj.blocks[i] != nil {
			break
		}
		run = append(run, obj.newBlock(i))
	}
	if len(run) > 0 {
		go obj.fill(run)
	}
}
