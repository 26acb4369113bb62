// Package cdr decodes and encodes ROS 2 messages in plain CDR (XCDR version
// 1, the encoding rmw implementations and rosbag2 use), little- or big-endian.
//
// A definition is compiled once with Compile into a plan; Decoder.Decode then
// walks a message's bytes and hands each field to a sink.Sink in schema order,
// without allocating. DecodeValue builds a value.Struct instead, and
// Encode/AppendEncode write one back.
//
// Wire format, as rosidl's Fast-CDR and Cyclone type supports and the
// Foxglove @foxglove/rosmsg2-serialization library write it:
//
//   - A 4-byte encapsulation header: representation identifier 0x0001
//     (CDR_LE) or 0x0000 (CDR_BE), then a 2-byte options field. Parameter-list
//     CDR (0x0002/0x0003) and XCDR2 (0x0006..0x000b, 0x0010..0x0015) are
//     rejected with record.ErrUnsupported.
//   - Alignment is counted from the end of the header: every primitive is
//     aligned to its own size (8 for 64-bit values), nested structs add no
//     alignment of their own.
//   - string: uint32 byte count including a NUL terminator, the bytes, NUL.
//     A count of 0 is accepted as the empty string; a count >= 1 must end in
//     NUL (record.ErrFormat otherwise). Text that is not UTF-8 is
//     delivered with U+FFFD in place of each ill-formed sequence, as
//     @foxglove/cdr's TextDecoder reads it (Decoder.InvalidUTF8 counts
//     such messages, Decoder.CheckUTF8 finds the string).
//   - wstring: uint32 count of UTF-16 code units, then the units (2 bytes
//     each, no terminator), delivered as UTF-8 (an unpaired surrogate as
//     U+FFFD). This is the layout of
//     Fast-CDR 2 (ROS 2 Jazzy and later) and Cyclone DDS; Fast-CDR 1 (Humble
//     with rmw_fastrtps) wrote 4-byte units, which this package does not read.
//   - sequences T[] and T[<=N]: uint32 element count, then the elements;
//     fixed arrays T[N]: the elements only.
//   - a message with no fields is one uint8 (rosidl's
//     structure_needs_at_least_one_member).
//   - bool: one byte, any non-zero value is true (the encoder writes 1).
//   - ROS 1 time/duration primitives, should a ROS 1 definition be used with
//     CDR, are two 4-byte integers.
//
// Bounds (string<=N, T[<=N]) are not enforced when decoding, so that data
// written by a lenient peer can still be read; Encode enforces them (and
// fixed array lengths) and fails with a *value.PathError unwrapping to
// value.ErrLength. Every count is checked against the bytes that remain
// before anything is allocated or any event is sent. Padding bytes are
// skipped unread: real recordings carry non-zero padding (rclcpp on
// Eloquent), and Encode writes zeros.
//
// After the message, up to 3 trailing bytes are accepted when they are zero
// or when the low bits of the header options announce them as padding
// (rosbag2 recordings pad payloads to a multiple of 4 with zeros); anything
// else is record.ErrTrailing.
//
// Errors on bad data are *record.Error carrying the byte offset in data
// (counted from the start of the encapsulation header) and the field path,
// e.g. "request[0].patterns[2]", unwrapping to record.ErrTruncated,
// ErrLength, ErrFormat, ErrTrailing or ErrUnsupported (ErrBadUTF8 from
// CheckUTF8 only).
package cdr
