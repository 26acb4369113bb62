package mcapfile

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"slices"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

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
