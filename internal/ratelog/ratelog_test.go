package ratelog

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	logf := Limit(func(f string, a ...any) {
		mu.Lock()
		lines = append(lines, fmt.Sprintf(f, a...))
		mu.Unlock()
	}, 200*time.Millisecond, 3)
	for i := range 1000 {
		logf("bad request from %d", i)
	}
	logf("other %d", 1)
	mu.Lock()
	if len(lines) != 4 || lines[2] != "bad request from 2" || lines[3] != "other 1" {
		t.Fatalf("lines in the window: %q", lines)
	}
	mu.Unlock()
	time.Sleep(400 * time.Millisecond)
	logf("bad request from %d", 5000)
	mu.Lock()
	defer mu.Unlock()
	want := "(997 more like this in the last 200ms; last: bad request from 999)"
	if len(lines) != 6 || lines[4] != want || lines[5] != "bad request from 5000" {
		t.Fatalf("after the window: %q", lines[4:])
	}
	if strings.Contains(strings.Join(lines, "\n"), "from 3\n") {
		t.Fatal("a suppressed line was written")
	}
}
