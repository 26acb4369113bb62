package play

import (
	"errors"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/baglab/baglab/live"
	"github.com/baglab/baglab/live/rosnode"
)

// TestArgsOptions: rosbag play's values in seconds become the player's
// durations; values that cannot be used are ErrOptions naming their flag.
func TestArgsOptions(t *testing.T) {
	d := DefaultArgs()
	if d.Rate != 1 || d.Hz != 100 || d.Delay != 0.2 || d.RateControlMaxDelay != 1 || d.Queue != rosnode.DefaultPublishQueue {
		t.Errorf("defaults %+v", d)
	}
	a := d
	a.Rate, a.Start, a.Duration, a.SkipEmpty, a.Exclude, a.Remaps, a.Loop, a.Clock, a.Prefix = 2.5, 60, 1.5, 0.25, "/tf.*", []string{"chatter:=/talk"}, true, true, "/replay"
	o, err := a.Options()
	if err != nil {
		t.Fatal(err)
	}
	if o.Rate != 2.5 || o.Start != time.Minute || o.Duration != 1500*time.Millisecond || o.SkipEmpty != 250*time.Millisecond || o.Delay != 200*time.Millisecond ||
		o.RateControlMaxDelay != time.Second || o.ClockHz != 100 || !o.Loop || !o.Clock || o.Prefix != "/replay" || o.Remap["/chatter"] != "/talk" ||
		!o.Exclude.MatchString("/tf_static") || o.ReadAhead != DefaultOptions().ReadAhead {
		t.Errorf("options %+v", o)
	}
	if n := a.NodeOptions(); n.Name != fmt.Sprintf("/baglab_play_%d", os.Getpid()) || n.PublishQueue != rosnode.DefaultPublishQueue {
		t.Errorf("node options %+v", n)
	}
	for _, c := range []struct {
		set  func(*Args)
		want string
	}{
		{func(a *Args) { a.Start = -1 }, "--start -1: want a number of seconds >= 0"},
		{func(a *Args) { a.Duration = math.NaN() }, "--duration NaN: want a number of seconds >= 0"},
		{func(a *Args) { a.Delay = math.Inf(1) }, "--delay +Inf: want a number of seconds >= 0"},
		{func(a *Args) { a.SkipEmpty = 1e10 }, "--skip-empty 1e+10: want a number of seconds >= 0"},
		{func(a *Args) { a.Exclude = "(" }, "--exclude: error parsing regexp: missing closing ): `(`"},
		{func(a *Args) { a.Remaps = []string{"bad"} }, `--remap: play options: remap "bad": want FROM:=TO`},
		{func(a *Args) { a.Queue = 0 }, "--queue 0: want at least 1"},
	} {
		a := DefaultArgs()
		c.set(&a)
		_, err := a.Options()
		var ae *live.ArgsError
		if !errors.As(err, &ae) || !errors.Is(err, ErrOptions) || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
