package play

import (
	"context"
	"testing"
	"time"
)

// TestSeekRate: paused at the start, a seek to 1.1 s re-sends the latched
// /c (c0, from 150 ms), a rate of 2 halves the gaps, and on resuming the
// schedule starts at the time sought: b1 (1.2 s) 50 ms later, a3 (1.3 s)
// 50 ms after it. Burst and PlayNext answer false/0 while playing.
func TestSeekRate(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics, "/c")
	clk := &fakeClock{}
	o := DefaultOptions()
	o.Pause, o.Delay = true, 0
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	done := make(chan error)
	go func() { _, err := p.Run(context.Background(), net); done <- err }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Seek(ctx, t0+1100e6); err != nil {
		t.Fatal(err)
	}
	if ok, err := p.SetRate(ctx, 2); !ok || err != nil {
		t.Fatalf("SetRate: %v %v", ok, err)
	}
	if ok, _ := p.SetRate(ctx, -1); ok {
		t.Error("SetRate(-1) accepted")
	}
	if r, _ := p.Rate(ctx); r != 2 {
		t.Errorf("Rate %v", r)
	}
	if paused, _ := p.IsPaused(ctx); !paused {
		t.Error("not paused after the seek")
	}
	if paused, _ := p.TogglePaused(ctx); paused {
		t.Error("TogglePaused left it paused")
	}
	if ok, _ := p.PlayNext(ctx); ok {
		t.Error("PlayNext while playing")
	}
	if n, _ := p.Burst(ctx, 3); n != 0 {
		t.Errorf("Burst while playing sent %d", n)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var texts []string
	var at []time.Duration
	for _, s := range net.messages("") {
		texts = append(texts, string(s.data[4:]))
		at = append(at, s.at)
	}
	if len(texts) != 3 || texts[0] != "c0" || texts[1] != "b1" || texts[2] != "a3" {
		t.Fatalf("published %q, want c0 (latched, re-sent at the seek) b1 a3", texts)
	}
	if at[1]-at[0] != 50*time.Millisecond || at[2]-at[1] != 50*time.Millisecond {
		t.Errorf("published at %v: want b1 50 ms after the resume, a3 50 ms later (rate 2)", at)
	}
}

// TestBurst: paused, Burst(2) publishes the next two messages at once and
// answers 2; a burst past the end answers what it sent; PlayNext sends
// one.
func TestBurst(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	clk := &fakeClock{}
	o := DefaultOptions()
	o.Pause, o.Delay = true, 0
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	done := make(chan error)
	go func() { _, err := p.Run(context.Background(), net); done <- err }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n, err := p.Burst(ctx, 2); n != 2 || err != nil {
		t.Fatalf("Burst(2) = %d, %v", n, err)
	}
	if ok, _ := p.PlayNext(ctx); !ok {
		t.Fatal("PlayNext while paused refused")
	}
	if n, err := p.Burst(ctx, 10); n != 4 || err != nil {
		t.Errorf("Burst(10) with 4 left = %d, %v", n, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(net.messages("")); n != len(threeTopics) {
		t.Errorf("published %d, want %d", n, len(threeTopics))
	}
	for _, s := range net.messages("") {
		if s.at != 0 {
			t.Errorf("%s published at %v while paused: want at once", s.data[4:], s.at)
		}
	}
}
