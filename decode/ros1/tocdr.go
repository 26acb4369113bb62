package ros1

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/baglab/baglab/decode/msgdef"
)

// cdrHeaderSize is the CDR encapsulation header: alignment counts from its
// end.
const cdrHeaderSize = 4

// ToCDR copies ROS1 messages of one type into the little-endian CDR of
// the same fields (the ROS 2 type rosbags-convert makes of it), byte runs
// at a time: each field aligned to its size (a time or duration to 4, as
// the two words of builtin_interfaces Time and Duration), a string given
// its terminating NUL, a bool written 0 or 1, an empty message its one
// byte, and the first field of each HeaderType message, an unsigned scalar
// named seq, left out. That is what decoding the message into a
// cdr.Encoder writes, without a call per field, save that a float32 keeps
// its bits where a pass through float64 would quiet a signalling NaN.
// Messages it cannot copy so (see Append) are left to that slower path.
// It is safe for concurrent use.
type ToCDR struct {
	root *cdrPlan
}

// cdrCode is one step of a cdrPlan.
type cdrCode uint8

const (
	cdrCopy         cdrCode = iota // align to align, copy size bytes
	cdrBool                        // one byte, written 0 or 1
	cdrSkip                        // leave out size bytes (a Header's seq)
	cdrEmpty                       // an empty message's one byte
	cdrFixedPrims                  // n elements of size bytes, aligned to align
	cdrFixedBools                  // n bools
	cdrSeqPrims                    // count, then elements of size bytes
	cdrSeqBools                    // count, then bools
	cdrString                      // count with NUL, bytes, NUL
	cdrFixedStrings                // n strings
	cdrSeqStrings                  // count, then strings
	cdrFixedStructs                // n messages of sub
	cdrSeqStructs                  // count, then messages of sub
	cdrDecline                     // left to the slower path
)

// cdrStep is one field (or run of a field's elements) of a cdrPlan.
type cdrStep struct {
	code  cdrCode
	size  int // bytes of a copied field or element
	align int // its CDR alignment
	n     int // fixed array length, or sequence bound (0: none)
	sub   *cdrPlan
}

// cdrPlan copies one message type.
type cdrPlan struct {
	steps []cdrStep
	min   int // the smallest ROS1 size of a message (plan.min)
}

// HeaderType is ROS1's message header, whose seq ROS 2 has no place for.
const HeaderType = "std_msgs/Header"

// ToCDR returns the decoder's ToCDR, compiled on first use.
func (d *Decoder) ToCDR() *ToCDR {
	d.toCDR.once.Do(func() {
		c := cdrCompiler{plans: map[*plan]*cdrPlan{}}
		d.toCDR.t = &ToCDR{root: c.compile(d.root)}
	})
	return d.toCDR.t
}

type cdrCompiler struct {
	plans map[*plan]*cdrPlan
}

func (c *cdrCompiler) compile(p *plan) *cdrPlan {
	if cp := c.plans[p]; cp != nil {
		return cp
	}
	cp := &cdrPlan{min: p.min}
	c.plans[p] = cp
	if len(p.t.Fields) == 0 {
		cp.steps = append(cp.steps, cdrStep{code: cdrEmpty})
	}
	seqNext := p.t.Name == HeaderType // the next op is the header's first field
	for i := range p.ops {
		o := &p.ops[i]
		first := seqNext
		seqNext = false
		if first && o.f.Name == "seq" && isUintScalar(o.code) {
			cp.steps = append(cp.steps, cdrStep{code: cdrSkip, size: o.size})
			continue
		}
		s := cdrStep{size: o.size, align: o.size, n: o.n}
		switch o.code {
		case opBool:
			s.code = cdrBool
		case opInt8, opUint8, opInt16, opUint16, opInt32, opUint32, opInt64, opUint64, opFloat32, opFloat64:
			s.code = cdrCopy
		case opTime:
			s.code, s.align = cdrCopy, 4
		case opBegin:
			if len(o.f.Msg.Fields) == 0 {
				cp.steps = append(cp.steps, cdrStep{code: cdrEmpty})
			}
			seqNext = o.f.Msg.Name == HeaderType
			continue
		case opEnd:
			continue
		case opFixedBlob:
			s.code, s.size, s.align = cdrFixedPrims, 1, 1
		case opSeqBlob:
			s.code, s.size, s.align = cdrSeqPrims, 1, 1
		case opFixedArr, opSeqArr:
			s.code, s.size, s.align = cdrFixedPrims, o.elem.Size(), o.elem.Size()
			switch {
			case o.elem == msgdef.Bool && o.code == opSeqArr:
				s.code = cdrSeqBools
			case o.elem == msgdef.Bool:
				s.code = cdrFixedBools
			case o.code == opSeqArr:
				s.code = cdrSeqPrims
			}
			if o.elem == msgdef.Time || o.elem == msgdef.Duration {
				s.align = 4
			}
		case opString:
			s.code = cdrString
		case opFixedStrings:
			s.code = cdrFixedStrings
		case opSeqStrings:
			s.code = cdrSeqStrings
		case opFixedStructs, opSeqStructs:
			s.code, s.sub = cdrFixedStructs, c.compile(o.sub)
			if o.code == opSeqStructs {
				s.code = cdrSeqStructs
			}
			if o.sub.min == 0 {
				s.code = cdrDecline // elements without bytes: the decoder's budget applies
			}
		default:
			s.code = cdrDecline
		}
		cp.steps = appendStep(cp.steps, s)
	}
	return cp
}

// appendStep appends s to steps, as part of the copy before it when no
// padding can come between them: a field whose alignment divides the
// first's and its offset from it.
func appendStep(steps []cdrStep, s cdrStep) []cdrStep {
	if n := len(steps); n > 0 && s.code == cdrCopy {
		run := &steps[n-1]
		if run.code == cdrCopy && s.align <= run.align && run.size%s.align == 0 {
			run.size += s.size
			return steps
		}
	}
	return append(steps, s)
}

func isUintScalar(c opcode) bool {
	return c == opUint8 || c == opUint16 || c == opUint32 || c == opUint64
}

// Append appends the CDR of ROS1 message src (encapsulation header
// first) to dst. It reports false, with dst unchanged in length, for what
// the slower path must see to report or repair: a message that does not
// decode, a string that is not valid UTF-8, or elements of no size.
func (t *ToCDR) Append(dst, src []byte) ([]byte, bool) {
	out := cdrOut{buf: append(dst, 0, 1, 0, 0), base: len(dst) + cdrHeaderSize} // CDR_LE
	p, ok := t.root.copy(&out, src, 0)
	if !ok || p != len(src) {
		return dst, false
	}
	return out.buf, true
}

// cdrOut is the CDR being written.
type cdrOut struct {
	buf  []byte
	base int
}

func (o *cdrOut) align(n int) {
	for pad := -(len(o.buf) - o.base) & (n - 1); pad > 0; pad-- {
		o.buf = append(o.buf, 0)
	}
}

func (o *cdrOut) count(n int) {
	o.align(4)
	o.buf = binary.LittleEndian.AppendUint32(o.buf, uint32(n))
}

// copy copies one message at b[p:] and returns the offset after it.
func (cp *cdrPlan) copy(o *cdrOut, b []byte, p int) (int, bool) {
	ok := true
	for i := 0; ok && i < len(cp.steps); i++ {
		s := &cp.steps[i]
		var n int
		switch s.code {
		case cdrCopy:
			if ok = len(b)-p >= s.size; ok {
				o.align(s.align)
				o.buf = append(o.buf, b[p:p+s.size]...)
				p += s.size
			}
		case cdrBool:
			if ok = p < len(b); ok {
				o.buf = append(o.buf, bool01(b[p]))
				p++
			}
		case cdrSkip:
			if ok = len(b)-p >= s.size; ok {
				p += s.size
			}
		case cdrEmpty:
			o.buf = append(o.buf, 0)
		case cdrFixedPrims, cdrFixedBools, cdrSeqPrims, cdrSeqBools:
			if n, p, ok = elements(o, b, p, s, s.size); ok {
				p, ok = copyPrims(o, b, p, n, s)
			}
		case cdrString:
			p, ok = copyString(o, b, p)
		case cdrFixedStrings, cdrSeqStrings:
			n, p, ok = elements(o, b, p, s, 4)
			for j := 0; ok && j < n; j++ {
				p, ok = copyString(o, b, p)
			}
		case cdrFixedStructs, cdrSeqStructs:
			n, p, ok = elements(o, b, p, s, s.sub.min)
			for j := 0; ok && j < n; j++ {
				p, ok = s.sub.copy(o, b, p)
			}
		default:
			ok = false
		}
	}
	return p, ok
}

// elements returns the element count of an array step at b[p:] and the
// offset of its first element: a fixed array's length, or a sequence's
// count, read, checked (seqCount, elements of at least elemMin bytes) and
// written.
func elements(o *cdrOut, b []byte, p int, s *cdrStep, elemMin int) (int, int, bool) {
	switch s.code {
	case cdrSeqPrims, cdrSeqBools, cdrSeqStrings, cdrSeqStructs:
		n, ok := seqCount(b, p, elemMin, s.n)
		if ok {
			o.count(n)
		}
		return n, p + 4, ok
	}
	return s.n, p, true
}

// copyPrims copies n elements of s.size bytes at b[p:], the first aligned
// to s.align (bools written 0 or 1).
func copyPrims(o *cdrOut, b []byte, p, n int, s *cdrStep) (int, bool) {
	if n == 0 {
		return p, true
	}
	size := n * s.size
	if size/s.size != n || len(b)-p < size {
		return p, false
	}
	o.align(s.align)
	if s.code == cdrFixedBools || s.code == cdrSeqBools {
		for _, c := range b[p : p+size] {
			o.buf = append(o.buf, bool01(c))
		}
	} else {
		o.buf = append(o.buf, b[p:p+size]...)
	}
	return p + size, true
}

// seqCount reads a sequence's count at b[p:] and checks that as many
// elements of at least elemMin bytes fit in what remains and that it keeps
// to bound (0: none).
func seqCount(b []byte, p, elemMin, bound int) (int, bool) {
	if len(b)-p < 4 {
		return 0, false
	}
	n := uint64(le.Uint32(b[p:]))
	rest := uint64(len(b) - p - 4)
	if elemMin == 0 || n > rest/uint64(elemMin) || bound > 0 && n > uint64(bound) {
		return 0, false
	}
	return int(n), true
}

// copyString copies the string at b[p:] when it is valid UTF-8.
func copyString(o *cdrOut, b []byte, p int) (int, bool) {
	if len(b)-p < 4 {
		return p, false
	}
	n := uint64(le.Uint32(b[p:]))
	if n > uint64(len(b)-p-4) {
		return p, false
	}
	v := b[p+4 : p+4+int(n)]
	if !utf8.Valid(v) {
		return p, false
	}
	o.count(len(v) + 1)
	o.buf = append(o.buf, v...)
	o.buf = append(o.buf, 0)
	return p + 4 + len(v), true
}

func bool01(c byte) byte {
	if c != 0 {
		return 1
	}
	return 0
}
