package recorder

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/baglab/baglab/internal/termtext"
)

// statusTable draws the live per-topic table (as rosbag_fancy shows it):
// publishers, messages, rate, bandwidth, drops, then the file and queue.
type statusTable struct {
	mu    sync.Mutex
	w     io.Writer
	lines int // lines drawn last time
	last  string
	prev  map[string]TopicStats
	prevT time.Time
}

func newStatusTable(w io.Writer) *statusTable {
	return &statusTable{w: w}
}

// logf wraps a log function so that its lines print above the table.
func (s *statusTable) logf(next func(string, ...any)) func(string, ...any) {
	return func(format string, args ...any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.eraseLocked()
		next(format, args...)
		if s.last != "" {
			fmt.Fprint(s.w, s.last)
			s.lines = strings.Count(s.last, "\n")
		}
	}
}

func (s *statusTable) run(ctx context.Context, r *Recorder) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.draw(r)
		}
	}
}

func (s *statusTable) eraseLocked() {
	if s.lines > 0 {
		fmt.Fprintf(s.w, "\x1b[%dA\x1b[J", s.lines)
		s.lines = 0
	}
}

// clear removes the table.
func (s *statusTable) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eraseLocked()
	s.last = ""
}

func (s *statusTable) draw(r *Recorder) {
	now := time.Now()
	topics := r.topicStats(nil)
	pubs := r.publishers()
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %5s %10s %9s %11s %8s\n", "TOPIC", "PUBS", "MESSAGES", "RATE", "BANDWIDTH", "DROPS")
	dt := now.Sub(s.prevT).Seconds()
	for _, t := range topics {
		p := s.prev[t.Topic]
		rate, bw := 0.0, 0.0
		if dt > 0 && !s.prevT.IsZero() {
			rate = float64(t.Received-p.Received) / dt
			bw = float64(t.Bytes-p.Bytes) / dt
		}
		fmt.Fprintf(&b, "%-40s %5d %10d %7.1f/s %9s/s %8d\n", termtext.Line(t.Topic), pubs[t.Topic], t.Received, rate, human(bw), t.Dropped)
	}
	if out := r.cur.Load(); out != nil {
		lim := "unbounded"
		if r.o.BufSize >= 0 {
			lim = human(float64(r.o.BufSize))
		}
		fmt.Fprintf(&b, "file %s  %s   queue %s of %s   %s\n", out.active, human(float64(out.size())),
			human(float64(r.q.size())), lim, now.Sub(r.started).Truncate(time.Second))
	}
	s.prev = map[string]TopicStats{}
	for _, t := range topics {
		s.prev[t.Topic] = t
	}
	s.prevT = now
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eraseLocked()
	s.last = b.String()
	fmt.Fprint(s.w, s.last)
	s.lines = strings.Count(s.last, "\n")
}

// publishers counts the connected publishers of each topic.
func (r *Recorder) publishers() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[string]int{}
	for _, t := range r.order {
		if t.sub != nil {
			m[t.name] = t.sub.NumPublishers()
		}
	}
	return m
}

// human formats a byte count.
func human(n float64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	i := 0
	for n >= 1000 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}
