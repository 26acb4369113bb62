package recorder

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/baglab/baglab/live/rosnode"
)

// Defaults, rosbag record's.
const (
	DefaultBufSize   = 256 << 20 // --buffsize 256 MB
	DefaultChunkSize = 768 << 10 // --chunksize 768 KB
	DefaultMinSpace  = 1 << 30   // --min-space 1G
)

// Options configure a recording. The zero value of each field is rosbag
// record's default, except where noted.
type Options struct {
	// Output is the file to write, NAME.bag or NAME.mcap. With Split the
	// files are NAME_0.bag, NAME_1.bag, ….
	Output string
	// Topics are topic names to record, or regular expressions (matched
	// against the whole name) when Regex is set.
	Topics []string
	// All records every published topic (rosbag -a).
	All bool
	// Regex makes Topics regular expressions (rosbag -e).
	Regex bool
	// Exclude drops topics matching it (rosbag -x); set alone it implies All.
	Exclude *regexp.Regexp
	// Node records the topics this node subscribes to (rosbag --node).
	Node string
	// Duration stops recording (or, with Split, starts a new file) after
	// this long; 0 is unlimited. As rosbag checks it, a message received
	// more than Duration after a file's start is not written to that file,
	// and split files start every Duration from the start of recording.
	Duration time.Duration
	// Size stops recording (or, with Split, starts a new file) when the file
	// reaches this many bytes; 0 is unlimited.
	Size int64
	// Split starts a new file at Size or Duration instead of stopping.
	Split bool
	// MaxSplits keeps at most this many closed files with Split, besides
	// the one being written, deleting the oldest (as rosbag: N+1 files in
	// all); 0 keeps all.
	MaxSplits int
	// Limit stops after this many messages on every topic; 0 is unlimited.
	Limit int
	// Compression is "none" (default), "lz4" or "bz2" for a bag; "zstd"
	// (default), "lz4" or "none" for MCAP.
	Compression string
	// ChunkSize is the uncompressed chunk size in bytes (DefaultChunkSize
	// when 0).
	ChunkSize int
	// BufSize bounds the queue in bytes; negative means unbounded (rosbag's
	// --buffsize 0), 0 means DefaultBufSize.
	BufSize int64
	// RepeatLatched writes the last message of each latched publisher at
	// the start of every new split file, with its own connection header
	// (so latching and callerid survive, unlike rosbag, ros_comm#2350).
	RepeatLatched bool
	// Publish latches a std_msgs/String with the file name on begin_write
	// whenever a file is opened (rosbag -p).
	Publish bool
	// MinSpace stops recording when the disk has less free space than this;
	// it warns below five times as much. 0 means DefaultMinSpace, negative
	// disables the check.
	MinSpace int64
	// Force overwrites an existing output file; without it New fails with
	// an error wrapping fs.ErrExist.
	Force bool
	// Snapshot, when set, keeps messages in a ring buffer in memory and
	// writes them only when a snapshot is triggered (see SnapshotOptions);
	// Output then names the snapshots (the time is added before its
	// extension) and Split, Size, Duration and Limit cannot be used.
	Snapshot *SnapshotOptions
	// Node configures the recorder's ROS node (name, master, host).
	NodeOptions rosnode.Options
	// Logf receives warnings and connection errors; nil discards them.
	Logf func(format string, args ...any)
	// Status, when set, receives a live per-topic table redrawn every
	// second (ANSI; for a terminal).
	Status io.Writer
}

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// check validates o and fills its defaults.
func (o *Options) check() error {
	switch strings.ToLower(filepath.Ext(o.Output)) {
	case ".bag", ".mcap":
	default:
		return usagef("output %q must end in .bag or .mcap", o.Output)
	}
	if o.Exclude != nil && !o.All && !o.Regex && o.Node == "" {
		o.All = true // rosbag: -x implies -a
	}
	auto := o.All || o.Regex || o.Node != ""
	if len(o.Topics) == 0 && !auto {
		return usagef("no topics given: name topics, or use -a, -e REGEX or --node NODE")
	}
	if o.All && len(o.Topics) > 0 && !o.Regex {
		return usagef("topics given with -a: use one or the other")
	}
	if o.Regex && len(o.Topics) == 0 {
		return usagef("-e needs at least one regular expression")
	}
	if o.Limit > 0 && auto {
		return usagef("--limit needs explicit topics: it cannot be used with -a, -e, -x or --node (as rosbag)")
	}
	if o.Limit < 0 || o.MaxSplits < 0 || o.Size < 0 || o.Duration < 0 {
		return usagef("negative --limit, --max-splits, --size or --duration")
	}
	if o.Split && o.Size == 0 && o.Duration == 0 {
		return usagef("--split needs --size or --duration")
	}
	isBag := strings.EqualFold(filepath.Ext(o.Output), ".bag")
	switch c := o.Compression; {
	case c == "" || c == "none":
	case isBag && (c == "lz4" || c == "bz2"):
	case !isBag && (c == "lz4" || c == "zstd"):
	default:
		return usagef("compression %q is not available for %s (bag: none, lz4, bz2; MCAP: zstd, lz4, none)", c, filepath.Ext(o.Output))
	}
	if s := o.Snapshot; s != nil {
		if o.Split || o.Size > 0 || o.Duration > 0 || o.Limit > 0 || o.Publish {
			return usagef("--snapshot cannot be used with --split, --size, --duration, --limit or --publish")
		}
		if s.Duration < 0 || s.Size < 0 {
			return usagef("negative --snapshot-duration or --snapshot-size")
		}
		if s.Service != "" && s.Service != "rosbag_snapshot" {
			return usagef("--snapshot-service %q: want rosbag_snapshot, or none for std_srvs/Trigger", s.Service)
		}
		c := *s
		c.Duration = cmp.Or(c.Duration, DefaultSnapshotDuration)
		c.Size = cmp.Or(c.Size, DefaultSnapshotSize)
		o.Snapshot = &c
	} else if err := o.checkOutput(o.outputPath(0)); err != nil {
		return err
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.BufSize == 0 {
		o.BufSize = DefaultBufSize
	}
	if o.MinSpace == 0 {
		o.MinSpace = DefaultMinSpace
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return nil
}

// compileTopics returns the matchers for Regex topics.
func (o *Options) compileTopics() ([]*regexp.Regexp, error) {
	if !o.Regex {
		return nil, nil
	}
	var out []*regexp.Regexp
	for _, t := range o.Topics {
		re, err := regexp.Compile("^(?:" + t + ")$")
		if err != nil {
			return nil, usagef("topic regex %q: %v", t, err)
		}
		out = append(out, re)
	}
	return out, nil
}
