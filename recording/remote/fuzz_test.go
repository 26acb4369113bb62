package remote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzResponses answers every request with a hostile response built from
// the fuzzer's bytes — any status, any Content-Range, a body shorter or
// longer than it claims, a huge Content-Length — and checks that reading
// never panics, never hangs, never allocates by the server's word, and
// either fails or returns the true bytes.
func FuzzResponses(f *testing.F) {
	f.Add(206, "bytes 0-15/64", int64(16), 16, uint8(0))
	f.Add(206, "bytes 0-15/99999999999999", int64(16), 16, uint8(0))
	f.Add(206, "bytes 3-18/64", int64(-1), 16, uint8(1))
	f.Add(200, "", int64(1<<40), 10, uint8(2))
	f.Add(416, "bytes */64", int64(0), 0, uint8(0))
	f.Add(206, "bytes 0-63/64", int64(64), 64, uint8(3))
	f.Add(503, "", int64(0), 0, uint8(0))
	f.Fuzz(func(t *testing.T, status int, contentRange string, contentLength int64, bodyLen int, mode uint8) {
		if status < 100 || status > 599 || bodyLen < 0 || bodyLen > 1<<16 {
			return // not a response net/http can send
		}
		data := randomBytes(64, 12)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if mode%4 == 3 { // an honest answer now and then
				http.ServeContent(w, r, "x", time.Time{}, bytes.NewReader(data))
				return
			}
			if contentRange != "" {
				w.Header().Set("Content-Range", contentRange)
			}
			if contentLength >= 0 && mode%2 == 0 {
				w.Header().Set("Content-Length", fmt.Sprint(contentLength))
			}
			w.WriteHeader(status)
			body := make([]byte, bodyLen)
			for i := range body {
				body[i] = data[i%len(data)]
			}
			w.Write(body)
		}))
		defer ts.Close()
		o := Options{Head: 16, Tail: 16, Block: 16, Retries: 1, Backoff: time.Millisecond, Stall: time.Second, HTTPClient: &http.Client{Timeout: 5 * time.Second}}
		obj, err := open(context.Background(), ts.URL, &httpFetcher{url: ts.URL, client: o.HTTPClient}, o.withDefaults())
		if err != nil {
			return
		}
		defer obj.Close()
		if obj.Size() > int64(len(data)) && !obj.Spooled() {
			// The server's word on the size is all there is; reading must
			// still fail cleanly rather than allocate it.
			p := make([]byte, 32)
			obj.ReadAt(p, obj.Size()-32)
			return
		}
		p := make([]byte, obj.Size())
		n, err := obj.ReadAt(p, 0)
		if err != nil && err != io.EOF {
			return
		}
		if obj.Spooled() || mode%4 == 3 {
			return // the body is what the server sent: the whole object
		}
		if !bytes.Equal(p[:n], data[:n]) {
			t.Fatalf("wrong bytes without an error: %x", p[:n])
		}
	})
}
