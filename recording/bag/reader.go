package bag

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/fileio"
)

// Option configures a Reader: record.WithWorkers (chunks read and
// decompressed in parallel when iterating an indexed bag), record.WithoutIndex
// (scan the file as for an unindexed bag), record.WithSkipBad (go on past
// a chunk that does not decompress, a record that does not parse, a cut
// tail; complete messages before the damage are still yielded, and every
// skipped range is reported with record.Skipped.Kept counting the messages
// salvaged from it) and record.WithWarning, which takes the torn end of a
// recording that was never closed (index_pos 0: a ".bag.active" file,
// rosbag record killed). Such a recording ends in a cut record or chunk as
// a matter of course: Summary and the iterators read every complete
// message before it and end without an error, and report the torn range
// once, to the warning callback (or, without one, to the skip callback).
type Option = record.ReadOption

// chunkRef is a chunk known from the index. The fields after pos come
// from the chunk record's header, which Reader.loadChunkHeaders reads:
// at open for a local file, only when needed for a remote one (where every
// header is a request of its own).
type chunkRef struct {
	info     *ChunkInfo
	pos      int64 // offset of the chunk record
	indexEnd int64 // end of the index data records that follow the chunk

	loaded      bool // the header was read (guarded by Reader.hdrMu)
	compression Compression
	size        uint32 // uncompressed size
	dataOffset  int64
	dataLen     uint32
}

// end is the offset just after the chunk record.
func (c *chunkRef) end() int64 { return c.dataOffset + int64(c.dataLen) }

// Reader reads a ROS bag 2.0 file. It implements record.Reader.
//
// A bag with an index (written by a finished rosbag record, or by Writer)
// is read through it: Summary and Channels touch only the bag header, the
// index section, the chunk headers (of a remote bag only the first: see
// Summary) and a few index data records, and Messages decompresses only the
// chunks that hold selected messages. A bag without a usable index (a
// ".bag.active" file, index_pos = 0, a cut or damaged index section) is
// read by scanning its records in file order; IndexError says why.
type Reader struct {
	r      io.ReaderAt
	closer io.Closer
	size   int64
	path   string
	opts   record.ReadOptions

	header    BagHeader
	dataStart int64 // offset of the first record after the bag header
	indexed   bool
	indexErr  error
	// cut is set when the bag was closed (index_pos set) but its index lies
	// past the end of the file: the file was cut after it was written.
	cut *record.Error

	// mu guards conns and connOrder, which a scan of an unindexed bag
	// fills while iterating.
	mu    sync.Mutex
	conns map[uint32]*record.Channel
	recs  map[uint32]*Connection // the connection records behind conns
	// connOrder lists connection ids in the order the index section (or
	// the scan) met them.
	connOrder []uint32
	chunks    []*chunkRef // sorted by pos
	hdrMu     sync.Mutex  // guards reading the chunks' headers

	scanOnce sync.Once
	scanned  *record.Summary
	scanErr  error
}

var _ record.Reader = (*Reader)(nil)

// Open opens the bag file at path.
func Open(path string, opts ...Option) (*Reader, error) {
	return fileio.Open(path, record.NewReadOptions(opts...).InPlace, func(ra io.ReaderAt, size int64) (*Reader, error) { return NewReader(ra, size, path, opts...) },
		func(r *Reader, f io.Closer) { r.closer = f })
}

// NewReader reads the bag held in the size bytes of r; path names it in
// errors and in Message.Source. It reads the bag header and, when the bag
// has one, the index.
func NewReader(r io.ReaderAt, size int64, path string, opts ...Option) (*Reader, error) {
	br := &Reader{r: r, size: size, path: path, opts: record.NewReadOptions(opts...),
		conns: map[uint32]*record.Channel{}, recs: map[uint32]*Connection{}}
	if err := br.readHeader(); err != nil {
		return nil, err
	}
	switch {
	case br.header.IndexPos == 0:
		br.indexErr = &record.Error{File: path, Offset: int64(len(Magic)), Field: "bag_header.index_pos",
			Err: record.ErrNotFound, Detail: "bag is not indexed (index_pos = 0)"}
		return br, nil
	case br.header.IndexPos > uint64(size) || br.header.IndexPos == uint64(size) && (br.header.ConnCount > 0 || br.header.ChunkCount > 0):
		br.cut = &record.Error{File: path, Offset: size, Field: "bag_header.index_pos", Err: record.ErrTruncated,
			Detail: fmt.Sprintf("the index at %d is past the end of the file (%d bytes)", br.header.IndexPos, size)}
		if !br.opts.SkipBad && !br.opts.NoIndex {
			// Reading what is left would lose the rest silently.
			c := *br.cut
			c.Detail += "; run baglab reindex"
			return nil, &c
		}
		br.indexErr = br.cut
	case !br.opts.NoIndex:
		err := br.readIndex()
		if err == nil {
			br.indexed = true
			return br, nil
		}
		br.indexErr = err
		br.conns, br.recs, br.connOrder, br.chunks = map[uint32]*record.Channel{}, map[uint32]*Connection{}, nil, nil
	}
	br.readTerminalConnections()
	return br, nil
}

// readHeader checks the magic and reads the bag header record.
func (r *Reader) readHeader() error {
	if r.size == 0 {
		return &record.Error{File: r.path, Offset: 0, Field: "magic", Err: record.ErrTruncated, Detail: "empty file"}
	}
	magic := make([]byte, min(r.size, int64(len(Magic))))
	if n, err := r.r.ReadAt(magic, 0); n < len(magic) {
		return err
	}
	if !bytes.Equal(magic, []byte(Magic)) {
		switch {
		case bytes.HasPrefix(magic, []byte("#ROSRECORD")), bytes.HasPrefix(magic, []byte("#ROSLOG")):
			return &record.Error{File: r.path, Offset: 0, Field: "magic", Err: record.ErrUnsupported,
				Detail: "bag format 1.x (only 2.0 is read)"}
		case strings.HasPrefix(Magic, string(magic)):
			return &record.Error{File: r.path, Offset: 0, Field: "magic", Err: record.ErrTruncated,
				Detail: "file ends inside the #ROSBAG V2.0 line"}
		}
		return &record.Error{File: r.path, Offset: 0, Field: "magic", Err: record.ErrFormat,
			Detail: "not a bag file (no #ROSBAG V2.0 line)"}
	}
	lex := NewLexer(r.r, r.size, r.path, int64(len(Magic)))
	rec, err := lex.Next()
	if err == io.EOF {
		return &record.Error{File: r.path, Offset: int64(len(Magic)), Field: "bag_header", Err: record.ErrTruncated,
			Detail: "no bag header record"}
	}
	if err != nil {
		return err
	}
	if rec.Op != OpBagHeader {
		return &record.Error{File: r.path, Offset: rec.Offset, Field: "op", Err: record.ErrFormat,
			Detail: "first record is " + rec.Op.String() + ", want bag_header"}
	}
	h, err := ParseBagHeader(rec.Header)
	if err != nil {
		return record.WithFile(err, r.path, rec.Offset, "")
	}
	if h.Encryptor == EncryptorAESCBC {
		// Its chunks and index connections are ciphertext: reading them
		// as records would call the bag damaged and reindex would lose it.
		return &record.Error{File: r.path, Offset: rec.Offset, Field: "bag_header.encryptor", Err: record.ErrUnsupported,
			Detail: fmt.Sprintf("the bag is encrypted (%s, GPG key user %q), which baglab does not decrypt; "+
				"'rosbag decrypt %s' decrypts it in place, keeping the original as .orig.bag", h.Encryptor, h.GPGUser, r.path)}
	}
	r.header = *h
	r.dataStart = lex.Pos()
	return nil
}

// readIndex reads the connection and chunk info records at index_pos and,
// of a local bag, the header of every chunk.
func (r *Reader) readIndex() error {
	pos := int64(r.header.IndexPos)
	if r.header.IndexPos > uint64(r.size) || pos < r.dataStart {
		return &record.Error{File: r.path, Offset: int64(len(Magic)), Field: "bag_header.index_pos", Err: record.ErrTruncated,
			Detail: "index position is outside the file"}
	}
	if p, ok := r.r.(prefetcher); ok {
		// Of a remote bag, the index section beyond the tail Open fetched
		// comes in one request, not in one per record.
		p.Prefetch([]int64{pos}, min(r.size-pos, maxIndexPrefetch))
	}
	lex := NewLexer(r.r, r.size, r.path, pos)
	var infos []*ChunkInfo
	var buf []byte
	for {
		rec, err := lex.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch rec.Op {
		case OpConnection:
			header := slices.Clone(rec.Header)
			if buf, err = lex.ReadData(rec, buf); err != nil {
				return err
			}
			c, err := ParseConnection(header, buf)
			if err != nil {
				return record.WithFile(err, r.path, rec.Offset, "")
			}
			c.Offset = rec.Offset
			r.addConnection(c)
		case OpChunkInfo:
			header := slices.Clone(rec.Header)
			if buf, err = lex.ReadData(rec, buf); err != nil {
				return err
			}
			ci, err := ParseChunkInfo(header, buf)
			if err != nil {
				return record.WithFile(err, r.path, rec.Offset, "")
			}
			infos = append(infos, ci)
		default:
			return &record.Error{File: r.path, Offset: rec.Offset, Field: "op", Err: record.ErrFormat,
				Detail: rec.Op.String() + " record in the index section"}
		}
	}
	if len(r.connOrder) < int(r.header.ConnCount) || len(infos) < int(r.header.ChunkCount) {
		return &record.Error{File: r.path, Offset: pos, Field: "index", Err: record.ErrTruncated,
			Detail: "index section holds fewer connections or chunk infos than the bag header counts"}
	}
	for _, ci := range infos {
		for _, cc := range ci.Counts {
			if r.conns[cc.Conn] == nil {
				return &record.Error{File: r.path, Offset: int64(ci.ChunkPos), Field: "chunk_info.conn", Err: record.ErrNotFound,
					Detail: "chunk info counts messages of an unknown connection"}
			}
		}
		if ci.ChunkPos < uint64(r.dataStart) || ci.ChunkPos >= r.header.IndexPos {
			return &record.Error{File: r.path, Offset: int64(ci.ChunkPos), Field: "chunk_info.chunk_pos", Err: record.ErrFormat,
				Detail: "chunk position outside the chunk section"}
		}
		r.chunks = append(r.chunks, &chunkRef{info: ci, pos: int64(ci.ChunkPos)})
	}
	slices.SortFunc(r.chunks, func(a, b *chunkRef) int { return cmp.Compare(a.pos, b.pos) })
	for i, c := range r.chunks {
		c.indexEnd = pos
		if i+1 < len(r.chunks) {
			c.indexEnd = r.chunks[i+1].pos
		}
	}
	if _, remote := r.r.(prefetcher); remote {
		// Each chunk header would be a request of its own: read them when
		// a reading needs them.
		return nil
	}
	return r.loadChunkHeaders(r.chunks)
}

// loadChunkHeaders reads the headers of the chunks in refs not read yet
// (of a remote bag, in parallel requests) and checks that no chunk
// overlaps the next one or the index section.
func (r *Reader) loadChunkHeaders(refs []*chunkRef) error {
	r.hdrMu.Lock()
	defer r.hdrMu.Unlock()
	var todo []*chunkRef
	for _, c := range refs {
		if !c.loaded {
			todo = append(todo, c)
		}
	}
	if p, ok := r.r.(prefetcher); ok && len(todo) > 1 {
		offs := make([]int64, len(todo))
		for i, c := range todo {
			offs[i] = c.pos
		}
		p.Prefetch(offs, minWindow)
	}
	for _, c := range todo {
		if err := r.readChunkHeader(c); err != nil {
			return err
		}
		if c.indexEnd < c.end() {
			return &record.Error{File: r.path, Offset: c.pos, Field: "chunk_info.chunk_pos", Err: record.ErrFormat,
				Detail: "chunks overlap each other or the index section"}
		}
		c.loaded = true
	}
	return nil
}

// chunkHeadersRead returns the compressions of the chunks whose headers
// were read and how many were not.
func (r *Reader) chunkHeadersRead() (comps []Compression, unread int) {
	r.hdrMu.Lock()
	defer r.hdrMu.Unlock()
	for _, c := range r.chunks {
		if c.loaded {
			comps = append(comps, c.compression)
		} else {
			unread++
		}
	}
	return comps, unread
}

// indexStart returns where the index data records after chunk c start:
// the end of the chunk when its header was read, else what the sizes of
// the index data records its chunk info counts add up to before indexEnd
// (a guess the caller checks against the chunk info).
func (r *Reader) indexStart(c *chunkRef) int64 {
	r.hdrMu.Lock()
	defer r.hdrMu.Unlock()
	if c.loaded {
		return c.end()
	}
	return c.indexEnd - indexLen(c.info)
}

// indexLen is the length of the index data records after the chunk of ci
// as rosbag and Writer write them, one per connection: header_len, the
// fields op, ver, conn and count (8+12+13+14 bytes), data_len, and 12
// bytes per message.
func indexLen(ci *ChunkInfo) int64 {
	n := int64(0)
	for _, cc := range ci.Counts {
		n += 4 + 47 + 4 + 12*int64(cc.Count)
	}
	return n
}

// maxIndexPrefetch bounds what a remote bag's index section fetches at
// once, before its records are read (a larger index is read on with the
// object's readahead).
const maxIndexPrefetch = 16 << 20

// prefetcher is an io.ReaderAt that can fetch scattered ranges ahead of
// their reads, in parallel (a remote object, package remote).
type prefetcher interface {
	Prefetch(offs []int64, n int64)
}

// readTerminalConnections registers the connection records at index_pos
// that are intact, for a scan that does not use the index: a few rosbag
// versions (rosbag record --split before ros_comm r10390) wrote some
// connection records only there.
func (r *Reader) readTerminalConnections() {
	pos := int64(r.header.IndexPos)
	if pos < r.dataStart || pos >= r.size {
		return
	}
	lex := NewLexer(r.r, r.size, r.path, pos)
	var buf []byte
	for {
		rec, err := lex.Next()
		if err != nil || rec.Op != OpConnection {
			return
		}
		header := slices.Clone(rec.Header)
		if buf, err = lex.ReadData(rec, buf); err != nil {
			return
		}
		c, err := ParseConnection(header, buf)
		if err != nil {
			return
		}
		c.Offset = rec.Offset
		r.addConnection(c)
	}
}

// readChunkHeader reads the header of chunk c into it.
func (r *Reader) readChunkHeader(c *chunkRef) error {
	lex := NewLexer(r.r, r.size, r.path, c.pos)
	rec, err := lex.Next()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if rec.Op != OpChunk {
		return &record.Error{File: r.path, Offset: rec.Offset, Field: "op", Err: record.ErrFormat,
			Detail: "chunk info points at a " + rec.Op.String() + " record"}
	}
	h, err := ParseChunkHeader(rec.Header)
	if err != nil {
		return record.WithFile(err, r.path, rec.Offset, "")
	}
	c.compression, c.size, c.dataOffset, c.dataLen = h.Compression, h.Size, rec.DataOffset, rec.DataLen
	return nil
}

// addConnection registers a connection the first time its id is seen and
// reports whether it was new.
func (r *Reader) addConnection(c *Connection) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.conns[c.Conn]; ok {
		return false
	}
	ch := channelOf(c)
	// Connections of one type share a Schema, so codecs compile it once.
	for _, id := range r.connOrder {
		s := r.conns[id].Schema
		if s.Name == ch.Schema.Name && s.MD5 == ch.Schema.MD5 && bytes.Equal(s.Data, ch.Schema.Data) {
			ch.Schema = s
			break
		}
	}
	r.conns[c.Conn] = ch
	r.recs[c.Conn] = c
	r.connOrder = append(r.connOrder, c.Conn)
	return true
}

// channel returns the registered channel of connection id, or nil.
func (r *Reader) channel(id uint32) *record.Channel {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns[id]
}

// connection returns the record of connection id, or nil.
func (r *Reader) connection(id uint32) *Connection {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recs[id]
}

// channelOf maps a connection record to a Channel: the connection header
// fields other than type, md5sum and message_definition go to Metadata,
// topic only when it is not the topic the connection is recorded on (a
// bag written with another publisher's header, as rosbag's Bag.write
// allows), so that a copy keeps it.
func channelOf(c *Connection) *record.Channel {
	md := make(map[string]string, len(c.Fields))
	for _, f := range c.Fields {
		switch f.Name {
		case "type", "md5sum", "message_definition":
		case "topic":
			if f.Value != c.Topic {
				md[f.Name] = f.Value
			}
		default:
			md[f.Name] = f.Value
		}
	}
	return &record.Channel{
		ID:              c.Conn,
		Topic:           c.Topic,
		MessageEncoding: "ros1",
		Schema: &record.Schema{
			Name:     c.Type,
			Encoding: "ros1msg",
			Data:     []byte(c.MessageDefinition),
			MD5:      c.MD5Sum,
			Offset:   c.Offset,
		},
		Metadata: md,
	}
}

// Header returns the bag header record.
func (r *Reader) Header() BagHeader { return r.header }

// crashed reports whether the bag was never closed (index_pos 0), so that
// its end is torn as a matter of course.
func (r *Reader) crashed() bool { return r.header.IndexPos == 0 }

// beyondEnd is how many bytes of chunks the bag header says lie past the
// end of the file: those a cut took with it (0 when none or unknown).
func (r *Reader) beyondEnd() int64 {
	if r.crashed() || r.header.IndexPos <= uint64(r.size) || r.header.IndexPos > math.MaxInt64 {
		return 0
	}
	return int64(r.header.IndexPos) - r.size
}

// Indexed reports whether the reader uses the bag's index.
func (r *Reader) Indexed() bool { return r.indexed }

// IndexError says why the index is not used: nil for an indexed bag or
// when record.WithoutIndex was given, an error wrapping record.ErrNotFound for a
// bag that has no index, or the error met reading a damaged index.
func (r *Reader) IndexError() error { return r.indexErr }

// Close releases the file when the reader opened it; idempotent.
func (r *Reader) Close() error {
	c := r.closer
	r.closer = nil
	if c != nil {
		return c.Close()
	}
	return nil
}

// Channels lists the bag's connections ordered by id. For a bag without
// an index this scans the whole file (see Summary).
func (r *Reader) Channels() ([]*record.Channel, error) {
	if !r.indexed {
		if _, err := r.scan(); err != nil {
			return nil, err
		}
	}
	return r.channelList(), nil
}

func (r *Reader) channelList() []*record.Channel {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*record.Channel, 0, len(r.conns))
	for _, id := range r.connOrder {
		out = append(out, r.conns[id])
	}
	slices.SortFunc(out, func(a, b *record.Channel) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Messages iterates the messages the filter selects. With an index they
// come in log time order, equal times in file order (chunk position, then
// position in the chunk: the rule of every format), merged across chunks that
// may overlap in time or be stored out of order; only chunks that hold
// selected connections in the selected time range are read, by a pool of
// workers that decompress ahead. Without an index they come in file order,
// which is the order rosbag recorded them (usually, but not always, log
// time order).
//
// Message.PublishTime equals LogTime (a bag stores one time), Sequence
// counts the messages this iterator yields from 0, Source is the reader's
// path, and Offset is the file offset of the message data record when its
// chunk is stored uncompressed, else the offset of its chunk record.
//
// The iterator must be closed. It implements record.Iterator and NextInto.
func (r *Reader) Messages(f record.Filter) (record.Iterator, error) {
	if r.indexed {
		return r.indexedMessages(f)
	}
	return r.linearMessages(f), nil
}

// errIsTruncation reports whether err is a cut file rather than bad data.
func errIsTruncation(err error) bool { return errors.Is(err, record.ErrTruncated) }
