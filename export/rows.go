package export

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/record"
)

// Decoder pushes the fields of one encoded message into a sink, in schema
// order. The ROS1 and CDR codecs' compiled decoders satisfy it; DecoderFunc
// adapts a function (a value tree replayer, a test double).
type Decoder interface {
	Decode(data []byte, s sink.Sink) error
}

// DecoderFunc adapts a function to the Decoder interface.
type DecoderFunc func(data []byte, s sink.Sink) error

// Decode calls f(data, s).
func (f DecoderFunc) Decode(data []byte, s sink.Sink) error { return f(data, s) }

// Meta is the per-row meta data: the meta columns' values.
type Meta struct {
	// LogTime and PublishTime are ns since the Unix epoch.
	LogTime, PublishTime int64
	// Sequence is record.Message.Sequence.
	Sequence uint64
	// Source is the path of the file the message came from.
	Source string
	// Unverified is set when no CRC vouches for the message (the
	// unverified column, where the rows have one).
	Unverified bool
}

// MetaOf returns the meta data of a recorded message.
func MetaOf(m *record.Message) Meta {
	return Meta{LogTime: m.LogTime, PublishTime: m.PublishTime, Sequence: m.Sequence, Source: m.Source, Unverified: m.Unverified}
}

// errEvents is the cause when a decoder's events do not follow the type.
var errEvents = errors.New("decoder events do not match the message type")

// RowBuilder appends decoded messages of one type as rows of Arrow arrays.
// The builder tree is compiled once from the type; appending a message
// walks the decoder's events positionally, with no name look-ups.
//
// A message that fails to decode (or whose events do not match the type)
// leaves no row: Append returns the error and NewRecordBatch leaves the partial
// row out. A RowBuilder is not safe for concurrent use.
type RowBuilder struct {
	root   *rootPlan
	schema *arrow.Schema
	mem    memory.Allocator
	rb     *array.RecordBuilder
	logT   *array.TimestampBuilder
	pubT   *array.TimestampBuilder
	seq    *array.Uint64Builder
	src    *array.StringBuilder
	unv    *array.BooleanBuilder // nil without the unverified column
	c      consumer
	blobs  []*array.BinaryBuilder // blob builders, re-reserved after each record
	rows   int
	bytes  int64
	bad    []int // indices of partial rows to leave out, ascending
}

// NewRowBuilder compiles a RowBuilder for messages of type t. mem may be
// nil (the Go allocator).
func NewRowBuilder(mem memory.Allocator, t *msgdef.Type) (*RowBuilder, error) {
	root, err := compilePlan(t)
	if err != nil {
		return nil, err
	}
	return newRowBuilder(mem, root), nil
}

func newRowBuilder(mem memory.Allocator, root *rootPlan) *RowBuilder {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	b := &RowBuilder{root: root, schema: root.schema(), mem: mem}
	b.rb = array.NewRecordBuilder(mem, b.schema)
	b.logT = b.rb.Field(0).(*array.TimestampBuilder)
	b.pubT = b.rb.Field(1).(*array.TimestampBuilder)
	b.seq = b.rb.Field(2).(*array.Uint64Builder)
	b.src = b.rb.Field(3).(*array.StringBuilder)
	top := &node{plan: root.plan}
	col := 4
	if root.unverified != "" {
		b.unv = b.rb.Field(col).(*array.BooleanBuilder)
		col++
	}
	for _, p := range root.plan.fields {
		if p.kind == kSkip {
			top.fields = append(top.fields, bind(p, nil, &b.c))
			continue
		}
		top.fields = append(top.fields, bind(p, b.rb.Field(col), &b.c))
		col++
	}
	b.c.root = top
	b.blobs = blobBuilders(top, nil)
	return b
}

// blobBuilders lists the builders of n's blob columns.
func blobBuilders(n *node, out []*array.BinaryBuilder) []*array.BinaryBuilder {
	if n.plan.kind == kBinary {
		return append(out, n.b.(*array.BinaryBuilder))
	}
	for _, f := range n.fields {
		out = blobBuilders(f, out)
	}
	if n.elem != nil {
		out = blobBuilders(n.elem, out)
	}
	return out
}

// Schema returns the schema of the records built.
func (b *RowBuilder) Schema() *arrow.Schema { return b.schema }

// Type returns the message type the builder was compiled for.
func (b *RowBuilder) Type() *msgdef.Type { return b.root.t }

// Len returns the number of rows appended since the last NewRecordBatch, partial
// rows of failed messages included.
func (b *RowBuilder) Len() int { return b.rows }

// Bytes estimates the memory held by the rows appended since the last
// NewRecordBatch (value bytes plus offsets), for flushing at a bounded size.
func (b *RowBuilder) Bytes() int64 { return b.bytes }

// Append decodes data with d and appends it as one row with meta data m. On
// error no row is added (see RowBuilder) and the error is returned; when
// the error is a decoder's it is returned as is.
func (b *RowBuilder) Append(m Meta, d Decoder, data []byte) error {
	b.logT.Append(arrow.Timestamp(m.LogTime))
	b.pubT.Append(arrow.Timestamp(m.PublishTime))
	b.seq.Append(m.Sequence)
	b.src.Append(m.Source)
	if b.unv != nil {
		b.unv.Append(m.Unverified)
	}
	row := b.rows
	b.rows++
	c := &b.c
	c.start(b.root.t)
	err := d.Decode(data, c)
	b.bytes += 28 + int64(len(m.Source)) + c.bytes
	if err == nil && c.err == nil && !c.done {
		c.fail(c.root.plan, "message ended early")
	}
	if err == nil {
		err = c.err
	}
	if err != nil {
		c.pad()
		b.bad = append(b.bad, row)
		return err
	}
	return nil
}

// NewRecordBatch returns the rows appended so far as a record and resets the
// builder. Partial rows of failed messages are left out (copying the good
// rows; the error is an allocation failure of that copy). The caller
// releases the record.
func (b *RowBuilder) NewRecordBatch() (arrow.RecordBatch, error) {
	// Large blob columns (point clouds, images) get their next buffer at
	// the size this one reached, rather than growing it by doubling.
	var sizes []int
	for _, bb := range b.blobs {
		sizes = append(sizes, bb.DataLen())
	}
	rec := b.rb.NewRecordBatch()
	for i, bb := range b.blobs {
		if sizes[i] >= 1<<20 {
			bb.ReserveData(sizes[i])
		}
	}
	bad := b.bad
	b.rows, b.bytes, b.bad = 0, 0, b.bad[:0]
	if len(bad) == 0 {
		return rec, nil
	}
	defer rec.Release()
	return dropRows(b.mem, rec, bad)
}

// Release frees the builders.
func (b *RowBuilder) Release() { b.rb.Release() }

// dropRows returns rec without the rows at the ascending indices in drop.
func dropRows(mem memory.Allocator, rec arrow.RecordBatch, drop []int) (arrow.RecordBatch, error) {
	var parts []arrow.RecordBatch
	start := int64(0)
	for _, i := range append(drop, int(rec.NumRows())) {
		if int64(i) > start {
			parts = append(parts, rec.NewSlice(start, int64(i)))
		}
		start = int64(i) + 1
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	cols := make([]arrow.Array, 0, rec.NumCols())
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	var rows int64
	for _, p := range parts {
		rows += p.NumRows()
	}
	for c := 0; c < int(rec.NumCols()); c++ {
		if len(parts) == 0 {
			bld := array.NewBuilder(mem, rec.Schema().Field(c).Type)
			cols = append(cols, bld.NewArray())
			bld.Release()
			continue
		}
		chunks := make([]arrow.Array, len(parts))
		for i, p := range parts {
			chunks[i] = p.Column(c)
		}
		a, err := array.Concatenate(chunks, mem)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return array.NewRecordBatch(rec.Schema(), cols, rows), nil
}

// node is a plan bound to its Arrow builder.
type node struct {
	plan   *plan
	b      array.Builder // nil for kSkip and the root
	fields []*node       // struct members, stamp [sec, nanosec]
	elem   *node

	// typed appenders, set by bind for the node's kind
	onBool  func(bool)
	onInt   func(int64)
	onUint  func(uint64)
	onFloat func(float64)
	onBytes func([]byte)
	onTime  func(ns int64)
}

// bind creates the node tree for p over builder b (nil for kSkip).
func bind(p *plan, b array.Builder, c *consumer) *node {
	n := &node{plan: p, b: b}
	switch p.kind {
	case kSkip:
		for _, f := range p.fields {
			n.fields = append(n.fields, bind(f, nil, c))
		}
		if p.elem != nil {
			n.elem = bind(p.elem, nil, c)
		}
	case kBool:
		bb := b.(*array.BooleanBuilder)
		n.onBool = bb.Append
	case kInt:
		switch bb := b.(type) {
		case *array.Int8Builder:
			n.onInt = func(v int64) { bb.Append(int8(v)) }
		case *array.Int16Builder:
			n.onInt = func(v int64) { bb.Append(int16(v)) }
		case *array.Int32Builder:
			n.onInt = func(v int64) { bb.Append(int32(v)) }
		case *array.Int64Builder:
			n.onInt = bb.Append
		}
	case kUint:
		switch bb := b.(type) {
		case *array.Uint8Builder:
			n.onUint = func(v uint64) { bb.Append(uint8(v)) }
		case *array.Uint16Builder:
			n.onUint = func(v uint64) { bb.Append(uint16(v)) }
		case *array.Uint32Builder:
			n.onUint = func(v uint64) { bb.Append(uint32(v)) }
		case *array.Uint64Builder:
			n.onUint = bb.Append
		}
	case kFloat32:
		bb := b.(*array.Float32Builder)
		n.onFloat = func(v float64) { bb.Append(float32(v)) }
	case kFloat64:
		n.onFloat = b.(*array.Float64Builder).Append
	case kString:
		n.onBytes = b.(*array.StringBuilder).BinaryBuilder.Append
	case kBinary:
		n.onBytes = b.(*array.BinaryBuilder).Append
	case kTime, kStamp:
		bb := b.(*array.TimestampBuilder)
		n.onTime = func(ns int64) { bb.Append(arrow.Timestamp(ns)) }
	case kDuration, kSpan:
		bb := b.(*array.DurationBuilder)
		n.onTime = func(ns int64) { bb.Append(arrow.Duration(ns)) }
	case kStruct:
		sb := b.(*array.StructBuilder)
		i := 0
		for _, f := range p.fields {
			if f.kind == kSkip {
				n.fields = append(n.fields, bind(f, nil, c))
				continue
			}
			n.fields = append(n.fields, bind(f, sb.FieldBuilder(i), c))
			i++
		}
	case kList:
		n.elem = bind(p.elem, b.(*array.ListBuilder).ValueBuilder(), c)
	case kFixed:
		n.elem = bind(p.elem, b.(*array.FixedSizeListBuilder).ValueBuilder(), c)
	}
	if p.kind == kStamp || p.kind == kSpan {
		// sec and nanosec land in the consumer's registers; EndStruct
		// combines them.
		n.fields = []*node{
			{plan: p.fields[0], onInt: func(v int64) { c.sec = v }},
			{plan: p.fields[1], onUint: func(v uint64) { c.nsec = int64(v) }},
		}
	}
	return n
}

// appendNull appends one null value of n's type (padding of partial rows).
func (n *node) appendNull() {
	if n.b != nil {
		n.b.AppendNull()
	}
}

// frame is one open struct or array in the consumer's stack.
type frame struct {
	n     *node
	pos   int // next member of a struct; elements seen in an array
	array bool
	skip  int // nesting depth inside a skipped value
}

// consumer is the sink that routes a decoder's events into the node tree.
type consumer struct {
	root  *node
	stack []frame
	done  bool
	err   error
	bytes int64
	sec   int64
	nsec  int64
	t     *msgdef.Type
}

func (c *consumer) start(t *msgdef.Type) {
	c.stack = append(c.stack[:0], frame{n: c.root})
	c.done, c.err, c.bytes, c.t = false, nil, 0, t
}

// mismatch records a wrong event for node n, which next already consumed:
// n gets a null so that the partial row can be padded evenly.
func (c *consumer) mismatch(n *node, what string) {
	n.appendNull()
	c.fail(n.plan, what+" where "+n.plan.typeName()+" was expected")
}

// fail records the first mismatch between the events and the type.
func (c *consumer) fail(p *plan, what string) {
	if c.err == nil {
		path := ""
		if p != nil {
			path = p.path
		}
		c.err = &record.Error{Offset: -1, Field: path, Err: errEvents, Detail: what}
	}
}

// next returns the node receiving the next value, or nil when the events
// went wrong (c.err is set).
func (c *consumer) next(what string) *node {
	if c.err != nil {
		return nil
	}
	if len(c.stack) == 0 || c.done {
		c.fail(nil, what+" after the end of the message")
		return nil
	}
	fr := &c.stack[len(c.stack)-1]
	if fr.array {
		if fr.n.plan.kind == kFixed && fr.pos >= fr.n.plan.n {
			c.fail(fr.n.plan, fmt.Sprintf("more than %d elements", fr.n.plan.n))
			return nil
		}
		fr.pos++
		return fr.n.elem
	}
	if fr.pos >= len(fr.n.fields) {
		c.fail(fr.n.plan, what+" past the last field")
		return nil
	}
	fr.pos++
	return fr.n.fields[fr.pos-1]
}

// pad completes the partial row after an error so that every column has
// the same length; the row is then left out of the record.
func (c *consumer) pad() {
	for i := len(c.stack) - 1; i >= 0; i-- {
		fr := &c.stack[i]
		n := fr.n
		switch {
		case n.b == nil && n.plan.kind == kSkip:
		case fr.array:
			if n.plan.kind == kFixed {
				for ; fr.pos < n.plan.n; fr.pos++ {
					n.elem.appendNull()
				}
			}
		case n.plan.kind == kStamp || n.plan.kind == kSpan:
			n.appendNull()
		default: // struct or root
			for _, f := range n.fields[fr.pos:] {
				f.appendNull()
			}
		}
	}
	c.stack = c.stack[:0]
}

func (c *consumer) BeginMessage(*msgdef.Type) {}

func (c *consumer) EndMessage() {
	if c.err != nil {
		return
	}
	if len(c.stack) != 1 || c.done {
		c.fail(nil, "unbalanced EndMessage")
		return
	}
	if fr := c.stack[0]; fr.pos != len(fr.n.fields) {
		c.fail(fr.n.plan, "message ended before its last field")
		return
	}
	c.done = true
	c.stack = c.stack[:0]
}

func (c *consumer) BeginStruct(*msgdef.Field) {
	if c.inSkip() {
		return
	}
	n := c.next("struct")
	if n == nil {
		return
	}
	switch n.plan.kind {
	case kSkip:
		c.stack = append(c.stack, frame{n: n, skip: 1})
	case kStruct:
		n.b.(*array.StructBuilder).Append(true)
		c.stack = append(c.stack, frame{n: n})
	case kStamp, kSpan:
		c.sec, c.nsec = 0, 0
		c.stack = append(c.stack, frame{n: n})
	default:
		c.mismatch(n, "struct")
	}
}

func (c *consumer) EndStruct() {
	if c.err != nil {
		return
	}
	if c.leaveSkip() {
		return
	}
	fr := c.stack[len(c.stack)-1]
	if len(c.stack) < 2 || fr.array {
		c.fail(fr.n.plan, "unbalanced EndStruct")
		return
	}
	if fr.pos != len(fr.n.fields) {
		c.fail(fr.n.plan, "struct ended before its last field")
		return
	}
	c.stack = c.stack[:len(c.stack)-1]
	switch fr.n.plan.kind {
	case kStamp, kSpan:
		fr.n.onTime(c.sec*1e9 + c.nsec)
		c.bytes += 8
	}
}

func (c *consumer) BeginArray(_ *msgdef.Field, count int) {
	if c.inSkip() {
		return
	}
	n := c.next("array")
	if n == nil {
		return
	}
	switch n.plan.kind {
	case kSkip:
		c.stack = append(c.stack, frame{n: n, array: true, skip: 1})
	case kList:
		lb := n.b.(*array.ListBuilder)
		lb.Append(true)
		c.bytes += 4
		c.stack = append(c.stack, frame{n: n, array: true})
	case kFixed:
		if count != n.plan.n {
			n.appendNull()
			c.fail(n.plan, fmt.Sprintf("%d elements in an array of %d", count, n.plan.n))
			return
		}
		n.b.(*array.FixedSizeListBuilder).Append(true)
		c.stack = append(c.stack, frame{n: n, array: true})
	default:
		c.mismatch(n, "array")
	}
}

func (c *consumer) EndArray() {
	if c.err != nil {
		return
	}
	if c.leaveSkip() {
		return
	}
	fr := c.stack[len(c.stack)-1]
	if !fr.array {
		c.fail(fr.n.plan, "unbalanced EndArray")
		return
	}
	if fr.n.plan.kind == kFixed && fr.pos != fr.n.plan.n {
		c.fail(fr.n.plan, fmt.Sprintf("%d elements in an array of %d", fr.pos, fr.n.plan.n))
		return
	}
	c.stack = c.stack[:len(c.stack)-1]
}

// inSkip reports whether the events belong to a skipped value, counting a
// nested begin.
func (c *consumer) inSkip() bool {
	if c.err != nil {
		return true
	}
	if len(c.stack) > 0 {
		if fr := &c.stack[len(c.stack)-1]; fr.skip > 0 {
			fr.skip++
			return true
		}
	}
	return false
}

// leaveSkip handles an end event inside a skipped value; it pops the skip
// frame when its own end arrives.
func (c *consumer) leaveSkip() bool {
	if len(c.stack) == 0 {
		c.fail(nil, "end without begin")
		return true
	}
	fr := &c.stack[len(c.stack)-1]
	if fr.skip == 0 {
		return false
	}
	fr.skip--
	if fr.skip == 0 {
		c.stack = c.stack[:len(c.stack)-1]
	}
	return true
}

// scalar returns the node for a scalar event, or nil when it is skipped
// or wrong.
func (c *consumer) scalar(what string) *node {
	if c.inSkipScalar() {
		return nil
	}
	return c.next(what)
}

func (c *consumer) inSkipScalar() bool {
	if c.err != nil {
		return true
	}
	return len(c.stack) > 0 && c.stack[len(c.stack)-1].skip > 0
}

func (c *consumer) Bool(_ *msgdef.Field, v bool) {
	if n := c.scalar("bool"); n != nil {
		if n.onBool == nil {
			c.mismatch(n, "bool")
			return
		}
		n.onBool(v)
		c.bytes++
	}
}

func (c *consumer) Int(_ *msgdef.Field, v int64) {
	if n := c.scalar("int"); n != nil {
		if n.onInt == nil {
			c.mismatch(n, "int")
			return
		}
		n.onInt(v)
		c.bytes += int64(n.plan.width)
	}
}

func (c *consumer) Uint(_ *msgdef.Field, v uint64) {
	if n := c.scalar("uint"); n != nil {
		if n.onUint == nil {
			c.mismatch(n, "uint")
			return
		}
		n.onUint(v)
		c.bytes += int64(n.plan.width)
	}
}

func (c *consumer) Float(_ *msgdef.Field, v float64) {
	if n := c.scalar("float"); n != nil {
		if n.onFloat == nil {
			c.mismatch(n, "float")
			return
		}
		n.onFloat(v)
		c.bytes += int64(n.plan.width)
	}
}

// Null appends a null to a nullable field's column (sink.Nuller).
func (c *consumer) Null(*msgdef.Field) {
	if n := c.scalar("null"); n != nil {
		if !n.plan.nullable {
			c.mismatch(n, "null")
			return
		}
		n.appendNull()
	}
}

func (c *consumer) String(_ *msgdef.Field, v []byte) {
	if n := c.scalar("string"); n != nil {
		if n.plan.kind != kString {
			c.mismatch(n, "string")
			return
		}
		n.onBytes(v)
		c.bytes += 4 + int64(len(v))
	}
}

func (c *consumer) Bytes(_ *msgdef.Field, v []byte) {
	if n := c.scalar("bytes"); n != nil {
		if n.plan.kind != kBinary {
			c.mismatch(n, "bytes")
			return
		}
		n.onBytes(v)
		c.bytes += 4 + int64(len(v))
	}
}

func (c *consumer) Time(_ *msgdef.Field, sec, nsec int64) {
	if n := c.scalar("time"); n != nil {
		if n.plan.kind != kTime && n.plan.kind != kDuration {
			c.mismatch(n, "time")
			return
		}
		n.onTime(sec*1e9 + nsec)
		c.bytes += 8
	}
}

// typeName names p's Arrow type for error messages.
func (p *plan) typeName() string {
	if p.typ == nil {
		return "nothing"
	}
	return p.typ.String()
}
