package tcpros

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
)

// growStep is how much a frame buffer grows ahead of the bytes received.
const growStep = 1 << 20

// ReadFrame reads one length-prefixed frame into buf (reused when large
// enough) and returns it. A length over max fails with ErrTooLarge before
// anything is allocated; otherwise the buffer grows as bytes arrive, so a
// peer announcing a huge frame and sending nothing costs little.
func ReadFrame(r io.Reader, buf []byte, limit int) ([]byte, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(l[:]))
	if n > limit || n < 0 {
		return nil, fmt.Errorf("%w: frame of %d bytes, limit %d", ErrTooLarge, n, limit)
	}
	if n <= cap(buf) {
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, unexpected(err)
		}
		return buf, nil
	}
	buf = buf[:0]
	for len(buf) < n {
		want := min(n, len(buf)+max(growStep, len(buf)))
		if want > cap(buf) {
			nb := make([]byte, len(buf), want)
			copy(nb, buf)
			buf = nb
		}
		got, err := io.ReadFull(r, buf[len(buf):want])
		buf = buf[:len(buf)+got]
		if err != nil {
			return nil, unexpected(err)
		}
	}
	return buf, nil
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
