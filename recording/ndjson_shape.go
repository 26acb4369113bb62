package recording

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// NDJSONFields are the envelope fields NDJSONOptions.Fields may add to a
// line of the baglab shape: "publish_time" (publish_time_ns, the publish
// time in ns; the log time where the format has none), "sequence" (the
// message's MCAP sequence number, or for bags and rosbag2 databases its
// number among the messages read from its file), "source" (the file the message came from).
var NDJSONFields = []string{"publish_time", "sequence", "source"}

// NDJSONShapes are the line layouts of WriteNDJSON:
//
//	baglab  {"topic","type","log_time_ns",<Fields>,"message":{...}}
//	mcap    {"topic","sequence","log_time","publish_time","data":{...}}
//
// The mcap shape is what `mcap cat --json` prints, so jq scripts written
// for the mcap CLI keep working: message is data, log_time and
// publish_time are decimal seconds with nine digits
// (1714564800.000000001) instead of integer ns, sequence is as above, and
// there is no type.
var NDJSONShapes = []string{"baglab", "mcap"}

// ErrLineOption is the cause of NDJSON fields or a shape WriteNDJSON
// does not know.
var ErrLineOption = errors.New("NDJSON line")

// envelope renders the part of a line before the message.
type envelope struct {
	mcap   bool
	fields []string
}

// envelope checks the options' fields and shape.
func (o NDJSONOptions) envelope() (envelope, error) {
	e := envelope{mcap: o.Shape == "mcap"}
	if o.Shape != "" && !slices.Contains(NDJSONShapes, o.Shape) {
		return e, fmt.Errorf("%w: shape %q (want %s)", ErrLineOption, o.Shape, strings.Join(NDJSONShapes, " or "))
	}
	for _, f := range o.Fields {
		if !slices.Contains(NDJSONFields, f) {
			return e, fmt.Errorf("%w: field %q (want %s)", ErrLineOption, f, strings.Join(NDJSONFields, ", "))
		}
		if e.mcap {
			return e, fmt.Errorf("%w: the mcap shape has its fields already (sequence, log_time, publish_time)", ErrLineOption)
		}
		if !slices.Contains(e.fields, f) {
			e.fields = append(e.fields, f)
		}
	}
	return e, nil
}

// CheckNDJSON reports whether o's fields and shape are valid (an error
// wrapping ErrLineOption otherwise), so that a command can refuse them
// before it reads anything.
func CheckNDJSON(o NDJSONOptions) error {
	_, err := o.envelope()
	return err
}

// appendHead appends the line's envelope up to the message's opening key.
func (e envelope) appendHead(b []byte, m *record.Message) []byte {
	ch := m.Channel
	b = append(b, `{"topic":`...)
	b = sink.AppendJSONString(b, ch.Topic)
	if e.mcap {
		b = append(b, `,"sequence":`...)
		b = strconv.AppendUint(b, m.Sequence, 10)
		b = append(b, `,"log_time":`...)
		b = appendDecimalTime(b, m.LogTime)
		b = append(b, `,"publish_time":`...)
		b = appendDecimalTime(b, m.PublishTime)
		return append(b, `,"data":`...)
	}
	b = append(b, `,"type":`...)
	b = sink.AppendJSONString(b, TypeName(ch))
	b = append(b, `,"log_time_ns":`...)
	b = strconv.AppendInt(b, m.LogTime, 10)
	for _, f := range e.fields {
		switch f {
		case "publish_time":
			b = append(b, `,"publish_time_ns":`...)
			b = strconv.AppendInt(b, m.PublishTime, 10)
		case "sequence":
			b = append(b, `,"sequence":`...)
			b = strconv.AppendUint(b, m.Sequence, 10)
		case "source":
			b = append(b, `,"source":`...)
			b = sink.AppendJSONString(b, m.Source)
		}
	}
	return append(b, `,"message":`...)
}

// appendDecimalTime appends ns as decimal seconds with nine digits
// (1714564800.000000001), as the mcap CLI writes times.
func appendDecimalTime(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = uint64(-ns)
	}
	b = strconv.AppendUint(b, u/1e9, 10)
	frac := strconv.FormatUint(u%1e9, 10)
	b = append(b, '.')
	b = append(b, "000000000"[len(frac):]...)
	return append(b, frac...)
}
