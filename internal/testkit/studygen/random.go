package studygen

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// Random fills a value of type t with seeded random contents: numbers over
// their whole range, short strings, arrays of up to maxLen elements (fixed
// arrays full), times within a day of base.
func Random(t *msgdef.Type, rng *rand.Rand, base int64) *value.Struct {
	return randomStruct(t, rng, base, 0)
}

const maxLen = 3

func randomStruct(t *msgdef.Type, rng *rand.Rand, base int64, depth int) *value.Struct {
	s := &value.Struct{Type: t, Fields: make([]any, len(t.Fields))}
	for i := range t.Fields {
		s.Fields[i] = randomField(&t.Fields[i], rng, base, depth)
	}
	return s
}

func randomField(f *msgdef.Field, rng *rand.Rand, base int64, depth int) any {
	if f.Array == msgdef.Scalar {
		return randomElem(f, rng, base, depth)
	}
	n := f.Len
	if f.Array == msgdef.Sequence {
		limit := maxLen
		if depth > 2 {
			limit = 1
		}
		if f.Len > 0 && f.Len < limit {
			limit = f.Len
		}
		n = rng.IntN(limit + 1)
	}
	if f.IsBlob() {
		if f.Array == msgdef.Sequence {
			n = rng.IntN(24)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	out := make([]any, n)
	for i := range out {
		out[i] = randomElem(f, rng, base, depth)
	}
	return out
}

var words = []string{"cup", "plate", "table", "kitchen", "robot", "grasp", "tasse 🍵", "näpfchen", "a \"quoted\" word", "tab\tand\nnewline", ""}

func randomElem(f *msgdef.Field, rng *rand.Rand, base int64, depth int) any {
	switch f.Kind {
	case msgdef.Bool:
		return rng.IntN(2) == 1
	case msgdef.Int8:
		return int64(int8(rng.Uint32()))
	case msgdef.Int16:
		return int64(int16(rng.Uint32()))
	case msgdef.Int32:
		return int64(int32(rng.Uint32()))
	case msgdef.Int64:
		return int64(rng.Uint64())
	case msgdef.Uint8:
		return uint64(uint8(rng.Uint32()))
	case msgdef.Uint16:
		return uint64(uint16(rng.Uint32()))
	case msgdef.Uint32:
		return uint64(rng.Uint32())
	case msgdef.Uint64:
		return rng.Uint64()
	case msgdef.Float32:
		return float64(float32(rng.NormFloat64() * 100))
	case msgdef.Float64:
		return math.Round(rng.NormFloat64()*1e6) / 1e3
	case msgdef.String, msgdef.WString:
		s := words[rng.IntN(len(words))]
		if f.StringBound > 0 && len(s) > f.StringBound {
			s = strings.ToValidUTF8(s[:f.StringBound], "")
		}
		return s
	case msgdef.Time:
		ns := base + rng.Int64N(86400e9)
		return value.Time{Sec: ns / 1e9, Nsec: ns % 1e9}
	case msgdef.Duration:
		return value.Duration{Sec: int64(rng.IntN(200)) - 100, Nsec: int64(rng.IntN(1e9))}
	case msgdef.Struct:
		return randomStruct(f.Msg, rng, base, depth+1)
	}
	return nil
}
