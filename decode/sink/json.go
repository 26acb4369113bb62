package sink

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/segmentio/asm/base64"

	"github.com/baglab/baglab/decode/msgdef"
)

// JSONWriter is a Sink that renders each message as one JSON object appended
// to a byte buffer. See the package documentation for the mapping of ROS
// values to JSON.
//
// Typical use renders into the writer's own buffer:
//
//	w := sink.NewJSONWriter()
//	w.Reset()
//	err := dec.Decode(data, w)
//	line := w.JSON() // valid until the next Reset or Begin
//
// or appends the object to a caller's buffer, e.g. inside an NDJSON line:
//
//	buf = append(buf, `{"topic":"/a","message":`...)
//	w.Begin(buf)
//	err := dec.Decode(data, w)
//	buf = append(w.JSON(), "}\n"...)
//
// When decoding fails the buffer holds a partial object; the caller truncates
// it to its length before Begin. Once its buffer has grown, a JSONWriter does
// not allocate.
type JSONWriter struct {
	buf    []byte
	floats *floatCache
	keys   *keyCache
}

// keyCache remembers the text `"name":` of recently written fields, direct
// mapped by the field's address: a message type's fields are written again
// in every message. An entry holds its field, so the address cannot be
// reused by another field while it is cached.
type keyCache [512]struct {
	f    *msgdef.Field
	text []byte
}

// floatCache remembers the JSON text of recently formatted floats, direct
// mapped by value: recordings repeat the same constants (poses of fixed
// frames, sizes, covariances, unit quaternions) in every message, and a
// lookup is much cheaper than the shortest-form formatter. Only short texts
// are kept: constants are short, measured values (17 digits) rarely repeat.
type floatCache [256]floatText

type floatText struct {
	key  uint64 // float64 bits of the value
	n    uint8  // 0: empty
	is32 bool
	text [12]byte
}

// appendFloat is AppendJSONFloat through the cache.
func (c *floatCache) appendFloat(dst []byte, v float64, bits int) []byte {
	key := math.Float64bits(v)
	e := &c[(key*0x9E3779B97F4A7C15)>>56]
	is32 := bits == 32
	if e.n > 0 && e.key == key && e.is32 == is32 {
		return append(dst, e.text[:e.n]...)
	}
	start := len(dst)
	dst = AppendJSONFloat(dst, v, bits)
	if n := len(dst) - start; n <= len(e.text) {
		e.key, e.is32, e.n = key, is32, uint8(n)
		copy(e.text[:], dst[start:])
	}
	return dst
}

// NewJSONWriter returns a JSONWriter with an empty buffer.
func NewJSONWriter() *JSONWriter { return &JSONWriter{} }

// Begin makes the writer append the next message to dst. JSON then returns
// dst extended with the object.
func (w *JSONWriter) Begin(dst []byte) { w.buf = dst }

// Reset empties the writer's buffer, keeping its capacity.
func (w *JSONWriter) Reset() { w.buf = w.buf[:0] }

// JSON returns the buffer: what was there at Begin (nothing after Reset)
// followed by the rendered message(s). (It is not called Bytes because Bytes
// is the Sink method for blobs.)
func (w *JSONWriter) JSON() []byte { return w.buf }

// BeginMessage opens the message object.
func (w *JSONWriter) BeginMessage(*msgdef.Type) { w.buf = append(w.buf, '{') }

// EndMessage closes the message object.
func (w *JSONWriter) EndMessage() { w.close('}') }

// BeginStruct opens a nested object.
func (w *JSONWriter) BeginStruct(f *msgdef.Field) {
	w.elemKey(f)
	w.buf = append(w.buf, '{')
}

// EndStruct closes a nested object.
func (w *JSONWriter) EndStruct() {
	w.close('}')
	w.buf = append(w.buf, ',')
}

// BeginArray opens an array.
func (w *JSONWriter) BeginArray(f *msgdef.Field, _ int) {
	w.key(f)
	w.buf = append(w.buf, '[')
}

// EndArray closes an array.
func (w *JSONWriter) EndArray() {
	w.close(']')
	w.buf = append(w.buf, ',')
}

// Bool writes true or false.
func (w *JSONWriter) Bool(f *msgdef.Field, v bool) {
	w.elemKey(f)
	if v {
		w.buf = append(w.buf, "true,"...)
	} else {
		w.buf = append(w.buf, "false,"...)
	}
}

// Int writes a signed integer exactly.
func (w *JSONWriter) Int(f *msgdef.Field, v int64) {
	w.elemKey(f)
	w.buf = strconv.AppendInt(w.buf, v, 10)
	w.buf = append(w.buf, ',')
}

// Uint writes an unsigned integer exactly.
func (w *JSONWriter) Uint(f *msgdef.Field, v uint64) {
	w.elemKey(f)
	w.buf = strconv.AppendUint(w.buf, v, 10)
	w.buf = append(w.buf, ',')
}

// Float writes a number with the shortest text that reads back to the same
// float32 or float64 (by f.Kind); NaN and infinities become strings.
func (w *JSONWriter) Float(f *msgdef.Field, v float64) {
	w.elemKey(f)
	bits := 64
	if f.Kind == msgdef.Float32 {
		bits = 32
	}
	if w.floats == nil {
		w.floats = new(floatCache)
	}
	w.buf = w.floats.appendFloat(w.buf, v, bits)
	w.buf = append(w.buf, ',')
}

// Null writes null: a Nullable field without a value (Nuller).
func (w *JSONWriter) Null(f *msgdef.Field) {
	w.elemKey(f)
	w.buf = append(w.buf, "null,"...)
}

// String writes a JSON string.
func (w *JSONWriter) String(f *msgdef.Field, v []byte) {
	w.elemKey(f)
	w.buf = appendQuoted(w.buf, v)
	w.buf = append(w.buf, ',')
}

// Bytes writes a blob as a base64 string (standard alphabet, padded).
func (w *JSONWriter) Bytes(f *msgdef.Field, v []byte) {
	w.key(f)
	w.buf = append(w.buf, '"')
	w.buf = AppendBase64(w.buf, v)
	w.buf = append(w.buf, '"', ',')
}

// AppendBase64 appends v in standard, padded base64, as
// encoding/base64.StdEncoding does, through segmentio/asm's vectorised
// encoder: point clouds and images make blobs most of what cat writes, and
// it encodes them about ten times faster.
func AppendBase64(dst, v []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, base64.StdEncoding.EncodedLen(len(v)))
	dst = dst[:n+base64.StdEncoding.EncodedLen(len(v))]
	base64.StdEncoding.Encode(dst[n:], v)
	return dst
}

// Time writes a ROS1 time or duration as {"sec":S,"nsec":N}.
func (w *JSONWriter) Time(f *msgdef.Field, sec, nsec int64) {
	w.elemKey(f)
	w.buf = append(w.buf, `{"sec":`...)
	w.buf = strconv.AppendInt(w.buf, sec, 10)
	w.buf = append(w.buf, `,"nsec":`...)
	w.buf = strconv.AppendInt(w.buf, nsec, 10)
	w.buf = append(w.buf, '}', ',')
}

// key writes `"name":` through the key cache.
func (w *JSONWriter) key(f *msgdef.Field) {
	if w.keys == nil {
		w.keys = new(keyCache)
	}
	e := &w.keys[(uint64(uintptr(unsafe.Pointer(f)))*0x9E3779B97F4A7C15)>>55]
	if e.f != f {
		e.f, e.text = f, appendKey(e.text[:0], f.Name)
	}
	w.buf = append(w.buf, e.text...)
}

// appendKey appends `"name":`. Field names are identifiers, which need no
// escaping; anything else takes the general path.
func appendKey(dst []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		if !plainKey[name[i]] {
			dst = AppendJSONString(dst, name)
			return append(dst, ':')
		}
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// elemKey writes the key of a scalar field. Array elements (events whose f
// is an array field) have no key: ROS has no arrays of arrays, so an array
// field seen in an element event always means "inside that array".
func (w *JSONWriter) elemKey(f *msgdef.Field) {
	if f.Array == msgdef.Scalar {
		w.key(f)
	}
}

// close ends an object or array: it replaces the trailing comma of the last
// member, if any, with c.
func (w *JSONWriter) close(c byte) {
	if n := len(w.buf); n > 0 && w.buf[n-1] == ',' {
		w.buf[n-1] = c
		return
	}
	w.buf = append(w.buf, c)
}

// AppendJSONFloat appends v formatted as JSON with the shortest text that
// parses back to the same value at the given bit size (32 or 64), in the
// format encoding/json uses (plain decimal, exponent below 1e-6 and from
// 1e21). NaN, +Inf and -Inf, which JSON numbers cannot express, are written
// as the strings "NaN", "Infinity" and "-Infinity".
func AppendJSONFloat(dst []byte, v float64, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(dst, `"-Infinity"`...)
	}
	// Integers below 2^24 (float32) or 2^53 (float64) are exact, and their
	// shortest form is their digits: skip the float formatter.
	limit := float64(1 << 53)
	if bits == 32 {
		limit = 1 << 24
	}
	if i := int64(v); float64(i) == v && v < limit && v > -limit && (i != 0 || !math.Signbit(v)) {
		return strconv.AppendInt(dst, i, 10)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 {
		if bits == 32 {
			a := float32(abs)
			if a < 1e-6 || a >= 1e21 {
				format = 'e'
			}
		} else if abs < 1e-6 || abs >= 1e21 {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, v, format, -1, bits)
	if format == 'e' {
		// e-07 -> e-7, as encoding/json does.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// AppendJSONString appends s as a quoted JSON string. Quotes, backslashes
// and control characters are escaped; other bytes are copied as they are
// (s should be valid UTF-8; invalid bytes are replaced by U+FFFD).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !needEscape[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, c)
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += n
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendQuoted is AppendJSONString for a byte slice that the sink contract
// guarantees to be valid UTF-8: only ASCII needs looking at.
func appendQuoted(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i, c := range s {
		if !needEscape[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

func appendEscape(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// plainKey marks the bytes a key can hold as they are: no escape and ASCII
// (non-ASCII keys go through AppendJSONString, which checks UTF-8).
var plainKey = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// needEscape marks the bytes that cannot appear raw inside a JSON string.
var needEscape = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()
