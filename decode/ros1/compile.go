package ros1

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
)

// opcode is one step of a plan.
type opcode uint8

const (
	opBool opcode = iota
	opInt8
	opUint8
	opInt16
	opUint16
	opInt32
	opUint32
	opInt64
	opUint64
	opFloat32
	opFloat64
	opTime     // time or duration (o.f.Kind tells which)
	opBegin    // BeginStruct of a nested message flattened into this plan
	opEnd      // EndStruct of it
	opFixedArr // T[N] of a fixed-size primitive other than a blob
	opFixedBlob
	opString
	opFixedStrings
	opFixedStructs
	opSeqBlob
	opSeqArr // T[] of a fixed-size primitive other than a blob
	opSeqStrings
	opSeqStructs
)

// op is one instruction: a field (or the start/end of a nested message
// whose fields follow inline).
type op struct {
	code opcode
	// elem is the element kind of primitive arrays.
	elem msgdef.Kind
	// size is the wire size of a fixed-size op, 0 otherwise.
	size int
	// run is set on the first op of a run of fixed-size ops: the total size
	// of the run, checked once before the run is decoded.
	run int
	// n is the length of a fixed array, or the bound of a bounded sequence
	// (0 = unbounded).
	n   int
	f   *msgdef.Field
	sub *plan
	// path is the field path relative to the plan ("pose.position.x"),
	// used only to report errors.
	path string
}

// plan decodes one message type. Nested scalar messages are flattened into
// the parent's op list; arrays of messages point at their element's plan.
type plan struct {
	t   *msgdef.Type
	ops []op
	// min is the smallest wire size of a message of this type.
	min int
}

// Decoder decodes ROS1 messages of one type. Its plan is immutable after
// Compile, and it is safe for concurrent use.
type Decoder struct {
	t    *msgdef.Type
	root *plan
	// invalid counts the messages decoded with strings that are not valid
	// UTF-8 (InvalidUTF8)
	invalid atomic.Int64
	// toCDR is ToCDR's, compiled on first use
	toCDR struct {
		once sync.Once
		t    *ToCDR
	}
}

// Type returns the type the decoder was compiled from.
func (d *Decoder) Type() *msgdef.Type { return d.t }

// Compile builds the decoding plan for t. It fails on definitions that
// cannot be ROS1 (wstring, unresolved or recursive message fields).
func Compile(t *msgdef.Type) (*Decoder, error) {
	if t == nil {
		return nil, fmt.Errorf("ros1: compile: nil type")
	}
	c := compiler{plans: map[*msgdef.Type]*plan{}, active: map[*msgdef.Type]bool{}}
	root, err := c.plan(t)
	if err != nil {
		return nil, err
	}
	return &Decoder{t: t, root: root}, nil
}

type compiler struct {
	plans  map[*msgdef.Type]*plan
	active map[*msgdef.Type]bool // types being compiled, to catch recursion
}

func (c *compiler) plan(t *msgdef.Type) (*plan, error) {
	if p := c.plans[t]; p != nil {
		return p, nil
	}
	p := &plan{t: t}
	if err := c.flatten(t, "", &p.ops); err != nil {
		return nil, err
	}
	setRuns(p.ops)
	for i := range p.ops {
		p.min = satAdd(p.min, minSize(&p.ops[i]))
	}
	c.plans[t] = p
	return p, nil
}

func (c *compiler) flatten(t *msgdef.Type, prefix string, ops *[]op) error {
	if c.active[t] {
		return compileErr(t, prefix, "recursive message type")
	}
	c.active[t] = true
	defer delete(c.active, t)
	for i := range t.Fields {
		f := &t.Fields[i]
		path := f.Name
		if prefix != "" {
			path = prefix + "." + f.Name
		}
		o := op{f: f, path: path, elem: f.Kind}
		if f.Kind == msgdef.Struct && f.Msg == nil {
			return compileErr(t, path, "unresolved type "+f.TypeName)
		}
		if f.Array == msgdef.Fixed {
			o.n = f.Len
		} else if f.Array == msgdef.Sequence {
			o.n = f.Len // bound, 0 = none
		}
		switch {
		case f.Kind == msgdef.WString:
			return compileErr(t, path, "wstring is not a ROS1 type")
		case f.Kind == msgdef.Invalid || f.Kind > msgdef.Struct:
			return compileErr(t, path, "invalid kind")
		case f.Array == msgdef.Scalar && f.Kind == msgdef.Struct:
			*ops = append(*ops, op{code: opBegin, f: f, path: path})
			if err := c.flatten(f.Msg, path, ops); err != nil {
				return err
			}
			*ops = append(*ops, op{code: opEnd, f: f, path: path})
			continue
		case f.Array == msgdef.Scalar && f.Kind == msgdef.String:
			o.code = opString
		case f.Array == msgdef.Scalar:
			o.code = scalarOps[f.Kind]
			o.size = f.Kind.Size()
		case f.IsBlob() && f.Array == msgdef.Fixed:
			o.code = opFixedBlob
			o.size = f.Len
		case f.IsBlob():
			o.code = opSeqBlob
		case f.Kind == msgdef.Struct:
			if c.active[f.Msg] {
				return compileErr(t, path, "recursive message type")
			}
			sub, err := c.plan(f.Msg)
			if err != nil {
				return err
			}
			o.sub = sub
			o.code = opSeqStructs
			if f.Array == msgdef.Fixed {
				o.code = opFixedStructs
			}
		case f.Kind == msgdef.String:
			o.code = opSeqStrings
			if f.Array == msgdef.Fixed {
				o.code = opFixedStrings
			}
		case f.Array == msgdef.Fixed:
			o.code = opFixedArr
			o.size = satMul(f.Len, f.Kind.Size())
		default:
			o.code = opSeqArr
		}
		if f.Array == msgdef.Fixed && f.Len < 0 {
			return compileErr(t, path, "negative array length")
		}
		*ops = append(*ops, o)
	}
	return nil
}

// scalarOps maps the fixed-size kinds to their scalar opcode (strings and
// messages are handled before the table is used).
var scalarOps = [...]opcode{
	msgdef.Bool: opBool, msgdef.Int8: opInt8, msgdef.Uint8: opUint8,
	msgdef.Int16: opInt16, msgdef.Uint16: opUint16, msgdef.Int32: opInt32,
	msgdef.Uint32: opUint32, msgdef.Int64: opInt64, msgdef.Uint64: opUint64,
	msgdef.Float32: opFloat32, msgdef.Float64: opFloat64,
	msgdef.Time: opTime, msgdef.Duration: opTime,
}

// fixed reports whether o always takes o.size bytes, so that a run of such
// ops can be bounds-checked once.
func (o *op) fixed() bool {
	switch o.code {
	case opString, opFixedStrings, opFixedStructs, opSeqBlob, opSeqArr, opSeqStrings, opSeqStructs:
		return false
	}
	return true
}

// setRuns marks the first op of each run of fixed-size ops with the run's
// total size.
func setRuns(ops []op) {
	for i := 0; i < len(ops); {
		if !ops[i].fixed() {
			i++
			continue
		}
		j, total := i, 0
		for ; j < len(ops) && ops[j].fixed(); j++ {
			total = satAdd(total, ops[j].size)
		}
		ops[i].run = total
		i = j
	}
}

// minSize is the smallest number of bytes o can take on the wire.
func minSize(o *op) int {
	switch o.code {
	case opString, opSeqBlob, opSeqArr, opSeqStrings, opSeqStructs:
		return 4
	case opFixedStrings:
		return satMul(o.n, 4)
	case opFixedStructs:
		return satMul(o.n, o.sub.min)
	}
	return o.size
}

// maxSize caps sizes computed from hostile definitions (huge fixed arrays);
// no message can be that long, so a capped size still fails every check.
const maxSize = math.MaxInt32 * 4

func satAdd(a, b int) int {
	if a+b > maxSize {
		return maxSize
	}
	return a + b
}

func satMul(a, b int) int {
	if a != 0 && b > maxSize/a {
		return maxSize
	}
	return a * b
}

func compileErr(t *msgdef.Type, path, msg string) error {
	return &record.Error{Offset: -1, Field: path, Err: record.ErrUnsupported,
		Detail: fmt.Sprintf("ros1: compile %s: %s", t.Name, msg)}
}
