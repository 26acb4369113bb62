package mcapfile

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// RecoverReport says what Recover kept and what it skipped.
type RecoverReport struct {
	Messages    uint64
	Schemas     int
	Channels    int
	Attachments int
	Metadata    int
	// Salvaged counts the messages kept from a chunk cut off by the end of
	// the file; Suspect those kept from chunks whose CRC fails or whose
	// compressed data is damaged, whose content may be damaged. Both are
	// part of Messages.
	Salvaged uint64
	Suspect  uint64
	// Dropped counts the messages of damaged chunks left out on request
	// (WithDropUnverified).
	Dropped uint64
	// Orphans counts messages dropped because no record of their channel
	// (or of its schema) survives, neither in the data section nor in the
	// summary section.
	Orphans uint64
	// SummaryChannels counts the channels taken from the summary section
	// because their record in the data section was lost (part of Channels).
	SummaryChannels int
	// Skipped lists the damaged stretches in file order.
	Skipped []record.Skipped
	// Complete is true when the data section was read to its end.
	Complete bool
}

// String sums the report up in one line.
func (r *RecoverReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d messages, %d channels, %d schemas, %d attachments, %d metadata", r.Messages, r.Channels, r.Schemas, r.Attachments, r.Metadata)
	if r.Suspect > 0 {
		fmt.Fprintf(&b, "; %d messages kept from chunks that failed their CRC (content may be damaged)", r.Suspect)
	}
	if r.Salvaged > 0 {
		fmt.Fprintf(&b, "; %d messages salvaged from a cut chunk", r.Salvaged)
	}
	if r.SummaryChannels > 0 {
		fmt.Fprintf(&b, "; %d channels restored from the summary", r.SummaryChannels)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "; dropped %d messages of damaged chunks", r.Dropped)
	}
	if r.Orphans > 0 {
		fmt.Fprintf(&b, "; dropped %d messages whose channel record was lost", r.Orphans)
	}
	if !r.Complete {
		b.WriteString("; the data section ends early")
	}
	return b.String()
}

// RecoverOption configures Recover.
type RecoverOption func(*recoverOptions)

type recoverOptions struct {
	dropUnverified bool
	sync           bool
}

// WithSyncedOutput has Recover sync the output to disk before it renames
// it into place (WithSync).
func WithSyncedOutput() RecoverOption {
	return func(o *recoverOptions) { o.sync = true }
}

// WithDropUnverified makes Recover leave out every record that its CRC
// cannot vouch for: those of a chunk whose CRC fails, whose compressed data
// does not decompress or that the end of the file cuts off, and an
// attachment whose CRC fails. By default such records are kept when they
// still frame and parse, reported (Skipped.Unverified, Kept, Suspect,
// Salvaged) and marked in the output by an UnverifiedMetadata record.
func WithDropUnverified() RecoverOption {
	return func(o *recoverOptions) { o.dropUnverified = true }
}

// Recover rebuilds the MCAP file in as out: it scans the data section in
// file order and writes every schema, channel, message, attachment and
// metadata record it can read into a new, fully indexed file, in file
// order.
//
// Damage is reported in RecoverReport.Skipped and does not stop the scan:
//   - A chunk whose CRC fails, or whose compressed data stops decompressing,
//     keeps the records that still frame and parse (reported as Kept: their
//     content may be damaged), and so does an attachment whose CRC fails,
//     unless WithDropUnverified is given. A chunk cut off by the end of the
//     file keeps the complete records of its part that decompresses (for
//     zstd, its whole blocks of up to 128 KiB: a chunk of one block yields
//     nothing once cut).
//   - Channels and schemas come from the data section and, when the summary
//     section is intact (its CRC checks), from the summary too: a message
//     whose channel record was lost with a damaged chunk keeps its channel,
//     and records of a damaged chunk give way to their summary copies.
//   - Where the framing of the data section is lost (a length running past
//     the end of the file, or over a chunk the summary indexes), the
//     complete records of the chunk there are salvaged, and the scan goes
//     on at the next chunk the summary's chunk index lists; without one it
//     stops there.
//   - A data end or footer record out of place, which records of the data
//     section follow (before the summary section or the closing footer;
//     in a file without a closing footer, a footer that the magic does not
//     follow, or a data end record that a message, chunk, attachment or
//     metadata record follows), is reported, and the scan goes on past it:
//     a read that ended the data section there would miss the records
//     after it.
//
// out is written under a temporary name and renamed when done; the error is
// for failures that leave nothing to write.
func Recover(in, out string, opts ...RecoverOption) (*RecoverReport, error) {
	return RecoverContext(context.Background(), in, out, opts...)
}

// RecoverContext is Recover stopped by ctx: once ctx is done it checks
// between records of the data section, removes the unfinished output
// (nothing is left under out or its temporary name) and returns ctx.Err().
func RecoverContext(ctx context.Context, in, out string, opts ...RecoverOption) (*RecoverReport, error) {
	var o recoverOptions
	for _, opt := range opts {
		opt(&o)
	}
	f, err := os.Open(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkMagic(f, in, st.Size()); err != nil {
		return nil, err
	}
	rc := &recoverer{ctx: ctx, file: in, ra: f, size: st.Size(), opts: o, rep: &RecoverReport{},
		schemas: map[uint16]*mcap.Schema{}, chans: map[uint16]uint32{}, schemaIDs: map[uint16]bool{}, strayAt: -1}
	defer rc.dec.close()
	profile := ""
	if fr, err := readFrame(f, in, magicLen, st.Size()); err == nil && fr.op == mcap.OpHeader {
		if body, err := readBody(f, in, fr, nil); err == nil {
			if h, err := safeParse(in, fr.offset, "header", mcap.ParseHeader, body); err == nil {
				profile = h.Profile
			}
		}
	}
	if profile != "ros1" && profile != "ros2" {
		profile = ""
	}
	rc.loadSummary()
	wopts := []WriterOption{WithProfile(profile)}
	if o.sync {
		wopts = append(wopts, WithSync())
	}
	w, err := Create(out, wopts...)
	if err != nil {
		return nil, err
	}
	rc.w = w
	if err := rc.run(); err != nil {
		w.Abort()
		return rc.rep, err
	}
	if err := rc.markUnverified(); err != nil {
		w.Abort()
		return rc.rep, err
	}
	if err := w.Close(); err != nil {
		return rc.rep, err
	}
	sort.SliceStable(rc.rep.Skipped, func(i, j int) bool { return rc.rep.Skipped[i].Offset < rc.rep.Skipped[j].Offset })
	return rc.rep, nil
}

type recoverer struct {
	ctx       context.Context
	file      string
	ra        io.ReaderAt
	size      int64
	opts      recoverOptions
	w         *Writer
	rep       *RecoverReport
	dec       decoders
	ix        *index                  // the summary section, when intact
	starts    chunkStarts             // the chunks ix indexes
	schemas   map[uint16]*mcap.Schema // schemas of the data section
	chans     map[uint16]uint32       // input channel id → output channel id
	schemaIDs map[uint16]bool         // input schemas of the channels written
	buf       []byte                  // decompression buffer, reused
	// strayAt is the index in rep.Skipped of the last data end or footer
	// record out of place that the scan went on past, -1 for none;
	// strayFrom counts the messages kept before it.
	strayAt   int
	strayFrom uint64
}

// UnverifiedMetadata names the metadata record Recover writes into a file
// that keeps messages no CRC vouches for (keys "messages", the count,
// "ranges", the byte ranges of the input they came from, and
// "recovered_from", the input), so that a later check or read of the
// output says so instead of calling it intact.
const UnverifiedMetadata = "baglab_unverified"

// markUnverified writes the UnverifiedMetadata record when the recovered
// file keeps unverified messages.
func (rc *recoverer) markUnverified() error {
	var n uint64
	var ranges []string
	for _, s := range rc.rep.Skipped {
		if s.Unverified && s.Kept > 0 {
			n += s.Kept
			ranges = append(ranges, fmt.Sprintf("[%d, %d)", s.Offset, s.Offset+s.Length))
		}
	}
	if n == 0 {
		return nil
	}
	return rc.w.AddMetadata(UnverifiedMetadata, map[string]string{
		"messages":       strconv.FormatUint(n, 10),
		"ranges":         strings.Join(ranges, " "),
		"recovered_from": rc.file,
	})
}

func (rc *recoverer) skip(s record.Skipped) {
	rc.rep.Skipped = append(rc.rep.Skipped, s)
}

func (rc *recoverer) skipErr(off, n int64, err error) {
	rc.skip(record.Skipped{Offset: off, Length: n, Err: err})
}

// loadSummary reads the summary section when the file has one; a damaged
// one is reported and not used.
func (rc *recoverer) loadSummary() {
	ix, err := readIndex(rc.ra, rc.file, rc.size)
	if err == nil {
		rc.ix = ix
		rc.starts = newChunkStarts(ix)
		return
	}
	off := rc.size - tailLen
	if footer, ferr := readFooter(rc.ra, rc.file, rc.size); ferr == nil && footer != nil && footer.SummaryStart >= magicLen && int64(footer.SummaryStart) < off {
		off = int64(footer.SummaryStart)
	}
	rc.skip(record.Skipped{Offset: off, Length: rc.size - off, Note: "summary section not used", Err: err})
}

// nextChunk returns the offset of the first chunk the summary indexes after
// off and before end, or -1 (see chunkStarts.next).
func (rc *recoverer) nextChunk(off, end, limit int64) int64 {
	return rc.starts.next(rc.ra, rc.file, off, end, limit)
}

func (rc *recoverer) run() error {
	if err := rc.scan(); err != nil {
		return err
	}
	return rc.addSummaryChannels()
}

// scan copies the records of the data section.
func (rc *recoverer) scan() error {
	limit, bounds := rc.size, sectionEnd(nil, rc.size)
	if footer, err := readFooter(rc.ra, rc.file, rc.size); err == nil && footer != nil {
		limit, bounds = rc.size-magicLen, sectionEnd(footer, rc.size)
	}
	defer rc.endStray()
	sc := newScanner(rc.ra, rc.file, magicLen, limit)
	for {
		if err := rc.ctx.Err(); err != nil {
			return err
		}
		start := sc.pos
		fr, err := sc.next()
		if err == io.EOF {
			rc.skip(record.Skipped{Offset: start,
				Err: errorf(rc.file, start, "data end", record.ErrTruncated, "file ends without a data end record")})
			return nil
		}
		if err == nil && fr.op != mcap.OpFooter {
			if next := rc.nextChunk(fr.offset, fr.end(), limit); next >= 0 {
				err = errorf(rc.file, fr.offset, fr.op.String()+" record length", record.ErrFormat,
					"the record runs over the chunk that the summary indexes at %d", next)
			}
		}
		if err != nil {
			// The framing is lost: salvage the chunk that starts here, if
			// any, and go on at the next indexed chunk.
			next := rc.nextChunk(start, limit, limit)
			end := next
			if end < 0 {
				end = limit
			}
			ok, werr := rc.salvageChunk(start, end, err)
			if werr != nil {
				return werr
			}
			if !ok {
				rc.skipErr(start, end-start, err)
			}
			if next < 0 {
				return nil
			}
			sc.pos = next
			continue
		}
		switch fr.op {
		case mcap.OpDataEnd, mcap.OpFooter:
			if err := bounds.stray(rc.ra, rc.file, fr); err != nil {
				rc.stray(fr, err)
				continue
			}
			rc.rep.Complete = true
			return nil
		case mcap.OpAttachment:
			if err := rc.attachment(fr); err != nil {
				if isWriteError(err) {
					return err
				}
				rc.skipErr(fr.offset, fr.end()-fr.offset, err)
			}
			continue
		}
		body, err := sc.bodyOf(fr)
		if err != nil {
			rc.skipErr(fr.offset, limit-fr.offset, err)
			return nil
		}
		if fr.op == mcap.OpChunk {
			err = rc.chunk(fr, body, nil)
			if err != nil && !isWriteError(err) {
				// The chunk's own framing is damaged (its records length):
				// keep the records that frame, as the readers do.
				if ok, serr := rc.salvageChunk(fr.offset, fr.end(), err); ok {
					if serr != nil {
						return serr
					}
					continue
				}
			}
			if err == nil {
				if next, op := overlong(fr, body); next >= 0 {
					rc.skip(record.Skipped{Offset: fr.offset, Length: fr.end() - fr.offset,
						Note: fmt.Sprintf("a %s record follows its records: the scan goes on there", op),
						Err:  errorf(rc.file, fr.offset, "chunk record length", record.ErrFormat, "the record runs %d bytes past its records", fr.end()-next)})
					sc.pos = next
				}
			}
		} else {
			err = rc.record(fr.op, fr.offset, body, false)
		}
		if err != nil {
			if isWriteError(err) {
				return err
			}
			rc.skipErr(fr.offset, fr.end()-fr.offset, err)
		}
	}
}

// stray reports the data end or footer record fr, out of place as err
// says (dataBounds.stray), which the scan goes on past; endStray, at the
// next one or the end of the scan, counts the messages kept after it.
func (rc *recoverer) stray(fr frame, err error) {
	rc.endStray()
	rc.skip(record.Skipped{Offset: fr.offset, Length: fr.end() - fr.offset, Err: err})
	rc.strayAt, rc.strayFrom = len(rc.rep.Skipped)-1, rc.rep.Messages
}

// endStray completes the report of the last data end or footer record out
// of place that the scan went on past, if any.
func (rc *recoverer) endStray() {
	if rc.strayAt < 0 {
		return
	}
	rc.rep.Skipped[rc.strayAt].Note = fmt.Sprintf("the scan goes on past it: %d messages after it kept", rc.rep.Messages-rc.strayFrom)
	rc.strayAt = -1
}

// overlong returns the file offset where the records of chunk fr end when
// the chunk record runs on past them over what frames as another record
// (its length field must be damaged), with that record's opcode; else -1.
func overlong(fr frame, body []byte) (int64, mcap.OpCode) {
	ck, err := parseChunk("", fr.bodyOffset(), body)
	if err != nil {
		return -1, 0
	}
	end := ck.recordsOffset + int64(len(ck.records))
	rest := body[end:]
	if len(rest) < recordHeaderLen || binary.LittleEndian.Uint64(rest[1:]) > uint64(len(rest)-recordHeaderLen) {
		return -1, 0
	}
	switch op := mcap.OpCode(rest[0]); op {
	case mcap.OpMessageIndex, mcap.OpChunk, mcap.OpAttachment, mcap.OpMetadata, mcap.OpSchema, mcap.OpChannel, mcap.OpMessage, mcap.OpDataEnd:
		return fr.bodyOffset() + end, op
	}
	return -1, 0
}

// writeError marks a failure of the output, which ends the recovery.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

func isWriteError(err error) bool {
	var we writeError
	return errors.As(err, &we)
}

// record copies one schema, channel, message or metadata record. suspect is
// set for the records of a damaged chunk: their schemas and channels give
// way to the summary's copies.
func (rc *recoverer) record(op mcap.OpCode, off int64, body []byte, suspect bool) error {
	switch op {
	case mcap.OpSchema:
		s, err := safeParse(rc.file, off, "schema", mcap.ParseSchema, body)
		if err != nil {
			return err
		}
		if suspect && rc.ix != nil && rc.ix.schemas[s.ID] != nil {
			s = rc.ix.schemas[s.ID]
		}
		rc.schemas[s.ID] = s
	case mcap.OpChannel:
		c, err := safeParse(rc.file, off, "channel", mcap.ParseChannel, body)
		if err != nil {
			return err
		}
		if _, dup := rc.chans[c.ID]; dup {
			return nil
		}
		if suspect && rc.ix != nil && rc.ix.channels[c.ID] != nil {
			c = rc.ix.channels[c.ID]
		}
		// Schemas of a damaged chunk were replaced by their summary copies.
		s := rc.schemas[c.SchemaID]
		if s == nil && c.SchemaID != 0 && rc.ix != nil {
			s = rc.ix.schemas[c.SchemaID]
		}
		if s == nil && c.SchemaID != 0 {
			return errorf(rc.file, off, "channel.schema_id", record.ErrNotFound, "channel %d (%s) uses schema %d, which was lost", c.ID, c.Topic, c.SchemaID)
		}
		return rc.addChannel(c, s)
	case mcap.OpMessage:
		ch, seq, lt, pt, err := parseMessageHead(rc.file, off, body)
		if err != nil {
			return err
		}
		if err := messageTimes(rc.file, off, lt, pt); err != nil {
			return err
		}
		id, ok := rc.chans[ch]
		if !ok {
			if id, ok, err = rc.summaryChannel(ch); err != nil {
				return err
			}
		}
		if !ok {
			rc.rep.Orphans++
			return nil
		}
		if err := rc.w.WriteMessage(id, &record.Message{LogTime: int64(lt), PublishTime: int64(pt), Sequence: uint64(seq), Data: body[messageHeadLen:]}); err != nil {
			return writeError{err}
		}
		rc.rep.Messages++
	case mcap.OpMetadata:
		m, err := safeParse(rc.file, off, "metadata", mcap.ParseMetadata, body)
		if err != nil {
			return err
		}
		if err := rc.w.AddMetadata(m.Name, m.Metadata); err != nil {
			return writeError{err}
		}
		rc.rep.Metadata++
	}
	return nil
}

// addChannel writes channel c with schema s (nil for none).
func (rc *recoverer) addChannel(c *mcap.Channel, s *mcap.Schema) error {
	rs := &record.Schema{}
	if s != nil {
		rs = &record.Schema{Name: s.Name, Encoding: s.Encoding, Data: s.Data}
	}
	id, err := rc.w.AddChannel(&record.Channel{Topic: c.Topic, MessageEncoding: c.MessageEncoding, Schema: rs, Metadata: c.Metadata})
	if err != nil {
		return writeError{err}
	}
	rc.chans[c.ID] = id
	rc.rep.Channels++
	if s != nil && !rc.schemaIDs[c.SchemaID] {
		rc.schemaIDs[c.SchemaID] = true
		rc.rep.Schemas++
	}
	return nil
}

// summaryChannel writes the summary's record of channel ch, whose record in
// the data section was lost, and returns its output id; ok is false when the
// summary does not have it (or its schema).
func (rc *recoverer) summaryChannel(ch uint16) (id uint32, ok bool, err error) {
	if rc.ix == nil || rc.ix.channels[ch] == nil {
		return 0, false, nil
	}
	c := rc.ix.channels[ch]
	s := rc.ix.schemas[c.SchemaID]
	if s == nil {
		s = rc.schemas[c.SchemaID]
	}
	if s == nil && c.SchemaID != 0 {
		return 0, false, nil
	}
	if err := rc.addChannel(c, s); err != nil {
		return 0, false, err
	}
	rc.rep.SummaryChannels++
	return rc.chans[ch], true, nil
}

// addSummaryChannels writes the summary's channels that the data section
// no longer holds, so that the recovered file lists every topic.
func (rc *recoverer) addSummaryChannels() error {
	if rc.ix == nil {
		return nil
	}
	for _, ch := range rc.ix.channelIDs {
		if _, done := rc.chans[ch]; !done {
			if _, _, err := rc.summaryChannel(ch); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunk copies the records of a chunk. cut says why the chunk's framing is
// lost when the end of the file or a damaged length field cuts it off, nil
// for a whole chunk.
func (rc *recoverer) chunk(fr frame, body []byte, cut error) error {
	ck, err := parseChunk(rc.file, fr.bodyOffset(), body)
	if err != nil {
		return err
	}
	data, fate := salvageRecords(&rc.dec, rc.file, fr, ck, rc.buf, cut, true)
	if ck.compression != "" && cap(data) > cap(rc.buf) {
		rc.buf = data[:0]
	}
	if errors.Is(fate.damage, record.ErrUnsupported) {
		return fate.damage
	}
	fate.dropped = fate.damage != nil && rc.opts.dropUnverified
	for p := 0; p < len(data); {
		op := mcap.OpCode(data[p])
		n := int(binary.LittleEndian.Uint64(data[p+1:]))
		body := data[p+recordHeaderLen : p+recordHeaderLen+n]
		p += recordHeaderLen + n
		if op == mcap.OpMessage {
			fate.seen++
		}
		if fate.dropped {
			continue
		}
		before := rc.rep.Messages
		if err := rc.record(op, fr.offset, body, fate.damage != nil); err != nil {
			if isWriteError(err) {
				return err
			}
			fate.bad++
			if fate.firstBad == nil {
				fate.firstBad = err
			}
		} else {
			fate.used++
		}
		fate.kept += rc.rep.Messages - before
	}
	if fate.whole() {
		return nil
	}
	switch {
	case fate.dropped:
		rc.rep.Dropped += fate.seen
	case fate.size == 0:
	case fate.damage != nil && cut != nil:
		rc.rep.Salvaged += fate.kept
	case fate.damage != nil:
		rc.rep.Suspect += fate.kept
	}
	rc.skip(fate.skipped(fr.end() - fr.offset))
	return nil
}

// salvageChunk keeps the complete records of a chunk whose framing is
// lost, of which the bytes [off, end) are at hand: one the end of the file
// cuts off, or one whose length field is damaged. cut says what is wrong.
// ok is false when no chunk head lies at off.
func (rc *recoverer) salvageChunk(off, end int64, cut error) (ok bool, err error) {
	fr, body, ok := cutChunk(rc.ra, off, end)
	if !ok {
		return false, nil
	}
	if err := rc.chunk(fr, body, cut); err != nil {
		if isWriteError(err) {
			return true, err
		}
		rc.skipErr(off, end-off, err)
	}
	return true, nil
}

// attachment copies an attachment after checking its CRC.
func (rc *recoverer) attachment(fr frame) error {
	a, err := parseAttachmentHead(rc.ra, rc.file, fr)
	if err != nil {
		return err
	}
	data := make([]byte, a.Size+4)
	if err := readAt(rc.ra, data, a.dataOffset); err != nil {
		return ioError(rc.file, a.dataOffset, "attachment.data", err)
	}
	if want := binary.LittleEndian.Uint32(data[a.Size:]); want != 0 {
		h := crc32.NewIEEE()
		if _, err := io.Copy(h, io.NewSectionReader(rc.ra, fr.bodyOffset(), a.dataOffset-fr.bodyOffset())); err != nil {
			return ioError(rc.file, fr.bodyOffset(), "attachment", err)
		}
		h.Write(data[:a.Size])
		if h.Sum32() != want {
			err := errorf(rc.file, fr.offset, "attachment.crc", record.ErrCRC, "attachment %q: computed %08x, stored %08x", a.Name, h.Sum32(), want)
			s := record.Skipped{Offset: fr.offset, Length: fr.end() - fr.offset, Note: "attachment dropped", Err: err}
			if !rc.opts.dropUnverified {
				s.Unverified = true
				s.Note = "attachment kept, its content may be damaged"
			}
			rc.skip(s)
			if rc.opts.dropUnverified {
				return nil
			}
		}
	}
	if err := rc.w.AddAttachment(a.Name, a.MediaType, a.LogTime, a.CreateTime, data[:a.Size]); err != nil {
		return writeError{err}
	}
	rc.rep.Attachments++
	return nil
}
