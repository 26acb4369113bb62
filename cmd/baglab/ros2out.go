package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/rosbag2"
	"github.com/spf13/cobra"
)

// ros2Flags are the flags of convert, filter and merge for a rosbag2
// output (--to ros2).
type ros2Flags struct {
	to            string
	storage       string
	splitSize     string
	splitDuration time.Duration
	mode          string
	rules         string
	repeatLatched bool
}

func (f *ros2Flags) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.to, "to", "", "output format: ros2 writes a rosbag2 folder (default: by OUT's extension)")
	cmd.Flags().StringVar(&f.storage, "storage", "", "with --to ros2: mcap (default) or sqlite3")
	cmd.Flags().StringVar(&f.splitSize, "split-size", "", "with --to ros2: start a new split after this many bytes of messages (512K, 100M, 2G or bytes)")
	cmd.Flags().DurationVar(&f.splitDuration, "split-duration", 0, "with --to ros2: start a new split after this much recording time (60s, 5m)")
	cmd.Flags().StringVar(&f.mode, "compression-mode", "", "with --to ros2: zstd of each split file (file) or each message (message); default none")
	cmd.Flags().BoolVar(&f.repeatLatched, "repeat-latched", false, "with --to ros2 and a split option: write the last message of each latched topic again at the start of every split after the first, so that a split read alone keeps its /tf_static (as record --repeat-latched)")
	cmd.Flags().StringVar(&f.rules, "rules", "", "with --to ros2: ROS 2 names and field mappings of ROS1 types, in ros1_bridge's mapping_rules.yaml format")
	completeValues(cmd, "to", "ros2")
	completeValues(cmd, "storage", "mcap", "sqlite3")
	completeValues(cmd, "compression-mode", "none", "file", "message")
}

// format is the output format the flags and OUT ask for, with co filled
// for a rosbag2 folder; a --to ros2 flag without --to ros2 is a usage
// error.
func (f *ros2Flags) format(out string, co *recording.CreateOptions, read *readFlags) (recording.Format, error) {
	if f.to == "" {
		for _, name := range []string{"storage", "split-size", "split-duration", "compression-mode", "rules", "repeat-latched"} {
			if f.given(name) {
				return "", usageErrorf("--%s applies with --to ros2", name)
			}
		}
		format, err := recording.OutputFormat(out)
		if err != nil {
			return "", usageErrorf("%v (or --to ros2 for a rosbag2 folder)", err)
		}
		return format, nil
	}
	if f.to != "ros2" {
		return "", usageErrorf("--to %s: want ros2", f.to)
	}
	size, err := parseSize(f.splitSize)
	if err != nil {
		return "", usageErrorf("--split-size %s: %v", f.splitSize, err)
	}
	mode := f.mode
	if mode == "none" {
		mode = rosbag2.ModeNone
	}
	co.Format = recording.FormatROS2
	if f.repeatLatched && size == 0 && f.splitDuration == 0 {
		return "", usageErrorf("--repeat-latched applies with --split-size or --split-duration")
	}
	co.ROS2 = rosbag2.Options{Storage: f.storage, Mode: mode, SplitSize: size, SplitDuration: f.splitDuration, RepeatLatched: f.repeatLatched}
	// OUT.mcap or OUT.db3: the recording as that one storage file.
	if storage := rosbag2.FileStorage(out); storage != "" {
		if f.storage != "" && f.storage != storage {
			return "", usageErrorf("--storage %s, but OUT %s names a %s file", f.storage, out, storage)
		}
		co.ROS2.Storage, co.ROS2.File = storage, true
	}
	if co.ROS2.Storage == rosbag2.StorageSQLite && co.Compression != "" && co.Compression != "none" {
		return "", usageErrorf("--compression %s: sqlite3 storage has no chunks to compress (use --compression-mode file or message)", co.Compression)
	}
	if err := co.ROS2.Check(); err != nil {
		if co.ROS2.File {
			return "", usageErrorf("OUT %s: %v", out, err)
		}
		return "", usageErrorf("%v", err)
	}
	if f.rules != "" {
		b, err := os.ReadFile(f.rules)
		if err != nil {
			return "", usageErrorf("--rules: %v", err)
		}
		if read.renames, err = decode.ParseMappingRules(b); err != nil {
			return "", usageErrorf("--rules %s: %v", f.rules, err)
		}
	}
	return recording.FormatROS2, nil
}

// given reports whether a flag was set; set marks them (see addFlags).
func (f *ros2Flags) given(name string) bool {
	switch name {
	case "storage":
		return f.storage != ""
	case "split-size":
		return f.splitSize != ""
	case "split-duration":
		return f.splitDuration != 0
	case "compression-mode":
		return f.mode != ""
	case "rules":
		return f.rules != ""
	case "repeat-latched":
		return f.repeatLatched
	}
	return false
}

// parseSize reads a byte count: digits with an optional K, M or G suffix
// (powers of 1024), "" for none.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errSize
	}
	return n * mult, nil
}

var errSize = errors.New("want a positive number of bytes, with K, M or G for KiB, MiB, GiB")

// checkNotInput refuses an output folder that is one of the inputs.
func checkNotInput(path string, inputs []string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return usageErrorf("output %s would overwrite an input", path)
		}
	}
	return nil
}
