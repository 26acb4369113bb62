package ratelog

import (
	"fmt"
	"sync"
	"time"
)

// Logf is a printf-style log function.
type Logf func(format string, args ...any)

// Limit returns a Logf that passes at most burst lines of each format
// string to logf per window and counts the rest: at the end of a window
// in which lines were suppressed it writes "(N more like this in the last
// W; last: ...)". Lines of different formats do not limit one another.
func Limit(logf Logf, window time.Duration, burst int) Logf {
	l := &limiter{logf: logf, window: window, burst: burst, keys: map[string]*entry{}}
	return l.log
}

type limiter struct {
	logf   Logf
	window time.Duration
	burst  int

	mu   sync.Mutex
	keys map[string]*entry
}

type entry struct {
	start      time.Time
	n          int
	suppressed int
	last       string
}

func (l *limiter) log(format string, args ...any) {
	now := time.Now()
	l.mu.Lock()
	e := l.keys[format]
	if e == nil || (now.Sub(e.start) >= l.window && e.suppressed == 0) {
		e = &entry{start: now}
		l.keys[format] = e
	}
	e.n++
	if e.n <= l.burst {
		l.mu.Unlock()
		l.logf(format, args...)
		return
	}
	e.suppressed++
	e.last = fmt.Sprintf(format, args...)
	if e.suppressed == 1 {
		time.AfterFunc(e.start.Add(l.window).Sub(now), func() { l.flush(format, e) })
	}
	l.mu.Unlock()
}

// flush writes the count of e's suppressed lines and starts a new window.
func (l *limiter) flush(format string, e *entry) {
	l.mu.Lock()
	k, last := e.suppressed, e.last
	if l.keys[format] == e {
		delete(l.keys, format)
	}
	l.mu.Unlock()
	l.logf("(%d more like this in the last %s; last: %s)", k, l.window, last)
}
