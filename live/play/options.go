package play

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"strings"
	"time"
)

// Options are rosbag play's options; DefaultOptions has its defaults.
type Options struct {
	// Rate multiplies the playback speed (-r); must be > 0.
	Rate float64
	// Loop restarts playback at the end (-l).
	Loop bool
	// Start skips this far into the recording (-s). Latched topics still
	// get their last message from before Start.
	Start time.Duration
	// Duration plays only this much recording time from Start (-u); 0 plays
	// to the end.
	Duration time.Duration
	// Immediate publishes without waiting (-i).
	Immediate bool
	// Pause starts paused (--pause).
	Pause bool
	// Delay is the sleep after advertising, so subscribers can connect (-d).
	Delay time.Duration
	// SkipEmpty, when > 0, sends a message at once when it comes more than
	// this much recording time after the previous one (--skip-empty).
	SkipEmpty time.Duration
	// KeepAlive keeps the publishers up after the end until the context
	// is cancelled (-k).
	KeepAlive bool
	// WaitForSubscribers waits until every publisher has a subscriber
	// before playing (--wait-for-subscribers).
	WaitForSubscribers bool
	// Clock publishes /clock (rosgraph_msgs/Clock) at ClockHz (--clock, --hz).
	Clock   bool
	ClockHz float64
	// Prefix is put in front of every output topic (-p).
	Prefix string
	// Remap renames recorded topics (FROM:=TO) before Prefix applies; a
	// FROM that is the prefixed name replaces it (OutputName).
	Remap map[string]string
	// Namespace is the playing node's namespace (__ns:=, ROS_NAMESPACE),
	// where names rosbag play advertises relative are resolved, as its
	// node resolves them: a relative recorded name (rosbag record stores
	// one as typed), or every name under a relative Prefix. "" is the
	// root.
	Namespace string
	// Topics selects the recorded topics to play; nil plays all.
	Topics func(topic string) bool
	// Exclude drops recorded topics that it matches in full.
	Exclude *regexp.Regexp
	// PauseTopics pauses playback before a message on one of these recorded
	// topics while pause-topics mode is on (--pause-topics; key t toggles).
	PauseTopics []string
	// ReadAhead bounds the bytes of messages read, decompressed and
	// converted ahead of the schedule (32 MiB: seconds of a 10 MB/s
	// stream, many bz2 chunks).
	ReadAhead int64
	// RateControl, when set, returns the last stamp (ns since the epoch)
	// seen on the rate-control topic and whether one was seen: playback
	// waits while it is more than RateControlMaxDelay ahead of that stamp
	// (--rate-control-topic, --rate-control-max-delay). Until one is seen,
	// the first message played (of each loop) counts as the stamp, as in
	// rosbag play.
	RateControl         func() (stamp int64, ok bool)
	RateControlMaxDelay time.Duration
	// Status, when set, receives a status line (\r-terminated) at most
	// StatusEvery.
	Status      io.Writer
	StatusEvery time.Duration
	// Keys delivers key presses (space, 's', 't'); nil when there is no
	// terminal.
	Keys <-chan byte
	// Skip, when set, is asked about each message that cannot be played (a
	// CDR message that does not decode): nil skips it, an error stops
	// playback (recording.Inputs.Skip gives --skip-bad's meaning). Unset, the
	// first such message stops playback.
	Skip func(err error) error
	// Warn reports recoverable problems (topics that cannot be played).
	Warn func(msg string)
}

// DefaultOptions are rosbag play's defaults.
func DefaultOptions() Options {
	return Options{
		Rate:        1,
		Delay:       200 * time.Millisecond,
		ClockHz:     100,
		ReadAhead:   32 << 20,
		StatusEvery: 100 * time.Millisecond,

		RateControlMaxDelay: time.Second,
	}
}

// ErrOptions is the cause of every error about the options: a value out
// of range, a selection with nothing to play.
var ErrOptions = errors.New("play options")

// ParseRemaps parses FROM:=TO topic remaps; relative names are taken as
// absolute (rosbag play runs in the root namespace).
func ParseRemaps(specs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, s := range specs {
		from, to, ok := strings.Cut(s, ":=")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" || strings.HasPrefix(from, "__") {
			return nil, fmt.Errorf("%w: remap %q: want FROM:=TO", ErrOptions, s)
		}
		m[path.Clean("/"+from)] = path.Clean("/" + to)
	}
	return m, nil
}

func (o *Options) validate() error {
	if err := o.check(); err != nil {
		return fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return nil
}

func (o *Options) check() error {
	switch {
	case !(o.Rate > 0) || math.IsInf(o.Rate, 0):
		return fmt.Errorf("rate %v: must be a positive number", o.Rate)
	case o.Start < 0:
		return fmt.Errorf("start %v: must not be negative", o.Start)
	case o.Duration < 0:
		return fmt.Errorf("duration %v: must not be negative", o.Duration)
	case o.Delay < 0:
		return fmt.Errorf("delay %v: must not be negative", o.Delay)
	case o.RateControlMaxDelay < 0:
		return fmt.Errorf("rate-control-max-delay %v: must not be negative", o.RateControlMaxDelay)
	case o.SkipEmpty < 0:
		return fmt.Errorf("skip-empty %v: must not be negative", o.SkipEmpty)
	case o.Clock && (!(o.ClockHz > 0) || math.IsInf(o.ClockHz, 0)):
		return fmt.Errorf("hz %v: must be a positive number", o.ClockHz)
	}
	if o.ReadAhead <= 0 {
		o.ReadAhead = DefaultOptions().ReadAhead
	}
	if o.StatusEvery <= 0 {
		o.StatusEvery = DefaultOptions().StatusEvery
	}
	return nil
}
