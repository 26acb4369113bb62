package ros1

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// gen fills messages with seeded random values, edge values included.
type gen struct {
	r *rand.Rand
	// special allows NaN and infinities in floats.
	special bool
	// maxSeq is the largest sequence length drawn.
	maxSeq int
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), maxSeq: 4}
}

func (g *gen) message(t *msgdef.Type, depth int) *value.Struct {
	s := value.New(t)
	for i := range t.Fields {
		s.Fields[i] = g.field(&t.Fields[i], depth)
	}
	return s
}

func (g *gen) seqLen(f *msgdef.Field, depth int) int {
	n := g.r.IntN(g.maxSeq + 1)
	if depth > 3 {
		n = g.r.IntN(2)
	}
	if f.Len > 0 && n > f.Len {
		n = f.Len
	}
	return n
}

func (g *gen) field(f *msgdef.Field, depth int) any {
	if f.Array == msgdef.Scalar {
		return g.elem(f, depth)
	}
	n := f.Len
	if f.Array == msgdef.Sequence {
		n = g.seqLen(f, depth)
		if f.IsBlob() {
			n = g.r.IntN(4 * (g.maxSeq + 1))
		}
	}
	if f.IsBlob() {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		return b
	}
	arr := make([]any, n)
	for i := range arr {
		arr[i] = g.elem(f, depth)
	}
	return arr
}

func (g *gen) pick(edges ...uint64) uint64 {
	if g.r.IntN(3) == 0 {
		return edges[g.r.IntN(len(edges))]
	}
	return g.r.Uint64()
}

func (g *gen) elem(f *msgdef.Field, depth int) any {
	switch f.Kind {
	case msgdef.Bool:
		return g.r.IntN(2) == 1
	case msgdef.Int8:
		return int64(int8(g.pick(0, 0x7f, 0x80)))
	case msgdef.Int16:
		return int64(int16(g.pick(0, 0x7fff, 0x8000)))
	case msgdef.Int32:
		return int64(int32(g.pick(0, math.MaxInt32, 1<<31)))
	case msgdef.Int64:
		return int64(g.pick(0, math.MaxInt64, 1<<63))
	case msgdef.Uint8:
		return uint64(uint8(g.pick(0, 0xff)))
	case msgdef.Uint16:
		return uint64(uint16(g.pick(0, 0xffff)))
	case msgdef.Uint32:
		return uint64(uint32(g.pick(0, math.MaxUint32)))
	case msgdef.Uint64:
		return g.pick(0, math.MaxUint64)
	case msgdef.Float32:
		return float64(float32(g.float()))
	case msgdef.Float64:
		return g.float()
	case msgdef.String, msgdef.WString:
		return g.string()
	case msgdef.Time:
		return value.Time{Sec: int64(uint32(g.pick(0, math.MaxUint32))), Nsec: int64(g.r.IntN(1e9))}
	case msgdef.Duration:
		return value.Duration{Sec: int64(int32(g.pick(0, math.MaxInt32, 1<<31))), Nsec: int64(int32(g.r.Uint32()))}
	case msgdef.Struct:
		return g.message(f.Msg, depth+1)
	}
	return nil
}

func (g *gen) float() float64 {
	switch g.r.IntN(12) {
	case 0:
		return 0
	case 1:
		if g.special {
			return math.NaN()
		}
		return -0.5
	case 2:
		if g.special {
			return math.Inf(1 - 2*g.r.IntN(2))
		}
		return 1e300
	case 3:
		return math.SmallestNonzeroFloat64
	case 4:
		return float64(g.r.IntN(2000) - 1000)
	}
	return g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(20)-10))
}

var genRunes = []rune("abcXYZ019 _/-.\"\\\n\t\x00\x1féü日本🤖\u2028")

func (g *gen) string() string {
	var sb strings.Builder
	for range g.r.IntN(12) {
		sb.WriteRune(genRunes[g.r.IntN(len(genRunes))])
	}
	return sb.String()
}
