package recording

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/english"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/rosbag2"
)

// CopyTo writes the selected messages of in, in log time order, into w, a
// recording of the given format, with their definitions, latching and
// (MCAP) metadata and attachments, which CopyExtras takes from the
// recordings as the copy has them open. Messages bound for a ROS1 bag are
// re-encoded in the ROS1 wire format when they are not already (CDR:
// see decode.Resolver.ToROS1). It returns the number of messages written; the
// caller closes or aborts w.
func (in *Inputs) CopyTo(ctx context.Context, w Writer, format Format) (int64, error) {
	if format == FormatBag || format == FormatROS2 || in.storesNoDefinitions() {
		if err := in.RequireDefinitions(); err != nil {
			return 0, err
		}
	}
	it, open, err := in.messages(ctx, in.filter)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	type outChannel struct {
		id      uint32
		convert decode.Conversion
		skip    bool
		// keepSeq keeps the messages' own sequence numbers (storesSequence)
		keepSeq bool
	}
	chans := map[*record.Channel]*outChannel{}
	// Channels of the inputs that become the same output channel (the
	// same topic, definition and connection header, as in the split bags
	// of one recording) share one id: rosbag's writer keeps one
	// connection per distinct connection header.
	ids := map[string]uint32{}
	// A rosbag2 writer gives a topic added again its first id, and keeps
	// the first QoS profiles (rosbag2.Writer.AddChannel): qos holds them
	// by id, so that profiles it drops are said.
	qos := map[uint32]string{}
	// lefts are what ROS1 definitions leave out of the ROS 2 types
	// written under them, said at the end when messages held data there.
	var lefts []*decode.Left
	// add makes the output channel of ch, a channel of the file source.
	add := func(ch *record.Channel, source string) (*outChannel, error) {
		oc := &outChannel{keepSeq: in.storesSequence(source)}
		chans[ch] = oc
		out, convert, left, err := in.outChannel(format, ch)
		if left != nil {
			lefts = append(lefts, left)
		}
		if err == nil {
			key := channelKey(format, out)
			var ok bool
			if oc.id, ok = ids[key]; !ok {
				if oc.id, err = w.AddChannel(out); err == nil {
					ids[key] = oc.id
					profiles := out.Metadata["offered_qos_profiles"]
					if first, seen := qos[oc.id]; !seen {
						qos[oc.id] = profiles
					} else if format == FormatROS2 && first != profiles {
						in.warn("%s: topic %s: a connection offers other QoS profiles than the first one did; a ROS 2 recording keeps one list per topic, the first (as rosbag2 does)", source, out.Topic)
					}
				}
			}
		}
		oc.convert = convert
		if err != nil {
			oc.skip = true
			return oc, in.Skip(undecodableChannel(err, source, ch)) // said once per topic and type, as by every verb
		}
		return oc, nil
	}
	var n int64
	var out record.Message // one for every message: the writer copies what it keeps
	// A writer that can (record.EncodingWriter) has each converted message
	// encoded straight into its own buffer (an MCAP chunk) through encode;
	// another takes it from converted.
	ew, encodes := w.(record.EncodingWriter)
	var (
		conv      decode.Conversion
		src       []byte
		convErr   error
		converted []byte
	)
	encode := func(dst []byte) ([]byte, error) {
		b, err := conv(dst, src)
		convErr = err
		return b, err
	}
	for {
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		oc := chans[m.Channel]
		if oc == nil {
			if oc, err = add(m.Channel, m.Source); err != nil {
				return n, err
			}
		}
		if oc.skip {
			continue
		}
		seq := uint64(n)
		if oc.keepSeq {
			seq = m.Sequence
		}
		out = record.Message{LogTime: m.LogTime, PublishTime: m.PublishTime, Sequence: seq, Data: m.Data}
		switch {
		case oc.convert != nil && encodes:
			conv, src, convErr = oc.convert, m.Data, nil
			err = ew.EncodeMessage(oc.id, &out, encode)
		case oc.convert != nil:
			if converted, convErr = oc.convert(converted[:0], m.Data); convErr == nil {
				out.Data = converted
				err = w.WriteMessage(oc.id, &out)
			}
		default:
			err = w.WriteMessage(oc.id, &out)
		}
		if convErr != nil {
			if err := in.Skip(MessageError(m, convErr)); err != nil {
				return n, err
			}
			convErr = nil
			continue
		}
		if err != nil {
			return n, err
		}
		n++
	}
	// A topic without messages is kept, as the input has it.
	for _, e := range in.emptyChannels() {
		if chans[e.ch] == nil {
			if _, err := add(e.ch, e.file); err != nil {
				return n, err
			}
		}
	}
	for _, r := range open {
		if err := CopyExtras(w, r); err != nil {
			return n, err
		}
	}
	in.sayLeft(lefts)
	return n, nil
}

// sayLeft warns, type by type, of the messages that held data in fields
// the ROS1 definitions written left out (decode.Left).
func (in *Inputs) sayLeft(lefts []*decode.Left) {
	held := map[string]int64{}
	var order []string
	for _, l := range lefts {
		text := fmt.Sprintf("%s held data in fields ROS1's %s has no place for (%s): left out (--keep-ros2-fields keeps them, under a definition of their own, which ROS1 subscribers refuse)",
			l.Type, l.As, strings.Join(l.Fields, ", "))
		if _, ok := held[text]; !ok {
			order = append(order, text)
		}
		held[text] += l.Held()
	}
	for _, text := range order {
		if n := held[text]; n > 0 {
			in.warn("%s of %s", english.Count(int(n), "message"), text)
		}
	}
}

// fileChannel is a channel of the inputs and the file it belongs to.
type fileChannel struct {
	ch   *record.Channel
	file string
}

// emptyChannels lists the channels of the selected topics that hold no
// message in their file, in input and channel order.
func (in *Inputs) emptyChannels() []fileChannel {
	var out []fileChannel
	for i, f := range in.files {
		empty := map[string]bool{}
		for _, t := range f.sum.Topics {
			empty[t.Topic] = t.MessageCount == 0
		}
		chans, _ := f.Channels()
		for _, ch := range chans {
			if empty[ch.Topic] && (in.filter.Topic == nil || in.filter.Topic(ch.Topic)) {
				out = append(out, fileChannel{ch, in.paths[i]})
			}
		}
	}
	return out
}

// storesSequence reports whether the messages of source, a file of the
// inputs, carry their writer's own sequence numbers (MCAP), which a copy
// keeps as mcap filter and mcap merge do; the messages of other formats
// are numbered in the order the copy writes them.
func (in *Inputs) storesSequence(source string) bool {
	for _, f := range in.files {
		if f.path == source {
			return f.sum.Format == string(FormatMCAP)
		}
	}
	// A file of a folder (the splits of a rosbag2 recording).
	return strings.EqualFold(filepath.Ext(source), ".mcap")
}

// channelKey is the content of channel c, an output channel of format:
// its topic, message encoding, schema and metadata, not its id. The MD5
// sum counts once, whether the schema or the metadata (a channel read
// from MCAP) carries it, and in a bag latching is as bag.Writer writes it
// (bag.Latching), so that a connection read from a bag and the
// same connection read from its conversion to MCAP are one.
func channelKey(format Format, c *record.Channel) string {
	var b strings.Builder
	size := len(c.Topic) + len(c.MessageEncoding) + 64 // and the fields' lengths
	if s := c.Schema; s != nil {
		size += len(s.Name) + len(s.Encoding) + len(s.MD5) + len(s.Data)
	}
	for k, v := range c.Metadata {
		size += len(k) + len(v) + 16
	}
	b.Grow(size) // one allocation of the key: the definition is most of it
	field := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	field(c.Topic)
	field(c.MessageEncoding)
	if s := c.Schema; s != nil {
		field(s.Name)
		field(s.Encoding)
		field(cmp.Or(s.MD5, c.Metadata["md5sum"]))
		b.WriteString(strconv.Itoa(len(s.Data))) // field(string(s.Data)), without copying it twice
		b.WriteByte(':')
		b.Write(s.Data)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Metadata)) {
		v := c.Metadata[k]
		switch {
		case k == "md5sum" && c.Schema != nil:
			continue
		case k == "latching" && format == FormatBag:
			v = bag.Latching(v)
		}
		field(k)
		field(v)
	}
	return b.String()
}

// storesNoDefinitions reports whether some channel of the inputs stores no
// definition, which a copy must then take from the registry.
func (in *Inputs) storesNoDefinitions() bool {
	for i := range in.files {
		chans, err := in.File(i).Channels()
		if err != nil {
			return false
		}
		for _, ch := range chans {
			if ch.MessageEncoding != "json" && (ch.Schema == nil || len(ch.Schema.Data) == 0) {
				return true
			}
		}
	}
	return false
}

// outChannel is the channel ch becomes in a recording of format, and the
// conversion of its messages (nil: copied as they are).
func (in *Inputs) outChannel(format Format, ch *record.Channel) (*record.Channel, decode.Conversion, *decode.Left, error) {
	if format == FormatROS2 {
		conv, c, note, err := in.res.ToROS2(ch, in.o.Renames)
		if err != nil {
			return nil, nil, nil, err
		}
		if note != "" {
			if _, said := in.noted.LoadOrStore(note, true); !said {
				in.warn("%s", note)
			}
		}
		// A ROS 2 publisher's offered profiles are kept, as
		// rosbags-convert keeps them; a latched ROS1 connection is
		// offered as rosbags-convert offers it.
		qos := ""
		if in := ch.Metadata["offered_qos_profiles"]; in != "" {
			if qos, err = rosbag2.OfferedQoS(in); err != nil {
				return nil, nil, nil, fmt.Errorf("%w: topic %s: %v", record.ErrFormat, ch.Topic, err)
			}
		} else if Latched(ch) {
			qos = rosbag2.LatchedQoS
		}
		c.Metadata["offered_qos_profiles"] = qos
		return c, conv, nil, nil
	}
	if format != FormatBag {
		c, err := in.res.WithDefinition(ch)
		return c, nil, nil, err
	}
	if ch.MessageEncoding == "json" {
		return nil, nil, nil, fmt.Errorf("%w: topic %s has JSON messages, which a ROS1 bag cannot hold", record.ErrUnsupported, ch.Topic)
	}
	conv, c, left, err := in.res.ToROS1(ch, in.o.KeepROS2Fields)
	if err != nil {
		return nil, nil, nil, err
	}
	if Latched(ch) && c.Metadata["latching"] == "" {
		// a ROS 2 publisher offering transient-local durability
		md := maps.Clone(c.Metadata)
		if md == nil {
			md = map[string]string{}
		}
		md["latching"] = "1"
		cc := *c
		cc.Metadata = md
		c = &cc
	}
	return c, conv, left, nil
}
