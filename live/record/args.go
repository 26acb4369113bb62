package record

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

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

// WriteSummary writes why recording stopped, a table of the messages
// received, written and dropped per topic, and the files written.
func (r *Result) WriteSummary(w io.Writer) error {
	fmt.Fprintf(w, "baglab record: stopped: %s\n", r.Reason)
	fmt.Fprintf(w, "%-40s %10s %10s %8s\n", "TOPIC", "RECEIVED", "WRITTEN", "DROPPED")
	for _, t := range r.Topics {
		fmt.Fprintf(w, "%-40s %10d %10d %8d\n", t.Topic, t.Received, t.Written, t.Dropped)
	}
	for _, f := range r.Files {
		if _, err := fmt.Fprintf(w, "wrote %s\n", f); err != nil {
			return err
		}
	}
	return nil
}
