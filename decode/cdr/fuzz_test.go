package cdr

import (
	"errors"
	"testing"

	"github.com/baglab/baglab/decode/record"
	"github.com/baglab/baglab/decode/sink"
)

// FuzzDecode decodes arbitrary bytes with the decoders of every golden type.
// Errors must be *record.Error; whatever decodes must survive an
// encode/decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	var decs []*Decoder
	index := map[string]uint8{}
	for _, c := range loadGolden(f) {
		i, ok := index[c.Type]
		if !ok {
			i = uint8(len(decs))
			index[c.Type] = i
			decs = append(decs, mustCompile(f, c.t))
		}
		f.Add(i, c.data)
	}
	f.Fuzz(func(t *testing.T, i uint8, data []byte) {
		d := decs[int(i)%len(decs)]
		if err := d.Decode(data, sink.Discard); err != nil {
			var e *record.Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(data))+8 {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		v, err := d.DecodeValue(data)
		if err != nil {
			t.Fatalf("Decode succeeded, DecodeValue failed: %v", err)
		}
		be := len(data) > 1 && data[1] == reprCDRBE
		enc, err := Encode(v, be)
		if err != nil {
			return // over-bound data decodes but does not encode
		}
		again, err := d.DecodeValue(enc)
		if err != nil || !equalValue(again, v) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
