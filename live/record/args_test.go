package record

import (
	"bytes"
	"testing"
	"time"
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

func TestResultSummary(t *testing.T) {
	r := &Result{Reason: "limit reached", Files: []string{"a_0.bag", "a_1.bag"},
		Topics: []TopicStats{{Topic: "/chatter", Received: 120, Written: 118, Dropped: 2}, {Topic: "/tf", Received: 5, Written: 5}}}
	var b bytes.Buffer
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	want := `baglab record: stopped: limit reached
TOPIC                                      RECEIVED    WRITTEN  DROPPED
/chatter                                        120        118        2
/tf                                               5          5        0
wrote a_0.bag
wrote a_1.bag
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if r.Dropped() != 2 {
		t.Errorf("dropped %d", r.Dropped())
	}
}
