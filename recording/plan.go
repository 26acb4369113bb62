package recording

import (
	"errors"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/record"
)

// Plan gives each channel of the inputs its decoder, resolved once per
// channel, under the inputs' one skip rule, the same in every verb: a
// channel whose decoder cannot be made (no definition anywhere, a stored
// definition that does not parse, an encoding baglab does not decode) is
// an error naming its file and topic; under SkipBad its messages are left
// out and Skip reports it once per topic and type, also with --quiet.
//
// A Plan serves one goroutine (each reader makes its own with newPlan);
// the resolver behind it is shared and compiles each schema once.
type Plan struct {
	in    *Inputs
	want  func(typ string) bool
	chans map[*record.Channel]*planned
	// last and cur cache the latest channel and its entry: consecutive
	// messages often share a channel.
	last *record.Channel
	cur  *planned
}

// planned is one channel's entry in a Plan.
type planned struct {
	dec decode.Decoder
	// leave is set when the channel's messages are left out, err when
	// that is because its decoder cannot be made
	leave bool
	err   error
}

// newPlan returns a plan for one reader of the inputs. want, if not nil,
// picks the message types handed on ("pkg/Type" or "pkg/msg/Type" as
// stored); the messages of other types are left out without a word.
func (in *Inputs) newPlan(want func(typ string) bool) *Plan {
	return &Plan{in: in, want: want, chans: map[*record.Channel]*planned{}}
}

// Decoder returns the decoder of m's channel (nil for a JSON-encoded
// channel, whose messages are JSON already) and whether m is handed on.
// When the channel's decoder cannot be made, ok is false and err is the
// channel's error, every time: the caller passes it to Inputs.Skip, which
// stops the reading with it, or under SkipBad reports it the first time
// and lets the reading go on.
func (p *Plan) Decoder(m *record.Message) (dec decode.Decoder, ok bool, err error) {
	if m.Channel != p.last {
		p.last, p.cur = m.Channel, p.entry(m.Channel, m.Source)
	}
	return p.cur.dec, !p.cur.leave, p.cur.err
}

// Channel is Decoder for a channel of the recording file, asked before
// (or without) reading its messages.
func (p *Plan) Channel(ch *record.Channel, file string) (dec decode.Decoder, ok bool, err error) {
	e := p.entry(ch, file)
	return e.dec, !e.leave, e.err
}

// entry is ch's entry, made the first time ch is asked for.
func (p *Plan) entry(ch *record.Channel, file string) *planned {
	e := p.chans[ch]
	if e == nil {
		e = p.resolve(ch, file)
		p.chans[ch] = e
	}
	return e
}

// resolve makes the entry of ch, a channel of file.
func (p *Plan) resolve(ch *record.Channel, file string) *planned {
	switch {
	case p.want != nil && !p.want(TypeName(ch)):
		return &planned{leave: true}
	case ch.MessageEncoding == "json":
		return &planned{}
	}
	dec, err := p.in.res.For(ch)
	if err != nil {
		return &planned{leave: true, err: undecodableChannel(err, file, ch)}
	}
	return &planned{dec: dec}
}

// channelError is a channel whose messages cannot be decoded; Skip
// reports it once per key (topic and type). Its text is its cause's.
type channelError struct {
	error
	key string
}

func (e channelError) Unwrap() error { return e.error }

// reportOnce reports whether err should be reported: any error but a
// channelError whose topic and type were reported already.
func (in *Inputs) reportOnce(err error) bool {
	var ce channelError
	if !errors.As(err, &ce) {
		return true
	}
	_, dup := in.leftOut.LoadOrStore(ce.key, true)
	return !dup
}

// isUndecodableChannel reports whether err leaves a whole channel out (a
// Plan's error), not one message or stretch.
func isUndecodableChannel(err error) bool {
	var ce channelError
	return errors.As(err, &ce)
}
