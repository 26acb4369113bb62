package tcpros

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// MaxHeader bounds a connection header (16 MiB: message definitions with
// all their dependencies stay far below this).
const MaxHeader = 16 << 20

// Field is one key=value of a connection header.
type Field struct {
	Key, Value string
}

// Header is a connection header, its fields in the order they came.
type Header []Field

// Get returns the value of key and whether it is present.
func (h Header) Get(key string) (string, bool) {
	for _, f := range h {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// Value returns the value of key, "" when absent.
func (h Header) Value(key string) string {
	v, _ := h.Get(key)
	return v
}

// Map returns the fields as a map (a repeated key keeps its last value).
func (h Header) Map() map[string]string {
	m := make(map[string]string, len(h))
	for _, f := range h {
		m[f.Key] = f.Value
	}
	return m
}

// Encode returns the header's wire form without the leading total length.
func (h Header) Encode() []byte {
	var b []byte
	for _, f := range h {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(f.Key)+1+len(f.Value)))
		b = append(b, f.Key...)
		b = append(b, '=')
		b = append(b, f.Value...)
	}
	return b
}

// ParseHeader parses a header body (the bytes after its total length).
func ParseHeader(b []byte) (Header, error) {
	var h Header
	for off := 0; off < len(b); {
		if len(b)-off < 4 {
			return nil, fmt.Errorf("%w: field length at byte %d cut short", ErrMalformed, off)
		}
		n := int(binary.LittleEndian.Uint32(b[off:]))
		off += 4
		if n > len(b)-off {
			return nil, fmt.Errorf("%w: field at byte %d claims %d bytes, %d remain", ErrMalformed, off-4, n, len(b)-off)
		}
		kv := b[off : off+n]
		eq := bytes.IndexByte(kv, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%w: field at byte %d has no key=value", ErrMalformed, off-4)
		}
		h = append(h, Field{Key: string(kv[:eq]), Value: string(kv[eq+1:])})
		off += n
	}
	return h, nil
}

// ReadHeader reads a length-prefixed connection header of at most
// MaxHeader bytes.
func ReadHeader(r io.Reader) (Header, error) {
	body, err := ReadFrame(r, nil, MaxHeader)
	if err != nil {
		return nil, fmt.Errorf("tcpros: reading header: %w", err)
	}
	return ParseHeader(body)
}

// WriteHeader writes h with its total length.
func WriteHeader(w io.Writer, h Header) error {
	body := h.Encode()
	return WriteFrame(w, body)
}
