package bag

// This file mirrors the ROS bag 2.0 format specification
// (http://wiki.ros.org/Bags/Format/2.0 and ros_comm tools/rosbag/FORMATS).
//
// A bag file is the 13-byte line Magic followed by records back to back:
//
//	<header_len uint32><header><data_len uint32><data>
//
// All integers are little-endian. A header is a sequence of fields
//
//	<field_len uint32><name>=<value>
//
// where field_len counts name, '=' and value. Field names are printable
// ASCII without '='; values are arbitrary bytes. Every header holds an "op"
// field (one byte) naming the record type. Times are stored as two uint32,
// seconds then nanoseconds ("time" in ROS); this package converts them to
// int64 nanoseconds since the Unix epoch.
//
// File layout written by rosbag (and by Writer):
//
//	Magic
//	BagHeader (padded with ' ' so that header + data = 4096 bytes)
//	for each chunk:
//	    Chunk      data = [Connection...] MessageData... (possibly compressed)
//	    IndexData  one per connection with messages in the chunk
//	Connection...  every connection again       <- BagHeader.IndexPos
//	ChunkInfo...   one per chunk
//
// A bag whose writer did not finish has IndexPos = 0 (rosbag leaves it so
// in ".bag.active" files); such bags are read by scanning.

import "strconv"

// Magic is the first line of every bag 2.0 file.
const Magic = "#ROSBAG V2.0\n"

// bagHeaderLength is the length of the bag header's header plus its padding
// data: rosbag pads the record so that the two add up to 4096 bytes.
const bagHeaderLength = 4096

// Op is the record type, the value of a header's "op" field.
type Op uint8

// The record types of bag format 2.0. OpMsgDef belongs to format 1.2 and is
// only recognised to report it.
const (
	OpMsgDef      Op = 0x01 // message definition (format 1.2 only)
	OpMessageData Op = 0x02 // one serialized message
	OpBagHeader   Op = 0x03 // file header: index position and counts
	OpIndexData   Op = 0x04 // times and chunk offsets of one connection's messages in a chunk
	OpChunk       Op = 0x05 // (compressed) block of connection and message records
	OpChunkInfo   Op = 0x06 // position, time range and per-connection counts of a chunk
	OpConnection  Op = 0x07 // connection header of one topic publisher
)

func (op Op) String() string {
	switch op {
	case OpMsgDef:
		return "msg_def"
	case OpMessageData:
		return "message_data"
	case OpBagHeader:
		return "bag_header"
	case OpIndexData:
		return "index_data"
	case OpChunk:
		return "chunk"
	case OpChunkInfo:
		return "chunk_info"
	case OpConnection:
		return "connection"
	}
	return "op(0x" + strconv.FormatUint(uint64(op), 16) + ")"
}

// Compression is a chunk's "compression" field.
type Compression string

// The chunk compressions rosbag writes. LZ4 is the LZ4 frame format
// (roslz4), BZ2 the bzip2 stream format.
const (
	CompressionNone Compression = "none"
	CompressionLZ4  Compression = "lz4"
	CompressionBZ2  Compression = "bz2"
)

// BagHeader is the first record after Magic (op 0x03).
//
// Header fields: index_pos uint64 (offset of the first record after the
// chunk section, 0 while the bag is being written), conn_count uint32
// (connections in the index section), chunk_count uint32 (chunk infos).
// A bag that rosbag encrypted (rosbag encrypt, Bag.set_encryptor) also has
// encryptor string (EncryptorAESCBC), gpg_user string and encrypted_key
// (the chunk key, encrypted for gpg_user's GPG key); its chunk data and
// the connection records of its index section are then AES-CBC encrypted.
// Data: padding of ' ' bytes.
type BagHeader struct {
	IndexPos   uint64
	ConnCount  uint32
	ChunkCount uint32
	// Encryptor and GPGUser are the like-named fields, "" when absent.
	Encryptor string
	GPGUser   string
}

// EncryptorAESCBC is the encryptor of the bags rosbag encrypts. rosbag
// reads a bag header with another encryptor as a plain bag.
const EncryptorAESCBC = "rosbag/AesCbcEncryptor"

// ChunkHeader is the header of a chunk record (op 0x05).
//
// Header fields: compression string ("none", "bz2", "lz4"), size uint32
// (length of the data once decompressed). Data: the connection and message
// data records, compressed.
type ChunkHeader struct {
	Compression Compression
	Size        uint32
}

// Connection is a connection record (op 0x07): one publisher of a topic.
//
// Header fields: conn uint32 (connection id), topic string. Data: the
// connection header, itself a sequence of fields (topic, type, md5sum,
// message_definition, and optionally callerid, latching and others).
type Connection struct {
	Conn  uint32
	Topic string
	// Type, MD5Sum and MessageDefinition are the like-named fields of the
	// connection header; CallerID and Latching are "" when absent.
	Type              string
	MD5Sum            string
	MessageDefinition string
	CallerID          string
	Latching          string
	// Fields is the whole connection header in stored order.
	Fields []Field
	// Offset is the byte offset of the connection record in the file
	// (inside a compressed chunk, of the chunk record); 0 when unknown.
	Offset int64
}

// Field is one name=value field of a header.
type Field struct {
	Name  string
	Value string
}

// Get returns the value of the named connection header field.
func (c *Connection) Get(name string) (string, bool) {
	for _, f := range c.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// MessageData is a message data record (op 0x02).
//
// Header fields: conn uint32, time (uint32 sec, uint32 nsec: the receive
// time). Data: the serialized message.
type MessageData struct {
	Conn uint32
	Time int64 // ns since the epoch
	Data []byte
}

// IndexData is an index data record (op 0x04), written after a chunk for
// each connection that has messages in it.
//
// Header fields: ver uint32 (1), conn uint32, count uint32. Data: count
// entries of (time, uint32 offset of the message data record in the
// uncompressed chunk data).
type IndexData struct {
	Ver     uint32
	Conn    uint32
	Count   uint32
	Entries []IndexEntry
}

// IndexEntry locates one message in a chunk.
type IndexEntry struct {
	Time   int64  // ns since the epoch
	Offset uint32 // offset of the message data record in the uncompressed chunk
}

// ChunkInfo is a chunk info record (op 0x06), one per chunk in the index
// section.
//
// Header fields: ver uint32 (1), chunk_pos uint64 (offset of the chunk
// record), start_time, end_time (time range of the chunk's messages), count
// uint32 (number of connections in the chunk). Data: count pairs of
// (uint32 conn, uint32 message count).
type ChunkInfo struct {
	Ver       uint32
	ChunkPos  uint64
	StartTime int64 // ns since the epoch
	EndTime   int64 // ns since the epoch
	Counts    []ConnCount
}

// ConnCount is the number of messages of one connection in a chunk.
type ConnCount struct {
	Conn  uint32
	Count uint32
}

// MessageCount is the total number of messages the chunk info counts.
func (c *ChunkInfo) MessageCount() uint64 {
	var n uint64
	for _, cc := range c.Counts {
		n += uint64(cc.Count)
	}
	return n
}
