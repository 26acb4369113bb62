package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"
)

// rangeServer serves data with net/http's own Range handling
// (http.ServeContent), counting requests: requests for ranges from an
// offset, suffixes for the last bytes (Range: bytes=-N, which an opening
// asks beside its head). fault and suffixFault, when set, may answer
// either kind itself (returning true).
type rangeServer struct {
	mu          sync.Mutex
	data        []byte
	etag        string
	requests    atomic.Int64
	suffixes    atomic.Int64
	fault       func(w http.ResponseWriter, r *http.Request, n int64) bool
	suffixFault func(w http.ResponseWriter, r *http.Request) bool
}

func (s *rangeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.Header.Get("Range"), "bytes=-") {
		s.suffixes.Add(1)
		if s.suffixFault != nil && s.suffixFault(w, r) {
			return
		}
	} else if n := s.requests.Add(1); s.fault != nil && s.fault(w, r, n) {
		return
	}
	s.mu.Lock()
	data, etag := s.data, s.etag
	s.mu.Unlock()
	w.Header().Set("ETag", etag)
	http.ServeContent(w, r, "x.bin", time.Time{}, bytes.NewReader(data))
}

func (s *rangeServer) replace(data []byte) {
	s.mu.Lock()
	s.data, s.etag = data, fmt.Sprintf(`"v%d"`, len(data)+int(data[0]))
	s.mu.Unlock()
}

// writeCut answers with bytes a-b of data, as a 206 that announces them
// all, but closes the connection after the first sent of them.
func writeCut(w http.ResponseWriter, data []byte, a, b, sent int64) {
	w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
	w.Header().Set("Content-Length", fmt.Sprint(b-a+1))
	w.WriteHeader(http.StatusPartialContent)
	w.Write(data[a : a+sent])
	conn, _, _ := w.(http.Hijacker).Hijack()
	conn.Close()
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func serve(t *testing.T, data []byte) (*rangeServer, string) {
	t.Helper()
	s := &rangeServer{}
	s.replace(data)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL + "/x.bin"
}

func fastOptions() Options {
	return Options{Backoff: time.Millisecond, Stall: 2 * time.Second, HTTPClient: &http.Client{}}
}

func TestOpenFetchesHeadAndTail(t *testing.T) {
	for _, c := range []struct {
		name string
		size int
	}{{"smaller than the head", 1000}, {"head and tail", 10 << 20}, {"head and a short tail", 100 << 10}} {
		t.Run(c.name, func(t *testing.T) {
			data := randomBytes(c.size, 1)
			s, u := serve(t, data)
			obj, err := Open(context.Background(), u, fastOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			if obj.Size() != int64(c.size) {
				t.Fatalf("size %d, want %d", obj.Size(), c.size)
			}
			// The magic and the summary are served without a request.
			buf := make([]byte, 16)
			if _, err := obj.ReadAt(buf, 0); err != nil || !bytes.Equal(buf, data[:16]) {
				t.Fatalf("head: %v", err)
			}
			if _, err := obj.ReadAt(buf, int64(c.size-16)); err != nil || !bytes.Equal(buf, data[c.size-16:]) {
				t.Fatalf("tail: %v", err)
			}
			// The head, and the last bytes asked for beside it (a request
			// that the head's answer may cancel before the server sees
			// it, when the head is the whole object).
			st := obj.Stats()
			if st.Requests != 2 || s.requests.Load() != 1 || s.suffixes.Load() != 1 && !(c.size <= 8<<10 && s.suffixes.Load() == 0) {
				t.Fatalf("%d requests (server saw %d and %d for the last bytes), want 2", st.Requests, s.requests.Load(), s.suffixes.Load())
			}
			if max := int64(16<<10 + 256<<10); st.Bytes > max {
				t.Fatalf("fetched %d bytes, more than head and tail (%d)", st.Bytes, max)
			}
		})
	}
}

// TestOpenAsksTheTailBesideTheHead: the tail's request goes out before
// the head's answer, so that opening costs one round trip; when its
// answer will not do, the tail is asked for after the head, as the
// version the head read.
func TestOpenAsksTheTailBesideTheHead(t *testing.T) {
	data := randomBytes(1<<20, 11)
	s, u := serve(t, data)
	arrived := make(chan struct{})
	var alone atomic.Bool
	s.suffixFault = func(w http.ResponseWriter, r *http.Request) bool {
		close(arrived)
		return false
	}
	s.fault = func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n == 1 {
			select { // the head waits for the tail's request (less than Stall)
			case <-arrived:
			case <-time.After(time.Second):
				alone.Store(true)
			}
		}
		return false
	}
	obj, err := Open(context.Background(), u, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	obj.Close()
	if alone.Load() {
		t.Fatal("the head's request waited 1 s for the tail's: it was not asked for beside the head")
	}

	other := randomBytes(1<<20, 12)
	for _, c := range []struct {
		name  string
		fault func(w http.ResponseWriter, r *http.Request) bool
	}{
		{"500", func(w http.ResponseWriter, r *http.Request) bool {
			http.Error(w, "boom", http.StatusInternalServerError)
			return true
		}},
		{"whole object", func(w http.ResponseWriter, r *http.Request) bool {
			w.Write(data)
			return true
		}},
		{"wrong range", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-99/%d", len(data)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[:100])
			return true
		}},
		{"another version", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("ETag", `"other"`)
			http.ServeContent(w, r, "x.bin", time.Time{}, bytes.NewReader(other))
			return true
		}},
		{"body cut short", func(w http.ResponseWriter, r *http.Request) bool {
			writeCut(w, data, int64(len(data)-250_000), int64(len(data)-1), 250_000-1000)
			return true
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, u := serve(t, data)
			s.suffixFault = c.fault
			obj, err := Open(context.Background(), u, fastOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			tail := make([]byte, 250_000)
			if _, err := obj.ReadAt(tail, int64(len(data)-len(tail))); err != nil || !bytes.Equal(tail, data[len(data)-len(tail):]) {
				t.Fatalf("tail: %v", err)
			}
			if s.requests.Load() != 2 || obj.Stats().Requests != 3 {
				t.Fatalf("%d requests (%d from an offset), want the head, the last bytes, and the tail after the head", obj.Stats().Requests, s.requests.Load())
			}
		})
	}
}

func TestReadAtConcurrentMatchesData(t *testing.T) {
	data := randomBytes(9<<20+123, 2)
	_, u := serve(t, data)
	o := fastOptions()
	o.Cache = 4 << 20 // small: blocks are evicted and fetched again
	obj, err := Open(context.Background(), u, o)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 40 {
				off := r.Int64N(int64(len(data)))
				n := r.IntN(3 << 20)
				p := make([]byte, n)
				m, err := obj.ReadAt(p, off)
				wantN := min(n, len(data)-int(off))
				if m != wantN || (wantN < n) != (err == io.EOF) || err != nil && err != io.EOF {
					errs <- fmt.Errorf("ReadAt(%d, %d) = %d, %v", n, off, m, err)
					return
				}
				if !bytes.Equal(p[:m], data[off:off+int64(m)]) {
					errs <- fmt.Errorf("ReadAt(%d, %d): wrong bytes", n, off)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	obj.mu.Lock()
	cached := obj.cached
	obj.mu.Unlock()
	if cached > o.Cache {
		t.Fatalf("cache holds %d bytes, bound %d", cached, o.Cache)
	}
}

// A whole reading in order fetches each byte once, in few requests.
func TestSequentialReadFetchesEachByteOnce(t *testing.T) {
	data := randomBytes(40<<20, 3)
	_, u := serve(t, data)
	obj, err := Open(context.Background(), u, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	var got bytes.Buffer
	if _, err := io.Copy(&got, io.NewSectionReader(obj, 0, obj.Size())); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatal("wrong bytes")
	}
	st := obj.Stats()
	if st.Bytes != int64(len(data)) {
		t.Errorf("fetched %d bytes of %d", st.Bytes, len(data))
	}
	if st.Requests > 40 {
		t.Errorf("%d requests for %d MiB read in order", st.Requests, len(data)>>20)
	}
	t.Logf("%d requests, %d bytes", st.Requests, st.Bytes)
}

func TestRetriesTemporaryFailures(t *testing.T) {
	data := randomBytes(3<<20, 4)
	for _, c := range []struct {
		name  string
		fault func(w http.ResponseWriter, r *http.Request, n int64) bool
	}{
		{"503", func(w http.ResponseWriter, r *http.Request, n int64) bool {
			if n%2 == 0 {
				http.Error(w, "slow down", http.StatusServiceUnavailable)
				return true
			}
			return false
		}},
		{"500", func(w http.ResponseWriter, r *http.Request, n int64) bool {
			if n%3 == 2 {
				http.Error(w, "boom", http.StatusInternalServerError)
				return true
			}
			return false
		}},
		{"connection reset", func(w http.ResponseWriter, r *http.Request, n int64) bool {
			if n%2 == 0 {
				var a, b int64
				fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b)
				b = min(b, int64(len(data)-1))
				conn, buf, _ := w.(http.Hijacker).Hijack()
				fmt.Fprintf(buf, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %d-%d/%d\r\nContent-Length: %d\r\n\r\n", a, b, len(data), b-a+1)
				buf.Write(data[a : a+(b-a+1)/2])
				buf.Flush()
				conn.(*net.TCPConn).SetLinger(0) // RST
				conn.Close()
				return true
			}
			return false
		}},
		{"body cut short", func(w http.ResponseWriter, r *http.Request, n int64) bool {
			if n%2 == 0 && r.Header.Get("Range") != "" {
				var a, b int64
				fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b)
				writeCut(w, data, a, b, (b-a+1)/2)
				return true
			}
			return false
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, u := serve(t, data)
			s.fault = c.fault
			obj, err := Open(context.Background(), u, fastOptions())
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			got := make([]byte, len(data))
			if _, err := obj.ReadAt(got, 0); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("wrong bytes")
			}
			if obj.Stats().Retries == 0 {
				t.Fatal("no retry counted")
			}
		})
	}
}

func TestRetriesAreBounded(t *testing.T) {
	s, u := serve(t, randomBytes(1<<20, 5))
	s.suffixFault = failSuffix
	s.fault = func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n > 1 {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	o := fastOptions()
	o.Head = 1024
	obj, err := Open(context.Background(), u, o)
	if err == nil {
		obj.Close()
		t.Fatal("no error")
	}
	var se *statusError
	if !errors.As(err, &se) || se.code != 503 || !strings.Contains(err.Error(), "after 5 retries") {
		t.Fatalf("error %v", err)
	}
	if n := s.requests.Load(); n != 1+6 {
		t.Fatalf("%d requests, want the head, then the tail 6 times", n)
	}
}

// failSuffix answers a request for the last bytes with a 503, which is
// not retried: the tail is asked for after the head.
func failSuffix(w http.ResponseWriter, r *http.Request) bool {
	http.Error(w, "slow down", http.StatusServiceUnavailable)
	return true
}

func TestStalledServerIsRetried(t *testing.T) {
	data := randomBytes(2<<20, 6)
	s, u := serve(t, data)
	s.suffixFault = failSuffix
	release := make(chan struct{})
	defer close(release)
	s.fault = func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n == 2 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return true
		}
		return false
	}
	o := fastOptions()
	o.Stall = 200 * time.Millisecond
	start := time.Now()
	obj, err := Open(context.Background(), u, o)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if obj.Stats().Retries != 1 || time.Since(start) > 5*time.Second {
		t.Fatalf("retries %d after %v", obj.Stats().Retries, time.Since(start))
	}
}

func TestServerIgnoringRangeIsReadAsOneStream(t *testing.T) {
	data := randomBytes(1<<20, 7)
	var requests atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write(data) // 200, whatever the Range
	}))
	defer ts.Close()
	var notes []string
	o := fastOptions()
	o.OnNote = func(s string) { notes = append(notes, s) }
	obj, err := Open(context.Background(), ts.URL+"/a.bag", o)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	got := make([]byte, len(data))
	if _, err := obj.ReadAt(got, 0); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadAt: %v", err)
	}
	// The request for the last bytes, sent beside the first, was left
	// unread: answered with the whole object too, or stopped before the
	// server saw it once the first answer was found to ignore Range.
	if n := requests.Load(); !obj.Spooled() || n < 1 || n > 2 || obj.Stats().Bytes != int64(len(data)) || len(notes) != 1 || !strings.Contains(notes[0], "ignores Range") {
		t.Fatalf("spooled %v, %d requests, %d bytes, notes %q", obj.Spooled(), requests.Load(), obj.Stats().Bytes, notes)
	}
}

func TestObjectChangedDuringRead(t *testing.T) {
	data := randomBytes(4<<20, 8)
	s, u := serve(t, data)
	obj, err := Open(context.Background(), u, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	other := randomBytes(4<<20, 9)
	s.replace(other)
	p := make([]byte, 1<<20)
	_, err = obj.ReadAt(p, 1<<20)
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("error %v, want ErrChanged", err)
	}
	if !strings.Contains(err.Error(), u) {
		t.Fatalf("error %q does not name the URL", err)
	}
}

func TestMissingAndForbidden(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "secret.bag") {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		http.NotFound(w, r)
	}))
	defer ts.Close()
	for name, want := range map[string]error{"gone.bag": ErrNotFound, "secret.bag": ErrAccess} {
		_, err := Open(context.Background(), ts.URL+"/"+name, fastOptions())
		if !errors.Is(err, want) || !strings.Contains(err.Error(), ts.URL+"/"+name) {
			t.Errorf("%s: %v, want %v naming the URL", name, err, want)
		}
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	data := randomBytes(4<<20, 10)
	s, u := serve(t, data)
	ctx, cancel := context.WithCancel(context.Background())
	obj, err := Open(ctx, u, fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	s.fault = func(w http.ResponseWriter, r *http.Request, n int64) bool {
		<-r.Context().Done() // hang until the client goes
		return true
	}
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = obj.ReadAt(make([]byte, 1<<20), 1<<20)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("error %v after %v", err, time.Since(start))
	}
}

// The blob half reads through gocloud's in-memory driver as through S3.
func TestBlobObject(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	data := randomBytes(5<<20+7, 11)
	if err := b.WriteAll(ctx, "runs/a.mcap", data, nil); err != nil {
		t.Fatal(err)
	}
	obj, err := open(ctx, "mem://b/runs/a.mcap", &blobFetcher{url: "mem://b/runs/a.mcap", bucket: b, key: "runs/a.mcap"}, fastOptions().withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	got := make([]byte, len(data))
	if n, err := obj.ReadAt(got, 0); n != len(data) || err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if _, err := open(ctx, "mem://b/none", &blobFetcher{url: "mem://b/none", bucket: b, key: "none"}, fastOptions().withDefaults()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing key: %v", err)
	}
}

func TestParseContentRange(t *testing.T) {
	for _, c := range []struct {
		in         string
		a, b, size int64
		ok         bool
	}{
		{"bytes 0-99/1000", 0, 99, 1000, true},
		{"bytes 5-5/*", 5, 5, -1, true},
		{"bytes */1000", -1, -1, 1000, true},
		{"bytes 9-3/10", 0, 0, 0, false},
		{"bytes -1-3/10", 0, 0, 0, false},
		{"bytes 0-3/-10", 0, 0, 0, false},
		{"items 0-3/10", 0, 0, 0, false},
		{"bytes 0-99999999999999999999/1", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	} {
		a, b, size, err := parseContentRange(c.in)
		if (err == nil) != c.ok || c.ok && (a != c.a || b != c.b || size != c.size) {
			t.Errorf("%q: %d %d %d %v", c.in, a, b, size, err)
		}
	}
}

func TestTrimKeepsHeadAndTail(t *testing.T) {
	data := randomBytes(8<<20, 13)
	s, u := serve(t, data)
	sess := NewSession(context.Background(), fastOptions())
	defer sess.Close()
	obj, err := sess.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 3<<20)
	if _, err := obj.ReadAt(p, 1<<20); err != nil {
		t.Fatal(err)
	}
	obj.Trim()
	if obj.cached != 0 {
		t.Fatalf("%d bytes cached after Trim", obj.cached)
	}
	again, _ := sess.Open(u)
	before := s.requests.Load()
	if _, err := again.ReadAt(p[:100], int64(len(data)-100)); err != nil || again != obj || s.requests.Load() != before {
		t.Fatalf("reopening fetched again: %v", err)
	}
	var b strings.Builder
	sess.WriteStats(&b)
	if !strings.Contains(b.String(), u+": 3 requests") {
		t.Fatalf("stats %q", b.String())
	}
}

func TestListAndWriteBlob(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	for _, k := range []string{"runs/b.bag", "runs/a.mcap", "runs/r2/metadata.yaml", "other/x.bag"} {
		if err := b.WriteAll(ctx, k, []byte("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := listBucket(ctx, gocloudBucket{b}, "mem://b/runs/", "runs/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, fmt.Sprintf("%s %v", e.URL, e.Dir))
	}
	want := "mem://b/runs/a.mcap false,mem://b/runs/b.bag false,mem://b/runs/r2/ true"
	if strings.Join(names, ",") != want {
		t.Fatalf("listed %q, want %q", names, want)
	}
	if _, err := listBucket(ctx, gocloudBucket{b}, "mem://b/none/", "none/"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty prefix: %v", err)
	}
}
