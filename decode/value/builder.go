package value

import (
	"unsafe"

	"github.com/baglab/baglab/decode/msgdef"
)

// Builder is a sink.Sink that builds a Struct tree from the events of a
// codec. Strings and blobs are copied (the codec's slices are views), so the
// tree stays valid after the input buffer is reused. One Builder can build
// many messages in turn; each BeginMessage starts a new, independent tree.
//
// Builder allocates the tree's structs, field slices and short strings from
// small slabs it refills as needed, so a message costs a few allocations
// plus one per boxed number, string and blob. A tree keeps the slabs it was
// carved from alive (a few KB at most beyond its own size).
type Builder struct {
	root  *Struct
	stack []frame
	// slabs the trees are carved from; a slot is never handed out twice.
	structs []Struct
	anys    []any
	// text holds the bytes of short strings; bytes once written are never
	// changed, so the strings made from them stay valid.
	text []byte
}

// frame is a struct being filled (st != nil) or an array being collected.
type frame struct {
	st  *Struct
	i   int
	arr []any
}

const (
	structSlab = 64
	anySlab    = 512
	textSlab   = 4096
	// maxPrealloc caps the capacity reserved for an array from its length
	// alone; a longer array grows by append.
	maxPrealloc = 1 << 16
)

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{} }

// Result returns the tree of the last message, complete once EndMessage has
// been called; nil before the first message.
func (b *Builder) Result() *Struct { return b.root }

// BeginMessage starts a new tree of type t.
func (b *Builder) BeginMessage(t *msgdef.Type) {
	b.stack = b.stack[:0]
	b.root = b.newStruct(t)
	b.stack = append(b.stack, frame{st: b.root})
}

// EndMessage finishes the tree.
func (b *Builder) EndMessage() { b.stack = b.stack[:0] }

// BeginStruct starts a nested message.
func (b *Builder) BeginStruct(f *msgdef.Field) {
	st := b.newStruct(f.Msg)
	b.put(st)
	b.stack = append(b.stack, frame{st: st})
}

// EndStruct finishes a nested message.
func (b *Builder) EndStruct() { b.pop() }

// BeginArray starts an array of n elements.
func (b *Builder) BeginArray(_ *msgdef.Field, n int) {
	b.stack = append(b.stack, frame{arr: b.anySlice(min(n, maxPrealloc))[:0]})
}

// EndArray finishes an array.
func (b *Builder) EndArray() {
	if len(b.stack) < 2 {
		return
	}
	top := b.stack[len(b.stack)-1]
	b.stack = b.stack[:len(b.stack)-1]
	b.put(top.arr)
}

// Bool stores a bool.
func (b *Builder) Bool(_ *msgdef.Field, v bool) { b.put(v) }

// Int stores an int64.
func (b *Builder) Int(_ *msgdef.Field, v int64) { b.put(v) }

// Uint stores a uint64.
func (b *Builder) Uint(_ *msgdef.Field, v uint64) { b.put(v) }

// Float stores a float64.
func (b *Builder) Float(_ *msgdef.Field, v float64) { b.put(v) }

// String stores a copy of v as a string.
func (b *Builder) String(_ *msgdef.Field, v []byte) { b.put(b.string(v)) }

// string copies v into the text slab (long strings get their own memory).
func (b *Builder) string(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	if len(v) > textSlab/8 {
		return string(v)
	}
	if cap(b.text)-len(b.text) < len(v) {
		b.text = make([]byte, 0, textSlab)
	}
	start := len(b.text)
	b.text = append(b.text, v...)
	return unsafe.String(&b.text[start], len(v))
}

// Bytes stores a copy of a blob.
func (b *Builder) Bytes(_ *msgdef.Field, v []byte) { b.put(append([]byte{}, v...)) }

// Time stores a Time or a Duration, by f.Kind.
func (b *Builder) Time(f *msgdef.Field, sec, nsec int64) {
	if f.Kind == msgdef.Duration {
		b.put(Duration{Sec: sec, Nsec: nsec})
		return
	}
	b.put(Time{Sec: sec, Nsec: nsec})
}

// put stores v as the next field of the struct on top of the stack or the
// next element of the array there. Events beyond the type (a codec bug) are
// dropped rather than panicking.
func (b *Builder) put(v any) {
	if len(b.stack) == 0 {
		return
	}
	top := &b.stack[len(b.stack)-1]
	if top.st == nil {
		top.arr = append(top.arr, v)
		return
	}
	if top.i < len(top.st.Fields) {
		top.st.Fields[top.i] = v
		top.i++
	}
}

func (b *Builder) pop() {
	if len(b.stack) > 1 {
		b.stack = b.stack[:len(b.stack)-1]
	}
}

func (b *Builder) newStruct(t *msgdef.Type) *Struct {
	if len(b.structs) == 0 {
		b.structs = make([]Struct, structSlab)
	}
	st := &b.structs[0]
	b.structs = b.structs[1:]
	st.Type = t
	if t != nil {
		st.Fields = b.anySlice(len(t.Fields))
	}
	return st
}

// anySlice returns a zeroed []any of length and capacity n.
func (b *Builder) anySlice(n int) []any {
	if n == 0 {
		return []any{}
	}
	if n > anySlab/8 {
		return make([]any, n)
	}
	if len(b.anys) < n {
		b.anys = make([]any, anySlab)
	}
	s := b.anys[:n:n]
	b.anys = b.anys[n:]
	return s
}
