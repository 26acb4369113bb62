// Package deffuzz holds what the fuzz targets over message definitions
// share (export FuzzSchema, ros1 and cdr FuzzDefinition): seed
// definitions with the shapes that have broken decoders and writers
// before, the reading of a fuzzed definition (bounded in size, so that a
// definition of huge arrays does not stall the fuzzer), and the check of a
// generated message.
package deffuzz

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

const sep = "================================================================================\n"

// Seeds returns seed definitions for dialect d: zero-length fixed arrays
// (of primitives, blobs and messages), blobs, strings and time arrays,
// nested and empty messages, constants, and for ROS2 bounded arrays and
// strings and wstring.
func Seeds(d msgdef.Dialect) []string {
	if d == msgdef.ROS2 {
		return []string{
			"int32[0] none\nint32 x\n",
			"uint8[<=3] b\nuint8[3] c\nbyte[] d\nbool[0] e\nchar c2\nwstring w\nstring<=5 s\n",
			"string[2] names\nbuiltin_interfaces/Time[] stamps\nfloat64[9] cov\n" + sep + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
			"a/P[] ps\na/P[<=2] few\nint8 X=3\n" + sep + "MSG: a/P\nfloat64 x\na/Q[2] qs\n" + sep + "MSG: a/Q\nstring s\nint16[] v\n",
			"a/E e\na/E[] es\n" + sep + "MSG: a/E\n",
		}
	}
	return []string{
		"int32[0] none\nint32 x\n",
		"uint8[0] b\nuint8[3] c\nuint8[] d\nbool[0] e\nchar c2\nbyte b2\n",
		"string[2] names\ntime[] stamps\nduration d\nfloat64[9] cov\n",
		"a/P[] ps\na/P[0] none\nint8 X=3\nstring S=a b\n" + sep + "MSG: a/P\nfloat64 x\na/Q[2] qs\n" + sep + "MSG: a/Q\nstring s\nint16[] v\n",
		"Header header\n" + sep + "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n",
		"a/E e\na/E[] es\n" + sep + "MSG: a/E\n",
	}
}

// Parse reads a fuzzed definition def of a type name in a schema encoding
// (ros1msg, ros2msg: msgdef.FromSchema), names it does not define taken
// from the registry of known types. It reports false, for the target to
// skip the input, when def does not parse or a message of it can hold
// more than 4096 values (maxValues with sequences of 3).
func Parse(name, encoding, def string) (*msgdef.Type, bool) {
	t, err := msgdef.FromSchema(name, encoding, []byte(def), msgdef.Default())
	if err != nil || maxValues(t, 3, 0) > 1<<12 {
		return nil, false
	}
	return t, true
}

// maxValues is about how many values a message of t holds at most when
// fixed and bounded arrays are at their length and other sequences have
// seq elements; types nested deeper than 32 count as huge.
func maxValues(t *msgdef.Type, seq, depth int) int {
	if depth > 32 {
		return 1 << 30
	}
	n := 0
	for i := range t.Fields {
		f := &t.Fields[i]
		each := 1
		if f.Kind == msgdef.Struct && f.Msg != nil {
			// an element of an empty message counts too: decoders bound
			// how many of those a message may hold
			each = max(maxValues(f.Msg, seq, depth+1), 1)
		}
		switch {
		case f.Array == msgdef.Scalar:
		case f.Len > 0:
			each *= f.Len
		default:
			each *= seq
		}
		n += max(each, 1)
		if n > 1<<20 {
			return n
		}
	}
	return n
}

// Decoder is what the ROS1 and CDR decoders share.
type Decoder interface {
	Decode(data []byte, s sink.Sink) error
}

// CheckMessage decodes data, a message generated for the type of def,
// with d: it must decode to valid JSON, and cut by a byte it must give a
// *record.Error (or, with cutMayDecode, decode: CDR may end in padding).
func CheckMessage(t testing.TB, def string, d Decoder, data []byte, cutMayDecode bool) {
	t.Helper()
	w := sink.NewJSONWriter()
	if err := d.Decode(data, w); err != nil {
		t.Fatalf("decode a message of %q: %v", def, err)
	}
	if !json.Valid(w.JSON()) {
		t.Fatalf("%q: invalid JSON %s", def, w.JSON())
	}
	if len(data) == 0 {
		return
	}
	w.Reset()
	var re *record.Error
	err := d.Decode(data[:len(data)-1], w)
	if (err == nil && !cutMayDecode) || (err != nil && !errors.As(err, &re)) {
		t.Fatalf("%q: a message cut by a byte: %v", def, err)
	}
}
