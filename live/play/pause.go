package play

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/live/rosnode"
)

// ErrNotPlaying is returned by SetPaused once Run has returned.
var ErrNotPlaying = errors.New("play: playback is over")

// PauseServer is an Advertiser that also serves rosbag play's
// ~pause_playback service. Run calls ServePause with the player's
// SetPaused once its topics are advertised and closes what it returns
// when playback ends.
type PauseServer interface {
	ServePause(setPaused func(ctx context.Context, paused bool) (changed bool, err error)) (io.Closer, error)
}

// pauseRequest is a SetPaused call waiting for the play loop.
type pauseRequest struct {
	paused  bool
	changed chan bool // buffered: the loop never waits on it
}

// SetPaused pauses (true) or resumes (false) playback as the space key
// does, and reports whether that changed anything: false when playback
// was already paused or running, as rosbag play's pause_playback service
// answers. It is safe to call from any goroutine while Run runs. The play
// loop applies it the next time it waits or takes a message (during
// --delay and --wait-for-subscribers the call waits for playback to
// begin); SetPaused returns once it has been applied, when ctx ends, or
// with ErrNotPlaying when Run has returned.
func (p *Player) SetPaused(ctx context.Context, paused bool) (changed bool, err error) {
	r := pauseRequest{paused: paused, changed: make(chan bool, 1)}
	select {
	case p.pauseReqs <- r:
	case <-ctx.Done():
		return false, ctx.Err()
	case <-p.done:
		return false, ErrNotPlaying
	}
	return <-r.changed, nil
}

// applyPause serves one SetPaused in the play loop.
func (p *Player) applyPause(r pauseRequest) {
	changed := r.paused != p.paused
	if changed {
		p.setPaused(p.clk.now(), r.paused, math.MaxInt64)
	}
	r.changed <- changed
}

// setBool is std_srvs/SetBool, the type of rosbag play's pause_playback.
const (
	setBoolType = "std_srvs/SetBool"
	setBoolSrv  = "bool data # e.g. for hardware enabling / disabling\n" +
		"---\n" +
		"bool success   # indicate successful run of triggered service\n" +
		"string message # informational, e.g. for error messages\n"
)

// pauseService is the service's name under the node: rosbag play's
// private ~pause_playback.
const pauseService = "pause_playback"

// ServePause advertises <node>/pause_playback (std_srvs/SetBool) on the
// node: data=true pauses, false resumes, and the response says whether
// that changed anything, with rosbag play's messages ("Playback is now
// paused", "Bag is already running." ...).
func (a NodeAdvertiser) ServePause(setPaused func(ctx context.Context, paused bool) (bool, error)) (io.Closer, error) {
	req, resp, err := msgdef.ParseService(setBoolType, setBoolSrv, msgdef.ROS1, nil)
	if err != nil {
		return nil, err
	}
	info := rosnode.ServiceInfo{Type: setBoolType, MD5: msgdef.ServiceMD5(req, resp)}
	return a.Node.AdvertiseService(a.Node.Name()+"/"+pauseService, info, func(ctx context.Context, b []byte) ([]byte, error) {
		if len(b) != 1 {
			return nil, fmt.Errorf("%s request of %d bytes, want 1", setBoolType, len(b))
		}
		paused := b[0] != 0
		changed, err := setPaused(ctx, paused)
		if err != nil {
			return nil, err
		}
		return setBoolResponse(changed, pauseMessage(changed, paused)), nil
	})
}

// pauseMessage is rosbag play's pause_playback message (player.cpp
// pauseCallback).
func pauseMessage(changed, paused bool) string {
	switch {
	case changed && paused:
		return "Playback is now paused"
	case changed:
		return "Playback is now resumed"
	case paused:
		return "Bag is already paused."
	}
	return "Bag is already running."
}

// setBoolResponse serializes a std_srvs/SetBoolResponse.
func setBoolResponse(success bool, message string) []byte {
	b := make([]byte, 1, 5+len(message))
	if success {
		b[0] = 1
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(message)))
	return append(b, message...)
}
