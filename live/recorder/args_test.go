package recorder

import (
	"errors"
	"testing"
	"time"

	"github.com/baglab/baglab/live"
	"github.com/baglab/baglab/live/rosnode"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 0, "30": 30 * time.Second, "1.5": 1500 * time.Millisecond, "5m": 5 * time.Minute, "1h": time.Hour, "250ms": 250 * time.Millisecond} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"0": "0: want a positive duration", "-2": "-2: want a positive duration", "2e10": "2e10: want a positive duration",
		"soon": "soon: want 30, 30s, 5m or 1h", "-5m": "-5m: want 30, 30s, 5m or 1h"} {
		if _, err := ParseDuration(in); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		unit int64
		want int64
	}{{"1G", 1, 1 << 30}, {"512M", 1, 512 << 20}, {"100", 1, 100}, {"2kb", 1, 2048}, {"100", 1 << 20, 100 << 20}, {" 1.5GB ", 1, 3 << 29}, {"0", 1, 0}} {
		if got, err := ParseSize(c.in, c.unit); err != nil || got != c.want {
			t.Errorf("%q (unit %d): %v %v, want %v", c.in, c.unit, got, err, c.want)
		}
	}
	for _, in := range []string{"-3", "lots", "1T", "9e18G"} {
		if _, err := ParseSize(in, 1); err == nil || err.Error() != in+": want a size such as 512, 100M or 2G" {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestPrefixedOutput(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.Local)
	for prefix, want := range map[string]string{"runs/exp.mcap": "runs/exp_2024-05-06-07-08-09.mcap", "exp": "exp_2024-05-06-07-08-09.bag",
		"": "2024-05-06-07-08-09.bag", "a.bag": "a_2024-05-06-07-08-09.bag", ".mcap": "2024-05-06-07-08-09.mcap"} {
		if got := PrefixedOutput(prefix, at); got != want {
			t.Errorf("%q: %s, want %s", prefix, got, want)
		}
	}
}

// TestArgsOptions: rosbag record's values become the recorder's options
// (units, the 0 conventions of --buffsize and --min-space, the
// compression flags), and values that cannot be used are usage errors
// naming their flag.
func TestArgsOptions(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.Local)
	a := DefaultArgs()
	a.OutputPrefix, a.Exclude, a.Duration, a.Size, a.LZ4, a.BuffMB, a.MinSpace = "runs/exp", "/rosout.*", "5m", "100", true, 0, "0"
	o, err := a.Options(now)
	if err != nil {
		t.Fatal(err)
	}
	if o.Output != "runs/exp_2024-05-06-07-08-09.bag" || o.Duration != 5*time.Minute || o.Size != 100<<20 || o.Compression != "lz4" ||
		o.BufSize != -1 || o.MinSpace != -1 || o.ChunkSize != DefaultChunkSize || o.NodeOptions.MaxMessage != rosnode.DefaultMaxMessage ||
		!o.Exclude.MatchString("/rosout_agg") || o.Exclude.MatchString("/x/rosout") {
		t.Errorf("options %+v", o)
	}
	d, err := DefaultArgs().Options(now)
	if err != nil || d.Output != "2024-05-06-07-08-09.bag" || d.BufSize != DefaultBufSize || d.MinSpace != DefaultMinSpace || d.Compression != "" {
		t.Errorf("defaults: %+v, %v", d, err)
	}
	for _, c := range []struct {
		set  func(*Args)
		want string
	}{
		{func(a *Args) { a.UDP = true }, "--udp: UDPROS is not supported; baglab records over TCPROS"},
		{func(a *Args) { a.Output, a.OutputPrefix = "x.bag", "p" }, "-o and --output-prefix exclude each other"},
		{func(a *Args) { a.Exclude = "(" }, "--exclude: error parsing regexp: missing closing ): `^(?:()$`"},
		{func(a *Args) { a.Duration = "soon" }, "--duration soon: want 30, 30s, 5m or 1h"},
		{func(a *Args) { a.Size = "-3" }, "--size -3: want a size such as 512, 100M or 2G"},
		{func(a *Args) { a.BZ2, a.LZ4 = true, true }, "--bz2 and --lz4 exclude each other"},
		{func(a *Args) { a.BZ2, a.Compression = true, "bz2" }, "--compression with --bz2/--lz4: use one"},
		{func(a *Args) { a.ChunkKB = 0 }, "--chunksize and --max-message must be positive, --buffsize at least 0"},
		{func(a *Args) { a.MinSpace = "lots" }, "--min-space lots: want a size such as 512, 100M or 2G"},
	} {
		a := DefaultArgs()
		c.set(&a)
		_, err := a.Options(now)
		var ae *live.ArgsError
		if !errors.As(err, &ae) || !errors.Is(err, ErrUsage) || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
