package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// rangeLog records the Range header of every request of a rangeServer.
type rangeLog struct {
	mu     sync.Mutex
	ranges [][2]int64 // [first, last] byte of each request
}

func (l *rangeLog) fault(_ http.ResponseWriter, r *http.Request, _ int64) bool {
	var a, b int64
	if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b); err == nil {
		l.mu.Lock()
		l.ranges = append(l.ranges, [2]int64{a, b})
		l.mu.Unlock()
	}
	return false
}

// A planned reading (the chunks of a selection, read by two workers in
// the plan's order) fetches its ranges in requests of ReadaheadRequest
// bytes, each byte once, never a byte of the gaps the plan leaves wider
// than nearGap, and never more than Readahead ahead of the reads.
func TestPlanFetchesOnlyThePlanInLargeRequests(t *testing.T) {
	data := randomBytes(48<<20, 5)
	s, u := serve(t, data)
	var log rangeLog
	s.fault = log.fault
	o := fastOptions()
	o.Readahead, o.ReadaheadRequest = 4<<20, 1<<20
	obj, err := Open(context.Background(), u, o)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()

	// Chunks of 700,000 bytes with 50,000-byte gaps (index records, which
	// the plan spans), in runs of ten with 3 MB skipped between runs.
	var plan [][2]int64
	var planned int64
	for off := int64(100_000); off+700_000 < int64(len(data))-o.Tail; off += 750_000 {
		if (off/750_000)%13 >= 10 {
			continue
		}
		plan = append(plan, [2]int64{off, off + 700_000})
		planned += 700_000
	}
	obj.Plan(plan)
	// Before any read: at most Readahead (and a request) fetched ahead.
	time.Sleep(200 * time.Millisecond)
	if got := obj.Stats().Bytes - o.withDefaults().Head - o.withDefaults().Tail; got > o.Readahead+o.ReadaheadRequest {
		t.Errorf("%d bytes fetched ahead of any read, want at most %d", got, o.Readahead+o.ReadaheadRequest)
	}

	next := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			buf := make([]byte, 700_000)
			for i := range next {
				r := plan[i]
				if _, err := obj.ReadAt(buf, r[0]); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(buf, data[r[0]:r[1]]) {
					t.Errorf("chunk at %d: wrong bytes", r[0])
				}
			}
		})
	}
	for i := range plan {
		next <- i
	}
	close(next)
	wg.Wait()

	// Where the plan allows fetching: its ranges, gaps of at most nearGap
	// between them, rounded out to blocks.
	B := o.withDefaults().Block
	allowed := func(a, b int64) bool {
		for i := 0; i < len(plan); {
			lo, hi := plan[i][0], plan[i][1]
			for i++; i < len(plan) && plan[i][0]-hi <= nearGap; i++ {
				hi = plan[i][1]
			}
			if a >= lo/B*B && b < (hi+B-1)/B*B {
				return true
			}
		}
		return false
	}
	seen := map[int64]bool{}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, r := range log.ranges[2:] { // after the head and the tail
		if !allowed(r[0], r[1]) {
			t.Errorf("fetched %d-%d, outside the plan", r[0], r[1])
		}
		if r[1]-r[0]+1 > o.ReadaheadRequest {
			t.Errorf("request of %d bytes, more than %d", r[1]-r[0]+1, o.ReadaheadRequest)
		}
		for b := r[0] / B; b <= r[1]/B; b++ {
			if seen[b] {
				t.Errorf("block at %d fetched twice", b*B)
			}
			seen[b] = true
		}
	}
	// Runs of ten chunks: 7.45 MB each, so eight 1 MiB requests a run at
	// best; one more a run for where a request ends mid-block.
	runs := (len(plan) + 9) / 10
	if n := len(log.ranges) - 2; n > 9*runs {
		t.Errorf("%d requests for %d runs of %d planned bytes, want at most %d", n, runs, planned, 9*runs)
	}
	t.Logf("%d requests, %d bytes fetched for %d planned", len(log.ranges), obj.Stats().Bytes, planned)
}

// A planned reading of an object being hashed (a partitioned export's
// manifest digest) fetches each byte once: the gaps between its ranges,
// which the hash needs too, are fetched with them, before a cache of a
// third of the object lets the blocks after them go.
func TestPlanWithHashFetchesEachByteOnce(t *testing.T) {
	data := randomBytes(24<<20, 7)
	_, u := serve(t, data)
	o := fastOptions()
	o.Cache, o.Readahead, o.ReadaheadRequest = 8<<20, 1<<20, 256<<10
	obj, err := Open(context.Background(), u, o)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	obj.Hash()
	// Chunks of 500,000 bytes, 400,000 bytes apart from each other: gaps
	// wider than nearGap, which the plan does not fetch.
	var plan [][2]int64
	for off := int64(10_000); off+500_000 < int64(len(data))-o.Tail; off += 900_000 {
		plan = append(plan, [2]int64{off, off + 500_000})
	}
	obj.Plan(plan)
	buf := make([]byte, 500_000)
	for _, r := range plan {
		if _, err := obj.ReadAt(buf, r[0]); err != nil {
			t.Fatal(err)
		}
	}
	sum, _, err := obj.Sum()
	if err != nil {
		t.Fatal(err)
	}
	if want := sha256.Sum256(data); !bytes.Equal(sum, want[:]) {
		t.Fatal("wrong hash")
	}
	if st := obj.Stats(); st.Bytes != int64(len(data)) {
		t.Errorf("fetched %d bytes of %d in %d requests", st.Bytes, len(data), st.Requests)
	}
}
