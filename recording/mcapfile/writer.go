package mcapfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// WriterOption configures a Writer.
type WriterOption func(*writerOptions)

type writerOptions struct {
	compression mcap.CompressionFormat
	chunkSize   int64
	profile     string
	profileSet  bool
	library     string
	fastest     bool
	background  bool
	unhelped    bool // WithStoreUnhelpedChunks
	sync        bool // WithSync
}

func defaultWriterOptions() writerOptions {
	return writerOptions{compression: mcap.CompressionZSTD, chunkSize: 4 << 20, library: "baglab"}
}

// WithCompression sets the chunk compression: "zstd" (default), "lz4" or
// "none".
func WithCompression(name string) WriterOption {
	return func(o *writerOptions) {
		if name == "none" {
			name = ""
		}
		o.compression = mcap.CompressionFormat(name)
	}
}

// WithChunkSize sets the target uncompressed size of a chunk (default 4 MiB);
// a single larger message makes a larger chunk.
func WithChunkSize(n int64) WriterOption {
	return func(o *writerOptions) { o.chunkSize = n }
}

// WithProfile sets the header profile, "ros1" or "ros2". Without it the
// profile follows the first channel's message encoding (ros1 → "ros1",
// cdr → "ros2", anything else → "").
func WithProfile(p string) WriterOption {
	return func(o *writerOptions) { o.profile, o.profileSet = p, true }
}

// WithFastestCompression compresses zstd chunks at the Go library's
// fastest level (about zstd's level 1, libmcap's default, which rosbag2's
// MCAP storage uses for zstd chunks a storage config asks for) instead of
// its default (about level 3).
func WithFastestCompression() WriterOption {
	return func(o *writerOptions) { o.fastest = true }
}

// WithBackgroundWrites compresses and writes chunks on goroutines of the
// Writer's own, several chunks at once, while the caller goes on with the
// next messages; WriteMessage then copies each message's data into the
// open chunk, and a write error is returned by a later call.
func WithBackgroundWrites() WriterOption {
	return func(o *writerOptions) { o.background = true }
}

// WithStoreUnhelpedChunks writes a chunk uncompressed when it is smaller
// than 1 KiB or compression saves less than 2% of it, as libmcap (the
// MCAP writer of rosbag2's MCAP storage) does unless told
// forceCompression: such a chunk's compression is "" whatever
// WithCompression says. It takes the chunks of WithBackgroundWrites.
func WithStoreUnhelpedChunks() WriterOption {
	return func(o *writerOptions) { o.unhelped = true }
}

// WithSync has Close wait until the file is on disk before renaming it
// into place (internal/atomicfile's Synced), so that a power cut can
// leave it missing but never short. Create alone takes it; without it,
// as the mcap CLI and rosbag2, the file is written at the page cache's
// speed.
func WithSync() WriterOption {
	return func(o *writerOptions) { o.sync = true }
}

// WithLibrary sets the header's library string (default "baglab").
func WithLibrary(lib string) WriterOption {
	return func(o *writerOptions) { o.library = lib }
}

type schemaIdent struct {
	name, encoding, data string
}

// Writer writes an MCAP file: chunked, with message indexes, chunk indexes,
// attachment and metadata indexes, statistics and summary offsets. It
// implements record.Writer.
type Writer struct {
	opts     writerOptions
	w        *mcap.Writer
	header   bool
	schemas  map[schemaIdent]uint16
	channels map[uint32]bool
	nextChan uint32
	err      error
	closed   bool
	bg       *chunker // with WithBackgroundWrites, until Close
	encoded  []byte   // the last message EncodeMessage encoded, without bg

	// set by Create
	file *atomicfile.File
	buf  *bufio.Writer
}

// NewWriter starts an MCAP file on w. Close finishes it; w is not closed.
func NewWriter(w io.Writer, opts ...WriterOption) (*Writer, error) {
	o := defaultWriterOptions()
	for _, opt := range opts {
		opt(&o)
	}
	switch o.compression {
	case mcap.CompressionZSTD, mcap.CompressionLZ4, mcap.CompressionNone:
	default:
		return nil, fmt.Errorf("mcapfile: unsupported compression %q (want zstd, lz4 or none)", o.compression)
	}
	if o.profileSet && o.profile != "ros1" && o.profile != "ros2" && o.profile != "" {
		return nil, fmt.Errorf("mcapfile: unsupported profile %q (want ros1 or ros2)", o.profile)
	}
	if o.chunkSize <= 0 {
		return nil, fmt.Errorf("mcapfile: chunk size %d must be positive", o.chunkSize)
	}
	if o.unhelped && !o.background {
		return nil, errors.New("mcapfile: WithStoreUnhelpedChunks takes the chunks of WithBackgroundWrites")
	}
	level := mcap.CompressionLevelDefault
	if o.compression == mcap.CompressionLZ4 || o.fastest {
		// The library's default lz4 level is the slow high-compression
		// one; lz4 is chosen for speed (and fastest zstd when asked).
		level = mcap.CompressionLevelFastest
	}
	libCompression := o.compression
	if o.background {
		libCompression = mcap.CompressionNone // the chunker compresses
	}
	mw, err := mcap.NewWriter(w, &mcap.WriterOptions{
		IncludeCRC:       true,
		Chunked:          true,
		ChunkSize:        o.chunkSize,
		Compression:      libCompression,
		CompressionLevel: level,
		OverrideLibrary:  true,
	})
	if err != nil {
		return nil, err
	}
	writer := &Writer{opts: o, w: mw, schemas: map[schemaIdent]uint16{}, channels: map[uint32]bool{}}
	if o.background {
		if writer.bg, err = startChunker(mw, o.compression, level, o.chunkSize, o.unhelped); err != nil {
			return nil, err
		}
	}
	return writer, nil
}

// Create writes an MCAP file at path. The data goes to a temporary file in
// the same directory (internal/atomicfile), renamed to path by Close; Abort
// discards it.
func Create(path string, opts ...WriterOption) (*Writer, error) {
	o := defaultWriterOptions()
	for _, opt := range opts {
		opt(&o)
	}
	f, err := atomicfile.Create(path, atomicfile.Synced(o.sync))
	if err != nil {
		return nil, err
	}
	// Small records gather in the buffer; a chunk, larger than it, mostly
	// goes past it to the file without a copy.
	buf := bufio.NewWriterSize(f, 64<<10)
	w, err := NewWriter(buf, opts...)
	if err != nil {
		f.Abort()
		return nil, err
	}
	w.file, w.buf = f, buf
	return w, nil
}

// sync waits for the chunks of WithBackgroundWrites to be written, before
// a record written outside chunks.
func (w *Writer) sync() error {
	if w.bg == nil {
		return nil
	}
	if err := w.bg.sync(); err != nil {
		return w.fail(err)
	}
	return nil
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// writeHeader writes the header once, before the first other record.
func (w *Writer) writeHeader(firstEncoding string) error {
	if w.header {
		return nil
	}
	w.header = true
	profile := w.opts.profile
	if !w.opts.profileSet {
		switch firstEncoding {
		case "ros1":
			profile = "ros1"
		case "cdr":
			profile = "ros2"
		}
	}
	return w.w.WriteHeader(&mcap.Header{Profile: profile, Library: w.opts.library})
}

// AddChannel registers c and returns the MCAP channel id to write its
// messages with. Schemas are shared by channels with the same name, encoding
// and definition. A ROS1 schema's MD5 is stored in the channel metadata as
// "md5sum" (unless the metadata already has one).
func (w *Writer) AddChannel(c *record.Channel) (uint32, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, errors.New("mcapfile: writer is closed")
	}
	if w.nextChan > math.MaxUint16 {
		return 0, errors.New("mcapfile: more than 65536 channels")
	}
	if err := w.writeHeader(c.MessageEncoding); err != nil {
		return 0, w.fail(err)
	}
	var schemaID uint16
	s := c.Schema
	if s != nil && (s.Name != "" || s.Encoding != "" || len(s.Data) > 0) {
		key := schemaIdent{s.Name, s.Encoding, string(s.Data)}
		id, ok := w.schemas[key]
		if !ok {
			if len(w.schemas) >= math.MaxUint16 {
				return 0, errors.New("mcapfile: more than 65535 schemas")
			}
			id = uint16(len(w.schemas) + 1)
			if err := w.writeSchema(&mcap.Schema{ID: id, Name: s.Name, Encoding: s.Encoding, Data: s.Data}); err != nil {
				return 0, w.fail(err)
			}
			w.schemas[key] = id
		}
		schemaID = id
	}
	md := maps.Clone(c.Metadata)
	if md == nil {
		md = map[string]string{}
	}
	if s != nil && s.MD5 != "" && md["md5sum"] == "" {
		md["md5sum"] = s.MD5
	}
	id := w.nextChan
	if err := w.writeChannel(&mcap.Channel{ID: uint16(id), SchemaID: schemaID, Topic: c.Topic, MessageEncoding: c.MessageEncoding, Metadata: md}); err != nil {
		return 0, w.fail(err)
	}
	w.channels[id] = true
	w.nextChan++
	return id, nil
}

// writeSchema and writeChannel put a record into the open chunk, the
// library's or the chunker's.
func (w *Writer) writeSchema(s *mcap.Schema) error {
	if w.bg != nil {
		return w.bg.addSchema(s)
	}
	return w.w.WriteSchema(s)
}

func (w *Writer) writeChannel(c *mcap.Channel) error {
	if w.bg != nil {
		return w.bg.addChannel(c)
	}
	return w.w.WriteChannel(c)
}

// WriteMessage writes m on the channel AddChannel returned. The MCAP
// sequence is the low 32 bits of m.Sequence.
func (w *Writer) WriteMessage(channelID uint32, m *record.Message) error {
	return w.write(channelID, m, nil)
}

// EncodeMessage is WriteMessage with the data encode appends to dst (m.Data
// unused): with WithBackgroundWrites, encode appends to the open chunk
// itself, where WriteMessage copies m.Data. When encode fails, nothing is
// written and its error is returned as is (record.EncodingWriter).
func (w *Writer) EncodeMessage(channelID uint32, m *record.Message, encode func(dst []byte) ([]byte, error)) error {
	return w.write(channelID, m, encode)
}

// write is WriteMessage with encode nil, EncodeMessage otherwise.
func (w *Writer) write(channelID uint32, m *record.Message, encode func([]byte) ([]byte, error)) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("mcapfile: writer is closed")
	}
	if !w.channels[channelID] {
		return fmt.Errorf("mcapfile: unknown channel %d", channelID)
	}
	if m.LogTime < 0 || m.PublishTime < 0 {
		return fmt.Errorf("mcapfile: negative time (log %d, publish %d)", m.LogTime, m.PublishTime)
	}
	msg := &mcap.Message{
		ChannelID:   uint16(channelID),
		Sequence:    uint32(m.Sequence),
		LogTime:     uint64(m.LogTime),
		PublishTime: uint64(m.PublishTime),
		Data:        m.Data,
	}
	if w.bg != nil {
		if err := w.bg.pipe.Err(); err != nil {
			return w.fail(err)
		}
		return w.bg.add(msg, encode)
	}
	if encode != nil {
		data, err := encode(w.encoded[:0])
		if err != nil {
			return err
		}
		w.encoded, msg.Data = data, data
	}
	if err := w.w.WriteMessage(msg); err != nil {
		return w.fail(err)
	}
	return nil
}

// AddMetadata writes a metadata record.
func (w *Writer) AddMetadata(name string, md map[string]string) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("mcapfile: writer is closed")
	}
	if err := w.sync(); err != nil {
		return err
	}
	if err := w.writeHeader(""); err != nil {
		return w.fail(err)
	}
	if md == nil {
		md = map[string]string{}
	}
	if err := w.w.WriteMetadata(&mcap.Metadata{Name: name, Metadata: md}); err != nil {
		return w.fail(err)
	}
	return nil
}

// AddAttachment writes an attachment record.
func (w *Writer) AddAttachment(name, mediaType string, logTime, createTime uint64, data []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("mcapfile: writer is closed")
	}
	if err := w.sync(); err != nil {
		return err
	}
	if err := w.writeHeader(""); err != nil {
		return w.fail(err)
	}
	err := w.w.WriteAttachment(&mcap.Attachment{
		LogTime: logTime, CreateTime: createTime, Name: name, MediaType: mediaType,
		DataSize: uint64(len(data)), Data: bytes.NewReader(data),
	})
	if err != nil {
		return w.fail(err)
	}
	return nil
}

// Close finishes the file (last chunk, summary, footer). For a file made by
// Create it flushes, syncs and renames the temporary file into place. Close
// is idempotent; after an earlier write error it discards a Create file and
// returns that error.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.bg != nil {
		if err := w.bg.stop(); err != nil {
			w.fail(err)
		}
		w.bg = nil
	}
	if w.err == nil {
		if err := w.writeHeader(""); err != nil {
			w.fail(err)
		} else if err := w.w.Close(); err != nil {
			w.fail(err)
		}
	}
	if w.file == nil {
		return w.err
	}
	if w.err == nil {
		if err := w.buf.Flush(); err != nil {
			w.fail(err)
		} else if err := w.file.Commit(); err != nil {
			w.fail(err)
		}
	}
	if w.err != nil {
		w.file.Abort()
	}
	return w.err
}

// Abort discards a file made by Create without finishing it. After Abort,
// Close returns the abort error. For NewWriter it only stops the writer.
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.fail(errors.New("mcapfile: writer aborted"))
	w.Close()
}
