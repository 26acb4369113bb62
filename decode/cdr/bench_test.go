package cdr

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
)

// benchCases are a realistic remap Query request and a message holding a
// large sequence of strings.
func benchCases(b *testing.B) []struct {
	name string
	d    *Decoder
	data []byte
} {
	text, err := os.ReadFile(filepath.Join(goldenDir, "remap_msgs__Query_Request.r1.msg"))
	if err != nil {
		b.Fatal(err)
	}
	q := mustType(b, "remap_msgs/Query_Request", string(text))
	dur := q.Field("duration").Msg
	qv := &value.Struct{Type: q, Fields: []any{
		[]any{"?obj rdf:type oro:Cup", "?obj oro:isOn ?table", "?table rdf:type oro:Table", "?obj oro:hasColor ?c", "?c owl:sameAs oro:red"},
		[]any{"?obj", "?table"}, []any{"default"}, true,
		&value.Struct{Type: dur, Fields: []any{int64(10), uint64(0)}},
		&value.Struct{Type: dur, Fields: []any{int64(0), uint64(500000000)}},
		true, "query-000042"}}
	strs := mustType(b, "t/Strings", "string[] items\nuint32 n\n")
	items := make([]any, 10000)
	for i := range items {
		items[i] = fmt.Sprintf("item %d: %s", i, "the quick brown fox"[:i%19])
	}
	sv := &value.Struct{Type: strs, Fields: []any{items, uint64(len(items))}}
	var out []struct {
		name string
		d    *Decoder
		data []byte
	}
	for _, c := range []struct {
		name string
		t    *msgdef.Type
		v    *value.Struct
	}{{"QueryRequest", q, qv}, {"StringSeq10k", strs, sv}} {
		data, err := Encode(c.v, false)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, struct {
			name string
			d    *Decoder
			data []byte
		}{c.name, mustCompile(b, c.t), data})
	}
	return out
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name+"/nop", func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			var s sink.Sink = sink.Discard
			for b.Loop() {
				if err := c.d.Decode(c.data, s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/value", func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.d.DecodeValue(c.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range benchCases(b) {
		v, err := c.d.DecodeValue(c.data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			buf := make([]byte, 0, len(c.data))
			for b.Loop() {
				if buf, err = AppendEncode(buf[:0], v, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
