package bag

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/baglab/baglab/record"
)

// The Parse functions are pure: they take a record's header bytes (without
// the header_len prefix) and, where the record has one, its data, and never
// read beyond them. Errors are *record.Error with an Offset relative to the
// start of the record (its header_len field); readers rebase them to the
// file with record.WithFile.

// formatErr builds a *record.Error at a record-relative offset.
func formatErr(off int64, field string, cause error, format string, args ...any) *record.Error {
	return &record.Error{Offset: off, Field: field, Err: cause, Detail: fmt.Sprintf(format, args...)}
}

// fieldIter walks the name=value fields of a header without allocating.
type fieldIter struct {
	h    []byte
	pos  int
	base int64 // added to offsets: h[0] is at record offset base+4
}

// headerIter iterates a record header, which starts 4 bytes into its record.
func headerIter(h []byte) fieldIter { return fieldIter{h: h} }

// next returns the next field and the record offset of its length prefix.
func (it *fieldIter) next() (name, value []byte, off int64, err error) {
	h, p := it.h, it.pos
	off = it.base + int64(4+p)
	if len(h)-p < 4 {
		return nil, nil, off, formatErr(off, "header", record.ErrLength,
			"field length needs 4 bytes, %d remain in header", len(h)-p)
	}
	n := binary.LittleEndian.Uint32(h[p:])
	if uint64(n) > uint64(len(h)-p-4) {
		return nil, nil, off, formatErr(off, "header", record.ErrLength,
			"field of %d bytes, %d remain in header", n, len(h)-p-4)
	}
	f := h[p+4 : p+4+int(n)]
	it.pos = p + 4 + int(n)
	eq := bytes.IndexByte(f, '=')
	if eq < 0 {
		return nil, nil, off, formatErr(off, "header", record.ErrFormat, "field without '='")
	}
	return f[:eq], f[eq+1:], off, nil
}

func (it *fieldIter) done() bool { return it.pos >= len(it.h) }

// ParseFields splits a header (or a connection header) into its fields.
func ParseFields(header []byte) ([]Field, error) {
	return parseFields(headerIter(header))
}

func parseFields(it fieldIter) ([]Field, error) {
	var fields []Field
	for !it.done() {
		name, value, _, err := it.next()
		if err != nil {
			return nil, err
		}
		fields = append(fields, Field{Name: string(name), Value: string(value)})
	}
	return fields, nil
}

// RecordOp returns the value of a header's op field.
func RecordOp(header []byte) (Op, error) {
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return 0, err
		}
		if string(name) == "op" {
			if len(value) != 1 {
				return 0, formatErr(off, "op", record.ErrFormat, "op field has %d bytes, want 1", len(value))
			}
			return Op(value[0]), nil
		}
	}
	return 0, formatErr(0, "op", record.ErrFormat, "record header has no op field")
}

// fixed decodes a fixed-size little-endian field value.
func fixed(value []byte, size int, off int64, field string) ([]byte, error) {
	if len(value) != size {
		return nil, formatErr(off, field, record.ErrFormat, "field has %d bytes, want %d", len(value), size)
	}
	return value, nil
}

func u32Field(value []byte, off int64, field string) (uint32, error) {
	v, err := fixed(value, 4, off, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(v), nil
}

func u64Field(value []byte, off int64, field string) (uint64, error) {
	v, err := fixed(value, 8, off, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(v), nil
}

func timeField(value []byte, off int64, field string) (int64, error) {
	v, err := fixed(value, 8, off, field)
	if err != nil {
		return 0, err
	}
	return timeNs(v), nil
}

// timeNs decodes a ROS time (uint32 sec, uint32 nsec) to ns since the epoch.
func timeNs(b []byte) int64 {
	return int64(binary.LittleEndian.Uint32(b))*1e9 + int64(binary.LittleEndian.Uint32(b[4:]))
}

// putTime encodes ns since the epoch as a ROS time; ns must be in
// [0, maxTime].
func putTime(b []byte, ns int64) {
	binary.LittleEndian.PutUint32(b, uint32(ns/1e9))
	binary.LittleEndian.PutUint32(b[4:], uint32(ns%1e9))
}

// maxTime is the largest time a bag can store (uint32 seconds).
const maxTime = int64(1<<32-1)*1e9 + 999999999

// required tracks which required fields a header had.
type required struct {
	rec     string
	missing []string
}

func (r *required) check(have bool, name string) {
	if !have {
		r.missing = append(r.missing, name)
	}
}

func (r *required) err() error {
	if len(r.missing) == 0 {
		return nil
	}
	return formatErr(0, r.rec+"."+r.missing[0], record.ErrFormat, "missing field %q", r.missing[0])
}

// ParseBagHeader parses the header of a bag header record.
func ParseBagHeader(header []byte) (*BagHeader, error) {
	var h BagHeader
	var hasPos, hasConns, hasChunks bool
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return nil, err
		}
		switch string(name) {
		case "index_pos":
			h.IndexPos, err = u64Field(value, off, "bag_header.index_pos")
			hasPos = true
		case "conn_count":
			h.ConnCount, err = u32Field(value, off, "bag_header.conn_count")
			hasConns = true
		case "chunk_count":
			h.ChunkCount, err = u32Field(value, off, "bag_header.chunk_count")
			hasChunks = true
		case "encryptor":
			h.Encryptor = string(value)
		case "gpg_user":
			h.GPGUser = string(value)
		}
		if err != nil {
			return nil, err
		}
	}
	r := required{rec: "bag_header"}
	r.check(hasPos, "index_pos")
	r.check(hasConns, "conn_count")
	r.check(hasChunks, "chunk_count")
	return &h, r.err()
}

// ParseChunkHeader parses the header of a chunk record.
func ParseChunkHeader(header []byte) (*ChunkHeader, error) {
	var h ChunkHeader
	var hasComp, hasSize bool
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return nil, err
		}
		switch string(name) {
		case "compression":
			h.Compression = Compression(value)
			hasComp = true
		case "size":
			h.Size, err = u32Field(value, off, "chunk.size")
			hasSize = true
		}
		if err != nil {
			return nil, err
		}
	}
	r := required{rec: "chunk"}
	r.check(hasComp, "compression")
	r.check(hasSize, "size")
	return &h, r.err()
}

// ParseConnection parses a connection record.
func ParseConnection(header, data []byte) (*Connection, error) {
	var c Connection
	var hasConn, hasTopic bool
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return nil, err
		}
		switch string(name) {
		case "conn":
			c.Conn, err = u32Field(value, off, "connection.conn")
			hasConn = true
		case "topic":
			c.Topic = string(value)
			hasTopic = true
		}
		if err != nil {
			return nil, err
		}
	}
	r := required{rec: "connection"}
	r.check(hasConn, "conn")
	r.check(hasTopic, "topic")
	if err := r.err(); err != nil {
		return nil, err
	}
	// The connection header is the record data, after header and data_len.
	fields, err := parseFields(fieldIter{h: data, base: int64(len(header) + 4)})
	if err != nil {
		return nil, err
	}
	c.Fields = fields
	var hasType, hasMD5 bool
	for _, f := range fields {
		switch f.Name {
		case "type":
			c.Type, hasType = f.Value, true
		case "md5sum":
			c.MD5Sum, hasMD5 = f.Value, true
		case "message_definition":
			c.MessageDefinition = f.Value
		case "callerid":
			c.CallerID = f.Value
		case "latching":
			c.Latching = f.Value
		}
	}
	r = required{rec: "connection.data"}
	r.check(hasType, "type")
	r.check(hasMD5, "md5sum")
	return &c, r.err()
}

// parseMessageHeader reads conn and time from a message data header
// without allocating.
func parseMessageHeader(header []byte) (conn uint32, t int64, err error) {
	var hasConn, hasTime bool
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return 0, 0, err
		}
		switch string(name) {
		case "conn":
			conn, err = u32Field(value, off, "message_data.conn")
			hasConn = true
		case "time":
			t, err = timeField(value, off, "message_data.time")
			hasTime = true
		}
		if err != nil {
			return 0, 0, err
		}
	}
	r := required{rec: "message_data"}
	r.check(hasConn, "conn")
	r.check(hasTime, "time")
	return conn, t, r.err()
}

// ParseMessageData parses a message data record. The returned Data aliases
// data.
func ParseMessageData(header, data []byte) (*MessageData, error) {
	conn, t, err := parseMessageHeader(header)
	if err != nil {
		return nil, err
	}
	return &MessageData{Conn: conn, Time: t, Data: data}, nil
}

// ParseIndexData parses an index data record. Data beyond count entries is
// ignored (rosbag reads exactly count entries).
func ParseIndexData(header, data []byte) (*IndexData, error) {
	var x IndexData
	var hasVer, hasConn, hasCount bool
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return nil, err
		}
		switch string(name) {
		case "ver":
			x.Ver, err = u32Field(value, off, "index_data.ver")
			hasVer = true
		case "conn":
			x.Conn, err = u32Field(value, off, "index_data.conn")
			hasConn = true
		case "count":
			x.Count, err = u32Field(value, off, "index_data.count")
			hasCount = true
		}
		if err != nil {
			return nil, err
		}
	}
	r := required{rec: "index_data"}
	r.check(hasVer, "ver")
	r.check(hasConn, "conn")
	r.check(hasCount, "count")
	if err := r.err(); err != nil {
		return nil, err
	}
	if x.Ver != 1 {
		return nil, formatErr(0, "index_data.ver", record.ErrUnsupported, "index data version %d, want 1", x.Ver)
	}
	dataOff := int64(4 + len(header) + 4)
	if uint64(x.Count)*12 > uint64(len(data)) {
		return nil, formatErr(dataOff, "index_data.count", record.ErrLength,
			"%d entries need %d bytes, data has %d", x.Count, uint64(x.Count)*12, len(data))
	}
	x.Entries = make([]IndexEntry, x.Count)
	for i := range x.Entries {
		e := data[12*i:]
		x.Entries[i] = IndexEntry{Time: timeNs(e), Offset: binary.LittleEndian.Uint32(e[8:])}
	}
	return &x, nil
}

// ParseChunkInfo parses a chunk info record. Data beyond count pairs is
// ignored (rosbag reads exactly count pairs).
func ParseChunkInfo(header, data []byte) (*ChunkInfo, error) {
	var c ChunkInfo
	var count uint32
	var hasVer, hasPos, hasStart, hasEnd, hasCount bool
	it := headerIter(header)
	for !it.done() {
		name, value, off, err := it.next()
		if err != nil {
			return nil, err
		}
		switch string(name) {
		case "ver":
			c.Ver, err = u32Field(value, off, "chunk_info.ver")
			hasVer = true
		case "chunk_pos":
			c.ChunkPos, err = u64Field(value, off, "chunk_info.chunk_pos")
			hasPos = true
		case "start_time":
			c.StartTime, err = timeField(value, off, "chunk_info.start_time")
			hasStart = true
		case "end_time":
			c.EndTime, err = timeField(value, off, "chunk_info.end_time")
			hasEnd = true
		case "count":
			count, err = u32Field(value, off, "chunk_info.count")
			hasCount = true
		}
		if err != nil {
			return nil, err
		}
	}
	r := required{rec: "chunk_info"}
	r.check(hasVer, "ver")
	r.check(hasPos, "chunk_pos")
	r.check(hasStart, "start_time")
	r.check(hasEnd, "end_time")
	r.check(hasCount, "count")
	if err := r.err(); err != nil {
		return nil, err
	}
	if c.Ver != 1 {
		return nil, formatErr(0, "chunk_info.ver", record.ErrUnsupported, "chunk info version %d, want 1", c.Ver)
	}
	dataOff := int64(4 + len(header) + 4)
	if uint64(count)*8 > uint64(len(data)) {
		return nil, formatErr(dataOff, "chunk_info.count", record.ErrLength,
			"%d connections need %d bytes, data has %d", count, uint64(count)*8, len(data))
	}
	c.Counts = make([]ConnCount, count)
	for i := range c.Counts {
		e := data[8*i:]
		c.Counts[i] = ConnCount{Conn: binary.LittleEndian.Uint32(e), Count: binary.LittleEndian.Uint32(e[4:])}
	}
	return &c, nil
}
