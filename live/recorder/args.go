package recorder

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/baglab/baglab/live"
	"github.com/baglab/baglab/live/rosnode"
)

// Args are rosbag record's command-line options as given, in rosbag's
// units (KB, MB, sizes and durations as text): what `baglab record`
// parses. Options turns them into the recorder's Options.
type Args struct {
	// Output is -o (the file itself); OutputPrefix is --output-prefix
	// (PrefixedOutput). Without either the file is named by the date.
	Output, OutputPrefix string
	// All, Regex, Exclude (a regular expression matched against whole
	// names) and Node are -a, -e, -x and --node.
	All, Regex    bool
	Exclude, Node string
	// Duration and Size are --duration (ParseDuration) and --size (MB, or
	// with a K, M or G suffix: ParseSize).
	Duration, Size string
	Split          bool
	MaxSplits      int
	Limit          int
	// BZ2, LZ4 and Compression are -j, --lz4 and --compression; one of
	// them at most.
	BZ2, LZ4    bool
	Compression string
	// ChunkKB is --chunksize (KB, > 0); BuffMB --buffsize (MB, 0 is
	// unbounded); MaxMessageMB --max-message (MB, > 0).
	ChunkKB, BuffMB, MaxMessageMB int
	// MinSpace is --min-space (bytes, or with a K, M or G suffix; 0 turns
	// the check off).
	MinSpace                      string
	RepeatLatched, Publish, Force bool
	// UDP is --udp, which is refused: only TCPROS is spoken.
	UDP bool
	// Snapshot is --snapshot; SnapshotDuration (ParseDuration),
	// SnapshotSize (ParseSize, MB without a suffix) and SnapshotService
	// are --snapshot-duration, --snapshot-size and --snapshot-service.
	Snapshot                                        bool
	SnapshotDuration, SnapshotSize, SnapshotService string
}

// DefaultArgs are rosbag record's defaults.
func DefaultArgs() Args {
	return Args{ChunkKB: DefaultChunkSize >> 10, BuffMB: DefaultBufSize >> 20, MaxMessageMB: rosnode.DefaultMaxMessage >> 20, MinSpace: "1G"}
}

// argsErrorf is the *live.ArgsError of an Args value that cannot be used,
// an ErrUsage.
func argsErrorf(format string, args ...any) error {
	return &live.ArgsError{Msg: fmt.Sprintf(format, args...), Cause: ErrUsage}
}

// Options checks a and returns the options of a recording started at now
// (for the file name by date); the caller adds the Topics. Errors are
// *live.ArgsError; New checks the rest.
func (a Args) Options(now time.Time) (Options, error) {
	ro := Options{All: a.All, Regex: a.Regex, Node: a.Node, Split: a.Split,
		MaxSplits: a.MaxSplits, Limit: a.Limit, RepeatLatched: a.RepeatLatched, Publish: a.Publish, Force: a.Force}
	if a.UDP {
		return ro, argsErrorf("--udp: UDPROS is not supported; baglab records over TCPROS")
	}
	switch {
	case a.Output != "" && a.OutputPrefix != "":
		return ro, argsErrorf("-o and --output-prefix exclude each other")
	case a.Output != "":
		ro.Output = a.Output
	default:
		ro.Output = PrefixedOutput(a.OutputPrefix, now)
	}
	var err error
	if a.Exclude != "" {
		if ro.Exclude, err = regexp.Compile("^(?:" + a.Exclude + ")$"); err != nil {
			return ro, argsErrorf("--exclude: %v", err)
		}
	}
	if ro.Duration, err = ParseDuration(a.Duration); err != nil {
		return ro, argsErrorf("--duration %v", err)
	}
	if a.Size != "" {
		if ro.Size, err = ParseSize(a.Size, 1<<20); err != nil {
			return ro, argsErrorf("--size %v", err)
		}
	}
	switch {
	case a.BZ2 && a.LZ4:
		return ro, argsErrorf("--bz2 and --lz4 exclude each other")
	case (a.BZ2 || a.LZ4) && a.Compression != "":
		return ro, argsErrorf("--compression with --bz2/--lz4: use one")
	case a.BZ2:
		ro.Compression = "bz2"
	case a.LZ4:
		ro.Compression = "lz4"
	default:
		ro.Compression = a.Compression
	}
	if a.ChunkKB <= 0 || a.BuffMB < 0 || a.MaxMessageMB <= 0 {
		return ro, argsErrorf("--chunksize and --max-message must be positive, --buffsize at least 0")
	}
	ro.ChunkSize = a.ChunkKB << 10
	ro.BufSize = int64(a.BuffMB) << 20
	if a.BuffMB == 0 {
		ro.BufSize = -1
	}
	if ro.MinSpace, err = ParseSize(a.MinSpace, 1); err != nil {
		return ro, argsErrorf("--min-space %v", err)
	}
	if ro.MinSpace == 0 {
		ro.MinSpace = -1
	}
	ro.NodeOptions.MaxMessage = a.MaxMessageMB << 20
	if !a.Snapshot {
		if a.SnapshotDuration != "" || a.SnapshotSize != "" || a.SnapshotService != "" {
			return ro, argsErrorf("--snapshot-duration, --snapshot-size and --snapshot-service need --snapshot")
		}
		return ro, nil
	}
	ro.Snapshot = &SnapshotOptions{Service: a.SnapshotService}
	if ro.Snapshot.Duration, err = ParseDuration(a.SnapshotDuration); err != nil {
		return ro, argsErrorf("--snapshot-duration %v", err)
	}
	if a.SnapshotSize != "" {
		if ro.Snapshot.Size, err = ParseSize(a.SnapshotSize, 1<<20); err != nil || ro.Snapshot.Size == 0 {
			return ro, argsErrorf("--snapshot-size %s: want a size such as 512, 100M or 2G", a.SnapshotSize)
		}
	}
	ro.Snapshot.Duration = cmp.Or(ro.Snapshot.Duration, DefaultSnapshotDuration)
	ro.Snapshot.Size = cmp.Or(ro.Snapshot.Size, DefaultSnapshotSize)
	return ro, nil
}

// ParseDuration parses rosbag record's --duration: a number of seconds
// ("30", "2.5") or a duration with its unit ("30s", "5m", "1h"). It must be
// positive; "" is 0 (unlimited).
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if v <= 0 || v > 1e9 {
			return 0, fmt.Errorf("%s: want a positive duration", s)
		}
		return time.Duration(v * 1e9), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: want 30, 30s, 5m or 1h", s)
	}
	return d, nil
}

// ParseSize parses a size in bytes as rosbag record's --size and
// --min-space take it: a number of units (unit bytes each), or with a K, M
// or G suffix (powers of 1024, a trailing B allowed: 100M, 2GB, 512k).
func ParseSize(s string, unit int64) (int64, error) {
	mult := unit
	t := strings.ToUpper(strings.TrimSpace(s))
	for suf, m := range map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30} {
		if strings.HasSuffix(t, suf) || strings.HasSuffix(t, suf+"B") {
			mult = m
			t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), suf)
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("%s: want a size such as 512, 100M or 2G", s)
	}
	return int64(v * float64(mult)), nil
}

// PrefixedOutput is rosbag record's file naming (-o PREFIX):
// PREFIX_YYYY-MM-DD-HH-MM-SS.bag at now, .mcap when the prefix ends in
// .mcap; without a prefix YYYY-MM-DD-HH-MM-SS.bag.
func PrefixedOutput(prefix string, now time.Time) string {
	stamp := now.Format("2006-01-02-15-04-05")
	p, ext := prefix, ".bag"
	if e := filepath.Ext(p); e == ".bag" || e == ".mcap" {
		p, ext = strings.TrimSuffix(p, e), e
	}
	if p == "" {
		return stamp + ext
	}
	return p + "_" + stamp + ext
}
