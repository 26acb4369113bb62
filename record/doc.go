// Package record holds the contracts every container reader, writer and codec
// shares: a recorded Message with its Channel and Schema, the Iterator
// protocol, the file Summary that `baglab info` prints, and the structured
// Error type for bad data with its sentinel causes.
//
// It is the leaf of the decode tree: it imports nothing else of baglab, so
// containers (bag, mcap, db3) and codecs (ros1, cdr) can all depend on it
// without depending on each other.
package record
