package mcapfile

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"slices"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// index is what the summary section says about a file.
type index struct {
	footer       *mcap.Footer
	footerOffset int64
	schemas      map[uint16]*mcap.Schema
	schemaAt     map[uint16]int64 // offset of each schema record
	channels     map[uint16]*mcap.Channel
	channelIDs   []uint16 // in summary order
	stats        *mcap.Statistics
	chunks       []*mcap.ChunkIndex
	attachments  []*mcap.AttachmentIndex
	metadata     []*mcap.MetadataIndex
	loose        int64 // offset of a message outside the chunks (findLoose), 0 for none

	// statsAt lists the offsets of the statistics records; stats is nil
	// when the summary has none or several that differ.
	statsAt []int64
	// misplaced lists the opcodes of records that do not belong in the
	// summary section (header, footer, data end, messages, chunks, ...),
	// from misplacedAt on; they are not used.
	misplaced   []mcap.OpCode
	misplacedAt int64
}

// safeParse runs a library record parser, turning a panic on hostile bytes
// into an error.
func safeParse[T any](file string, off int64, what string, parse func([]byte) (T, error), body []byte) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errorf(file, off, what, record.ErrFormat, "malformed record: %v", p)
		}
	}()
	v, err = parse(body)
	if err != nil {
		return v, errorf(file, off, what, record.ErrFormat, "%v", err)
	}
	return v, nil
}

// readFooter reads the footer and closing magic. It returns (nil, nil) when
// the file does not end with a footer and magic (an unfinished file).
func readFooter(ra io.ReaderAt, file string, size int64) (*mcap.Footer, error) {
	if size < magicLen+tailLen {
		return nil, nil
	}
	var b [tailLen]byte
	off := size - tailLen
	if err := readAt(ra, b[:], off); err != nil {
		return nil, ioError(file, off, "footer", err)
	}
	if string(b[footerRecordLen:]) != string(mcap.Magic) {
		return nil, nil
	}
	if mcap.OpCode(b[0]) != mcap.OpFooter || binary.LittleEndian.Uint64(b[1:]) != footerBodyLen {
		return nil, errorf(file, off, "footer", record.ErrFormat, "closing magic is not preceded by a footer record")
	}
	return &mcap.Footer{
		SummaryStart:       binary.LittleEndian.Uint64(b[9:]),
		SummaryOffsetStart: binary.LittleEndian.Uint64(b[17:]),
		SummaryCRC:         binary.LittleEndian.Uint32(b[25:]),
	}, nil
}

// dataBounds is where the footer at the end of a file puts the end of its
// data section: at the start of the summary section, or for a file
// without one at the footer itself. end is -1 when the file does not end
// with a footer and the magic.
type dataBounds struct {
	end  int64
	next string // what starts at end: "summary section" or "footer"
}

// sectionEnd gives the dataBounds of a file of size bytes whose footer is
// footer (nil when it has none).
func sectionEnd(footer *mcap.Footer, size int64) dataBounds {
	if footer == nil {
		return dataBounds{end: -1}
	}
	end := size - tailLen
	if s := footer.SummaryStart; s >= magicLen && s <= uint64(end) {
		return dataBounds{int64(s), "summary section"}
	}
	return dataBounds{end, "footer"}
}

// stray says whether fr, a data end or footer record met reading the data
// section in file order, is out of place, with records of the data section
// after it: it returns nil when fr is in its place, else an error of file
// that says where. A record is out of place when it ends before the end of
// the data section; when that is not known (the file has no footer at its
// end), a footer that the magic does not follow, or a data end record
// followed by a record of the data section (a message, chunk, message
// index, attachment or metadata record) rather than the summary section's.
//
// The specification ends the data section at its data end record and the
// file at its footer; @mcap/core's McapStreamReader reads on past a data
// end record (and refuses a footer that the magic does not follow), and
// so do baglab's reads in file order, Recover and Check, each saying so.
func (b dataBounds) stray(ra io.ReaderAt, file string, fr frame) *record.Error {
	what, field := "footer record in the data section,", "footer"
	if fr.op == mcap.OpDataEnd {
		what, field = "data end record", "data_end"
	}
	if b.end >= 0 {
		if fr.end() >= b.end {
			return nil
		}
		return errorf(file, fr.offset, field, record.ErrFormat, "%s %d bytes before the %s at %d", what, b.end-fr.end(), b.next, b.end)
	}
	var next [recordHeaderLen]byte
	if readAt(ra, next[:], fr.end()) != nil {
		return nil
	}
	if fr.op == mcap.OpFooter {
		if string(next[:magicLen]) == string(mcap.Magic) {
			return nil
		}
		return errorf(file, fr.offset, field, record.ErrFormat, "%s not followed by the MCAP magic", what)
	}
	switch op := mcap.OpCode(next[0]); op {
	case mcap.OpMessage, mcap.OpChunk, mcap.OpMessageIndex, mcap.OpAttachment, mcap.OpMetadata:
		return errorf(file, fr.offset, field, record.ErrFormat, "%s followed by a %s record, which belongs in the data section", what, op)
	}
	return nil
}

// readIndex reads the summary section. It returns (nil, nil) when the file
// has none, and an error when it has one that cannot be trusted.
func readIndex(ra io.ReaderAt, file string, size int64) (*index, error) {
	footer, err := readFooter(ra, file, size)
	if err != nil || footer == nil || footer.SummaryStart == 0 {
		return nil, err
	}
	footerOff := size - tailLen
	if footer.SummaryStart < magicLen || footer.SummaryStart > uint64(footerOff) {
		return nil, errorf(file, footerOff, "footer.summary_start", record.ErrFormat, "summary start %d outside the file", footer.SummaryStart)
	}
	start := int64(footer.SummaryStart)
	buf := make([]byte, footerOff-start+recordHeaderLen+8+8)
	if err := readAt(ra, buf, start); err != nil {
		return nil, ioError(file, start, "summary", err)
	}
	if footer.SummaryCRC != 0 {
		if got := crc32.ChecksumIEEE(buf); got != footer.SummaryCRC {
			return nil, errorf(file, footerOff, "footer.summary_crc", record.ErrCRC, "computed %08x, stored %08x", got, footer.SummaryCRC)
		}
	}
	ix := &index{
		footer:       footer,
		footerOffset: footerOff,
		schemas:      map[uint16]*mcap.Schema{},
		schemaAt:     map[uint16]int64{},
		channels:     map[uint16]*mcap.Channel{},
	}
	section := buf[:footerOff-start]
	for p := int64(0); p < int64(len(section)); {
		off := start + p
		if int64(len(section))-p < recordHeaderLen {
			return nil, errorf(file, off, "summary record", record.ErrTruncated, "%d bytes left, need a record header", int64(len(section))-p)
		}
		op := mcap.OpCode(section[p])
		n := binary.LittleEndian.Uint64(section[p+1:])
		if n > uint64(int64(len(section))-p-recordHeaderLen) {
			return nil, errorf(file, off, op.String()+" record length", record.ErrLength, "length %d runs past the summary section", n)
		}
		body := section[p+recordHeaderLen : p+recordHeaderLen+int64(n)]
		p += recordHeaderLen + int64(n)
		if err := ix.add(file, off, op, body); err != nil {
			return nil, err
		}
	}
	if err := ix.validate(file, start); err != nil {
		return nil, err
	}
	return ix, nil
}

// add parses one summary record into ix.
func (ix *index) add(file string, off int64, op mcap.OpCode, body []byte) error {
	switch op {
	case mcap.OpSchema:
		s, err := safeParse(file, off, "schema", mcap.ParseSchema, body)
		if err != nil {
			return err
		}
		if s.ID == 0 {
			return errorf(file, off, "schema.id", record.ErrFormat, "schema id 0 is reserved")
		}
		ix.schemas[s.ID] = s
		ix.schemaAt[s.ID] = off
	case mcap.OpChannel:
		c, err := safeParse(file, off, "channel", mcap.ParseChannel, body)
		if err != nil {
			return err
		}
		if _, dup := ix.channels[c.ID]; !dup {
			ix.channelIDs = append(ix.channelIDs, c.ID)
		}
		ix.channels[c.ID] = c
	case mcap.OpStatistics:
		s, err := safeParse(file, off, "statistics", mcap.ParseStatistics, body)
		if err != nil {
			return err
		}
		// The specification allows one. Of several, one that each
		// repeats is used; if they differ, none is trusted.
		ix.statsAt = append(ix.statsAt, off)
		if len(ix.statsAt) == 1 {
			ix.stats = s
		} else if ix.stats != nil && !reflect.DeepEqual(ix.stats, s) {
			ix.stats = nil
		}
	case mcap.OpHeader, mcap.OpFooter, mcap.OpDataEnd, mcap.OpMessage, mcap.OpChunk, mcap.OpMessageIndex, mcap.OpAttachment, mcap.OpMetadata:
		if len(ix.misplaced) == 0 {
			ix.misplacedAt = off
		}
		if !slices.Contains(ix.misplaced, op) {
			ix.misplaced = append(ix.misplaced, op)
		}
	case mcap.OpChunkIndex:
		c, err := safeParse(file, off, "chunk index", mcap.ParseChunkIndex, body)
		if err != nil {
			return err
		}
		ix.chunks = append(ix.chunks, c)
	case mcap.OpAttachmentIndex:
		a, err := safeParse(file, off, "attachment index", mcap.ParseAttachmentIndex, body)
		if err != nil {
			return err
		}
		ix.attachments = append(ix.attachments, a)
	case mcap.OpMetadataIndex:
		m, err := safeParse(file, off, "metadata index", mcap.ParseMetadataIndex, body)
		if err != nil {
			return err
		}
		ix.metadata = append(ix.metadata, m)
	}
	return nil
}

// validate checks that every index entry points inside the data section.
func (ix *index) validate(file string, summaryStart int64) error {
	end := uint64(summaryStart)
	for _, c := range ix.chunks {
		if c.ChunkStartOffset < magicLen || c.ChunkLength < recordHeaderLen || c.ChunkLength > end || c.ChunkStartOffset > end-c.ChunkLength {
			return errorf(file, summaryStart, "chunk_index", record.ErrFormat, "chunk at %d length %d lies outside the data section", c.ChunkStartOffset, c.ChunkLength)
		}
		if c.MessageStartTime > c.MessageEndTime {
			return errorf(file, summaryStart, "chunk_index", record.ErrFormat, "chunk at %d starts at %d after its end %d", c.ChunkStartOffset, c.MessageStartTime, c.MessageEndTime)
		}
		for ch, o := range c.MessageIndexOffsets {
			if o >= end {
				return errorf(file, summaryStart, "chunk_index.message_index_offsets", record.ErrFormat, "channel %d index at %d lies outside the data section", ch, o)
			}
		}
	}
	for _, a := range ix.attachments {
		if a.Offset < magicLen || a.Length > end || a.Offset > end-a.Length {
			return errorf(file, summaryStart, "attachment_index", record.ErrFormat, "attachment %q at %d length %d lies outside the data section", a.Name, a.Offset, a.Length)
		}
	}
	for _, m := range ix.metadata {
		if m.Offset < magicLen || m.Length > end || m.Offset > end-m.Length {
			return errorf(file, summaryStart, "metadata_index", record.ErrFormat, "metadata %q at %d length %d lies outside the data section", m.Name, m.Offset, m.Length)
		}
	}
	return nil
}

// usable reports whether messages can be read through the index alone (it
// indexes them, defines their channels, and its times fit in int64
// nanoseconds), and if not, why.
func (ix *index) usable() (bool, string) {
	if ok, why := ix.indexesChunks(); !ok {
		return false, why
	}
	for _, c := range ix.chunks {
		if c.MessageEndTime > maxTime { // validate: start <= end
			return false, fmt.Sprintf("chunk index at %d: message_end_time %s", c.ChunkStartOffset, farTime(c.MessageEndTime))
		}
	}
	return ix.defines()
}

// indexesChunks reports whether the summary indexes every message: its
// chunk index is complete and no message lies outside the chunks (loose,
// from findLoose); and if not, why.
func (ix *index) indexesChunks() (bool, string) {
	if ix.stats == nil && len(ix.chunks) == 0 {
		return false, "no chunk index and no statistics"
	}
	if ix.stats != nil {
		if ix.stats.MessageCount > 0 && len(ix.chunks) == 0 {
			return false, "messages outside chunks"
		}
		if int(ix.stats.ChunkCount) != len(ix.chunks) {
			return false, fmt.Sprintf("statistics count %d chunks, the index lists %d", ix.stats.ChunkCount, len(ix.chunks))
		}
	}
	if ix.loose > 0 {
		return false, fmt.Sprintf("messages outside chunks, the first at offset %d, which the chunk index misses", ix.loose)
	}
	return true, ""
}

// findLoose sets ix.loose to the offset of the first message record that
// lies outside the chunks the index lists, or 0. It frames the records of
// the data section between the chunks and their message index records,
// reading only their headers (for a file written with chunks, the header
// and a few schema, channel, attachment or metadata records), up to the
// summary, past a data end record out of place (dataBounds.stray) as the linear
// read goes. Framing that fails there, or a record that runs into a chunk,
// ends the search: that is damage, which Check reports.
func (ix *index) findLoose(ra io.ReaderAt, file string) {
	type span struct{ start, end int64 }
	spans := make([]span, 0, len(ix.chunks))
	for _, c := range ix.chunks {
		start := int64(c.ChunkStartOffset)
		end := start + int64(c.ChunkLength)
		if rest := uint64(ix.footer.SummaryStart) - uint64(end); c.MessageIndexLength < rest {
			end += int64(c.MessageIndexLength)
		} else {
			end = int64(ix.footer.SummaryStart)
		}
		spans = append(spans, span{start, end})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	limit := int64(ix.footer.SummaryStart)
	i := 0
	for pos := int64(magicLen); pos < limit; {
		for i < len(spans) && spans[i].end <= pos {
			i++
		}
		if i < len(spans) && spans[i].start <= pos {
			pos = spans[i].end
			continue
		}
		fr, err := readFrame(ra, file, pos, limit)
		if err != nil || i < len(spans) && fr.end() > spans[i].start {
			return
		}
		if fr.op == mcap.OpMessage {
			ix.loose = pos
			return
		}
		pos = fr.end()
	}
}

// defines reports whether the summary defines every channel and schema
// that the chunks it indexes use, and if not, which it lacks.
func (ix *index) defines() (bool, string) {
	// rosbag2 counts only the channels that have messages, so the
	// summary may list more channels than the statistics count.
	if ix.stats != nil && int(ix.stats.ChannelCount) > len(ix.channels) {
		return false, fmt.Sprintf("statistics count %d channels, the summary lists %d", ix.stats.ChannelCount, len(ix.channels))
	}
	if len(ix.chunks) > 0 && len(ix.channels) == 0 {
		return false, "the summary lists no channels"
	}
	for _, c := range ix.channels {
		if c.SchemaID != 0 && ix.schemas[c.SchemaID] == nil {
			return false, fmt.Sprintf("channel %d uses schema %d, missing from the summary", c.ID, c.SchemaID)
		}
	}
	for _, c := range ix.chunks {
		for id := range c.MessageIndexOffsets {
			if ix.channels[id] == nil {
				return false, fmt.Sprintf("chunk at %d holds channel %d, missing from the summary", c.ChunkStartOffset, id)
			}
		}
	}
	return true, ""
}

// learnDefinitions adds to ix the schema and channel records of the data
// section (inside chunks too) whose ids the summary does not define, for a
// summary that indexes the chunks without repeating their definitions
// (@mcap/core's writer with repeatSchemas or repeatChannels false). The
// summary's own records win.
func (ix *index) learnDefinitions(w *walker, file string) error {
	for {
		it, err := w.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch it.op {
		case mcap.OpSchema:
			s, err := safeParse(file, it.errOffset(), "schema", mcap.ParseSchema, it.body)
			if err != nil {
				return err
			}
			if _, ok := ix.schemas[s.ID]; !ok && s.ID != 0 {
				ix.schemas[s.ID] = s
				ix.schemaAt[s.ID] = it.errOffset()
			}
		case mcap.OpChannel:
			c, err := safeParse(file, it.errOffset(), "channel", mcap.ParseChannel, it.body)
			if err != nil {
				return err
			}
			if _, ok := ix.channels[c.ID]; !ok {
				ix.channels[c.ID] = c
				ix.channelIDs = append(ix.channelIDs, c.ID)
			}
		}
	}
}

// compression lists the chunk compressions, "none" for uncompressed chunks.
func (ix *index) compression() string {
	var names []string
	for _, c := range ix.chunks {
		n := string(c.Compression)
		if n == "" {
			n = "none"
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return joinCompressions(names)
}

// joinCompressions sorts and joins compression names; no chunks is "none".
func joinCompressions(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	out := names[0]
	for _, n := range names[1:] {
		out += "," + n
	}
	return out
}

// counts returns per-channel message counts from the statistics, or from
// the message index records when the statistics lack them. ok is false
// when neither gives complete counts.
func (ix *index) counts(ra io.ReaderAt, file string) (perChannel map[uint16]uint64, ok bool, err error) {
	if st := ix.stats; st != nil {
		var sum uint64
		for _, n := range st.ChannelMessageCounts {
			sum += n
		}
		if sum == st.MessageCount {
			return st.ChannelMessageCounts, true, nil
		}
	}
	perChannel = map[uint16]uint64{}
	var total uint64
	for _, c := range ix.chunks {
		if len(c.MessageIndexOffsets) == 0 && c.UncompressedSize > 0 {
			return nil, false, nil
		}
		limit := ix.messageIndexEnd(c)
		for id, o := range c.MessageIndexOffsets {
			fr, err := readFrame(ra, file, int64(o), limit)
			if err != nil {
				return nil, false, err
			}
			if fr.op != mcap.OpMessageIndex || fr.bodyLen < 6 {
				return nil, false, errorf(file, int64(o), "message_index", record.ErrFormat, "chunk index points at a %s record, not a message index", fr.op)
			}
			var h [6]byte
			if err := readAt(ra, h[:], fr.bodyOffset()); err != nil {
				return nil, false, ioError(file, fr.bodyOffset(), "message_index", err)
			}
			n := int64(binary.LittleEndian.Uint32(h[2:]))
			if binary.LittleEndian.Uint16(h[:]) != id || n%16 != 0 || n > fr.bodyLen-6 {
				return nil, false, errorf(file, int64(o), "message_index", record.ErrFormat, "message index does not match its chunk index entry (channel %d)", id)
			}
			perChannel[id] += uint64(n / 16)
			total += uint64(n / 16)
		}
	}
	if ix.stats != nil && total != ix.stats.MessageCount {
		return nil, false, nil
	}
	return perChannel, true, nil
}
