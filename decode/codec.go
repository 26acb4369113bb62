package decode

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// Decoder is a codec compiled for one schema.
type Decoder interface {
	// Type is the resolved message type.
	Type() *msgdef.Type
	// Decode walks data and calls s in schema order. Strings that are not
	// valid UTF-8 reach s with U+FFFD in place of each ill-formed sequence,
	// as genpy, rosbag.js and @foxglove/cdr read them.
	Decode(data []byte, s sink.Sink) error
	// DecodeValue decodes data into a value tree, as Decode does.
	DecodeValue(data []byte) (*value.Struct, error)
	// InvalidUTF8 is the number of messages decoded so far with strings
	// that are not valid UTF-8.
	InvalidUTF8() int64
	// CheckUTF8 returns the first string of data that is not valid UTF-8
	// as a *record.Error (record.ErrBadUTF8, with offset and field), or nil.
	CheckUTF8(data []byte) error
}

// Resolver compiles decoders for channels, once per schema, and is safe for
// concurrent use. Definitions stored in the file win over the registry; the
// registry serves files that carry none (some rosbag2 databases).
type Resolver struct {
	reg   *msgdef.Registry
	mu    sync.Mutex
	cache map[schemaKey]*resolved
	ros2  map[ros2Key]*ros2Target // ToROS2's, per ROS1 type and renames
	// ros2Types and sections are the ROS 2 types and bundle sections
	// ToROS2 makes
	ros2Types ros2Maker
	sections  sections
	pairings  pairings // mappedTypes's
}

type schemaKey struct {
	name, schemaEncoding, msgEncoding string
	sum                               [32]byte
	// md5 is the stored MD5 sum, which chooses the registry's definition
	// of a schema that stores none (typeOf)
	md5 string
}

type resolved struct {
	dec Decoder
	err error
	// invalidSaid is dec.InvalidUTF8() when InvalidUTF8 last said it
	invalidSaid int64
}

// NewResolver returns a Resolver that falls back to reg (msgdef.Default()
// when nil).
func NewResolver(reg *msgdef.Registry) *Resolver {
	if reg == nil {
		reg = msgdef.Default()
	}
	return &Resolver{reg: reg, cache: map[schemaKey]*resolved{}, ros2: map[ros2Key]*ros2Target{}}
}

// Registry returns the registry the resolver falls back to.
func (r *Resolver) Registry() *msgdef.Registry { return r.reg }

// For returns the decoder for ch's messages.
func (r *Resolver) For(ch *record.Channel) (Decoder, error) {
	s := ch.Schema
	if s == nil {
		s = &record.Schema{}
	}
	key := schemaKey{name: s.Name, schemaEncoding: s.Encoding, msgEncoding: ch.MessageEncoding, sum: sha256.Sum256(s.Data)}
	if StoresNoDefinition(s) {
		key.md5 = s.MD5
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if res, ok := r.cache[key]; ok {
		return res.dec, res.err
	}
	dec, err := r.compile(ch, s)
	if err != nil {
		err = &record.Error{Offset: -1, Topic: ch.Topic, Err: err, Detail: fmt.Sprintf("type %s", s.Name)}
	}
	r.cache[key] = &resolved{dec: dec, err: err}
	return dec, err
}

// typeOf is the type of schema s: its stored definition, or the
// registry's when it stores none (msgdef.FromSchema, StoresNoDefinition).
func (r *Resolver) typeOf(s *record.Schema) (*msgdef.Type, error) {
	if s.Encoding != "ros1msg" || !StoresNoDefinition(s) {
		return msgdef.FromSchema(s.Name, s.Encoding, s.Data, r.reg)
	}
	t, err := r.reg.Lookup(s.Name)
	if err != nil {
		return nil, err
	}
	if sum := msgdef.MD5(t); s.MD5 != "" && s.MD5 != "*" && sum != s.MD5 {
		return nil, &msgdef.Error{Type: s.Name, Err: record.ErrUnknownType,
			Msg: fmt.Sprintf("the recording stores no definition, and the known one has MD5 %s, not the recorded %s (give the recorded .msg with --msg-path)", sum, s.MD5)}
	}
	return t, nil
}

// emptyMD5 is the MD5 sum of a ROS1 message with no fields (std_msgs/Empty),
// whose definition is rightly empty.
const emptyMD5 = "d41d8cd98f00b204e9800998ecf8427e"

// StoresNoDefinition reports whether schema s lacks the definition of its
// type: a named schema without encoding or text (a .db3 without a
// message_definitions table), rosbag2's encoding "unknown" with an empty text, for a type it
// could not find when recording, or a ROS1 definition with no text (a
// recorder that left message_definition empty) for a type whose MD5 is not
// that of an empty message. Such a type is decoded with the registry's
// definition, the one of --msg-path included.
func StoresNoDefinition(s *record.Schema) bool {
	switch s.Encoding {
	case "", msgdef.EncodingUnknown:
		return len(s.Data) == 0 && s.Name != ""
	case "ros1msg":
		return len(bytes.TrimSpace(s.Data)) == 0 && s.MD5 != emptyMD5
	}
	return false
}

// InvalidUTF8 says, once per type, how many messages of it were decoded
// with strings that are not valid UTF-8 since the last call, in type name
// order.
func (r *Resolver) InvalidUTF8() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	type count struct {
		typ string
		n   int64
	}
	var counts []count
	for _, res := range r.cache {
		if res.dec == nil {
			continue
		}
		if n := res.dec.InvalidUTF8(); n > res.invalidSaid {
			counts = append(counts, count{res.dec.Type().Name, n - res.invalidSaid})
			res.invalidSaid = n
		}
	}
	slices.SortFunc(counts, func(a, b count) int { return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.n, b.n)) })
	notes := make([]string, len(counts))
	for i, c := range counts {
		notes[i] = fmt.Sprintf("%d message(s) of %s have strings that are not valid UTF-8: each invalid "+
			"sequence reads as U+FFFD, as rosbag and rosbag.js read it (baglab doctor lists where)", c.n, c.typ)
	}
	return notes
}

// decodes reports whether baglab decodes messages of the message encoding.
func Decodes(messageEncoding string) bool {
	return messageEncoding == "ros1" || messageEncoding == "cdr"
}

func (r *Resolver) compile(ch *record.Channel, s *record.Schema) (Decoder, error) {
	if !Decodes(ch.MessageEncoding) {
		return nil, fmt.Errorf("%w: message encoding %q", record.ErrUnsupported, ch.MessageEncoding)
	}
	t, err := r.typeOf(s)
	if err != nil {
		return nil, err
	}
	// *ros1.Decoder and *cdr.Decoder are Decoders.
	if ch.MessageEncoding == "ros1" {
		d, err := ros1.Compile(t)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	d, err := cdr.Compile(t)
	if err != nil {
		return nil, err
	}
	if t.Distro != "" {
		return &builtinDecoder{Decoder: d, typ: t.FullName, distro: t.Distro}, nil
	}
	return d, nil
}

// builtinDecoder decodes with a built-in definition of a ROS 2
// distribution: an error names the type and the distribution, so that a
// payload recorded with another layout (a Marker of early Humble, a Range
// of Humble read as Jazzy) says which definition it did not fit.
type builtinDecoder struct {
	Decoder
	typ, distro string
}

func (d *builtinDecoder) Decode(data []byte, s sink.Sink) error {
	return d.note(d.Decoder.Decode(data, s))
}

func (d *builtinDecoder) DecodeValue(data []byte) (*value.Struct, error) {
	v, err := d.Decoder.DecodeValue(data)
	return v, d.note(err)
}

func (d *builtinDecoder) note(err error) error {
	var e *record.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	c := *e
	if c.Detail != "" {
		c.Detail += "; "
	}
	c.Detail += fmt.Sprintf("decoded with the built-in definition of %s of ROS 2 %s (the recording stores none)", d.typ, d.distro)
	c.Err = &BuiltinMismatch{Type: d.typ, Distro: d.distro, Err: e.Err}
	return &c
}

// BuiltinMismatch is the cause of a message that does not decode with the
// built-in definition of a ROS 2 distribution (the recording stores none):
// it was likely recorded with another distribution's layout. It unwraps to
// the decoding error's sentinel.
type BuiltinMismatch struct {
	Type, Distro string
	Err          error
}

func (e *BuiltinMismatch) Error() string { return e.Err.Error() }

// Unwrap returns the sentinel cause.
func (e *BuiltinMismatch) Unwrap() error { return e.Err }
