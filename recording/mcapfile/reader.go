package mcapfile

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"
	"sync"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/chunked"
	"github.com/baglab/baglab/recording/internal/fileio"
	"github.com/foxglove/mcap/go/mcap"
)

// The package's Reader and Writer implement the shared contracts.
var (
	_ record.Reader = (*Reader)(nil)
	_ record.Writer = (*Writer)(nil)
)

// Option configures a Reader: record.WithWorkers (chunks decompressed
// ahead in parallel during indexed reads; 1 decompresses inline),
// record.WithoutIndex (ignore the summary section and read linearly),
// record.WithSkipBad, record.WithWarning and record.WithKeepUnverified.
//
// With record.WithSkipBad, message iterators go on past damaged data
// instead of stopping at the first error, as Recover does:
//   - A chunk whose CRC fails, or whose compressed data stops
//     decompressing, yields the records of it that still frame and parse
//     only with record.WithKeepUnverified (marked Message.Unverified);
//     by default they are left out and reported (Skipped.Dropped): their
//     content may be damaged.
//   - A chunk cut off by the end of the file yields the complete records of
//     its part that decompresses; the iterator then ends with io.EOF.
//   - Where a record's length is damaged, the complete records of the chunk
//     there are yielded and reading goes on at the next chunk the summary's
//     chunk index lists, or ends there (io.EOF) without one.
//   - A record that does not parse, or a message on a channel that no
//     channel record (nor the summary) defines, is left out.
//   - A data end or footer record out of place, which records of the data
//     section follow, is read past, as without this option; it is
//     reported to the skip callback unless record.WithWarning takes it.
//
// The skip callback, if not nil, is called with each damaged stretch, from
// the goroutine calling Next, before the messages read from it.
// Skipped.Kept counts the message records still read from it, whether or
// not the filter selects them (a linear read counts those on a channel it
// then finds undefined, which it reports on their own). Summary and
// Channels of a file read without its index count what can be read,
// without reporting. Without record.WithSkipBad the iterators stop at the
// first error.
//
// The warning callback (record.WithWarning) is told of what message
// iterators read past that is no damage to the messages: a data end or
// footer record out of place, which records of the data section follow
// (the records after it are read, as @mcap/core's McapStreamReader reads
// those after a data end record). It is called from the goroutine calling
// Next; Skipped.Note says what the reading did.
type Option = record.ReadOption

// options are the reader's record.ReadOptions and whether chunk CRCs are
// verified (always, outside the package's tests).
type options struct {
	record.ReadOptions
	verifyCRC bool
}

func newOptions(opts []Option) options {
	return options{ReadOptions: record.NewReadOptions(opts...), verifyCRC: true}
}

// Reader is an open MCAP file. It implements record.Reader. Its methods may
// be called from one goroutine at a time; iterators it returns are
// independent of each other.
type Reader struct {
	file   string
	ra     io.ReaderAt
	size   int64
	closer io.Closer
	opts   options
	header *mcap.Header

	ix      *index // the summary, when it indexes the messages
	ixNote  string // why messages are not read through the index
	summary *index // the summary section as read, even when not usable

	mu       sync.Mutex
	schemas  map[schemaKey]*record.Schema
	channels map[uint16]*record.Channel
	scanned  *scanResult
	closed   bool
}

type schemaKey struct {
	id  uint16
	md5 string
}

// Open opens the MCAP file at path.
func Open(path string, opts ...Option) (*Reader, error) {
	return fileio.Open(path, false, func(ra io.ReaderAt, size int64) (*Reader, error) { return NewReader(ra, size, path, opts...) },
		func(r *Reader, f io.Closer) { r.closer = f })
}

// NewReader reads the MCAP file held by ra, size bytes long; path names it
// in errors and messages. ra must stay open while the reader is in use.
func NewReader(ra io.ReaderAt, size int64, path string, opts ...Option) (*Reader, error) {
	r := &Reader{
		file:     path,
		ra:       ra,
		size:     size,
		opts:     newOptions(opts),
		schemas:  map[schemaKey]*record.Schema{},
		channels: map[uint16]*record.Channel{},
	}
	if err := checkMagic(ra, path, size); err != nil {
		return nil, err
	}
	fr, err := readFrame(ra, path, magicLen, size)
	if err != nil {
		return nil, err
	}
	if fr.op != mcap.OpHeader {
		return nil, errorf(path, magicLen, "header", record.ErrFormat, "first record is %s, want header", fr.op)
	}
	body, err := readBody(ra, path, fr, nil)
	if err != nil {
		return nil, err
	}
	if r.header, err = safeParse(path, magicLen, "header", mcap.ParseHeader, body); err != nil {
		return nil, err
	}
	ix, err := readIndex(ra, path, size)
	switch {
	case err != nil:
		r.ixNote = "summary unreadable: " + err.Error()
	case ix == nil:
		r.ixNote = "no summary section"
	default:
		r.summary = ix
		ix.findLoose(ra, path)
		ok, why := ix.usable()
		if !ok && !r.opts.NoIndex {
			if whole, _ := ix.indexesChunks(); whole && r.learnDefinitions(ix) == nil {
				ok, why = ix.usable()
			}
		}
		switch {
		case !ok:
			r.ixNote = why
		case r.opts.NoIndex:
			r.ixNote = "index ignored on request"
		default:
			r.ix = ix
		}
	}
	return r, nil
}

// learnDefinitions adds to the summary ix the schema and channel records
// of the data section whose ids it lacks (see index.learnDefinitions).
func (r *Reader) learnDefinitions(ix *index) error {
	w := r.newWalker(nil)
	defer w.close()
	return ix.learnDefinitions(w, r.file)
}

// Path returns the file path given to Open or NewReader.
func (r *Reader) Path() string { return r.file }

// Profile returns the MCAP header's profile ("ros1", "ros2", "" ...).
func (r *Reader) Profile() string { return r.header.Profile }

// Library returns the MCAP header's library string.
func (r *Reader) Library() string { return r.header.Library }

// Indexed reports whether messages are read through the summary index, and
// when not, why.
func (r *Reader) Indexed() (bool, string) { return r.ix != nil, r.ixNote }

// Close releases the file; it is idempotent.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

var errClosed = errors.New("mcapfile: reader is closed")

// channel returns the record.Channel for an MCAP channel, reusing the one
// already made for the same id and content so that every message of a
// channel shares one pointer; schemaAt is the offset of s's record (0 when
// unknown).
func (r *Reader) channel(c *mcap.Channel, s *mcap.Schema, schemaAt int64) *record.Channel {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.channels[c.ID]; old != nil && old.Topic == c.Topic && old.MessageEncoding == c.MessageEncoding &&
		uint16(old.Schema.ID) == c.SchemaID && maps.Equal(old.Metadata, c.Metadata) {
		return old
	}
	md5 := c.Metadata["md5sum"]
	key := schemaKey{id: c.SchemaID, md5: md5}
	rs := r.schemas[key]
	if rs == nil || (s != nil && (rs.Name != s.Name || rs.Encoding != s.Encoding || string(rs.Data) != string(s.Data))) {
		rs = &record.Schema{ID: c.SchemaID, MD5: md5, Offset: schemaAt}
		if s != nil {
			rs.Name, rs.Encoding, rs.Data = s.Name, s.Encoding, s.Data
		}
		r.schemas[key] = rs
	}
	ch := &record.Channel{
		ID:              uint32(c.ID),
		Topic:           c.Topic,
		MessageEncoding: c.MessageEncoding,
		Schema:          rs,
		Metadata:        maps.Clone(c.Metadata),
	}
	if ch.Metadata == nil {
		ch.Metadata = map[string]string{}
	}
	r.channels[c.ID] = ch
	return ch
}

// Channels lists the file's channels in id order: from the summary when it
// indexes the file, else from a scan of the whole file.
func (r *Reader) Channels() ([]*record.Channel, error) {
	if r.ix != nil {
		out := make([]*record.Channel, 0, len(r.ix.channels))
		for _, id := range r.ix.channelIDs {
			c := r.ix.channels[id]
			out = append(out, r.channel(c, r.ix.schemas[c.SchemaID], r.ix.schemaAt[c.SchemaID]))
		}
		sortChannels(out)
		return out, nil
	}
	sr, err := r.scan()
	if err != nil {
		return nil, err
	}
	return sr.channels, nil
}

func sortChannels(cs []*record.Channel) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
}

// Summary describes the file. With a usable index it comes from the summary
// section (statistics, or message index records when the statistics lack
// per-channel counts) and, for each channel's first and last log times, the
// message index records of the few chunks whose time range can hold them;
// no chunk is decompressed unless its message index records are missing or
// do not match it (chunks without any are read once). Otherwise the whole
// file is scanned once. Start and end times are exact, and FrequencyHz is
// record.Frequency over the topic's own span. With record.WithSkipBad a chunk that
// must be read but cannot be bounds the times with its chunk index's. Of
// several statistics records (the specification allows one), one that
// each repeats is used; when they differ none is, as for a file without
// statistics (Check reports both).
func (r *Reader) Summary() (*record.Summary, error) {
	if r.ix != nil {
		per, ok, err := r.ix.counts(r.ra, r.file)
		if err != nil {
			return nil, err
		}
		var spans map[uint16]chunked.Span
		if ok {
			spans, ok, err = r.ix.spans(r.ra, r.file, r.opts, per)
			if err != nil {
				return nil, err
			}
		}
		if ok {
			chs, _ := r.Channels()
			return r.makeSummary(chs, per, spans, r.ix.compression()), nil
		}
	}
	sr, err := r.scan()
	if err != nil {
		return nil, err
	}
	s := r.makeSummary(sr.channels, sr.counts, sr.spans, joinCompressions(sr.compressions))
	s.Unindexed = r.ixNote
	if s.Unindexed == "" {
		s.Unindexed = "the summary section does not index the messages"
	}
	return s, nil
}

// makeSummary builds the summary from per-channel counts and spans
// (record.SummaryBuilder); the channels sharing a topic are combined.
func (r *Reader) makeSummary(chs []*record.Channel, per map[uint16]uint64, spans map[uint16]chunked.Span, compression string) *record.Summary {
	var b record.SummaryBuilder
	b.Compression(compression)
	for _, c := range chs {
		sp := spans[uint16(c.ID)]
		b.Add(c, per[uint16(c.ID)], sp.First, sp.Last)
	}
	return b.Summary(r.file, "mcap")
}

// Messages iterates the messages f selects. With a usable index they come
// in log time order (equal times in file order); otherwise in file order.
func (r *Reader) Messages(f record.Filter) (record.Iterator, error) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	r.warnUnverified()
	if r.ix != nil {
		return newIndexedIter(r, f), nil
	}
	return newLinearIter(r, f), nil
}

// warnUnverified tells the warning callback that the file keeps messages
// Recover could not verify, when its summary lists the
// UnverifiedMetadata record.
func (r *Reader) warnUnverified() {
	if r.summary == nil || r.opts.OnWarning == nil {
		return
	}
	for _, m := range r.summary.metadata {
		if m.Name != UnverifiedMetadata {
			continue
		}
		note := "messages kept by baglab recover that no CRC vouched for: their content may be damaged"
		if md, err := r.Metadata(); err == nil {
			for _, d := range md {
				if d.Offset == int64(m.Offset) {
					note = fmt.Sprintf("%s messages kept by baglab recover from %s (bytes %s there) that no CRC vouched for: their content may be damaged",
						d.Metadata["messages"], d.Metadata["recovered_from"], d.Metadata["ranges"])
				}
			}
		}
		r.opts.OnWarning(record.Skipped{Offset: int64(m.Offset), Unverified: true, Err: record.ErrUnverified, Note: note})
	}
}

// Attachment describes one attachment record.
type Attachment struct {
	Name       string
	MediaType  string
	LogTime    uint64
	CreateTime uint64
	Size       uint64 // bytes of data
	Offset     int64  // offset of the attachment record
	dataOffset int64
}

// Metadata is one metadata record.
type Metadata struct {
	Name     string
	Metadata map[string]string
	Offset   int64 // offset of the metadata record
}

// Attachments lists the file's attachments in file order, from the
// attachment index when the summary has a complete one whose entries point
// at their records, else from a scan (doctor reports an index that does
// not).
func (r *Reader) Attachments() ([]Attachment, error) {
	if ix := r.summary; ix != nil && indexComplete(ix.stats != nil, int(statCount(ix.stats, true)), len(ix.attachments)) {
		if out, err := r.indexedAttachments(ix); err == nil {
			return out, nil
		}
	}
	sr, err := r.scan()
	if err != nil {
		return nil, err
	}
	return sr.attachments, nil
}

// indexedAttachments reads the attachments the attachment index lists.
func (r *Reader) indexedAttachments(ix *index) ([]Attachment, error) {
	out := []Attachment{}
	for _, a := range ix.attachments {
		fr, err := r.indexedRecord(ix, a.Offset, a.Length, mcap.OpAttachment, "attachment_index", a.Name, "an attachment")
		if err != nil {
			return nil, err
		}
		at, err := parseAttachmentHead(r.ra, r.file, fr)
		if err != nil {
			return nil, err
		}
		out = append(out, at)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out, nil
}

// indexedRecord frames the record the index entry name (field) points at
// with offset and length, failing unless it is a record of op (what) of
// that length before the summary.
func (r *Reader) indexedRecord(ix *index, offset, length uint64, op mcap.OpCode, field, name, what string) (frame, error) {
	fr, err := readFrame(r.ra, r.file, int64(offset), int64(ix.footer.SummaryStart))
	if err != nil {
		return fr, err
	}
	if fr.op != op || uint64(fr.end()-fr.offset) != length {
		return fr, errorf(r.file, int64(offset), field, record.ErrFormat, "index entry %q does not point at %s of length %d", name, what, length)
	}
	return fr, nil
}

// indexComplete reports whether an index of n entries can be trusted to list
// every record: the statistics count them, or (without statistics) the index
// is not empty.
func indexComplete(haveStats bool, statsCount, n int) bool {
	if haveStats {
		return statsCount == n
	}
	return n > 0
}

// statCount is the attachment (or metadata) count of the statistics.
func statCount(st *mcap.Statistics, attachments bool) uint32 {
	switch {
	case st == nil:
		return 0
	case attachments:
		return st.AttachmentCount
	}
	return st.MetadataCount
}

// AttachmentData returns a reader of the attachment's bytes.
func (r *Reader) AttachmentData(a Attachment) *io.SectionReader {
	return io.NewSectionReader(r.ra, a.dataOffset, int64(a.Size))
}

// Metadata lists the file's metadata records in file order, from the
// metadata index when the summary has a complete one whose entries point at
// their records, else from a scan (doctor reports an index that does not:
// @mcap/core's writer without chunks gives the offset of the messages
// before a metadata record).
func (r *Reader) Metadata() ([]Metadata, error) {
	if ix := r.summary; ix != nil && indexComplete(ix.stats != nil, int(statCount(ix.stats, false)), len(ix.metadata)) {
		if out, err := r.indexedMetadata(ix); err == nil {
			return out, nil
		}
	}
	sr, err := r.scan()
	if err != nil {
		return nil, err
	}
	return sr.metadata, nil
}

// indexedMetadata reads the metadata records the metadata index lists.
func (r *Reader) indexedMetadata(ix *index) ([]Metadata, error) {
	out := []Metadata{}
	for _, m := range ix.metadata {
		fr, err := r.indexedRecord(ix, m.Offset, m.Length, mcap.OpMetadata, "metadata_index", m.Name, "a metadata record")
		if err != nil {
			return nil, err
		}
		body, err := readBody(r.ra, r.file, fr, nil)
		if err != nil {
			return nil, err
		}
		md, err := safeParse(r.file, fr.offset, "metadata", mcap.ParseMetadata, body)
		if err != nil {
			return nil, err
		}
		out = append(out, Metadata{Name: md.Name, Metadata: md.Metadata, Offset: fr.offset})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out, nil
}
