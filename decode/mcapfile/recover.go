package mcapfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/baglab/baglab/decode/record"
	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Skipped is a stretch of the input that Recover could not use.
type Skipped struct {
	Offset int64 // where the damaged record starts
	Length int64 // bytes skipped (to the end of the file when the rest is unreadable)
	Reason string
}

// RecoverReport says what Recover kept and what it skipped.
type RecoverReport struct {
	Messages    uint64
	Schemas     int
	Channels    int
	Attachments int
	Metadata    int
	// Salvaged counts messages taken from a chunk cut off by the end of the
	// file (part of Messages).
	Salvaged uint64
	// Orphans counts messages dropped because their channel record was lost.
	Orphans uint64
	Skipped []Skipped
	// Complete is true when the data section was read to its end.
	Complete bool
}

// Recover rebuilds the MCAP file in as out: it scans the data section in
// file order and writes every intact schema, channel, message, attachment
// and metadata record into a new, fully indexed file (zstd chunks), in file
// order. A chunk whose CRC or compression is damaged, or a record whose body
// does not parse, is skipped and reported, and the scan goes on with the next
// record; it stops where the framing itself is lost (a length running past
// the end of the file), after salvaging the complete records of a chunk cut
// off by the end of the file. out is written under a temporary name and
// renamed when done; the error is for failures that leave nothing to write.
func Recover(in, out string, opts ...WriterOption) (*RecoverReport, error) {
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
	rc := &recoverer{file: in, ra: f, size: st.Size(), rep: &RecoverReport{},
		schemas: map[uint16]*mcap.Schema{}, chans: map[uint16]uint32{}}
	defer rc.dec.close()
	profile := ""
	if fr, err := readFrame(f, in, magicLen, st.Size()); err == nil && fr.op == mcap.OpHeader {
		if body, err := readBody(f, in, fr, nil); err == nil {
			if h, err := safeParse(in, fr.offset, "header", mcap.ParseHeader, body); err == nil {
				profile = h.Profile
			}
		}
	}
	if profile == "ros1" || profile == "ros2" {
		opts = append([]WriterOption{WithProfile(profile)}, opts...)
	} else {
		opts = append([]WriterOption{WithProfile("")}, opts...)
	}
	w, err := Create(out, opts...)
	if err != nil {
		return nil, err
	}
	rc.w = w
	if err := rc.run(); err != nil {
		w.Abort()
		return rc.rep, err
	}
	if err := w.Close(); err != nil {
		return rc.rep, err
	}
	return rc.rep, nil
}

type recoverer struct {
	file    string
	ra      io.ReaderAt
	size    int64
	w       *Writer
	rep     *RecoverReport
	dec     decoders
	schemas map[uint16]*mcap.Schema
	chans   map[uint16]uint32 // input channel id → output channel id
}

func (rc *recoverer) skip(off, n int64, format string, args ...any) {
	rc.rep.Skipped = append(rc.rep.Skipped, Skipped{Offset: off, Length: n, Reason: fmt.Sprintf(format, args...)})
}

func (rc *recoverer) run() error {
	limit := rc.size
	if footer, err := readFooter(rc.ra, rc.file, rc.size); err == nil && footer != nil {
		limit = rc.size - magicLen
	}
	sc := newScanner(rc.ra, rc.file, magicLen, limit)
	for {
		start := sc.pos
		fr, err := sc.next()
		if err == io.EOF {
			rc.skip(start, 0, "file ends without a data end record")
			return nil
		}
		if err != nil {
			if start+recordHeaderLen <= limit {
				if err := rc.salvageTail(start, limit); err != nil {
					return err
				}
			}
			rc.skip(start, limit-start, "%v", err)
			return nil
		}
		switch fr.op {
		case mcap.OpDataEnd, mcap.OpFooter:
			rc.rep.Complete = true
			return nil
		case mcap.OpAttachment:
			if err := rc.attachment(fr); err != nil {
				if isWriteError(err) {
					return err
				}
				rc.skip(fr.offset, fr.end()-fr.offset, "%v", err)
			}
			continue
		}
		body, err := sc.bodyOf(fr)
		if err != nil {
			rc.skip(fr.offset, limit-fr.offset, "%v", err)
			return nil
		}
		if fr.op == mcap.OpChunk {
			if err := rc.chunk(fr, body, false); err != nil {
				if isWriteError(err) {
					return err
				}
				rc.skip(fr.offset, fr.end()-fr.offset, "%v", err)
			}
			continue
		}
		if err := rc.record(fr.op, fr.offset, body); err != nil {
			if isWriteError(err) {
				return err
			}
			rc.skip(fr.offset, fr.end()-fr.offset, "%v", err)
		}
	}
}

// writeError marks a failure of the output, which ends the recovery.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }
func (e writeError) Unwrap() error { return e.err }

func isWriteError(err error) bool {
	var we writeError
	return errors.As(err, &we)
}

// record copies one schema, channel, message or metadata record.
func (rc *recoverer) record(op mcap.OpCode, off int64, body []byte) error {
	switch op {
	case mcap.OpSchema:
		s, err := safeParse(rc.file, off, "schema", mcap.ParseSchema, body)
		if err != nil {
			return err
		}
		if _, dup := rc.schemas[s.ID]; !dup {
			rc.rep.Schemas++
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
		s := rc.schemas[c.SchemaID]
		if s == nil && c.SchemaID != 0 {
			return errorf(rc.file, off, "channel.schema_id", record.ErrNotFound, "channel %d (%s) uses schema %d, which was lost", c.ID, c.Topic, c.SchemaID)
		}
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
	case mcap.OpMessage:
		ch, seq, lt, pt, err := parseMessageHead(rc.file, off, body)
		if err != nil {
			return err
		}
		id, ok := rc.chans[ch]
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

// chunk copies the records of a chunk. partial is set for a chunk cut off
// by the end of the file: the records decompressed before the cut are kept.
func (rc *recoverer) chunk(fr frame, body []byte, partial bool) error {
	ck, err := parseChunk(rc.file, fr.bodyOffset(), body)
	if err != nil {
		return err
	}
	var data []byte
	if partial {
		data = decompressPrefix(ck)
	} else if data, err = rc.dec.decompress(rc.file, fr.offset, ck, nil, true); err != nil {
		return err
	}
	var firstErr error
	for p := 0; p < len(data); {
		if len(data)-p < recordHeaderLen {
			break
		}
		op := mcap.OpCode(data[p])
		n := binary.LittleEndian.Uint64(data[p+1:])
		if n > uint64(len(data)-p-recordHeaderLen) {
			if !partial {
				return errorf(rc.file, fr.offset, op.String()+" record length", record.ErrLength, "at uncompressed offset %d", p)
			}
			break
		}
		body := data[p+recordHeaderLen : p+recordHeaderLen+int(n)]
		before := rc.rep.Messages
		if err := rc.record(op, fr.offset, body); err != nil {
			if isWriteError(err) {
				return err
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if partial {
			rc.rep.Salvaged += rc.rep.Messages - before
		}
		p += recordHeaderLen + int(n)
	}
	if firstErr != nil {
		rc.skip(fr.offset, 0, "in chunk: %v", firstErr)
	}
	return nil
}

// salvageTail keeps the complete records of a chunk that the end of the
// file cuts off.
func (rc *recoverer) salvageTail(off, limit int64) error {
	var hdr [recordHeaderLen]byte
	if readAt(rc.ra, hdr[:], off) != nil || mcap.OpCode(hdr[0]) != mcap.OpChunk {
		return nil
	}
	body := make([]byte, limit-off-recordHeaderLen)
	if readAt(rc.ra, body, off+recordHeaderLen) != nil || len(body) < chunkHeadLen {
		return nil
	}
	// Make the records length fit what is there, then parse as usual.
	n := int(binary.LittleEndian.Uint32(body[28:]))
	if n > len(body)-chunkHeadLen-8 {
		return nil
	}
	p := chunkHeadLen + n
	if avail := uint64(len(body) - p - 8); binary.LittleEndian.Uint64(body[p:]) > avail {
		binary.LittleEndian.PutUint64(body[p:], avail)
	}
	fr := frame{op: mcap.OpChunk, offset: off, bodyLen: int64(len(body))}
	return rc.chunk(fr, body, true)
}

// decompressPrefix returns as much of a cut-off chunk's records as still
// decompress.
func decompressPrefix(ck *chunk) []byte {
	var r io.Reader
	switch mcap.CompressionFormat(ck.compression) {
	case mcap.CompressionNone:
		return ck.records
	case mcap.CompressionZSTD:
		z, err := zstd.NewReader(bytes.NewReader(ck.records), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil
		}
		defer z.Close()
		r = z
	case mcap.CompressionLZ4:
		r = lz4.NewReader(bytes.NewReader(ck.records))
	default:
		return nil
	}
	out, _ := readAllLimit(r, nil, ck.uncompressedSize)
	return out
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
			return errorf(rc.file, fr.offset, "attachment.crc", record.ErrCRC, "attachment %q: computed %08x, stored %08x", a.Name, h.Sum32(), want)
		}
	}
	if err := rc.w.AddAttachment(a.Name, a.MediaType, a.LogTime, a.CreateTime, data[:a.Size]); err != nil {
		return writeError{err}
	}
	rc.rep.Attachments++
	return nil
}
