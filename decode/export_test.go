package decode

// DecodeROS1 is decodeROS1, for the external tests.
var DecodeROS1 = decodeROS1
