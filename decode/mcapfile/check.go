package mcapfile

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/foxglove/mcap/go/mcap"
)

// Severities of a Problem.
const (
	SeverityError   = "error"   // data is damaged or unreadable
	SeverityWarning = "warning" // readable, but an index or count is missing or off
)

// Problem is one finding of Check.
type Problem struct {
	Offset   int64  // byte offset in the file, -1 when it concerns the whole file
	Severity string // SeverityError or SeverityWarning
	Message  string
}

// String formats the problem for a human.
func (p Problem) String() string {
	return fmt.Sprintf("%s at offset %d: %s", p.Severity, p.Offset, p.Message)
}

// chunkFacts is what Check found in one chunk.
type chunkFacts struct {
	offset, length int64
	start, end     uint64
	compression    string
	compressed     uint64
	uncompressed   uint64
	indexOffsets   map[uint16]uint64
	indexLength    int64
}

// checker accumulates Check's findings.
type checker struct {
	file     string
	ra       io.ReaderAt
	size     int64
	problems []Problem
	schemas  map[uint16]bool
	channels map[uint16]bool
	counts   map[uint16]uint64
	total    uint64
	start    uint64
	end      uint64
	chunks   []*chunkFacts
	atts     map[int64]Attachment
	metas    map[int64]string
	dec      decoders
	last     []byte // uncompressed records of the last chunk, for its message indexes
}

func (c *checker) add(off int64, sev, format string, args ...any) {
	c.problems = append(c.problems, Problem{Offset: off, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// Check verifies an MCAP file for `baglab doctor`: magic, record framing,
// data section, chunk and summary CRCs, chunk contents against the chunk
// and message indexes, attachments and metadata against their indexes, and
// the statistics against the counts. It returns the problems found (none for
// a sound file); the error is for failures to read the file at all.
func Check(path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return CheckReaderAt(f, st.Size(), path), nil
}

// CheckReaderAt is Check for the size bytes of ra; path names the file in
// messages.
func CheckReaderAt(ra io.ReaderAt, size int64, path string) []Problem {
	c := &checker{file: path, ra: ra, size: size, schemas: map[uint16]bool{}, channels: map[uint16]bool{},
		counts: map[uint16]uint64{}, atts: map[int64]Attachment{}, metas: map[int64]string{}}
	defer c.dec.close()
	c.run()
	return c.problems
}

func (c *checker) run() {
	if err := checkMagic(c.ra, c.file, c.size); err != nil {
		c.add(0, SeverityError, "%v", err)
		return
	}
	footer, err := readFooter(c.ra, c.file, c.size)
	if err != nil {
		c.add(c.size-tailLen, SeverityError, "%v", err)
	}
	limit := c.size
	if footer != nil {
		limit = c.size - magicLen
	} else if err == nil {
		c.add(c.size, SeverityError, "file does not end with a footer and the MCAP magic (truncated or unfinished)")
	}
	crc := crc32.NewIEEE()
	crc.Write(mcap.Magic)
	sc := newScanner(c.ra, c.file, magicLen, limit)
	var prev *chunkFacts
	var dataEnd bool
	first := true
	for {
		fr, err := sc.next()
		if err == io.EOF {
			if !dataEnd {
				c.add(sc.pos, SeverityError, "data section ends without a data end record")
			}
			break
		}
		if err != nil {
			c.add(sc.pos, SeverityError, "%v", err)
			return
		}
		if first && fr.op != mcap.OpHeader {
			c.add(fr.offset, SeverityError, "first record is %s, want header", fr.op)
		}
		first = false
		if fr.op == mcap.OpDataEnd {
			body, err := sc.bodyOf(fr)
			if err != nil {
				c.add(fr.offset, SeverityError, "%v", err)
				return
			}
			if len(body) >= 4 {
				if want := binary.LittleEndian.Uint32(body); want != 0 && want != crc.Sum32() {
					c.add(fr.offset, SeverityError, "data section CRC mismatch: computed %08x, stored %08x", crc.Sum32(), want)
				}
			}
			dataEnd = true
			break
		}
		if err := c.hashRecord(crc, fr); err != nil {
			c.add(fr.offset, SeverityError, "%v", err)
			return
		}
		prev = c.record(sc, fr, prev)
	}
	c.checkSummary(footer)
}

// hashRecord feeds a whole record into the data section CRC.
func (c *checker) hashRecord(h hash.Hash32, fr frame) error {
	_, err := io.Copy(h, io.NewSectionReader(c.ra, fr.offset, fr.end()-fr.offset))
	if err != nil {
		return ioError(c.file, fr.offset, fr.op.String(), err)
	}
	return nil
}

// record checks one top-level record of the data section. prev is the chunk
// that message index records which follow belong to.
func (c *checker) record(sc *scanner, fr frame, prev *chunkFacts) *chunkFacts {
	if fr.op == mcap.OpAttachment {
		c.attachment(fr)
		return nil
	}
	body, err := sc.bodyOf(fr)
	if err != nil {
		c.add(fr.offset, SeverityError, "%v", err)
		return nil
	}
	switch fr.op {
	case mcap.OpChunk:
		return c.chunk(fr, body)
	case mcap.OpMessageIndex:
		if prev == nil {
			c.add(fr.offset, SeverityWarning, "message index record not after a chunk")
			return nil
		}
		if len(body) >= 2 {
			prev.indexOffsets[binary.LittleEndian.Uint16(body)] = uint64(fr.offset)
		}
		prev.indexLength = fr.end() - (prev.offset + prev.length)
		c.messageIndex(fr, body, prev)
		return prev
	case mcap.OpSchema, mcap.OpChannel, mcap.OpMessage:
		c.content(fr.op, fr.offset, body)
	case mcap.OpMetadata:
		if m, err := safeParse(c.file, fr.offset, "metadata", mcap.ParseMetadata, body); err != nil {
			c.add(fr.offset, SeverityError, "%v", err)
		} else {
			c.metas[fr.offset] = m.Name
		}
	}
	return nil
}

// content checks a schema, channel or message record (top level or in a
// chunk) and counts messages.
func (c *checker) content(op mcap.OpCode, off int64, body []byte) {
	switch op {
	case mcap.OpSchema:
		s, err := safeParse(c.file, off, "schema", mcap.ParseSchema, body)
		if err != nil {
			c.add(off, SeverityError, "%v", err)
			return
		}
		c.schemas[s.ID] = true
	case mcap.OpChannel:
		ch, err := safeParse(c.file, off, "channel", mcap.ParseChannel, body)
		if err != nil {
			c.add(off, SeverityError, "%v", err)
			return
		}
		if ch.SchemaID != 0 && !c.schemas[ch.SchemaID] {
			c.add(off, SeverityError, "channel %d (%s) uses schema %d before its schema record", ch.ID, ch.Topic, ch.SchemaID)
		}
		c.channels[ch.ID] = true
	case mcap.OpMessage:
		id, _, lt, _, err := parseMessageHead(c.file, off, body)
		if err != nil {
			c.add(off, SeverityError, "%v", err)
			return
		}
		if !c.channels[id] {
			c.add(off, SeverityError, "message on channel %d before its channel record", id)
		}
		if c.total == 0 || lt < c.start {
			c.start = lt
		}
		if c.total == 0 || lt > c.end {
			c.end = lt
		}
		c.total++
		c.counts[id]++
	}
}

// chunk checks a chunk: framing, compression, CRC, and its records.
func (c *checker) chunk(fr frame, body []byte) *chunkFacts {
	ck, err := parseChunk(c.file, fr.bodyOffset(), body)
	if err != nil {
		c.add(fr.offset, SeverityError, "%v", err)
		return nil
	}
	facts := &chunkFacts{offset: fr.offset, length: fr.end() - fr.offset, start: ck.start, end: ck.end, compression: ck.compression,
		compressed: uint64(len(ck.records)), uncompressed: ck.uncompressedSize, indexOffsets: map[uint16]uint64{}}
	c.chunks = append(c.chunks, facts)
	c.last = c.last[:0]
	data, err := c.dec.decompress(c.file, fr.offset, ck, nil, true)
	if err != nil {
		c.add(fr.offset, SeverityError, "%v", err)
		return facts
	}
	c.last = append(c.last, data...)
	var n int
	var lo, hi uint64
	err = chunkRecords(c.file, fr.offset, data, func(op mcap.OpCode, at int, body []byte) error {
		c.content(op, fr.offset, body)
		if op == mcap.OpMessage && len(body) >= messageHeadLen {
			lt := binary.LittleEndian.Uint64(body[6:])
			if n == 0 || lt < lo {
				lo = lt
			}
			if n == 0 || lt > hi {
				hi = lt
			}
			n++
		}
		return nil
	})
	if err != nil {
		c.add(fr.offset, SeverityError, "%v", err)
	}
	if n > 0 && (lo != ck.start || hi != ck.end) {
		c.add(fr.offset, SeverityWarning, "chunk says messages span [%d, %d], they span [%d, %d]", ck.start, ck.end, lo, hi)
	}
	return facts
}

// messageIndex checks that every entry points at a message of its channel
// with its log time.
func (c *checker) messageIndex(fr frame, body []byte, ch *chunkFacts) {
	idx, err := safeParse(c.file, fr.offset, "message index", mcap.ParseMessageIndex, body)
	if err != nil {
		c.add(fr.offset, SeverityError, "%v", err)
		return
	}
	data := c.last
	if len(data) == 0 {
		return // the chunk itself was reported
	}
	for _, e := range idx.Entries() {
		if e.Offset > uint64(len(data)) || uint64(len(data))-e.Offset < recordHeaderLen+messageHeadLen || mcap.OpCode(data[e.Offset]) != mcap.OpMessage {
			c.add(fr.offset, SeverityError, "message index of channel %d points at uncompressed offset %d, which is not a message record", idx.ChannelID, e.Offset)
			return
		}
		m := data[e.Offset+recordHeaderLen:]
		if id, lt := binary.LittleEndian.Uint16(m), binary.LittleEndian.Uint64(m[6:]); id != idx.ChannelID || lt != e.Timestamp {
			c.add(fr.offset, SeverityError, "message index entry (channel %d, time %d) does not match the message at uncompressed offset %d (channel %d, time %d)",
				idx.ChannelID, e.Timestamp, e.Offset, id, lt)
			return
		}
	}
}

// attachment checks an attachment's framing and CRC.
func (c *checker) attachment(fr frame) {
	a, err := parseAttachmentHead(c.ra, c.file, fr)
	if err != nil {
		c.add(fr.offset, SeverityError, "%v", err)
		return
	}
	c.atts[fr.offset] = a
	var crcBuf [4]byte
	crcAt := a.dataOffset + int64(a.Size)
	if err := readAt(c.ra, crcBuf[:], crcAt); err != nil {
		c.add(fr.offset, SeverityError, "%v", ioError(c.file, crcAt, "attachment.crc", err))
		return
	}
	want := binary.LittleEndian.Uint32(crcBuf[:])
	if want == 0 {
		return
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(c.ra, fr.bodyOffset(), crcAt-fr.bodyOffset())); err != nil {
		c.add(fr.offset, SeverityError, "%v", ioError(c.file, fr.bodyOffset(), "attachment", err))
		return
	}
	if h.Sum32() != want {
		c.add(fr.offset, SeverityError, "attachment %q CRC mismatch: computed %08x, stored %08x", a.Name, h.Sum32(), want)
	}
}

// checkSummary compares the summary section with what the data section held.
func (c *checker) checkSummary(footer *mcap.Footer) {
	if footer == nil {
		return
	}
	if footer.SummaryStart == 0 {
		c.add(-1, SeverityWarning, "no summary section: the file has no index and is read linearly")
		return
	}
	ix, err := readIndex(c.ra, c.file, c.size)
	if err != nil {
		c.add(int64(footer.SummaryStart), SeverityError, "%v", err)
		return
	}
	if ok, why := ix.usable(); !ok && c.total > 0 {
		c.add(int64(footer.SummaryStart), SeverityWarning, "the summary does not index the messages (%s): the file is read linearly", why)
	}
	found := map[int64]*chunkFacts{}
	for _, f := range c.chunks {
		found[f.offset] = f
	}
	for _, ci := range ix.chunks {
		f := found[int64(ci.ChunkStartOffset)]
		if f == nil {
			c.add(int64(ci.ChunkStartOffset), SeverityError, "chunk index points at offset %d, where no chunk starts", ci.ChunkStartOffset)
			continue
		}
		delete(found, f.offset)
		comp := string(ci.Compression)
		switch {
		case uint64(f.length) != ci.ChunkLength:
			c.add(f.offset, SeverityError, "chunk index says length %d, the chunk is %d bytes", ci.ChunkLength, f.length)
		case ci.MessageStartTime != f.start || ci.MessageEndTime != f.end:
			c.add(f.offset, SeverityError, "chunk index says [%d, %d], the chunk says [%d, %d]", ci.MessageStartTime, ci.MessageEndTime, f.start, f.end)
		case comp != f.compression || ci.CompressedSize != f.compressed || ci.UncompressedSize != f.uncompressed:
			c.add(f.offset, SeverityError, "chunk index says %q %d/%d bytes, the chunk is %q %d/%d", comp, ci.CompressedSize, ci.UncompressedSize, f.compression, f.compressed, f.uncompressed)
		case len(ci.MessageIndexOffsets) > 0 && !maps.Equal(ci.MessageIndexOffsets, f.indexOffsets):
			c.add(f.offset, SeverityError, "chunk index message index offsets %v, found %v", ci.MessageIndexOffsets, f.indexOffsets)
		case len(ci.MessageIndexOffsets) > 0 && ci.MessageIndexLength != uint64(f.indexLength):
			c.add(f.offset, SeverityError, "chunk index message index length %d, found %d", ci.MessageIndexLength, f.indexLength)
		}
	}
	if len(ix.chunks) > 0 {
		for _, off := range slices.Sorted(maps.Keys(found)) {
			c.add(off, SeverityWarning, "chunk at %d is missing from the chunk index", off)
		}
	}
	for _, a := range ix.attachments {
		got, ok := c.atts[int64(a.Offset)]
		if !ok || got.Name != a.Name || got.MediaType != a.MediaType || got.Size != a.DataSize || got.LogTime != a.LogTime || got.CreateTime != a.CreateTime {
			c.add(int64(a.Offset), SeverityError, "attachment index entry %q does not match an attachment record", a.Name)
		}
	}
	for _, m := range ix.metadata {
		if name, ok := c.metas[int64(m.Offset)]; !ok || name != m.Name {
			c.add(int64(m.Offset), SeverityError, "metadata index entry %q does not match a metadata record", m.Name)
		}
	}
	st := ix.stats
	if st == nil {
		c.add(int64(footer.SummaryStart), SeverityWarning, "no statistics record")
		return
	}
	// Statistics that disagree with the data are warnings: every message is
	// still readable.
	off := int64(footer.SummaryStart)
	if st.MessageCount != c.total {
		c.add(off, SeverityWarning, "statistics count %d messages, the file holds %d", st.MessageCount, c.total)
	}
	if c.total > 0 && (st.MessageStartTime != c.start || st.MessageEndTime != c.end) {
		c.add(off, SeverityWarning, "statistics say messages span [%d, %d], they span [%d, %d]", st.MessageStartTime, st.MessageEndTime, c.start, c.end)
	}
	if len(st.ChannelMessageCounts) > 0 {
		for id, n := range c.counts {
			if st.ChannelMessageCounts[id] != n {
				c.add(off, SeverityWarning, "statistics count %d messages on channel %d, the file holds %d", st.ChannelMessageCounts[id], id, n)
			}
		}
	}
	checks := []struct {
		what       string
		stat, real int
	}{
		{"chunks", int(st.ChunkCount), len(c.chunks)},
		{"attachments", int(st.AttachmentCount), len(c.atts)},
		{"metadata records", int(st.MetadataCount), len(c.metas)},
		{"channels", int(st.ChannelCount), len(c.channels)},
		{"schemas", int(st.SchemaCount), len(c.schemas)},
	}
	for _, k := range checks {
		if k.stat != k.real {
			c.add(off, SeverityWarning, "statistics count %d %s, the file holds %d", k.stat, k.what, k.real)
		}
	}
}
