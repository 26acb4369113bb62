package tf

import (
	"context"
	"fmt"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/header"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// IsTFType reports whether a message type (as stored) carries transforms:
// tf2_msgs/TFMessage (ROS1 and ROS2 names) or the older tf/tfMessage.
func IsTFType(name string) bool {
	switch name {
	case "tf2_msgs/TFMessage", "tf2_msgs/msg/TFMessage", "tf/tfMessage", "tf/msg/tfMessage":
		return true
	}
	return false
}

// IsStaticTopic reports whether a TF topic holds static transforms: its
// last name segment is tf_static (/tf_static, /robot1/tf_static).
func IsStaticTopic(topic string) bool {
	return topic == "tf_static" || strings.HasSuffix(topic, "/tf_static")
}

// Reader fills a Buffer from TF messages in the order given and counts
// what it read per frame, for Tree.
type Reader struct {
	// Buffer holds the transforms read.
	Buffer *Buffer
	frames map[string]*frameStats
	order  []string
	// Rejected counts the transforms SetTransform ignored, by TF_* code.
	Rejected map[string]int
	// Messages and Transforms count what was read.
	Messages, Transforms int64
	sink                 tfSink
}

// NewReader returns a Reader with an empty Buffer.
func NewReader() *Reader {
	return &Reader{Buffer: NewBuffer(), frames: map[string]*frameStats{}, Rejected: map[string]int{}}
}

// Add reads the transforms of one TF message decoded by dec. A message
// that does not decode is a *record.Error naming its file and topic.
func (r *Reader) Add(m *record.Message, dec decode.Decoder) error {
	if err := dec.Decode(m.Data, &r.sink); err != nil {
		return record.WithFile(err, m.Source, m.Offset, m.Channel.Topic)
	}
	r.Messages++
	static := IsStaticTopic(m.Channel.Topic)
	for _, s := range r.sink.out {
		r.Transforms++
		err := r.Buffer.SetTransform(s, static)
		if rej, ok := err.(*Rejected); ok {
			r.Rejected[rej.Code]++
		}
		r.note(s, static, m, err == nil)
	}
	return nil
}

// Read reads every TF topic of in (IsTFType) into a new Reader, the
// inputs one after the other in order. When stampsOf names a topic, it
// also returns the header stamps of that topic's messages, in the order
// read; a topic whose messages have no std_msgs/Header is an error.
func Read(ctx context.Context, in *recording.Inputs, stampsOf string) (*Reader, []int64, error) {
	r := NewReader()
	var stamps []int64
	types := map[string]bool{}
	if stampsOf != "" {
		for _, ts := range in.Summary().Topics {
			if ts.Topic == stampsOf {
				types[ts.Type] = true
			}
		}
		if len(types) == 0 {
			return nil, nil, fmt.Errorf("%w: no topic %s in the recording", ErrNoTopic, stampsOf)
		}
	}
	var hs header.Sink
	err := in.Each(ctx, recording.EachOptions{
		Jobs: 1,
		Want: func(typ string) bool { return IsTFType(typ) || types[typ] },
		Visit: func(file int, m *record.Message, dec decode.Decoder) error {
			if dec == nil {
				return fmt.Errorf("%s: topic %s: messages encoded as %s are not supported", m.Source, m.Channel.Topic, m.Channel.MessageEncoding)
			}
			if m.Channel.Topic == stampsOf {
				if !header.Has(dec.Type()) {
					return fmt.Errorf("%w: %s (%s) has no std_msgs/Header", ErrNoHeader, stampsOf, dec.Type().Name)
				}
				if err := dec.Decode(m.Data, &hs); err != nil {
					return in.Skip(record.WithFile(err, m.Source, m.Offset, m.Channel.Topic))
				}
				if h, ok := hs.Header(); ok {
					stamps = append(stamps, h.Stamp)
				}
			}
			if IsTFType(recording.TypeName(m.Channel)) {
				if err := r.Add(m, dec); err != nil {
					return in.Skip(err)
				}
			}
			return nil
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return r, stamps, nil
}
