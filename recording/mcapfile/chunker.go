package mcapfile

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"runtime"
	"sync"

	"github.com/baglab/baglab/internal/batches"
	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// keepBytes is the largest chunk buffer kept for reuse: one very large
// message does not pin its size.
const keepBytes = 16 << 20

// outChunk is one chunk being filled, compressed or written: its records
// uncompressed, then compressed, and a message index per channel slot.
type outChunk struct {
	data        []byte                 // the records, uncompressed
	compressed  []byte                 // data compressed, its buffer kept for the next chunk
	written     []byte                 // what the chunk record holds: compressed or data
	format      mcap.CompressionFormat // written's compression
	crc         uint32
	start, end  uint64
	messages    int
	indexes     []*mcap.MessageIndex // by channel slot, in the order channels were added
	ready       chan error           // the compression's result
	compressing bool                 // sent to a compressor, its result not yet taken
}

// chunker builds the chunks of a Writer made WithBackgroundWrites itself,
// so that they are compressed in parallel: WriteMessage appends the
// message record to the open chunk (its one copy of the data; EncodeMessage
// encodes the data there), a full
// chunk is compressed on one of a few goroutines while the next fills,
// and a batches.Pipe hands the chunks in order to the library's
// WriteChunkWithIndexes, which writes them with their message indexes and
// indexes them as its own. Schema and channel records go into the open
// chunk as the library puts them into its own; every record written
// outside chunks (metadata, attachments, the summary) waits for the
// chunks before it (sync).
type chunker struct {
	lib         *mcap.Writer // writes the chunks, the summary and the rest
	records     *mcap.Writer // serializes schema and channel records into recs
	recs        bytes.Buffer
	compression mcap.CompressionFormat
	size        int64
	slots       map[uint16]int // channel id → slot of outChunk.indexes
	ids         []uint16       // channel id by slot
	pipe        *batches.Pipe[outChunk]
	compress    chan *outChunk
	zstd        *zstd.Encoder
	lz4         sync.Pool // *lz4.Writer
	stopped     sync.WaitGroup
	// storeUnhelped writes a chunk uncompressed when compressing it is
	// not worth it (WithStoreUnhelpedChunks)
	storeUnhelped bool
}

// startChunker starts a chunker writing through lib, whose own chunking
// it leaves unused.
func startChunker(lib *mcap.Writer, compression mcap.CompressionFormat, level mcap.CompressionLevel, size int64, storeUnhelped bool) (*chunker, error) {
	workers := min(runtime.GOMAXPROCS(0), 4)
	c := &chunker{lib: lib, compression: compression, size: size, slots: map[uint16]int{},
		compress: make(chan *outChunk, workers+2), storeUnhelped: storeUnhelped}
	var err error
	if c.records, err = mcap.NewWriter(&c.recs, &mcap.WriterOptions{SkipMagic: true}); err != nil {
		return nil, err
	}
	switch compression {
	case mcap.CompressionZSTD:
		zl := zstd.SpeedDefault
		if level == mcap.CompressionLevelFastest {
			zl = zstd.SpeedFastest
		}
		// No frame checksum: the chunk's CRC covers the records, as in
		// the chunks of the MCAP C++ library (ZSTD_compress).
		c.zstd, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zl), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(workers))
		if err != nil {
			return nil, err
		}
	case mcap.CompressionLZ4:
		c.lz4.New = func() any {
			w := lz4.NewWriter(nil)
			_ = w.Apply(lz4.CompressionLevelOption(lz4.Fast))
			return w
		}
	}
	for range workers {
		c.stopped.Add(1)
		go c.compressor()
	}
	// One chunk more than compressors: one fills while the others are
	// compressed or written.
	c.pipe = batches.Start(workers+1, c.write, c.reset, func(k *outChunk) bool { return len(k.data) == 0 })
	return c, nil
}

// Chunks are stored uncompressed, with storeUnhelped, when they are
// smaller than minCompressBytes or compression saves less than 2% of them
// (uncompressed/compressed below 1.02), as libmcap writes them without
// forceCompression.
const (
	minCompressBytes = 1024
	minRatioPercent  = 102
)

// compressor compresses the chunks sent to it and reports each on its
// ready channel.
func (c *chunker) compressor() {
	defer c.stopped.Done()
	for k := range c.compress {
		k.crc = crc32.ChecksumIEEE(k.data)
		k.written, k.format = k.data, c.compression
		if c.storeUnhelped && len(k.data) < minCompressBytes {
			k.format = mcap.CompressionNone
		}
		var err error
		switch k.format {
		case mcap.CompressionZSTD:
			if n := c.zstd.MaxEncodedSize(len(k.data)); cap(k.compressed) < n {
				k.compressed = make([]byte, 0, n) // what incompressible bytes need
			}
			k.compressed = c.zstd.EncodeAll(k.data, k.compressed[:0])
			k.written = k.compressed
		case mcap.CompressionLZ4:
			buf := bytes.NewBuffer(k.compressed[:0])
			w := c.lz4.Get().(*lz4.Writer)
			w.Reset(buf)
			if _, err = w.Write(k.data); err == nil {
				err = w.Close()
			}
			c.lz4.Put(w)
			k.compressed = buf.Bytes()
			k.written = k.compressed
		}
		if c.storeUnhelped && k.format != mcap.CompressionNone && int64(len(k.data))*100 < int64(len(k.compressed))*minRatioPercent {
			k.written, k.format = k.data, mcap.CompressionNone
		}
		k.ready <- err
	}
}

// write writes a compressed chunk, on the Pipe's goroutine.
func (c *chunker) write(k *outChunk) error {
	k.compressing = false
	if err := <-k.ready; err != nil {
		return err
	}
	var start, end uint64
	if k.messages > 0 {
		start, end = k.start, k.end
	}
	var indexes []*mcap.MessageIndex
	for _, idx := range k.indexes {
		if !idx.IsEmpty() {
			indexes = append(indexes, idx)
		}
	}
	return c.lib.WriteChunkWithIndexes(&mcap.Chunk{
		MessageStartTime: start, MessageEndTime: end,
		UncompressedSize: uint64(len(k.data)), UncompressedCRC: k.crc,
		Compression: string(k.format), Records: k.written,
	}, indexes)
}

// reset empties a chunk for reuse, once its compression is over (after a
// write error, the Pipe resets without writing).
func (c *chunker) reset(k *outChunk) {
	if k.compressing {
		<-k.ready
		k.compressing = false
	}
	k.data, k.compressed, k.written = k.data[:0], k.compressed[:0], nil
	if cap(k.data) > keepBytes {
		k.data = nil
	}
	if cap(k.compressed) > keepBytes {
		k.compressed = nil
	}
	k.messages = 0
	for _, idx := range k.indexes {
		idx.Reset()
	}
}

// send closes the open chunk unless empty: it starts its compression and
// queues it for writing.
func (c *chunker) send() {
	k := c.pipe.Current()
	if len(k.data) == 0 {
		return
	}
	if k.ready == nil {
		k.ready = make(chan error, 1)
	}
	k.compressing = true
	c.compress <- k
	c.pipe.Send()
}

// addSchema puts a schema record into the open chunk and the summary.
func (c *chunker) addSchema(s *mcap.Schema) error {
	if err := c.records.WriteSchema(s); err != nil {
		return err
	}
	c.takeRecords()
	c.lib.AddSchema(s)
	return nil
}

// addChannel puts a channel record into the open chunk and the summary.
func (c *chunker) addChannel(ch *mcap.Channel) error {
	if err := c.records.WriteChannel(ch); err != nil {
		return err
	}
	c.takeRecords()
	c.lib.AddChannel(ch)
	if _, ok := c.slots[ch.ID]; !ok {
		c.slots[ch.ID] = len(c.ids)
		c.ids = append(c.ids, ch.ID)
	}
	return nil
}

func (c *chunker) takeRecords() {
	k := c.open()
	k.data = append(k.data, c.recs.Bytes()...)
	c.recs.Reset()
}

// open returns the open chunk, its buffer sized once for a chunk, not
// grown by doubling from nothing.
func (c *chunker) open() *outChunk {
	k := c.pipe.Current()
	if cap(k.data) == 0 {
		k.data = make([]byte, 0, c.size+c.size/8)
	}
	return k
}

// add appends m's record to the open chunk, its data appended by encode
// (m.Data when nil), and sends the chunk once it holds more than the
// chunk size, as the library does. Its one error is encode's, when nothing
// is added; the caller checks the pipe's error first.
func (c *chunker) add(m *mcap.Message, encode func([]byte) ([]byte, error)) error {
	k := c.open()
	at := len(k.data)
	k.data = append(k.data, byte(mcap.OpMessage))
	k.data = binary.LittleEndian.AppendUint64(k.data, 0) // the length, once the data is there
	k.data = binary.LittleEndian.AppendUint16(k.data, m.ChannelID)
	k.data = binary.LittleEndian.AppendUint32(k.data, m.Sequence)
	k.data = binary.LittleEndian.AppendUint64(k.data, m.LogTime)
	k.data = binary.LittleEndian.AppendUint64(k.data, m.PublishTime)
	if encode == nil {
		k.data = append(k.data, m.Data...)
	} else {
		data, err := encode(k.data)
		if err != nil {
			k.data = k.data[:at]
			return err
		}
		k.data = data
	}
	binary.LittleEndian.PutUint64(k.data[at+1:], uint64(len(k.data)-at-1-8))
	if k.messages == 0 {
		k.start, k.end = math.MaxUint64, 0
	}
	slot := c.slots[m.ChannelID]
	for len(k.indexes) <= slot {
		k.indexes = append(k.indexes, &mcap.MessageIndex{ChannelID: c.ids[len(k.indexes)]})
	}
	k.indexes[slot].Add(m.LogTime, uint64(at))
	k.start, k.end = min(k.start, m.LogTime), max(k.end, m.LogTime)
	k.messages++
	stats := c.lib.Statistics
	stats.ChannelMessageCounts[m.ChannelID]++
	stats.MessageCount++
	if int64(len(k.data)) > c.size {
		c.send()
	}
	return nil
}

// sync closes the open chunk and waits until every chunk is written, so
// that the caller may write a record outside chunks, and returns the
// first write error.
func (c *chunker) sync() error {
	c.send()
	return c.pipe.Sync()
}

// stop writes the open chunk and every one before it, and stops the
// goroutines; it returns the first write error.
func (c *chunker) stop() error {
	c.send()
	err := c.pipe.Stop()
	close(c.compress)
	c.stopped.Wait()
	if c.zstd != nil {
		c.zstd.Close()
	}
	return err
}
