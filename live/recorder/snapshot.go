package recorder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baglab/baglab/live/rosnode"
)

// Snapshot mode's defaults (--snapshot-duration, --snapshot-size).
const (
	DefaultSnapshotDuration = 30 * time.Second
	DefaultSnapshotSize     = 512 << 20
)

// SnapshotOptions turn a recording into a black box: messages are kept in
// a ring buffer in memory, the newest Duration and at most Size bytes of
// them, and written to a new file only when a snapshot is triggered
// (Recorder.Snapshot: SIGUSR1, or the node's ~trigger_snapshot service).
type SnapshotOptions struct {
	// Duration is how far back the buffer reaches (DefaultSnapshotDuration
	// when 0); Size bounds its bytes (DefaultSnapshotSize when 0).
	Duration time.Duration
	Size     int64
	// Service is the type ~trigger_snapshot serves: "" for std_srvs/Trigger
	// (rosservice call with no arguments), "rosbag_snapshot" for
	// rosbag_snapshot_msgs/TriggerSnapshot (filename, topics, start and
	// stop time), so that tool's clients work.
	Service string
}

// SnapshotRequest selects what a snapshot writes. The zero value writes
// everything buffered to a file named by the trigger time beside Output.
type SnapshotRequest struct {
	// Filename, when set, is the file: as given when it ends in .bag or
	// .mcap, else with the trigger time and Output's extension appended
	// (rosbag_snapshot's rule: "test" becomes test2024-05-06-07-08-09.bag).
	Filename string
	// Topics, when set, are the only topics written.
	Topics []string
	// Start and Stop, when not zero, bound the messages' log times.
	Start, Stop time.Time
}

// ErrNoData is returned by Snapshot when no buffered message matches.
var ErrNoData = errors.New("no messages buffered on selected topics")

// ring is snapshot mode's buffer: messages in arrival order, the oldest
// evicted (and counted on their topic) beyond the duration or size.
type ring struct {
	mu       sync.Mutex
	items    []item
	head     int
	bytes    int64
	maxBytes int64
	maxAge   time.Duration
	paused   bool
}

// add keeps it unless buffering is paused, evicting what falls out.
func (g *ring) add(it item) {
	// The bytes are kept past a write in progress: they go to the
	// garbage collector, not back to the connection.
	it.msg = nil
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.paused {
		return
	}
	g.items = append(g.items, it)
	g.bytes += int64(len(it.data))
	for g.head < len(g.items) {
		old := &g.items[g.head]
		if g.bytes <= g.maxBytes && it.t.Sub(old.t) <= g.maxAge {
			break
		}
		g.bytes -= int64(len(old.data))
		old.topic.evicted.Add(1)
		*old = item{}
		g.head++
	}
	if g.head > len(g.items)/2 && g.head > 1024 {
		g.items = slices.Delete(g.items, 0, g.head)
		g.head = 0
	}
}

// setPaused pauses (true) or resumes buffering and reports whether that
// changed anything.
func (g *ring) setPaused(p bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	changed := g.paused != p
	g.paused = p
	return changed
}

// selectItems returns the buffered messages req selects, oldest first.
func (g *ring) selectItems(req SnapshotRequest) []item {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []item
	for _, it := range g.items[g.head:] {
		if len(req.Topics) > 0 && !slices.Contains(req.Topics, it.topic.name) {
			continue
		}
		if (!req.Start.IsZero() && it.t.Before(req.Start)) || (!req.Stop.IsZero() && it.t.After(req.Stop)) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// snapshotLoop moves queued messages into the ring until the queue is
// closed and empty.
func (r *Recorder) snapshotLoop() error {
	var batch []item
	for {
		var done bool
		batch, done = r.q.take(batch[:0], 100*time.Millisecond)
		for i := range batch {
			r.ring.add(batch[i])
			batch[i] = item{}
		}
		if done {
			return nil
		}
	}
}

// Snapshot writes the buffered messages req selects to a new file and
// returns its name; it fails with ErrNoData when none match, and when the
// recorder is not in snapshot mode. Snapshots are written one at a time;
// buffering goes on meanwhile. Each file ends with the statistics record,
// which counts per topic the messages the buffer evicted so far.
func (r *Recorder) Snapshot(req SnapshotRequest) (string, error) {
	if r.ring == nil {
		return "", fmt.Errorf("%w: not recording in snapshot mode", ErrUsage)
	}
	node := r.running.Load()
	if node == nil {
		return "", ErrNoData // not started: nothing buffered yet
	}
	now := r.now()
	for i, t := range req.Topics {
		req.Topics[i] = node.Resolve(t)
	}
	items := r.ring.selectItems(req)
	if len(items) == 0 {
		return "", ErrNoData
	}
	r.snapMu.Lock()
	defer r.snapMu.Unlock()
	path, err := r.snapshotPath(req.Filename, now)
	if err != nil {
		return "", err
	}
	out, err := r.o.openOutput(path, now)
	if err != nil {
		return "", err
	}
	for i := range items {
		if err := out.write(&items[i], items[i].t); err != nil {
			out.w.Close()
			out.f.Close()
			os.Remove(out.active)
			return "", fmt.Errorf("writing %s: %w", out.active, err)
		}
	}
	if err := out.finish(r.stats(out), r.node.Name()); err != nil {
		os.Remove(out.active)
		return "", err
	}
	r.logf(rosnode.LevelInfo, "snapshot of %d messages written to %s", len(items), path)
	r.snapshots = append(r.snapshots, path)
	return path, nil
}

// snapshotPath names a snapshot triggered at now: name (rosbag_snapshot's
// rule) or Output with the time before its extension; a name taken gets
// _1, _2 ... appended.
func (r *Recorder) snapshotPath(name string, now time.Time) (string, error) {
	stamp := now.Format("2006-01-02-15-04-05")
	ext := filepath.Ext(r.o.Output)
	var path string
	switch e := strings.ToLower(filepath.Ext(name)); {
	case name == "":
		path = strings.TrimSuffix(r.o.Output, ext) + "_" + stamp + ext
	case e == ".bag" || e == ".mcap":
		return name, r.o.checkOutput(name)
	default:
		path = name + stamp + ext
	}
	base := strings.TrimSuffix(path, ext)
	for i := 1; ; i++ {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return path, nil
		}
		path = fmt.Sprintf("%s_%d%s", base, i, ext)
	}
}
