// Package ros1 is the ROS1 wire codec (the serialization of roscpp/genpy):
// little-endian fixed-size primitives, uint32 length prefixes for strings
// and variable-length arrays, no prefix for fixed arrays, time and duration
// as two 32-bit words, nested messages inline.
//
// Compile turns a resolved msgdef.Type into a Decoder once; Decode then
// walks each message's bytes and pushes the fields into a sink.Sink in
// schema order, with no reflection, map lookup or text parsing per message.
// Every length is checked against the bytes that remain before anything is
// allocated (n elements of at least k bytes need n*k bytes), and bad data
// gives a *record.Error with the byte offset and the full field path
// ("data[3].placements[12].position.x"). Elements of zero wire size (arrays
// of empty messages, which genpy accepts) cannot be bounded by the input, so
// one message may hold at most len(data) + 65536 of them in all.
//
// Encode and AppendEncode serialize a value.Struct back to the wire format.
package ros1
