package tcpros

import (
	"encoding/binary"
	"io"
	"net"
)

// WriteServiceResponse writes one service response: an ok byte (1), then
// the serialized response as a length-prefixed frame; or, when the call
// failed, an ok byte of 0 and the error text as the frame (a serialized
// ROS string, which rospy and roscpp clients raise as the call's error).
// The request before it is a plain frame (ReadFrame).
func WriteServiceResponse(w io.Writer, ok bool, data []byte) error {
	var b [5]byte
	if ok {
		b[0] = 1
	}
	binary.LittleEndian.PutUint32(b[1:], uint32(len(data)))
	bufs := net.Buffers{b[:], data}
	_, err := bufs.WriteTo(w)
	return err
}
