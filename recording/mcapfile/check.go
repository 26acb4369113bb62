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
