// Package tcpros is the TCPROS wire format: the connection header a
// subscriber and a publisher (or a service client and server) exchange
// when a connection opens, the length-prefixed frames that carry messages
// and service requests after it, and the ok byte and frame that answer a
// service request (WriteServiceResponse). It works over any
// io.Reader/io.Writer and bounds every length it reads: a header larger
// than its limit or a frame longer than the caller's limit is an error
// (wrapping ErrTooLarge) before anything that size is allocated, and
// buffers grow only as bytes actually arrive.
package tcpros
