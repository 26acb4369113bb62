package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/baglab/baglab/live/play"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/recording"
	"github.com/spf13/cobra"
)

// playOptions are `baglab play`'s flags: rosbag play's, same defaults
// (play.Args).
type playOptions struct {
	g                *globalOptions
	a                play.Args
	files            []string
	topics           []string
	rateControlTopic string
	tryFutureVersion bool
	skipBad          bool
}

const playLong = `Publish the messages of one or more recordings on a live ROS1 graph at
their recorded times, as rosbag play does, with the same options and
defaults. Each topic is advertised with the type, MD5 sum and definition it
was recorded with (latched when it was latched: a late subscriber gets the
last message of each latched publisher recorded on the topic, as from rosbag
play); several files are merged in time order. Any input baglab reads plays: ROS1 bags (also unindexed ones, a
.bag.active left by a killed recorder), MCAP and rosbag2 (.db3 or folders),
whose CDR messages go out re-encoded as ROS1 under the equivalent ROS1
definition (the one 'baglab convert' writes into a bag). FILE - plays a bag
or MCAP stream from stdin, read whole before playback starts (as cat reads -).

Timing runs on the monotonic clock, so NTP steps do not move playback;
messages are read, decompressed and converted ahead in a bounded queue so
that bz2/lz4 chunks never stall the schedule. With --loop --clock, /clock
never goes back: each loop continues where the previous one ended; with
--clock a /clock topic of the recording is left out (with a warning). With
-s START, latched topics still get their last message from before START.

On a terminal: space pauses and resumes, s publishes one message while
paused, t toggles --pause-topics; a status line shows the bag time.
While playing, the node serves rosbag play's NODE/pause_playback service
(std_srvs/SetBool: true pauses, false resumes), e.g.
'rosservice call /baglab_play_PID/pause_playback true' from a script, and
the services of rosbag2's player, under the same names:
  NODE/pause, NODE/resume, NODE/toggle_paused   std_srvs/Trigger
  NODE/is_paused        std_srvs/Trigger: success is whether it is paused
  NODE/get_rate         std_srvs/Trigger: message is the rate ("1.5")
  NODE/play_next        std_srvs/Trigger: while paused, one message
  NODE/set_rate         baglab_msgs/SetRate: float64 rate --- bool success
  NODE/seek             baglab_msgs/Seek: time time --- bool success
  NODE/burst            baglab_msgs/Burst: uint64 num_messages ---
                        uint64 actually_burst (while paused, at once)
The std_srvs ones work with 'rosservice call' on a machine with only ROS's
standard packages; no standard type carries the number of the last three,
so they have rosbag2_interfaces' fields under baglab_msgs (call them from a
client with those definitions, e.g. rospy with genpy-generated classes). A
seek keeps the paused state and sends the latched topics' last message
before the new time again.

Topics are renamed with --remap FROM:=TO (or a bare FROM:=TO argument, as
rosbag play takes them), matched against the recorded name, then prefixed
with -p; as with rosbag play, FROM may also be the prefixed name
(-p /r /r/a:=/b plays /a on /b). The node honours ROS_MASTER_URI, ROS_IP, ROS_HOSTNAME and the
__name:=, __ns:=, __master:=, __ip:= arguments; its default name is
/baglab_play_PID; topics recorded under relative names (and names under a
relative -p) are resolved in its namespace, as rosbag play resolves them.
Ctrl-C stops playback (exit 0), as does rosnode kill.

Differences from rosbag play: --topics takes a comma-separated or repeated
list (exact names, globs or re:REGEX) rather than "--topics A B --bags F";
--skip-empty, --exclude and the ROS2/MCAP inputs are additions; -l -k loops
until Ctrl-C (rosbag play -l -k plays once and then keeps its publishers);
-s past the end or --topics that match nothing is a usage error (exit 2),
where rosbag play plays nothing and exits 0.`

const playExample = `  # after make demo, with a master running (roscore):
  baglab play demo/data/study.bag
  baglab play demo/data/study.bag -r 10 -s 60 -u 120 --topics '/rail_pick_and_place/**'
  baglab play demo/data/study.bag demo/data/queries.mcap --clock --loop
  baglab play demo/data/queries.db3 --prefix /replay -i
  baglab play demo/data/study.bag /lama/objects:=/objects --wait-for-subscribers -k`

func newPlayCmd(g *globalOptions) *cobra.Command {
	o := &playOptions{g: g, a: play.DefaultArgs()}
	cmd := &cobra.Command{
		Use:     "play FILE... [FROM:=TO...]",
		Short:   "Replay recordings onto a live ROS1 graph (rosbag play)",
		Long:    playLong,
		Example: playExample,
		Args: argsUsage(func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(o.files) == 0 {
				return fmt.Errorf("requires at least one recording")
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlay(cmd.Context(), o, args)
		},
	}
	f := cmd.Flags()
	f.Float64VarP(&o.a.Rate, "rate", "r", o.a.Rate, "multiply the publish rate by this factor")
	f.BoolVarP(&o.a.Loop, "loop", "l", false, "loop playback")
	f.Float64VarP(&o.a.Start, "start", "s", 0, "start this many seconds into the recording")
	f.Float64VarP(&o.a.Duration, "duration", "u", 0, "play only this many seconds (0 = to the end)")
	f.StringSliceVarP(&o.topics, "topics", "t", nil, "play only these topics: exact names, globs (/arm/*) or re:REGEX; comma-separated or repeated")
	f.StringVar(&o.a.Exclude, "exclude", "", "do not play topics that this regular expression matches in full")
	f.StringSliceVar(&o.a.PauseTopics, "pause-topics", nil, "pause before each message on these topics (key t toggles)")
	f.BoolVar(&o.a.Clock, "clock", false, "publish /clock (rosgraph_msgs/Clock) with the bag time")
	f.Float64Var(&o.a.Hz, "hz", o.a.Hz, "/clock rate in Hz (with --clock)")
	f.Float64VarP(&o.a.Delay, "delay", "d", o.a.Delay, "seconds to wait after advertising, for subscribers to connect")
	f.BoolVar(&o.a.Pause, "pause", false, "start paused (space resumes)")
	f.BoolVarP(&o.a.Immediate, "immediate", "i", false, "publish all messages at once, without waiting")
	f.Float64Var(&o.a.SkipEmpty, "skip-empty", 0, "skip gaps with no message longer than this many seconds (0 = off)")
	f.BoolVarP(&o.a.KeepAlive, "keep-alive", "k", false, "keep the publishers alive after the end (until Ctrl-C)")
	f.BoolVar(&o.a.WaitForSubscribers, "wait-for-subscribers", false, "wait until every topic has a subscriber before playing")
	f.StringArrayVar(&o.a.Remaps, "remap", nil, "rename a recorded topic: FROM:=TO; repeatable")
	f.StringVarP(&o.a.Prefix, "prefix", "p", "", "put this namespace in front of every topic")
	f.IntVar(&o.a.Queue, "queue", o.a.Queue, "messages queued per subscriber before the oldest is dropped")
	f.StringVar(&o.rateControlTopic, "rate-control-topic", "", "hold playback while it runs ahead of the header stamps published on this topic")
	f.Float64Var(&o.a.RateControlMaxDelay, "rate-control-max-delay", o.a.RateControlMaxDelay, "seconds playback may run ahead of --rate-control-topic")
	f.StringSliceVar(&o.files, "bags", nil, "recordings to play (as positional FILE arguments)")
	f.BoolVar(&o.skipBad, "skip-bad", false, skipBadHelp)
	f.BoolVar(&o.tryFutureVersion, "try-future-version", false, "accepted for rosbag play compatibility; no effect")
	_ = f.MarkHidden("try-future-version")
	return cmd
}

func runPlay(ctx context.Context, o *playOptions, args []string) error {
	g := o.g
	node := o.a.NodeOptions()
	node.Logf = func(format string, a ...any) { g.note("baglab: "+format, a...) }
	// A shutdown request (rosnode kill, another node taking the name)
	// ends playback as it ends rosbag play's.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	node.OnShutdown = func(string) { stop() }
	// Positional arguments: recordings, ROS remapping arguments (__name:=)
	// and topic remaps FROM:=TO.
	o.files = append(o.files, o.a.Positional(node.ApplyRemaps(args))...)
	if len(o.files) == 0 {
		return usageErrorf("no recording to play\nSee 'baglab play --help'")
	}
	po, err := o.a.Options()
	if err != nil {
		return usageErrorf("%v", err)
	}
	io, err := g.inputOptions(o.files, &readFlags{topics: o.topics, skipBad: o.skipBad})
	if err != nil {
		return err
	}
	in, err := recording.OpenInputs(o.files, io)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := in.RequireDefinitions(); err != nil {
		return err
	}
	po.Warn = func(s string) { g.warn("baglab: %s", s) }
	if f, ok := barFile(g); ok { // a terminal, and no --quiet
		po.Status = f
	}
	if f, ok := g.stdin.(*os.File); ok {
		if keys, restore, ok := play.TerminalKeys(f); ok {
			defer restore()
			po.Keys = keys
		}
	}
	// The node talks to the master only from the first Advertise or
	// Subscribe on.
	n, err := rosnode.New(ctx, node)
	if err != nil {
		return err
	}
	defer n.Close()
	if o.rateControlTopic != "" {
		if po.RateControl, err = play.RateControl(n, o.rateControlTopic); err != nil {
			return err
		}
	}
	po.Namespace = n.Namespace()
	p, err := play.NewFromInputs(in, po)
	if err != nil {
		return usageErrorIfSelection(err)
	}
	sum := in.Summary()
	g.note("baglab: playing %s (%d topics, %.1f s) as %s on %s%s", strings.Join(in.Paths(), ", "), len(p.Topics()),
		float64(sum.DurationNs)/1e9, n.Name(), n.Master().URI, keysHint(po.Keys != nil))
	st, err := p.Run(ctx, play.NodeAdvertiser{Node: n})
	g.note("baglab: %s", st)
	sayLosses(g, in)
	if st.Dropped > 0 {
		g.warn("baglab: warning: %d messages dropped for subscribers that did not keep up (their queue of --queue %d was full)", st.Dropped, o.a.Queue)
	}
	return err
}

func keysHint(keys bool) string {
	if keys {
		return "; space pauses, s steps, Ctrl-C stops"
	}
	return ""
}

// usageErrorIfSelection reports a player that has nothing to play, or a
// bad option, as a usage error.
func usageErrorIfSelection(err error) error {
	if errors.Is(err, play.ErrOptions) {
		return usageErrorf("%v", err)
	}
	return err
}
