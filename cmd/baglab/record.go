package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/baglab/baglab/live/recorder"
	"github.com/spf13/cobra"
)

// recordOptions are `baglab record`'s flags: rosbag record's, same
// defaults (recorder.Args).
type recordOptions struct {
	g          *globalOptions
	a          recorder.Args
	tcpNoDelay bool
}

const recordLong = `Record live ROS1 topics into a bag (.bag) or an MCAP file (.mcap), as
rosbag record does, with its options and defaults.

Topics are named as arguments, or chosen with -a (every topic), -e (the
arguments are regular expressions matched against whole names), -x (leave
out topics a regular expression matches; alone it implies -a) or --node
(the topics a node subscribes to). With -a, -e and --node the master is
polled every second, so topics that appear later are recorded too. Every
type is accepted and stored with its publisher's connection header
(callerid, latching, md5sum, message_definition) as rosbag stores it.
Messages are stamped with the time they arrive, or with /clock when the
/use_sim_time parameter is set (as rosbag does).

The file is NAME.active until it is closed with its index. Chunks are
written as they fill (--chunksize), so if the recorder is killed,
'baglab reindex NAME.bag.active' (MCAP: 'baglab recover') recovers every
message up to the last chunk. Ctrl-C or SIGTERM stops recording, writes
what is queued and closes the file (exit 0).

--duration and --size stop recording, or with --split start a new file
(NAME_0.bag, NAME_1.bag, ...); --max-splits N deletes the oldest closed
file when there are more than N, so N+1 files stay, as with rosbag.
--duration takes 30, 30s, 5m or 1h; --size is in MB. As in rosbag, both
are checked before each message is written: a message received more than
--duration after a file's start goes into the next file (or, without
--split, ends the recording unwritten), and split files follow one
another every --duration from the start of recording.

Messages wait in a buffer of --buffsize MB (0 = unbounded). When it is full
the oldest message is dropped, as rosbag does, but never silently: drops
are counted per topic, logged, printed at the end and kept in the file (a
bag gets a last std_msgs/String message on /baglab/record_stats holding
JSON; an MCAP file a metadata record "baglab/record_stats"). The exit code
is 1 when anything was dropped.

--repeat-latched writes the last message of each latched publisher at the
start of every split, keeping its latching and callerid (rosbag drops them,
ros_comm#2350). On a terminal, a table on stderr shows per topic the
publishers, messages, rate, bandwidth and drops, and the file size.

--snapshot records into memory instead of a file: a ring buffer keeps the
last --snapshot-duration (30s) of messages, at most --snapshot-size MB
(512), and writes them to a new file, named by -o with the trigger time
before its extension (run_2024-05-06-07-08-09.bag), when triggered by
SIGUSR1 or by the node's ~trigger_snapshot service (std_srvs/Trigger:
'rosservice call /NODE/trigger_snapshot'; with --snapshot-service
rosbag_snapshot the same name serves rosbag_snapshot_msgs/TriggerSnapshot,
whose filename, topics, start_time and stop_time select what is written).
~enable_snapshot (std_srvs/SetBool) pauses (false) and resumes (true)
buffering. The messages the buffer let go are counted per topic in each
snapshot's statistics ("evicted"). The recorder runs until Ctrl-C.

A message larger than --buffsize (or --max-message) is dropped as it
arrives, never held, and counted; a publisher silent for 5 s in the middle
of a message is disconnected and reconnected. When the master restarts,
the recorder registers again and records the publishers that come after.

The node honours ROS_MASTER_URI, ROS_IP, ROS_HOSTNAME, ROS_NAMESPACE and the
__name:=, __ns:=, __master:=, __ip:= arguments; its default name is
/baglab_record_PID. It listens on ROS_HOSTNAME/ROS_IP when set, else on
127.0.0.1 when the master is local. Its log lines also go to /rosout.

Differences from rosbag record: -o names the file itself (rosbag's -O;
rosbag's prefix+date naming is --output-prefix); without -o or
--output-prefix the file is YYYY-MM-DD-HH-MM-SS.bag as with rosbag. An
existing file is not overwritten without --force. Every publisher of a
topic is recorded whatever its type, where rosbag keeps to the type of the
first publisher it connected to (a node restarted with a new type is not
recorded). UDPROS (--udp) is not supported; TCP_NODELAY is always on
(--tcpnodelay is accepted).`

const recordExample = `  baglab record -o run.bag /chatter /tf
  baglab record -a -x '/rosout.*' -o all.bag --lz4
  baglab record -e '/camera/.*' -o cams.mcap --compression zstd
  baglab record -o split.bag --split --duration 5m --max-splits 12 -a --repeat-latched
  baglab record -o imu.bag -l 100 /imu
  baglab record -o nav.bag --node /move_base
  baglab record --snapshot --snapshot-duration 60s -o blackbox.bag -a __name:=/blackbox`

func newRecordCmd(g *globalOptions) *cobra.Command {
	o := &recordOptions{g: g, a: recorder.DefaultArgs()}
	cmd := &cobra.Command{
		Use:     "record [TOPIC... | -a | -e REGEX...] [-o FILE.bag|FILE.mcap]",
		Short:   "Record live ROS1 topics into a bag or MCAP file (rosbag record)",
		Long:    recordLong,
		Example: recordExample,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecord(cmd.Context(), o, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.a.Output, "output", "o", "", "the file to write: NAME.bag or NAME.mcap")
	f.StringVarP(&o.a.Output, "output-name", "O", "", "same as -o (rosbag's spelling)")
	f.StringVar(&o.a.OutputPrefix, "output-prefix", "", "write PREFIX_YYYY-MM-DD-HH-MM-SS.bag (.mcap when PREFIX ends in .mcap)")
	f.BoolVarP(&o.a.All, "all", "a", false, "record every topic")
	f.BoolVarP(&o.a.Regex, "regex", "e", false, "the topic arguments are regular expressions")
	f.StringVarP(&o.a.Exclude, "exclude", "x", "", "leave out topics this regular expression matches (implies -a without -e/--node)")
	f.StringVar(&o.a.Node, "node", "", "record the topics this node subscribes to")
	f.StringVar(&o.a.Duration, "duration", "", "stop (or with --split, start a new file) after this long: 30, 30s, 5m, 1h")
	f.StringVar(&o.a.Size, "size", "", "stop (or with --split, start a new file) at this size in MB")
	f.BoolVar(&o.a.Split, "split", false, "split into several files at --size or --duration")
	f.IntVar(&o.a.MaxSplits, "max-splits", 0, "with --split, keep this many closed files besides the one being written, deleting the oldest (0 = all)")
	f.IntVarP(&o.a.Limit, "limit", "l", 0, "stop after this many messages on every topic (0 = unlimited)")
	f.BoolVarP(&o.a.BZ2, "bz2", "j", false, "compress bag chunks with bz2")
	f.BoolVar(&o.a.LZ4, "lz4", false, "compress chunks with lz4")
	f.StringVar(&o.a.Compression, "compression", "", "chunk compression: bag none|lz4|bz2 (default none), MCAP zstd|lz4|none (default zstd)")
	f.IntVar(&o.a.ChunkKB, "chunksize", o.a.ChunkKB, "chunk size in KB")
	f.IntVarP(&o.a.BuffMB, "buffsize", "b", o.a.BuffMB, "buffer size in MB; when full the oldest message is dropped and counted (0 = unbounded)")
	f.IntVar(&o.a.MaxMessageMB, "max-message", o.a.MaxMessageMB, "drop (as it arrives) a message over this many MB")
	f.StringVarP(&o.a.MinSpace, "min-space", "L", o.a.MinSpace, "stop recording when the disk has less free space than this (K, M, G suffixes; 0 = no check)")
	f.BoolVar(&o.a.RepeatLatched, "repeat-latched", false, "repeat the last latched messages at the start of each split file")
	f.BoolVarP(&o.a.Publish, "publish", "p", false, "latch the file name on begin_write (std_msgs/String) when a file opens")
	f.BoolVarP(&o.a.Force, "force", "f", false, "overwrite the output file if it exists")
	f.BoolVar(&o.tcpNoDelay, "tcpnodelay", false, "accepted for rosbag compatibility: TCP_NODELAY is always on")
	f.BoolVar(&o.a.UDP, "udp", false, "UDPROS transport (not supported)")
	f.BoolVar(&o.a.Snapshot, "snapshot", false, "keep messages in memory and write them when triggered (SIGUSR1, ~trigger_snapshot)")
	f.StringVar(&o.a.SnapshotDuration, "snapshot-duration", "", "with --snapshot, keep this long: 30, 30s, 5m (default 30s)")
	f.StringVar(&o.a.SnapshotSize, "snapshot-size", "", "with --snapshot, keep at most this many MB (or with K, M, G; default 512)")
	f.StringVar(&o.a.SnapshotService, "snapshot-service", "", "with --snapshot, serve ~trigger_snapshot as rosbag_snapshot's TriggerSnapshot (rosbag_snapshot) instead of std_srvs/Trigger")
	_ = f.MarkHidden("output-name")
	return cmd
}

func runRecord(ctx context.Context, o *recordOptions, args []string) error {
	g := o.g
	ro, err := o.a.Options(time.Now())
	if err != nil {
		return usageErrorf("%v", err)
	}
	// Positional arguments: the topics, and the node's remapping arguments
	// (__name:= and the like).
	ro.Topics = ro.NodeOptions.ApplyRemaps(args)
	ro.Logf = func(format string, a ...any) { g.note("baglab record: "+format, a...) }
	if f, ok := barFile(g); ok { // a terminal, and no --quiet
		ro.Status = f
	}
	r, err := recorder.New(ro)
	switch {
	case errors.Is(err, recorder.ErrUsage):
		return usageErrorf("%v", err)
	case err != nil:
		return checkedOutput(err, "-O", filepath.Dir(ro.Output))
	}
	if lim := r.MemoryLimit(); lim > 0 {
		defer softMemoryLimit(lim)()
	}
	if ro.Snapshot != nil {
		g.note("baglab record: buffering the last %s (at most %d MB) for snapshots beside %s; SIGUSR1 or ~trigger_snapshot writes one (Ctrl-C stops)",
			ro.Snapshot.Duration, ro.Snapshot.Size>>20, ro.Output)
		defer snapshotOnSignal(r, g)()
	} else {
		g.note("baglab record: recording to %s.active (Ctrl-C stops)", ro.FirstPath())
	}
	res, err := r.Run(ctx)
	if res != nil {
		printRecordSummary(g, res)
	}
	if err != nil {
		// Run checks each split file as New checks the first.
		return checkedOutput(err, "-O", filepath.Dir(ro.Output))
	}
	if res.Dropped() > 0 {
		// The file is closed and kept, also when Ctrl-C ended recording.
		return &completedError{&exitError{code: exitProblem, err: fmt.Errorf("%d messages dropped from a full buffer (raise --buffsize)", res.Dropped())}}
	}
	return nil
}

func printRecordSummary(g *globalOptions, res *recorder.Result) {
	if !g.quiet || res.Dropped() > 0 {
		_ = res.WriteSummary(g.stderr)
	}
}
