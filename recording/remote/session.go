package remote

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Session is the remote objects one command reads: each opened once and
// shared by every reading of it (a recording opened again to read its
// messages after its summary costs no request), counted for Stats, and
// closed together. Its context bounds every request.
type Session struct {
	ctx  context.Context
	opts Options

	mu     sync.Mutex
	objs   map[string]*Object
	order  []string
	copies map[string]*localCopy
	idle   []*localCopy // copies no reading holds, least recently released first
}

// keepCopies bounds the local copies a session keeps that no reading
// holds, besides the most recently released.
const keepCopies = 1 << 30

// localCopy is a private local copy of an object or a prefix (LocalCopy).
type localCopy struct {
	url       string
	dir, path string
	size      int64
	refs      int
	ready     chan struct{} // closed once made
	err       error
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

// LocalCopy returns the path of a private local copy of url, which
// makeCopy makes on first use (returning the folder to remove and the
// copy's path in it), and the function that releases it. A reading that
// opens url again (its messages after its summary) takes the same copy:
// a copy no reading holds is kept, the most recently released always and
// older ones while they come to at most 1 GiB, until the session closes.
func (s *Session) LocalCopy(url string, makeCopy func() (dir, path string, err error)) (path string, release func(), err error) {
	s.mu.Lock()
	c := s.copies[url]
	if c == nil {
		c = &localCopy{url: url, ready: make(chan struct{}), refs: 1}
		if s.copies == nil {
			s.copies = map[string]*localCopy{}
		}
		s.copies[url] = c
		s.mu.Unlock()
		dir, path, err := makeCopy()
		var size int64
		if err == nil {
			size = du(dir)
		}
		s.mu.Lock()
		if err == nil && s.copies[url] != c {
			// The session closed meanwhile.
			os.RemoveAll(dir)
			err = context.Canceled
		}
		c.dir, c.path, c.size, c.err = dir, path, size, err
		close(c.ready)
	} else {
		c.refs++
		s.idle = slices.DeleteFunc(s.idle, func(x *localCopy) bool { return x == c })
	}
	s.mu.Unlock()
	<-c.ready
	if c.err != nil {
		s.release(c)
		return "", nil, c.err
	}
	var once sync.Once
	return c.path, func() { once.Do(func() { s.release(c) }) }, nil
}

// release drops a reading's hold on c; a failed copy is forgotten, so
// that a later reading tries again.
func (s *Session) release(c *localCopy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.refs--; c.refs > 0 {
		return
	}
	if c.err != nil {
		if s.copies[c.url] == c {
			delete(s.copies, c.url)
		}
		return
	}
	s.idle = append(s.idle, c)
	var kept int64
	for i := len(s.idle) - 2; i >= 0; i-- {
		if kept += s.idle[i].size; kept > keepCopies {
			for _, old := range s.idle[:i+1] {
				os.RemoveAll(old.dir)
				if s.copies[old.url] == old {
					delete(s.copies, old.url)
				}
			}
			s.idle = slices.Delete(s.idle, 0, i+1)
			break
		}
	}
}

// du is the bytes of the files under dir.
func du(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// Close closes every object of the session and removes its local
// copies; idempotent.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for _, u := range s.order {
		if cerr := s.objs[u].Close(); err == nil {
			err = cerr
		}
	}
	for _, c := range s.copies {
		if c.dir != "" {
			os.RemoveAll(c.dir)
		}
	}
	s.objs, s.order, s.copies, s.idle = map[string]*Object{}, nil, nil, nil
	return err
}
