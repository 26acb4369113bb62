package foxglove

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// playbackControl encodes a PlaybackControlRequest as the SDK lays it out
// (rust/foxglove/src/protocol/common/client/playback_control_request.rs).
func playbackControl(cmd PlaybackCommand, speed float32, seek int64, id string) []byte {
	b := []byte{byte(OpPlaybackControlRequest), byte(cmd)}
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(speed))
	if seek >= 0 {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(max(seek, 0)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(id)))
	return append(b, id...)
}

// TestPlaybackControlSDKBytes: the SDK's snapshot of a play request with a
// seek to 123456789 ns (playback_control_request_encode_play_with_seek.snap)
// parses, and our encoder writes the same bytes.
func TestPlaybackControlSDKBytes(t *testing.T) {
	sdk := []byte{0x03, 0x00, 0x00, 0x00, 0x80, 0x3f, 0x01, 0x15, 0xcd, 0x5b, 0x07, 0x00, 0x00, 0x00, 0x00,
		0x07, 0x00, 0x00, 0x00, 's', 'o', 'm', 'e', '-', 'i', 'd'}
	m, err := ParseClientMessage(false, sdk)
	if err != nil {
		t.Fatal(err)
	}
	r := m.(*PlaybackControlRequest)
	if r.Command != CommandPlay || r.Speed != 1 || !r.Seek || r.SeekTime != 123456789 || r.RequestID != "some-id" {
		t.Errorf("parsed %+v", r)
	}
	if got := playbackControl(CommandPlay, 1, 123456789, "some-id"); string(got) != string(sdk) {
		t.Errorf("encoded % x", got)
	}
}

// TestPlaybackStateSDKBytes: PlaybackState as the SDK's snapshot of a
// Playing state at 12345 ns with request id "i-am-a-request" lays it out.
func TestPlaybackStateSDKBytes(t *testing.T) {
	want := []byte{0x05, 0x00, 0x39, 0x30, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x0e, 0, 0, 0}
	want = append(want, "i-am-a-request"...)
	got := appendPlaybackState(nil, PlaybackState{Status: Playing, CurrentTime: 12345, Speed: 1, RequestID: "i-am-a-request"})
	if string(got) != string(want) {
		t.Errorf("got  % x\nwant % x", got, want)
	}
}

func TestParseClientMessage(t *testing.T) {
	for _, c := range []struct {
		name string
		text bool
		in   string
		ok   bool
	}{
		{"subscribe", true, `{"op":"subscribe","subscriptions":[{"id":1,"channelId":2}]}`, true},
		{"unsubscribe", true, `{"op":"unsubscribe","subscriptionIds":[1]}`, true},
		{"unsupported", true, `{"op":"getParameters","parameterNames":[]}`, true},
		{"negative id", true, `{"op":"subscribe","subscriptions":[{"id":-1,"channelId":2}]}`, false},
		{"no op", true, `{"subscriptions":[]}`, false},
		{"not json", true, `{`, false},
		{"empty binary", false, ``, false},
		{"short message data", false, "\x01\x00", false},
		{"message data", false, "\x01\x01\x00\x00\x00abc", true},
		{"short control", false, "\x03\x00", false},
		{"bad command", false, string(playbackControl(7, 1, -1, "x")), false},
		{"long id", false, string(playbackControl(CommandPause, 1, -1, "x"))[:19], false},
		{"unknown opcode", false, "\x09", false},
	} {
		_, err := ParseClientMessage(c.text, []byte(c.in))
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v", c.name, err)
		}
		if err != nil && !errors.Is(err, ErrMessage) {
			t.Errorf("%s: %v is not ErrMessage", c.name, err)
		}
	}
}

// FuzzParseClientMessage: whatever a client sends, parsing never panics,
// fails only with ErrMessage, and a PlaybackControlRequest that parses
// encodes back to the bytes it came from (the spelling of its had-seek
// byte and its unused seek time aside).
func FuzzParseClientMessage(f *testing.F) {
	f.Add(true, []byte(`{"op":"subscribe","subscriptions":[{"id":1,"channelId":2}]}`))
	f.Add(true, []byte(`{"op":"unsubscribe","subscriptionIds":[1,2]}`))
	f.Add(true, []byte(`{"op":"advertise","channels":[{"id":1,"topic":"/a","encoding":"ros1","schemaName":"std_msgs/String"}]}`))
	f.Add(false, playbackControl(CommandPlay, 2, 1700000000e9, "req-1"))
	f.Add(false, playbackControl(CommandPause, 1, -1, ""))
	f.Add(false, []byte("\x01\x01\x00\x00\x00payload"))
	f.Fuzz(func(t *testing.T, text bool, b []byte) {
		m, err := ParseClientMessage(text, b)
		if err != nil {
			if !errors.Is(err, ErrMessage) {
				t.Fatalf("%v is not ErrMessage", err)
			}
			return
		}
		if r, ok := m.(*PlaybackControlRequest); ok {
			seek := int64(-1)
			if r.Seek {
				seek = r.SeekTime
			}
			enc := playbackControl(r.Command, r.Speed, seek, r.RequestID)
			enc[6] = b[6] // any non-zero had-seek byte means a seek
			if !r.Seek {
				copy(enc[7:15], b[7:15])
			}
			if string(enc) != string(b[:len(enc)]) {
				t.Fatalf("re-encoded % x from % x", enc, b)
			}
		}
	})
}
