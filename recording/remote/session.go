package remote

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Session is the remote objects one command reads: each opened once and
// shared by every reading of it (a recording opened again to read its
// messages after its summary costs no request), counted for Stats, and
// closed together. Its context bounds every request.
type Session struct {
	ctx  context.Context
	opts Options

	mu    sync.Mutex
	objs  map[string]*Object
	order []string
}

// NewSession starts a session whose requests ctx bounds.
func NewSession(ctx context.Context, opts Options) *Session {
	return &Session{ctx: ctx, opts: opts, objs: map[string]*Object{}}
}

// Context is the session's context.
func (s *Session) Context() context.Context { return s.ctx }

// Open returns the object at url, opening it on first use.
func (s *Session) Open(url string) (*Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.objs[url]; o != nil {
		return o, nil
	}
	o, err := Open(s.ctx, url, s.opts)
	if err != nil {
		return nil, err
	}
	s.objs[url] = o
	s.order = append(s.order, url)
	return o, nil
}

// Note passes a note to the session's Options.OnNote.
func (s *Session) Note(format string, args ...any) {
	if s.opts.OnNote != nil {
		s.opts.OnNote(fmt.Sprintf(format, args...))
	}
}

// URLStats is one object's Stats.
type URLStats struct {
	URL string
	Stats
}

// Stats returns each object's counts, in the order they were opened.
func (s *Session) Stats() []URLStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]URLStats, 0, len(s.order))
	for _, u := range s.order {
		out = append(out, URLStats{URL: u, Stats: s.objs[u].Stats()})
	}
	return out
}

// WriteStats writes one line per object to w: its requests, retries and
// bytes fetched against its size.
func (s *Session) WriteStats(w io.Writer) {
	for _, st := range s.Stats() {
		pct := 0.0
		if st.Size > 0 {
			pct = 100 * float64(st.Bytes) / float64(st.Size)
		}
		fmt.Fprintf(w, "baglab: stats: %s: %d requests (%d retries), %d of %d bytes fetched (%.2f%%)\n",
			st.URL, st.Requests, st.Retries, st.Bytes, st.Size, pct)
	}
}

// Close closes every object of the session; idempotent.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for _, u := range s.order {
		if cerr := s.objs[u].Close(); err == nil {
			err = cerr
		}
	}
	s.objs, s.order = map[string]*Object{}, nil
	return err
}
