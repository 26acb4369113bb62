package bag

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/dsnet/compress/bzip2"
	"github.com/pierrec/lz4/v4"
)

// DefaultChunkSize is the uncompressed chunk size at which Writer starts a
// new chunk, rosbag's default (768 KiB).
const DefaultChunkSize = 768 * 1024

// WriterOption configures a Writer.
type WriterOption func(*writerOptions)

type writerOptions struct {
	compression Compression
	chunkSize   int64
	sync        bool
}

func defaultWriterOptions() writerOptions {
	return writerOptions{compression: CompressionNone, chunkSize: DefaultChunkSize}
}

// WithCompression sets the chunk compression: "none" (CompressionNone, the
// default), "lz4" (CompressionLZ4) or "bz2" (CompressionBZ2). It is
// spelled as mcapfile.WithCompression is.
func WithCompression(name string) WriterOption {
	return func(o *writerOptions) { o.compression = Compression(name) }
}

// WithChunkSize sets the uncompressed size at which a chunk is closed
// (default DefaultChunkSize). It is spelled as mcapfile.WithChunkSize is.
func WithChunkSize(n int64) WriterOption {
	return func(o *writerOptions) { o.chunkSize = max(1, n) }
}

// WithSync has Close wait until the bag is on disk before renaming it
// into place (internal/atomicfile's Synced), so that a power cut can
// leave it missing but never short. Create alone takes it; without it,
// as rosbag, the bag is written at the page cache's speed.
func WithSync() WriterOption {
	return func(o *writerOptions) { o.sync = true }
}

// Writer writes a bag the way rosbag does: messages go into chunks that
// are compressed and written as they fill, each followed by the index data
// records of its connections; a connection's record is written into the
// chunk where its first message goes; Close writes every connection again
// (a connection without messages only there, so that a channel without
// messages is kept, as MCAP keeps its channel record) and the chunk infos, then patches the bag header with the index position
// and counts. Until then the file is a valid unindexed bag (index_pos 0),
// like rosbag's ".bag.active" files. It implements record.Writer.
type Writer struct {
	w    io.WriteSeeker
	out  *bufio.Writer
	opts writerOptions
	pos  int64 // offset of the next byte written

	conns  []*writerConn // in registration order
	byID   map[uint32]*writerConn
	nextID uint32

	chunk      bytes.Buffer // uncompressed chunk being filled
	chunkStart int64
	chunkEnd   int64
	chunkConns []uint32 // connections with messages in the chunk, by first use
	chunkIndex map[uint32][]IndexEntry
	infos      []ChunkInfo

	comp    bytes.Buffer // compressed chunk
	lz4w    *lz4.Writer
	bz2w    *bzip2.Writer
	hdr     []byte // scratch header
	scratch []byte // scratch record data

	closed bool
	err    error // sticky write error

	file *atomicfile.File // set by Create
}

type writerConn struct {
	id      uint32
	topic   string
	header  []byte // connection header (record data)
	written bool   // its record is in a chunk
}

var _ record.Writer = (*Writer)(nil)

// NewWriter starts a bag on w, writing the magic line and a bag header to
// be patched on Close.
func NewWriter(w io.WriteSeeker, opts ...WriterOption) (*Writer, error) {
	o := defaultWriterOptions()
	for _, opt := range opts {
		opt(&o)
	}
	switch o.compression {
	case CompressionNone, CompressionLZ4, CompressionBZ2:
	default:
		return nil, fmt.Errorf("bag: unsupported compression %q", string(o.compression))
	}
	bw := &Writer{w: w, out: bufio.NewWriterSize(w, 256<<10), opts: o, byID: map[uint32]*writerConn{},
		chunkIndex: map[uint32][]IndexEntry{}}
	bw.write([]byte(Magic))
	bw.writeBagHeader(0)
	if bw.err != nil {
		return nil, bw.err
	}
	return bw, nil
}

// Create writes a bag to path through a temporary file in the same
// directory (internal/atomicfile), renamed to path by Close; Abort removes
// it instead.
func Create(path string, opts ...WriterOption) (*Writer, error) {
	o := defaultWriterOptions()
	for _, opt := range opts {
		opt(&o)
	}
	f, err := atomicfile.Create(path, atomicfile.Synced(o.sync))
	if err != nil {
		return nil, err
	}
	w, err := NewWriter(f, opts...)
	if err != nil {
		f.Abort()
		return nil, err
	}
	w.file = f
	return w, nil
}

// AddChannel registers a connection and returns its id (ids count from 0
// in registration order). The connection header holds topic (Metadata's
// "topic" when set: a publisher's topic that differs from the one the
// message is recorded on, else Topic), type (Schema.Name), md5sum
// (Schema.MD5, computed from the definition when empty),
// message_definition (Schema.Data) and the other Metadata entries
// (callerid, latching…) sorted by key: only those present, as rosbag
// writes the header it is given (latching "true"/"false", MCAP's ros1
// profile's spelling, as rosbag's "1"/"0").
func (w *Writer) AddChannel(c *record.Channel) (uint32, error) {
	if w.closed {
		return 0, errors.New("bag: writer is closed")
	}
	if c.Topic == "" || c.Schema == nil || c.Schema.Name == "" {
		return 0, fmt.Errorf("bag: channel %q needs a topic and a type", c.Topic)
	}
	if c.MessageEncoding != "" && c.MessageEncoding != "ros1" {
		return 0, fmt.Errorf("bag: channel %q has message encoding %q, a bag holds ros1", c.Topic, c.MessageEncoding)
	}
	md5 := c.Schema.MD5
	if md5 == "" {
		t, err := msgdef.ParseBundle(c.Schema.Name, string(c.Schema.Data), msgdef.ROS1, nil)
		if err != nil {
			return 0, fmt.Errorf("bag: channel %q has no md5sum and its definition does not parse: %w", c.Topic, err)
		}
		md5 = msgdef.MD5(t)
	}
	fields := []Field{
		{"topic", cmp.Or(c.Metadata["topic"], c.Topic)},
		{"type", c.Schema.Name},
		{"md5sum", md5},
		{"message_definition", string(c.Schema.Data)},
	}
	for _, k := range slices.Sorted(maps.Keys(c.Metadata)) {
		switch k {
		case "topic", "type", "md5sum", "message_definition":
		case "latching":
			fields = append(fields, Field{k, Latching(c.Metadata[k])})
		default:
			fields = append(fields, Field{k, c.Metadata[k]})
		}
	}
	for w.byID[w.nextID] != nil {
		w.nextID++
	}
	id := w.nextID
	w.addConnection(id, c.Topic, fields)
	return id, nil
}

// Latching is a latching value as rosbag and roscpp read it, "1" or "0",
// as the Writer writes it: MCAP's ros1 profile spells it "true" or
// "false". Other values stay.
func Latching(v string) string {
	switch v {
	case "true":
		return "1"
	case "false":
		return "0"
	}
	return v
}

// addConnection registers connection id with the connection header fields
// as given.
func (w *Writer) addConnection(id uint32, topic string, fields []Field) {
	var header []byte
	for _, f := range fields {
		header = appendField(header, f.Name, []byte(f.Value))
	}
	c := &writerConn{id: id, topic: topic, header: header}
	w.conns = append(w.conns, c)
	w.byID[id] = c
}

// WriteMessage appends a message on connection channelID at m.LogTime
// (which must fit a ROS time: 0 to 2^32 s). The data is copied.
func (w *Writer) WriteMessage(channelID uint32, m *record.Message) error {
	if w.closed {
		return errors.New("bag: writer is closed")
	}
	if w.err != nil {
		return w.err
	}
	c := w.byID[channelID]
	if c == nil {
		return fmt.Errorf("bag: unknown channel id %d", channelID)
	}
	if m.LogTime < 0 || m.LogTime > maxTime {
		return fmt.Errorf("bag: log time %d ns does not fit a ROS time", m.LogTime)
	}
	if !c.written {
		w.hdr = connectionHeader(w.hdr[:0], c)
		appendRecord(&w.chunk, w.hdr, c.header)
		c.written = true
	}
	if len(w.chunkConns) == 0 {
		w.chunkStart, w.chunkEnd = m.LogTime, m.LogTime
	}
	if len(w.chunkIndex[channelID]) == 0 {
		w.chunkConns = append(w.chunkConns, channelID)
	}
	w.chunkIndex[channelID] = append(w.chunkIndex[channelID], IndexEntry{Time: m.LogTime, Offset: uint32(w.chunk.Len())})
	w.chunkStart, w.chunkEnd = min(w.chunkStart, m.LogTime), max(w.chunkEnd, m.LogTime)
	var v [8]byte
	w.hdr = appendField(w.hdr[:0], "op", []byte{byte(OpMessageData)})
	binary.LittleEndian.PutUint32(v[:], channelID)
	w.hdr = appendField(w.hdr, "conn", v[:4])
	putTime(v[:], m.LogTime)
	w.hdr = appendField(w.hdr, "time", v[:])
	appendRecord(&w.chunk, w.hdr, m.Data)
	if int64(w.chunk.Len()) >= w.opts.chunkSize {
		w.flushChunk()
	}
	return w.err
}

// flushChunk writes the current chunk and its index data records.
func (w *Writer) flushChunk() {
	if len(w.chunkConns) == 0 || w.err != nil {
		return
	}
	data := w.chunk.Bytes()
	if w.opts.compression != CompressionNone {
		w.comp.Reset()
		var zw io.WriteCloser
		switch w.opts.compression {
		case CompressionLZ4:
			if w.lz4w == nil {
				w.lz4w = lz4.NewWriter(&w.comp)
			} else {
				w.lz4w.Reset(&w.comp)
			}
			zw = w.lz4w
		case CompressionBZ2:
			if w.bz2w == nil {
				var err error
				if w.bz2w, err = bzip2.NewWriter(&w.comp, &bzip2.WriterConfig{Level: 9}); err != nil {
					w.err = err
					return
				}
			} else if err := w.bz2w.Reset(&w.comp); err != nil {
				w.err = err
				return
			}
			zw = w.bz2w
		}
		if _, err := zw.Write(data); err != nil {
			w.err = err
			return
		}
		if err := zw.Close(); err != nil {
			w.err = err
			return
		}
		data = w.comp.Bytes()
	}
	info := ChunkInfo{Ver: 1, ChunkPos: uint64(w.pos), StartTime: w.chunkStart, EndTime: w.chunkEnd}
	var v [4]byte
	w.hdr = appendField(w.hdr[:0], "op", []byte{byte(OpChunk)})
	w.hdr = appendField(w.hdr, "compression", []byte(w.opts.compression))
	binary.LittleEndian.PutUint32(v[:], uint32(w.chunk.Len()))
	w.hdr = appendField(w.hdr, "size", v[:])
	w.writeRecord(w.hdr, data)
	for _, id := range w.chunkConns {
		entries := w.chunkIndex[id]
		// rosbag keeps each index sorted by time (stable for equal times).
		slices.SortStableFunc(entries, func(a, b IndexEntry) int { return cmp.Compare(a.Time, b.Time) })
		w.writeIndexData(id, entries)
		info.Counts = append(info.Counts, ConnCount{Conn: id, Count: uint32(len(entries))})
		w.chunkIndex[id] = entries[:0]
	}
	w.infos = append(w.infos, info)
	w.chunk.Reset()
	w.chunkConns = w.chunkConns[:0]
	// Hand every finished chunk to the OS at once, so that a recorder
	// killed later loses only the chunk it was filling (reindex recovers
	// the rest).
	if w.err == nil {
		w.err = w.out.Flush()
	}
}

func (w *Writer) writeIndexData(id uint32, entries []IndexEntry) {
	var v [4]byte
	w.hdr = appendField(w.hdr[:0], "op", []byte{byte(OpIndexData)})
	binary.LittleEndian.PutUint32(v[:], 1)
	w.hdr = appendField(w.hdr, "ver", v[:])
	binary.LittleEndian.PutUint32(v[:], id)
	w.hdr = appendField(w.hdr, "conn", v[:])
	binary.LittleEndian.PutUint32(v[:], uint32(len(entries)))
	w.hdr = appendField(w.hdr, "count", v[:])
	w.scratch = grow(w.scratch, 12*len(entries))
	for i, e := range entries {
		putTime(w.scratch[12*i:], e.Time)
		binary.LittleEndian.PutUint32(w.scratch[12*i+8:], e.Offset)
	}
	w.writeRecord(w.hdr, w.scratch)
}

func (w *Writer) writeChunkInfo(info *ChunkInfo) {
	var v [8]byte
	w.hdr = appendField(w.hdr[:0], "op", []byte{byte(OpChunkInfo)})
	binary.LittleEndian.PutUint32(v[:], info.Ver)
	w.hdr = appendField(w.hdr, "ver", v[:4])
	binary.LittleEndian.PutUint64(v[:], info.ChunkPos)
	w.hdr = appendField(w.hdr, "chunk_pos", v[:])
	putTime(v[:], info.StartTime)
	w.hdr = appendField(w.hdr, "start_time", v[:])
	putTime(v[:], info.EndTime)
	w.hdr = appendField(w.hdr, "end_time", v[:])
	binary.LittleEndian.PutUint32(v[:], uint32(len(info.Counts)))
	w.hdr = appendField(w.hdr, "count", v[:4])
	data := make([]byte, 8*len(info.Counts))
	for i, c := range info.Counts {
		binary.LittleEndian.PutUint32(data[8*i:], c.Conn)
		binary.LittleEndian.PutUint32(data[8*i+4:], c.Count)
	}
	w.writeRecord(w.hdr, data)
}

// writeBagHeader writes the bag header record, padded to 4096 bytes of
// header and data like rosbag's.
func (w *Writer) writeBagHeader(indexPos int64) {
	var v [8]byte
	h := appendField(nil, "op", []byte{byte(OpBagHeader)})
	binary.LittleEndian.PutUint64(v[:], uint64(indexPos))
	h = appendField(h, "index_pos", v[:])
	binary.LittleEndian.PutUint32(v[:], uint32(len(w.conns)))
	h = appendField(h, "conn_count", v[:4])
	binary.LittleEndian.PutUint32(v[:], uint32(len(w.infos)))
	h = appendField(h, "chunk_count", v[:4])
	w.writeRecord(h, bytes.Repeat([]byte{' '}, bagHeaderLength-len(h)))
}

// connectionHeader appends the header of c's connection record.
func connectionHeader(h []byte, c *writerConn) []byte {
	var v [4]byte
	h = appendField(h, "op", []byte{byte(OpConnection)})
	binary.LittleEndian.PutUint32(v[:], c.id)
	h = appendField(h, "conn", v[:])
	return appendField(h, "topic", []byte(c.topic))
}

func appendField(h []byte, name string, value []byte) []byte {
	h = binary.LittleEndian.AppendUint32(h, uint32(len(name)+1+len(value)))
	h = append(h, name...)
	h = append(h, '=')
	return append(h, value...)
}

func appendRecord(b *bytes.Buffer, header, data []byte) {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(header)))
	b.Write(n[:])
	b.Write(header)
	binary.LittleEndian.PutUint32(n[:], uint32(len(data)))
	b.Write(n[:])
	b.Write(data)
}

func (w *Writer) writeRecord(header, data []byte) {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(header)))
	w.write(n[:])
	w.write(header)
	binary.LittleEndian.PutUint32(n[:], uint32(len(data)))
	w.write(n[:])
	w.write(data)
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.out.Write(b)
	w.pos += int64(n)
	w.err = err
}

// Close writes the last chunk and the index, patches the bag header and,
// for Create, renames the file into place. It is idempotent.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	w.flushChunk()
	indexPos := w.pos
	for _, c := range w.conns {
		w.hdr = connectionHeader(w.hdr[:0], c)
		w.writeRecord(w.hdr, c.header)
	}
	for i := range w.infos {
		w.writeChunkInfo(&w.infos[i])
	}
	if w.err == nil {
		w.err = w.out.Flush()
	}
	if w.err == nil {
		_, w.err = w.w.Seek(int64(len(Magic)), io.SeekStart)
	}
	if w.err == nil {
		w.out.Reset(w.w)
		w.writeBagHeader(indexPos)
		if w.err == nil {
			w.err = w.out.Flush()
		}
	}
	if w.err == nil {
		_, w.err = w.w.Seek(0, io.SeekEnd)
	}
	if w.file != nil {
		w.finishFile()
	}
	return w.err
}

// finishFile renames the file of Create into place, or removes it when
// writing failed.
func (w *Writer) finishFile() {
	if w.err == nil {
		w.err = w.file.Commit()
	} else {
		w.file.Abort()
	}
	w.file = nil
}

// Abort stops writing; for Create it removes the temporary file. Close
// after Abort does nothing.
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.file == nil {
		return nil
	}
	w.file.Abort()
	w.file = nil
	return nil
}
