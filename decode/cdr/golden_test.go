package cdr

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// TestGolden decodes every fixture written by @foxglove/rosmsg2-serialization
// and compares with the peer's own decoding, through the sink and through the
// value tree, then checks that Encode reproduces the peer's bytes (or, for
// strings that were not UTF-8, a message that reads the same).
func TestGolden(t *testing.T) {
	for _, c := range loadGolden(t) {
		t.Run(c.Name, func(t *testing.T) {
			d, err := Compile(c.t)
			if err != nil {
				t.Fatal(err)
			}
			var s treeSink
			if err := d.Decode(c.data, &s); err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(any(s.root), c.want) {
				t.Fatalf("sink mismatch\n got %s\nwant %s", js(s.root), js(c.want))
			}
			v, err := d.DecodeValue(c.data)
			if err != nil {
				t.Fatalf("DecodeValue: %v", err)
			}
			if got := valueJSON(v); !reflect.DeepEqual(any(got), c.want) {
				t.Fatalf("value mismatch\n got %s\nwant %s", js(got), js(c.want))
			}
			enc, err := Encode(v, c.BigEndian)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if d.InvalidUTF8() > 0 {
				// Strings that were not UTF-8 encode as they read, with
				// U+FFFD: the bytes differ, the message reads the same.
				if d.CheckUTF8(c.data) == nil || d.CheckUTF8(enc) != nil {
					t.Fatalf("CheckUTF8 %v of the peer's bytes, %v of the encoded", d.CheckUTF8(c.data), d.CheckUTF8(enc))
				}
				if again, err := d.DecodeValue(enc); err != nil || !reflect.DeepEqual(any(valueJSON(again)), c.want) {
					t.Fatalf("the encoded message reads %s (%v)", js(valueJSON(again)), err)
				}
				return
			}
			if !bytes.Equal(enc, c.data) {
				t.Fatalf("Encode differs from the peer's bytes\n got % x\nwant % x", enc, c.data)
			}
		})
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestGoldenCoverage keeps the corpus honest: the types the brief names are there.
func TestGoldenCoverage(t *testing.T) {
	seen := map[string]bool{}
	be := 0
	for _, c := range loadGolden(t) {
		seen[c.Type] = true
		if c.BigEndian {
			be++
		}
	}
	for _, name := range []string{
		"remap_msgs/Query_Request", "remap_msgs/Query_Response", "remap_msgs/Query_Event",
		"remap_msgs/AddPlugin_Request", "remap_msgs/AddPlugin_Response", "remap_msgs/AddPlugin_Event",
		"remap_msgs/RemovePlugin_Request", "remap_msgs/RemovePlugin_Response", "remap_msgs/RemovePlugin_Event",
		"remap_msgs/RemoveQuery_Request", "remap_msgs/RemoveQuery_Response", "remap_msgs/RemoveQuery_Event",
		"builtin_interfaces/Time", "builtin_interfaces/Duration", "service_msgs/ServiceEventInfo",
		"cdr_test/AllPrimitives", "cdr_test/NestedStrings", "cdr_test/StructsWithStrings", "cdr_test/Bounded",
		"cdr_test/Fixed", "cdr_test/NestedAlign", "cdr_test/Empties", "cdr_test/Times", "cdr_test/Utf8",
		"cdr_test/Align_int64_7", "cdr_test/Align_float64_1", "cdr_test/Align_int16_1",
	} {
		if !seen[name] {
			t.Errorf("no golden case for %s", name)
		}
	}
	if be < 10 {
		t.Errorf("only %d big-endian cases", be)
	}
}

// TestTruncated cuts every fixture at every byte: always an error, never a
// panic, and always one of the sentinels a short buffer can cause.
func TestTruncated(t *testing.T) {
	s := sink.Discard
	for _, c := range loadGolden(t) {
		d, err := Compile(c.t)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(c.data); i++ {
			err := d.Decode(c.data[:i], s)
			var e *record.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s cut at %d: got %v, want a *record.Error", c.Name, i, err)
			}
			if !errors.Is(err, record.ErrTruncated) && !errors.Is(err, record.ErrLength) {
				t.Fatalf("%s cut at %d: %v", c.Name, i, err)
			}
			if e.Offset < 0 || e.Offset > int64(len(c.data)) {
				t.Fatalf("%s cut at %d: offset %d", c.Name, i, e.Offset)
			}
			if _, err := d.DecodeValue(c.data[:i]); err == nil {
				t.Fatalf("%s cut at %d: DecodeValue succeeded", c.Name, i)
			}
		}
	}
}
