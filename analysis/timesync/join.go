package timesync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/header"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// ErrNoHeader is the cause when a topic's type has no std_msgs/Header.
var ErrNoHeader = errors.New("no std_msgs/Header")

// Message is one message of a set: its input and a copy of its bytes.
type Message struct {
	Topic   string
	LogTime int64
	Stamp   int64
	Source  string
	Data    []byte
	dec     decode.Decoder
}

// Set is a matched set, one message per topic in the order of the topics.
type Set []*Message

// Joined is the type of a row of matched sets: one struct field per topic,
// named by the topic, of the topic's type.
type Joined struct {
	Type *msgdef.Type
	// Definition is the text of Type for an export's metadata.
	Definition string
}

// Run reads it (the recordings' messages in log-time order, only the
// topics' messages needed), offers each message of the topics to a Sync
// by its header stamp and calls emit with each set matched. Every topic
// must carry one type with a std_msgs/Header. The joined type is known
// once every topic has had a message; emit receives it with each set.
// A message that does not decode goes to skip, which returns nil to go on
// without it (recording.Inputs.Skip under --skip-bad) or the error to
// stop; nil skip stops.
func Run(ctx context.Context, it record.Iterator, res *decode.Resolver, topics []string, o Options, skip func(error) error, emit func(j *Joined, s Set) error) error {
	if skip == nil {
		skip = func(err error) error { return err }
	}
	index := map[string]int{}
	for i, t := range topics {
		index[t] = i
	}
	s := New[*Message](len(topics), o)
	decs := make([]decode.Decoder, len(topics))
	var joined *Joined
	var hs header.Sink
	// each channel's decoder, asked for once: Resolver.For hashes the
	// schema at every call (1.5 µs for sensor_msgs/Imu's)
	type channelDecoder struct {
		dec decode.Decoder
		err error
	}
	byChannel := map[*record.Channel]channelDecoder{}
	for {
		m, err := it.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		i, ok := index[m.Channel.Topic]
		if !ok {
			continue
		}
		cd, seen := byChannel[m.Channel]
		if !seen {
			cd.dec, cd.err = res.For(m.Channel)
			byChannel[m.Channel] = cd
		}
		dec, err := cd.dec, cd.err
		if err != nil {
			if err := skip(record.WithFile(err, m.Source, -1, m.Channel.Topic)); err != nil {
				return err
			}
			continue
		}
		if decs[i] == nil {
			if !header.Has(dec.Type()) {
				return fmt.Errorf("%w: %s (%s)", ErrNoHeader, m.Channel.Topic, dec.Type().Name)
			}
			decs[i] = dec
		} else if decs[i].Type().Name != dec.Type().Name {
			return fmt.Errorf("topic %s carries %s and %s: a set takes one type per topic", m.Channel.Topic, decs[i].Type().Name, dec.Type().Name)
		}
		if err := dec.Decode(m.Data, &hs); err != nil {
			if err := skip(record.WithFile(err, m.Source, m.Offset, m.Channel.Topic)); err != nil {
				return err
			}
			continue
		}
		h, _ := hs.Header()
		msg := &Message{Topic: m.Channel.Topic, LogTime: m.LogTime, Stamp: h.Stamp, Source: m.Source,
			Data: append([]byte(nil), m.Data...), dec: dec}
		for _, set := range s.Add(i, h.Stamp, msg) {
			if joined == nil {
				joined = join(topics, decs)
			}
			if err := emit(joined, set); err != nil {
				return err
			}
		}
	}
}

// join builds the joined type of the topics' types.
func join(topics []string, decs []decode.Decoder) *Joined {
	t := &msgdef.Type{Name: "baglab/SyncedSet", FullName: "baglab/SyncedSet", Dialect: msgdef.ROS1}
	var def strings.Builder
	def.WriteString("# a matched set of baglab export --sync: one field per topic\n")
	for i, topic := range topics {
		mt := decs[i].Type()
		t.Dialect = mt.Dialect
		t.Fields = append(t.Fields, msgdef.Field{Name: topic, Kind: msgdef.Struct, Msg: mt, TypeName: mt.Name})
		fmt.Fprintf(&def, "%s %s\n", mt.Name, topic)
	}
	return &Joined{Type: t, Definition: def.String()}
}

// Decode pushes set into s as one message of j.Type: each topic's
// message as the struct of its field.
func (j *Joined) Decode(set Set, s sink.Sink) error {
	s.BeginMessage(j.Type)
	in := inner{s}
	for i, m := range set {
		s.BeginStruct(&j.Type.Fields[i])
		if err := m.dec.Decode(m.Data, in); err != nil {
			return record.WithFile(err, m.Source, -1, m.Topic)
		}
		s.EndStruct()
	}
	s.EndMessage()
	return nil
}

// inner passes a nested message's events on without its Begin/EndMessage.
type inner struct{ sink.Sink }

func (inner) BeginMessage(*msgdef.Type) {}
func (inner) EndMessage()               {}
