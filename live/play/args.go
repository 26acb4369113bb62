package play

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"time"

	"github.com/baglab/baglab/live"
	"github.com/baglab/baglab/live/rosnode"
)

// Args are rosbag play's command-line options as given, times in seconds:
// what `baglab play` parses. Options turns them into the player's
// Options.
type Args struct {
	// Rate is -r; Hz is --hz (the /clock rate).
	Rate, Hz float64
	// Start, Duration, Delay, SkipEmpty and RateControlMaxDelay are -s,
	// -u, -d, --skip-empty and --rate-control-max-delay, in seconds (>= 0).
	Start, Duration, Delay, SkipEmpty, RateControlMaxDelay float64
	// Loop, KeepAlive, Clock, Pause, Immediate and WaitForSubscribers are
	// -l, -k, --clock, --pause, -i and --wait-for-subscribers.
	Loop, KeepAlive, Clock, Pause, Immediate, WaitForSubscribers bool
	// Prefix is -p; PauseTopics --pause-topics.
	Prefix      string
	PauseTopics []string
	// Exclude is --exclude, a regular expression matched in full.
	Exclude string
	// Remaps are FROM:=TO topic renames (ParseRemaps).
	Remaps []string
	// Queue is --queue, the messages queued per subscriber (>= 1) of the
	// node's publishers (rosnode.Options.PublishQueue).
	Queue int
}

// DefaultArgs are rosbag play's defaults (DefaultOptions).
func DefaultArgs() Args {
	o := DefaultOptions()
	return Args{Rate: o.Rate, Hz: o.ClockHz, Delay: o.Delay.Seconds(), RateControlMaxDelay: o.RateControlMaxDelay.Seconds(),
		Queue: rosnode.DefaultPublishQueue}
}

// argsErrorf is the *live.ArgsError of an Args value that cannot be used,
// an ErrOptions.
func argsErrorf(format string, args ...any) error {
	return &live.ArgsError{Msg: fmt.Sprintf(format, args...), Cause: ErrOptions}
}

// Options checks a and returns the player's options (DefaultOptions with
// a's values). Errors are *live.ArgsError; New checks the rest.
func (a Args) Options() (Options, error) {
	po := DefaultOptions()
	po.Rate, po.Loop, po.Immediate, po.Pause = a.Rate, a.Loop, a.Immediate, a.Pause
	po.KeepAlive, po.WaitForSubscribers, po.Clock, po.ClockHz = a.KeepAlive, a.WaitForSubscribers, a.Clock, a.Hz
	po.Prefix, po.PauseTopics = a.Prefix, a.PauseTopics
	for _, s := range []struct {
		name string
		v    float64
		dst  *time.Duration
	}{
		{"start", a.Start, &po.Start},
		{"duration", a.Duration, &po.Duration},
		{"delay", a.Delay, &po.Delay},
		{"skip-empty", a.SkipEmpty, &po.SkipEmpty},
		{"rate-control-max-delay", a.RateControlMaxDelay, &po.RateControlMaxDelay},
	} {
		if math.IsNaN(s.v) || math.IsInf(s.v, 0) || s.v < 0 || s.v > math.MaxInt64/1e9 {
			return po, argsErrorf("--%s %v: want a number of seconds >= 0", s.name, s.v)
		}
		*s.dst = time.Duration(s.v * 1e9)
	}
	var err error
	if a.Exclude != "" {
		if po.Exclude, err = regexp.Compile(a.Exclude); err != nil {
			return po, argsErrorf("--exclude: %v", err)
		}
	}
	if po.Remap, err = ParseRemaps(a.Remaps); err != nil {
		return po, argsErrorf("--remap: %v", err)
	}
	if a.Queue < 1 {
		return po, argsErrorf("--queue %d: want at least 1", a.Queue)
	}
	return po, nil
}

// NodeOptions are the options of the node that plays: the name
// /baglab_play_PID (anonymous, as rosbag play's) and a's Queue for its
// publishers. The caller adds the rest (Logf, remapping arguments).
func (a Args) NodeOptions() rosnode.Options {
	return rosnode.Options{Name: fmt.Sprintf("/baglab_play_%d", os.Getpid()), PublishQueue: a.Queue}
}
