package mcapfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// chunkFacts is what Check found in one chunk.
type chunkFacts struct {
	offset, length int64
	start, end     uint64
	compression    string
	compressed     uint64
	uncompressed   uint64
	indexOffsets   map[uint16]uint64
	indexLength    int64
	damaged        bool // reported already: its contents are not checked further
}

// early counts the records that refer to a channel (or schema) before any
// record defines it.
type early struct {
	first int64 // offset of the first one
	n     int
}

// checker accumulates Check's findings.
type checker struct {
	file     string
	ra       io.ReaderAt
	size     int64
	problems []record.Problem
	ix       *index                   // the summary section, when it reads
	ixErr    error                    // why it does not
	damaged  bool                     // some damage of the data section was reported
	schemas  map[uint16]*mcap.Schema  // the first record of each id
	channels map[uint16]*mcap.Channel // the first record of each id
	// redefined holds the schema (false) and channel (true) ids reported
	// for a record that differs from the first of its id.
	redefined map[redefinition]bool
	// loose counts the messages outside chunks, from the first one's offset.
	loose early
	// Messages and channels met before the record of their channel or
	// schema, reported once per id at the end.
	earlyChannels map[uint16]*early
	earlySchemas  map[uint16]*early
	counts        map[uint16]uint64
	total         uint64
	start         uint64
	end           uint64
	chunks        []*chunkFacts
	atts          map[int64]Attachment
	metas         map[int64]string
	dec           decoders
	last          []byte // uncompressed records of the last chunk, for its message indexes
	buf           []byte // decompression buffer, reused

	// far counts the messages with a time beyond maxTime; farField and
	// farValue are the first one's field and time.
	far      early
	farField string
	farValue uint64
}

func (c *checker) add(off int64, sev record.Severity, format string, args ...any) {
	p := record.Problem{Offset: off, Severity: sev, Message: fmt.Sprintf(format, args...)}
	if sev == record.SeverityError {
		p.Repair = record.RepairRecover
	}
	c.problems = append(c.problems, p)
}

// addUnrepaired reports an error that Recover does not mend: it reads the
// data section as far as readers of it do.
func (c *checker) addUnrepaired(off int64, format string, args ...any) {
	c.add(off, record.SeverityError, format, args...)
	c.problems[len(c.problems)-1].Repair = record.RepairNone
}

// addErr reports a damaged record: err's offset when it has one, else off.
func (c *checker) addErr(off int64, err error) {
	c.damaged = true
	c.problems = append(c.problems, record.Problem{Offset: errOffset(err, off), Severity: record.SeverityError, Message: record.Brief(err), Repair: record.RepairRecover})
}

// Check verifies an MCAP file for `baglab doctor`: magic, record framing,
// data section, chunk and summary CRCs, chunk contents against the chunk
// and message indexes, attachments and metadata against their indexes, and
// the statistics against the counts. Records the specification allows
// once, or only elsewhere, are errors: a second header, a footer in the
// data section, records after the data end record (before the summary
// section: they are checked as part of the data section, which readers
// and Recover read on to), more than one statistics record, and summary
// records that belong in the data section. It returns the problems found
// (none for a sound file); the error is for failures to read the file at
// all.
//
// One damage gives one problem: a chunk whose CRC fails or whose data does
// not decompress is reported once, and the records that can still be had
// from it define their channels and count as messages without further
// reports. Messages met before any record of their channel are reported
// once per channel, as an error when a later record defines the channel or
// none does, as a warning when only the summary section does and no damage
// explains it (and not at all when damage does). After damage, the
// statistics' disagreements with the data are summed up in one warning.
func Check(path string) ([]record.Problem, error) {
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
func CheckReaderAt(ra io.ReaderAt, size int64, path string) []record.Problem {
	c := &checker{file: path, ra: ra, size: size, schemas: map[uint16]*mcap.Schema{}, channels: map[uint16]*mcap.Channel{}, redefined: map[redefinition]bool{},
		earlyChannels: map[uint16]*early{}, earlySchemas: map[uint16]*early{},
		counts: map[uint16]uint64{}, atts: map[int64]Attachment{}, metas: map[int64]string{}}
	defer c.dec.close()
	c.run()
	return c.problems
}

func (c *checker) run() {
	if err := checkMagic(c.ra, c.file, c.size); err != nil {
		c.addErr(0, err)
		return
	}
	footer, err := readFooter(c.ra, c.file, c.size)
	if err != nil {
		c.addErr(c.size-tailLen, err)
	}
	limit, bounds := c.size, sectionEnd(footer, c.size)
	if footer != nil {
		limit = c.size - magicLen
		if footer.SummaryStart != 0 {
			// Read first: its channels tell damage from orphans.
			c.ix, c.ixErr = readIndex(c.ra, c.file, c.size)
		}
	} else if err == nil {
		c.add(c.size, record.SeverityError, "file does not end with a footer and the MCAP magic (truncated or unfinished)")
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
				c.add(sc.pos, record.SeverityError, "data section ends without a data end record")
			}
			break
		}
		if err != nil {
			c.addErr(sc.pos, err)
			c.reportEarly()
			return
		}
		var stray *record.Error
		if fr.op == mcap.OpDataEnd || fr.op == mcap.OpFooter {
			stray = bounds.stray(c.ra, c.file, fr)
		}
		switch {
		case first && fr.op != mcap.OpHeader:
			c.add(fr.offset, record.SeverityError, "first record is %s, want header", fr.op)
		case !first && fr.op == mcap.OpHeader:
			c.add(fr.offset, record.SeverityError, "second header record: only the first record of a file is one (@mcap/core's McapStreamReader refuses the file)")
		case fr.op == mcap.OpFooter && stray != nil:
			c.add(fr.offset, record.SeverityError, "%s: @mcap/core's McapStreamReader refuses the file; baglab reads on past it", stray.Detail)
		case fr.op == mcap.OpFooter && (footer == nil || fr.offset != c.size-tailLen):
			c.addUnrepaired(fr.offset, "footer record in the data section, where a read in file order stops (@mcap/core's McapStreamReader refuses the file)")
		}
		first = false
		if fr.op == mcap.OpDataEnd {
			body, err := sc.bodyOf(fr)
			if err != nil {
				c.addErr(fr.offset, err)
				c.reportEarly()
				return
			}
			if len(body) >= 4 {
				if want := binary.LittleEndian.Uint32(body); want != 0 && want != crc.Sum32() {
					c.add(fr.offset, record.SeverityError, "data_end.data_section_crc: CRC mismatch: computed %08x, stored %08x", crc.Sum32(), want)
				}
			}
			if stray == nil {
				dataEnd = true
				break
			}
			// Records of the data section follow: read on, as the
			// readers do.
			c.add(fr.offset, record.SeverityError, "%s: the specification ends the data section at its data end record, and a read that stops there misses the records after it (@mcap/core's McapStreamReader reads them, as baglab does)", stray.Detail)
		}
		if err := c.hashRecord(crc, fr); err != nil {
			c.addErr(fr.offset, err)
			c.reportEarly()
			return
		}
		prev = c.record(sc, fr, prev)
	}
	c.reportEarly()
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
		c.addErr(fr.offset, err)
		return nil
	}
	switch fr.op {
	case mcap.OpChunk:
		return c.chunk(fr, body)
	case mcap.OpMessageIndex:
		if prev == nil {
			c.add(fr.offset, record.SeverityWarning, "message index record not after a chunk")
			return nil
		}
		if len(body) >= 2 {
			prev.indexOffsets[binary.LittleEndian.Uint16(body)] = uint64(fr.offset)
		}
		prev.indexLength = fr.end() - (prev.offset + prev.length)
		c.messageIndex(fr, body, prev)
		return prev
	case mcap.OpSchema, mcap.OpChannel, mcap.OpMessage:
		c.content(fr.op, fr.offset, body, false)
		if fr.op == mcap.OpMessage {
			if c.loose.n == 0 {
				c.loose.first = fr.offset
			}
			c.loose.n++
		}
	case mcap.OpMetadata:
		if m, err := safeParse(c.file, fr.offset, "metadata", mcap.ParseMetadata, body); err != nil {
			c.addErr(fr.offset, err)
		} else {
			c.metas[fr.offset] = m.Name
			if m.Name == UnverifiedMetadata {
				c.add(fr.offset, record.SeverityWarning, "%s messages were kept unverified by baglab recover from %s (bytes %s there): no CRC vouched for them, their content may be damaged",
					m.Metadata["messages"], m.Metadata["recovered_from"], m.Metadata["ranges"])
			}
		}
	}
	return nil
}

// content checks a schema, channel or message record (top level or in a
// chunk) and counts messages. quiet is set for the records of a chunk whose
// damage is reported already: they only count, nothing about them is
// reported.
func (c *checker) content(op mcap.OpCode, off int64, body []byte, quiet bool) {
	switch op {
	case mcap.OpSchema:
		s, err := safeParse(c.file, off, "schema", mcap.ParseSchema, body)
		if err != nil {
			if !quiet {
				c.addErr(off, err)
			}
			return
		}
		if old := c.schemas[s.ID]; old == nil {
			c.schemas[s.ID] = s
		} else if !quiet && (old.Name != s.Name || old.Encoding != s.Encoding || !bytes.Equal(old.Data, s.Data)) {
			c.redefine(off, redefinition{s.ID, false})
		}
	case mcap.OpChannel:
		ch, err := safeParse(c.file, off, "channel", mcap.ParseChannel, body)
		if err != nil {
			if !quiet {
				c.addErr(off, err)
			}
			return
		}
		if ch.SchemaID != 0 && c.schemas[ch.SchemaID] == nil && !quiet {
			noteEarly(c.earlySchemas, ch.SchemaID, off)
		}
		if old := c.channels[ch.ID]; old == nil {
			c.channels[ch.ID] = ch
		} else if !quiet && (old.Topic != ch.Topic || old.SchemaID != ch.SchemaID || old.MessageEncoding != ch.MessageEncoding || !maps.Equal(old.Metadata, ch.Metadata)) {
			c.redefine(off, redefinition{ch.ID, true})
		}
	case mcap.OpMessage:
		id, _, lt, pt, err := parseMessageHead(c.file, off, body)
		if err != nil {
			if !quiet {
				c.addErr(off, err)
			}
			return
		}
		if (lt > maxTime || pt > maxTime) && !quiet {
			if c.far.n == 0 {
				c.far.first, c.farField, c.farValue = off, "log_time", lt
				if lt <= maxTime {
					c.farField, c.farValue = "publish_time", pt
				}
			}
			c.far.n++
		}
		if c.channels[id] == nil && !quiet {
			noteEarly(c.earlyChannels, id, off)
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

// redefinition names a schema (channel false) or channel id.
type redefinition struct {
	id      uint16
	channel bool
}

// redefine reports, once per id, a schema or channel record that differs
// from the first record of its id: the MCAP specification wants them
// identical, and @mcap/core's McapStreamReader refuses a channel that
// differs.
func (c *checker) redefine(off int64, r redefinition) {
	if c.redefined[r] {
		return
	}
	c.redefined[r] = true
	what := "schema"
	if r.channel {
		what = "channel"
	}
	c.add(off, record.SeverityError, "%s record of id %d differs from the first %s record of that id", what, r.id, what)
}

func noteEarly(m map[uint16]*early, id uint16, off int64) {
	if e := m[id]; e != nil {
		e.n++
		return
	}
	m[id] = &early{first: off, n: 1}
}

// reportEarly reports, once per id, the messages met before their channel
// record and the channels met before their schema record. An id that some
// record defines later is out of order; one that only the summary defines
// is an error only when no damage explains the loss of its record; one
// that nothing defines is an error. Then it reports, once, the messages
// whose times baglab cannot represent (see maxTime): reading them fails.
func (c *checker) reportEarly() {
	defer c.reportFar()
	for _, id := range slices.Sorted(maps.Keys(c.earlyChannels)) {
		e := c.earlyChannels[id]
		inSummary := c.ix != nil && c.ix.channels[id] != nil
		switch {
		case c.channels[id] != nil:
			c.add(e.first, record.SeverityError, "%d messages on channel %d come before its channel record", e.n, id)
		case inSummary && !c.damaged:
			c.add(e.first, record.SeverityWarning, "%d messages on channel %d, whose channel record is only in the summary section", e.n, id)
		case !inSummary:
			c.add(e.first, record.SeverityError, "%d messages on channel %d, which no channel record defines", e.n, id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.earlySchemas)) {
		e := c.earlySchemas[id]
		inSummary := c.ix != nil && c.ix.schemas[id] != nil
		switch {
		case c.schemas[id] != nil:
			c.add(e.first, record.SeverityError, "%d channels use schema %d before its schema record", e.n, id)
		case inSummary && !c.damaged:
			c.add(e.first, record.SeverityWarning, "%d channels use schema %d, whose schema record is only in the summary section", e.n, id)
		case !inSummary:
			c.add(e.first, record.SeverityError, "%d channels use schema %d, which no schema record defines", e.n, id)
		}
	}
}

// reportFar reports the messages with a time beyond maxTime, naming the
// first one's field and time.
func (c *checker) reportFar() {
	if c.far.n == 0 {
		return
	}
	if c.far.n == 1 {
		c.add(c.far.first, record.SeverityError, "message %s %s: reading it fails, --skip-bad leaves it out", c.farField, farTime(c.farValue))
		return
	}
	c.add(c.far.first, record.SeverityError, "%d messages have times after 2262-04-11 (the first: %s %d), beyond the int64 nanoseconds baglab represents times in: reading them fails, --skip-bad leaves them out",
		c.far.n, c.farField, c.farValue)
}

// chunk checks a chunk: framing, compression, CRC, and its records. A
// damaged chunk is reported once; the records that can still be had count
// (their channels and schemas are defined, their messages exist) without
// further reports.
func (c *checker) chunk(fr frame, body []byte) *chunkFacts {
	ck, err := parseChunk(c.file, fr.bodyOffset(), body)
	if err != nil {
		c.addErr(fr.offset, err)
		return nil
	}
	facts := &chunkFacts{offset: fr.offset, length: fr.end() - fr.offset, start: ck.start, end: ck.end, compression: ck.compression,
		compressed: uint64(len(ck.records)), uncompressed: ck.uncompressedSize, indexOffsets: map[uint16]uint64{}}
	c.chunks = append(c.chunks, facts)
	c.last = c.last[:0]
	data, damage := unpackChunk(&c.dec, c.file, fr.offset, ck, c.buf)
	if ck.compression != "" && cap(data) > cap(c.buf) {
		c.buf = data[:0]
	}
	facts.damaged = damage != nil
	if !facts.damaged {
		c.last = append(c.last, data...)
	}
	var n int
	var lo, hi uint64
	var misplaced []mcap.OpCode
	err = chunkRecords(c.file, fr.offset, data, func(op mcap.OpCode, at int, body []byte) error {
		if op < 0x80 && op != mcap.OpSchema && op != mcap.OpChannel && op != mcap.OpMessage && !slices.Contains(misplaced, op) {
			misplaced = append(misplaced, op)
		}
		c.content(op, fr.offset, body, facts.damaged)
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
	if len(misplaced) > 0 && damage == nil {
		// Only schema, channel and message records belong in a chunk
		// (opcodes from 0x80 are private): @mcap/core's
		// McapStreamReader refuses the others, and readers of the
		// messages do not look for them there.
		c.add(fr.offset, record.SeverityError, "chunk holds %s records, which do not belong in a chunk", joinOps(misplaced))
	}
	switch {
	case damage != nil:
		msg := record.Brief(damage)
		switch {
		case data == nil:
		case uint64(len(data)) == ck.uncompressedSize:
			msg += fmt.Sprintf("; the %d messages in it may be damaged", n)
		default:
			msg += fmt.Sprintf("; %d of its %d bytes decompress, holding %d messages", len(data), ck.uncompressedSize, n)
		}
		if err != nil {
			msg += "; then its records stop framing"
		}
		c.damaged = true
		c.add(errOffset(damage, fr.offset), record.SeverityError, "%s", msg)
	case err != nil:
		c.addErr(fr.offset, err)
	case n > 0 && (lo < ck.start || hi > ck.end):
		// A read through the index by time skips the chunk where it
		// holds messages (@mcap/core's McapIndexedReader refuses it).
		c.add(fr.offset, record.SeverityError, "chunk says messages span [%d, %d], they span [%d, %d]: a read by time through the index misses those outside", ck.start, ck.end, lo, hi)
	case n > 0 && (lo != ck.start || hi != ck.end):
		c.add(fr.offset, record.SeverityWarning, "chunk says messages span [%d, %d], they span [%d, %d]", ck.start, ck.end, lo, hi)
	}
	return facts
}

// countIDs counts the ids of the data section's records and the summary's
// together: a writer may count a channel (or schema) that only the summary
// repeats (@mcap/core's writer counts every channel registered, and its
// summary lists them, with messages or not).
func countIDs[T any](data, summary map[uint16]*T) int {
	n := len(data)
	for id := range summary {
		if data[id] == nil {
			n++
		}
	}
	return n
}

// joinOps lists opcodes by name.
func joinOps(ops []mcap.OpCode) string {
	out := ""
	for i, op := range ops {
		if i > 0 {
			out += ", "
		}
		out += op.String()
	}
	return out
}

// messageIndex checks that every entry points at a message of its channel
// with its log time.
func (c *checker) messageIndex(fr frame, body []byte, ch *chunkFacts) {
	idx, err := safeParse(c.file, fr.offset, "message index", mcap.ParseMessageIndex, body)
	if err != nil {
		c.addErr(fr.offset, err)
		return
	}
	data := c.last
	if ch.damaged {
		return // the chunk itself was reported
	}
	for _, e := range idx.Entries() {
		if e.Offset > uint64(len(data)) || uint64(len(data))-e.Offset < recordHeaderLen+messageHeadLen || mcap.OpCode(data[e.Offset]) != mcap.OpMessage {
			c.add(fr.offset, record.SeverityError, "message index of channel %d points at uncompressed offset %d, which is not a message record", idx.ChannelID, e.Offset)
			return
		}
		m := data[e.Offset+recordHeaderLen:]
		if id, lt := binary.LittleEndian.Uint16(m), binary.LittleEndian.Uint64(m[6:]); id != idx.ChannelID || lt != e.Timestamp {
			c.add(fr.offset, record.SeverityError, "message index entry (channel %d, time %d) does not match the message at uncompressed offset %d (channel %d, time %d)",
				idx.ChannelID, e.Timestamp, e.Offset, id, lt)
			return
		}
	}
}

// attachment checks an attachment's framing and CRC.
func (c *checker) attachment(fr frame) {
	a, err := parseAttachmentHead(c.ra, c.file, fr)
	if err != nil {
		c.addErr(fr.offset, err)
		return
	}
	c.atts[fr.offset] = a
	var crcBuf [4]byte
	crcAt := a.dataOffset + int64(a.Size)
	if err := readAt(c.ra, crcBuf[:], crcAt); err != nil {
		c.addErr(fr.offset, ioError(c.file, crcAt, "attachment.crc", err))
		return
	}
	want := binary.LittleEndian.Uint32(crcBuf[:])
	if want == 0 {
		return
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(c.ra, fr.bodyOffset(), crcAt-fr.bodyOffset())); err != nil {
		c.addErr(fr.offset, ioError(c.file, fr.bodyOffset(), "attachment", err))
		return
	}
	if h.Sum32() != want {
		c.add(fr.offset, record.SeverityError, "attachment.crc: CRC mismatch: attachment %q: computed %08x, stored %08x", a.Name, h.Sum32(), want)
	}
}

// checkSummary compares the summary section with what the data section held.
func (c *checker) checkSummary(footer *mcap.Footer) {
	if footer == nil {
		return
	}
	if footer.SummaryStart == 0 {
		c.add(-1, record.SeverityWarning, "no summary section: the file has no index and is read linearly")
		return
	}
	ix := c.ix
	if c.ixErr != nil {
		c.addErr(int64(footer.SummaryStart), c.ixErr)
		return
	}
	if len(ix.misplaced) > 0 {
		c.add(ix.misplacedAt, record.SeverityError, "summary section holds %s records, which do not belong there (@mcap/core's McapIndexedReader refuses most of them)", joinOps(ix.misplaced))
	}
	if n := len(ix.statsAt); n > 1 {
		// The specification allows one, and McapIndexedReader refuses
		// the file.
		if ix.stats != nil {
			c.add(ix.statsAt[1], record.SeverityError, "summary section holds %d statistics records, where one is allowed (@mcap/core's McapIndexedReader refuses the file); they are the same", n)
		} else {
			c.add(ix.statsAt[1], record.SeverityError, "summary section holds %d statistics records, where one is allowed (@mcap/core's McapIndexedReader refuses the file); they differ, and baglab uses none of them", n)
		}
	}
	if c.total > 0 {
		// Whether the reader can use the index, as it decides.
		if r, err := NewReader(c.ra, c.size, c.file); err == nil {
			if ok, why := r.Indexed(); !ok {
				c.add(int64(footer.SummaryStart), record.SeverityWarning, "the summary does not index the messages (%s): the file is read linearly", why)
			}
		}
	}
	found := map[int64]*chunkFacts{}
	for _, f := range c.chunks {
		found[f.offset] = f
	}
	for _, ci := range ix.chunks {
		f := found[int64(ci.ChunkStartOffset)]
		if f == nil {
			c.add(int64(ci.ChunkStartOffset), record.SeverityError, "chunk index points at offset %d, where no chunk starts", ci.ChunkStartOffset)
			continue
		}
		delete(found, f.offset)
		comp := string(ci.Compression)
		switch {
		case uint64(f.length) != ci.ChunkLength:
			c.add(f.offset, record.SeverityError, "chunk index says length %d, the chunk is %d bytes", ci.ChunkLength, f.length)
		case ci.MessageStartTime != f.start || ci.MessageEndTime != f.end:
			c.add(f.offset, record.SeverityError, "chunk index says [%d, %d], the chunk says [%d, %d]", ci.MessageStartTime, ci.MessageEndTime, f.start, f.end)
		case comp != f.compression || ci.CompressedSize != f.compressed || ci.UncompressedSize != f.uncompressed:
			c.add(f.offset, record.SeverityError, "chunk index says %q %d/%d bytes, the chunk is %q %d/%d", comp, ci.CompressedSize, ci.UncompressedSize, f.compression, f.compressed, f.uncompressed)
		case len(ci.MessageIndexOffsets) > 0 && !maps.Equal(ci.MessageIndexOffsets, f.indexOffsets):
			c.add(f.offset, record.SeverityError, "chunk index message index offsets %v, found %v", ci.MessageIndexOffsets, f.indexOffsets)
		case len(ci.MessageIndexOffsets) > 0 && ci.MessageIndexLength != uint64(f.indexLength):
			c.add(f.offset, record.SeverityError, "chunk index message index length %d, found %d", ci.MessageIndexLength, f.indexLength)
		}
	}
	if len(ix.chunks) > 0 && c.loose.n > 0 {
		c.add(c.loose.first, record.SeverityError, "%d messages outside chunks, which a read through the chunk index misses", c.loose.n)
	}
	if len(ix.chunks) > 0 {
		for _, off := range slices.Sorted(maps.Keys(found)) {
			c.add(off, record.SeverityWarning, "chunk at %d is missing from the chunk index", off)
		}
	}
	for _, a := range ix.attachments {
		got, ok := c.atts[int64(a.Offset)]
		if !ok || got.Name != a.Name || got.MediaType != a.MediaType || got.Size != a.DataSize || got.LogTime != a.LogTime || got.CreateTime != a.CreateTime {
			c.add(int64(a.Offset), record.SeverityError, "attachment index entry %q does not match an attachment record", a.Name)
		}
	}
	for _, m := range ix.metadata {
		if name, ok := c.metas[int64(m.Offset)]; !ok || name != m.Name {
			c.add(int64(m.Offset), record.SeverityError, "metadata index entry %q does not match a metadata record", m.Name)
		}
	}
	st := ix.stats
	if st == nil {
		if len(ix.statsAt) == 0 {
			c.add(int64(footer.SummaryStart), record.SeverityWarning, "no statistics record")
		}
		return
	}
	// Statistics that disagree with the data are warnings: every message is
	// still readable. After damage to the data section they are expected to
	// disagree, and are summed up in one warning.
	var diffs []string
	note := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if st.MessageCount != c.total {
		note("statistics count %d messages, the file holds %d", st.MessageCount, c.total)
	}
	if c.total > 0 && (st.MessageStartTime != c.start || st.MessageEndTime != c.end) {
		note("statistics say messages span [%d, %d], they span [%d, %d]", st.MessageStartTime, st.MessageEndTime, c.start, c.end)
	}
	if len(st.ChannelMessageCounts) > 0 {
		ids := slices.Sorted(maps.Keys(c.counts))
		for id := range st.ChannelMessageCounts {
			if _, ok := c.counts[id]; !ok {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			if st.ChannelMessageCounts[id] != c.counts[id] {
				note("statistics count %d messages on channel %d, the file holds %d", st.ChannelMessageCounts[id], id, c.counts[id])
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
		{"channels", int(st.ChannelCount), countIDs(c.channels, ix.channels)},
		{"schemas", int(st.SchemaCount), countIDs(c.schemas, ix.schemas)},
	}
	for _, k := range checks {
		if k.stat != k.real {
			note("statistics count %d %s, the file holds %d", k.stat, k.what, k.real)
		}
	}
	off := int64(footer.SummaryStart)
	switch {
	case len(diffs) == 0:
	case !c.damaged:
		for _, d := range diffs {
			c.add(off, record.SeverityWarning, "%s", d)
		}
	case len(diffs) == 1:
		c.add(off, record.SeverityWarning, "%s (the damaged data holds the rest)", diffs[0])
	default:
		c.add(off, record.SeverityWarning, "%s, and %d more disagreements of the statistics with the damaged data", diffs[0], len(diffs)-1)
	}
}
