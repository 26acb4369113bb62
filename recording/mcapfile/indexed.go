package mcapfile

import (
	"encoding/binary"
	"math"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/chunked"
	"github.com/foxglove/mcap/go/mcap"
)

// indexedIter reads the selected chunks through the shared ordered merge
// (decode/internal/chunked): equal times come out in file order. Workers
// read, decompress and index each chunk.
type indexedIter struct {
	r      *Reader
	f      record.Filter
	chunks []*mcap.ChunkIndex // the selected chunks, as given to the merge
	// chans holds the summary's channels by id, so that no message looks
	// one up in a map. It is as long as the largest id the summary lists
	// plus one (at most 65536 entries); ids it does not list have none.
	chans []indexedChan
	merge *chunked.Merge
	msg   record.Message
}

// indexedChan is a channel of the summary as the indexed iterator reads it.
type indexedChan struct {
	ch   *record.Channel // nil: not in the summary
	want bool            // the filter keeps its topic
}

func newIndexedIter(r *Reader, f record.Filter) *indexedIter {
	it := &indexedIter{r: r, f: f}
	n := 0
	for _, id := range r.ix.channelIDs {
		n = max(n, int(id)+1)
	}
	it.chans = make([]indexedChan, n)
	for _, id := range r.ix.channelIDs {
		c := r.ix.channels[id]
		it.chans[id] = indexedChan{ch: r.channel(c, r.ix.schemas[c.SchemaID], r.ix.schemaAt[c.SchemaID]),
			want: f.Topic == nil || f.Topic(c.Topic)}
	}
	var chunks []chunked.Chunk
	for _, ci := range r.ix.chunks {
		if f.Start != 0 && int64(ci.MessageEndTime) < f.Start || f.End != 0 && int64(ci.MessageStartTime) >= f.End {
			continue
		}
		if len(ci.MessageIndexOffsets) > 0 {
			any := false
			for id := range ci.MessageIndexOffsets {
				any = any || it.channel(id).want
			}
			if !any {
				continue
			}
		}
		it.chunks = append(it.chunks, ci)
		chunks = append(chunks, chunked.Chunk{Pos: int64(ci.ChunkStartOffset), Len: int64(ci.ChunkLength),
			Start: int64(ci.MessageStartTime), End: int64(ci.MessageEndTime)})
	}
	it.merge = chunked.New(chunks, func() chunked.Worker { return &worker{it: it} },
		chunked.Options{Workers: r.opts.Workers, SkipBad: r.opts.SkipBad, OnSkip: r.opts.OnSkip})
	it.merge.PlanReads(r.ra)
	return it
}

// worker is the state of one worker goroutine.
type worker struct {
	it  *indexedIter
	dec decoders
}

// Close returns the worker's decompressors.
func (w *worker) Close() { w.dec.close() }

// Load reads, decompresses and indexes chunk i. With record.WithSkipBad a damaged
// chunk gives the messages that can still be read, and its damage in
// Skipped.
func (w *worker) Load(i int, b *chunked.Buffers) *chunked.Loaded {
	it, dec := w.it, &w.dec
	ci := it.chunks[i]
	file := it.r.file
	skipBad := it.r.opts.SkipBad
	off := int64(ci.ChunkStartOffset)
	end := off + int64(ci.ChunkLength)
	lc := &chunked.Loaded{Base: -1}
	fr, body, ck, err := it.readChunk(b.Get(), off, end)
	var cut error // why the chunk record's framing is lost
	if err != nil {
		b.Put(body)
		if !skipBad {
			lc.Err = err
			return lc
		}
		// Take the bytes the chunk index gives the chunk.
		cfr, cbody, ok := cutChunk(it.r.ra, off, end)
		if ok {
			var perr error
			ck, perr = parseChunk(file, cfr.bodyOffset(), cbody)
			ok = perr == nil
		}
		if !ok {
			lc.Skipped = &record.Skipped{Offset: off, Length: end - off, Err: err, Note: "none of its records can be read"}
			return lc
		}
		fr, body, cut = cfr, cbody, err
	}
	var fate chunkFate
	var records []byte
	if ck.compression == "" {
		lc.Owned = [][]byte{body}
		lc.Base = fr.bodyOffset() + ck.recordsOffset
		if skipBad {
			records, fate = salvageRecords(dec, file, fr, ck, nil, cut, it.r.opts.verifyCRC)
		} else {
			records, lc.Err = dec.decompress(file, off, ck, nil, it.r.opts.verifyCRC)
		}
	} else {
		if skipBad {
			records, fate = salvageRecords(dec, file, fr, ck, b.Get(), cut, it.r.opts.verifyCRC)
		} else {
			records, lc.Err = dec.decompress(file, off, ck, b.Get(), it.r.opts.verifyCRC)
		}
		b.Put(body)
		lc.Owned = [][]byte{records}
	}
	lc.Data = records
	if lc.Err != nil {
		return lc
	}
	if fate.damage != nil && cut == nil && !it.r.opts.KeepUnverified {
		// No CRC vouches for the records: leave them out, and say so.
		fate.dropped = true
		_ = chunkRecords(file, off, records, func(op mcap.OpCode, _ int, _ []byte) error {
			if op == mcap.OpMessage {
				fate.seen++
			}
			return nil
		})
		s := fate.skipped(fr.end() - fr.offset)
		lc.Skipped = &s
		return lc
	}
	lc.Unverified = fate.damage != nil
	if len(records) > math.MaxUint32 {
		lc.Err = errorf(file, off, "chunk.uncompressed_size", record.ErrUnsupported, "chunk records of %d bytes (at most 4 GiB are read)", len(records))
		return lc
	}
	entries := b.Entries()
	lc.Err = chunkRecords(file, off, records, func(op mcap.OpCode, at int, body []byte) error {
		if op != mcap.OpMessage {
			fate.used++
			return nil
		}
		fate.seen++
		id, _, lt, pt, err := parseMessageHead(file, off, body)
		c := it.channel(id)
		if err == nil && c.ch == nil {
			err = errorf(file, off, "message.channel_id", record.ErrFormat, "message on channel %d, which the summary does not list", id)
		}
		if err == nil {
			err = messageTimes(file, off, lt, pt)
		}
		if err != nil {
			if !skipBad {
				return err
			}
			fate.bad++
			if fate.firstBad == nil {
				fate.firstBad = err
			}
			return nil
		}
		fate.used++
		fate.kept++
		if !c.want || it.f.Start != 0 && int64(lt) < it.f.Start || it.f.End != 0 && int64(lt) >= it.f.End {
			return nil
		}
		entries = append(entries, chunked.Entry{Time: int64(lt), At: uint32(at), Conn: uint32(id)})
		return nil
	})
	lc.Entries, _ = chunked.Sort(entries, nil, nil)
	if skipBad && !fate.whole() {
		s := fate.skipped(fr.end() - fr.offset)
		lc.Skipped = &s
	}
	return lc
}

// channel returns the summary's channel id; its ch is nil when the summary
// does not list it.
func (it *indexedIter) channel(id uint16) indexedChan {
	if int(id) < len(it.chans) {
		return it.chans[id]
	}
	return indexedChan{}
}

// readChunk reads and parses the chunk record that the chunk index places
// at [off, end), into raw (reused when large enough); body is the buffer read
// into, also on error.
func (it *indexedIter) readChunk(raw []byte, off, end int64) (fr frame, body []byte, ck *chunk, err error) {
	file := it.r.file
	fr, err = readFrame(it.r.ra, file, off, end)
	if err == nil && (fr.op != mcap.OpChunk || fr.end() != end) {
		err = errorf(file, off, "chunk_index.chunk_start_offset", record.ErrFormat, "chunk index points at a %s record of %d bytes, want a chunk of %d", fr.op, fr.end()-off, end-off)
	}
	if err != nil {
		return fr, raw, nil, err
	}
	body, err = readBody(it.r.ra, file, fr, raw)
	if err != nil {
		return fr, body, nil, err
	}
	ck, err = parseChunk(file, fr.bodyOffset(), body)
	return fr, body, ck, err
}

// Next returns the next message in log time order, equal times in file
// order. The message and its Data are valid until the next call.
func (it *indexedIter) Next() (*record.Message, error) {
	l, e, err := it.merge.Next()
	if err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint64(l.Data[e.At+1:])
	body := l.Data[int(e.At)+recordHeaderLen : int(e.At)+recordHeaderLen+int(n)]
	it.msg = record.Message{
		Channel:     it.chans[e.Conn].ch,
		LogTime:     e.Time,
		PublishTime: int64(binary.LittleEndian.Uint64(body[14:])),
		Sequence:    uint64(binary.LittleEndian.Uint32(body[2:])),
		Source:      it.r.file,
		Offset:      l.Offset(e),
		Unverified:  l.Unverified,
		Data:        body[messageHeadLen:],
	}
	return &it.msg, nil
}

// Close stops the workers; it is idempotent.
func (it *indexedIter) Close() error {
	it.merge.Close()
	return nil
}
