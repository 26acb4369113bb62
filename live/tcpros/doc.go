// Package tcpros is the TCPROS wire format: the connection header a
// subscriber and a publisher exchange when a connection opens, and the
// length-prefixed frames that carry messages after it. It works over any
// io.Reader/io.Writer and bounds every length it reads: a header larger
// than its limit or a frame longer than the caller's limit is an error
// (wrapping ErrTooLarge) before anything that size is allocated, and
// buffers grow only as bytes actually arrive.
package tcpros
