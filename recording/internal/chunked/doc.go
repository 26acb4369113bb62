// Package chunked is the format-neutral half of reading chunked recordings
// (ROS1 bag chunks, MCAP chunks): the ordered, parallel merge of chunks
// into one stream in log time order, with one rule for equal times (file
// order: chunk position, then position in the chunk), buffer reuse and skip
// reporting; the log time spans of channels found from as few chunks as
// the index allows; entry sorting. The containers keep lexing, parsing and
// decompression.
package chunked
