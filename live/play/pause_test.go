package play

import (
	"context"
	"errors"
	"testing"
	"time"
)

// SetPaused from another goroutine pauses and resumes as the space key
// does, reports whether it changed anything (not when already in that
// state), and fails with ErrNotPlaying after Run.
func TestSetPaused(t *testing.T) {
	bag := writeRecording(t, ".bag", threeTopics)
	clk := &fakeClock{}
	p := newPlayer(t, DefaultOptions(), clk, bag)
	net := &fakeNet{clk: clk}
	published := make(chan int, 10)
	net.after = func(n int) { published <- n }
	done := make(chan error)
	go func() { _, err := p.Run(context.Background(), net); done <- err }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n := <-published; n != 1 {
		t.Fatalf("first publish counted %d", n)
	}
	for i, want := range []bool{true, false} {
		if changed, err := p.SetPaused(ctx, true); err != nil || changed != want {
			t.Fatalf("pause %d: changed %v, %v; want %v", i, changed, err, want)
		}
	}
	// Message 2 may have been on its way when the pause came; then no more.
	deadline := time.After(100 * time.Millisecond)
	var extra []int
wait:
	for {
		select {
		case n := <-published:
			extra = append(extra, n)
		case <-deadline:
			break wait
		}
	}
	if len(extra) > 1 {
		t.Fatalf("published %v while paused", extra)
	}
	for i, want := range []bool{true, false} {
		if changed, err := p.SetPaused(ctx, false); err != nil || changed != want {
			t.Fatalf("resume %d: changed %v, %v; want %v", i, changed, err, want)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(net.messages("")); n != len(threeTopics) {
		t.Errorf("published %d messages, want %d", n, len(threeTopics))
	}
	if _, err := p.SetPaused(ctx, true); !errors.Is(err, ErrNotPlaying) {
		t.Errorf("after Run: %v, want ErrNotPlaying", err)
	}
}

// With -i the player never waits, yet a SetPaused takes effect at the
// next message (rosbag play's service does not pause an -i playback).
func TestSetPausedImmediate(t *testing.T) {
	var msgs []msg
	for i := range 20000 {
		msgs = append(msgs, msg{"/a", int64(i), "m"})
	}
	bag := writeRecording(t, ".bag", msgs)
	o := DefaultOptions()
	o.Immediate = true
	clk := &fakeClock{}
	p := newPlayer(t, o, clk, bag)
	net := &fakeNet{clk: clk}
	first := make(chan struct{})
	net.after = func(n int) {
		if n == 1 {
			close(first)
		}
	}
	done := make(chan error)
	go func() { _, err := p.Run(context.Background(), net); done <- err }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	<-first
	if changed, err := p.SetPaused(ctx, true); err != nil || !changed {
		t.Fatalf("pause: changed %v, %v", changed, err)
	}
	n := len(net.messages(""))
	time.Sleep(50 * time.Millisecond)
	if m := len(net.messages("")); m != n || n == len(msgs) {
		t.Fatalf("paused after %d of %d messages, then %d were published", n, len(msgs), m)
	}
	if changed, err := p.SetPaused(ctx, false); err != nil || !changed {
		t.Fatalf("resume: changed %v, %v", changed, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(net.messages("")); n != len(msgs) {
		t.Errorf("published %d messages, want %d", n, len(msgs))
	}
}
