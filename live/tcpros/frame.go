package tcpros

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
)

// growStep is the first allocation for a frame that does not fit the
// caller's buffer; later steps double what arrived, the last one is sized
// exactly to the frame.
const growStep = 64 << 10

// step bounds the bytes read (and reserved) at once into a buffer that
// already holds the whole frame.
const step = 1 << 20

// ReadFrame reads one length-prefixed frame into buf (reused when large
// enough) and returns it. A length over limit fails with ErrTooLarge
// before anything is allocated; otherwise the buffer grows as bytes
// arrive (ReadBody), so a peer announcing a huge frame and sending
// nothing costs little.
func ReadFrame(r io.Reader, buf []byte, limit int) ([]byte, error) {
	n, err := ReadLength(r)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("%w: frame of %d bytes, limit %d", ErrTooLarge, n, limit)
	}
	body, _, err := ReadBody(r, n, buf, nil)
	return body, err
}

// ReadLength reads a frame's 4-byte little-endian length. It returns
// io.EOF when r ends before the first byte, io.ErrUnexpectedEOF within.
func ReadLength(r io.Reader) (int, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint32(l[:])), nil
}

// ReadBody reads the n-byte body of a frame whose length was read. It
// uses buf when cap(buf) >= n; otherwise it allocates as bytes arrive:
// growStep first, then doubling, the last step exactly n, so memory
// follows the bytes received, never the length announced.
//
// reserve, when not nil, is asked for each run of bytes before they are
// read (at most 1 MiB at a time); when it refuses, the rest of the frame
// is read and discarded and ReadBody fails with ErrNoRoom after the whole
// frame, keeping the stream in step. reserved is what reserve granted,
// also on error: the caller gives it back (or keeps it with the body).
func ReadBody(r io.Reader, n int, buf []byte, reserve func(int) bool) (body []byte, reserved int, err error) {
	if n <= cap(buf) {
		buf = buf[:0]
	} else {
		buf = make([]byte, 0, min(n, growStep))
	}
	for len(buf) < n {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(n, 2*cap(buf)))
			copy(nb, buf)
			buf = nb
		}
		k := min(min(cap(buf), n)-len(buf), step)
		if reserve != nil {
			if !reserve(k) {
				if err := Discard(r, n-len(buf)); err != nil {
					return nil, reserved, err
				}
				return nil, reserved, fmt.Errorf("%w: frame of %d bytes dropped after %d", ErrNoRoom, n, len(buf))
			}
			reserved += k
		}
		got, err := io.ReadFull(r, buf[len(buf):len(buf)+k])
		buf = buf[:len(buf)+got]
		if err != nil {
			return nil, reserved, unexpected(err)
		}
	}
	return buf, reserved, nil
}

// Discard reads and drops the next n bytes of r, in pieces of at most
// 32 KiB.
func Discard(r io.Reader, n int) error {
	_, err := io.CopyN(io.Discard, r, int64(n))
	return unexpected(err)
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// WriteFrame writes data with its length prefix in one write where the
// writer allows (net.Buffers uses writev on a TCP connection).
func WriteFrame(w io.Writer, data []byte) error {
	var l [4]byte
	binary.LittleEndian.PutUint32(l[:], uint32(len(data)))
	bufs := net.Buffers{l[:], data}
	_, err := bufs.WriteTo(w)
	return err
}
