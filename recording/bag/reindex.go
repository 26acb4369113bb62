package bag

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/baglab/baglab/internal/english"
	"github.com/baglab/baglab/record"
)

// ReindexReport says what Reindex recovered and what it had to leave.
type ReindexReport struct {
	// Messages and Connections count what the new bag holds; Chunks its
	// chunks.
	Messages    int
	Connections int
	Chunks      int
	// Skipped lists the damaged or cut ranges of the input, in file order;
	// BytesSkipped adds up their lengths.
	Skipped      []record.Skipped
	BytesSkipped int64
	// Torn is the torn end of a recording that was never closed (not in
	// Skipped: such a recording ends so as a matter of course), or nil.
	Torn *record.Skipped
}

// Lost reports whether anything of the input may be missing from the
// output: a damaged or cut range was skipped (a torn end of a recording
// that was never closed does not count).
func (r *ReindexReport) Lost() bool { return len(r.Skipped) > 0 }

func (r *ReindexReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s in %s", english.Count(r.Messages, "message"), english.Count(r.Connections, "connection"), english.Count(r.Chunks, "chunk"))
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "; skipped %d bytes:", r.BytesSkipped)
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, " [%d, %d)", s.Offset, s.Offset+s.Length)
			if s.Kept > 0 {
				fmt.Fprintf(&b, " (%d messages salvaged from it)", s.Kept)
			}
		}
	}
	if s := r.Torn; s != nil {
		fmt.Fprintf(&b, "; the torn end [%d, %d) of a recording that was never closed", s.Offset, s.Offset+s.Length)
	}
	return b.String()
}

// Reindex rebuilds the bag at in as a complete, indexed bag at out (which
// may be in itself: the new bag is written to a temporary file and renamed
// over it). The input is scanned record by record, ignoring its index, so
// an unindexed ".bag.active" file, a bag whose tail is cut or whose index
// is damaged all work: every intact message is kept, including the complete
// messages of a chunk whose end is cut (for a compressed chunk, those that
// still decompress), and damaged stretches in the middle are skipped up to
// the next chunk. Connections keep their ids and their connection headers
// field for field; messages keep their file order.
//
// Unlike rosbag reindex (ros_comm issue #2282), the output holds nothing
// but well-formed records: the new file is written from scratch, so no
// bytes of a cut chunk are left between the last chunk and the index.
//
// opts configure the new bag; the compression defaults to that of the
// input's first chunk.
func Reindex(in, out string, opts ...WriterOption) (*ReindexReport, error) {
	return ReindexContext(context.Background(), in, out, opts...)
}

// ReindexContext is Reindex stopped by ctx: once ctx is done it checks
// between messages, removes the unfinished output (nothing is left under
// out or its temporary name) and returns ctx.Err().
func ReindexContext(ctx context.Context, in, out string, opts ...WriterOption) (*ReindexReport, error) {
	rep := &ReindexReport{}
	r, err := Open(in, record.WithoutIndex(), record.WithSkipBad(func(s record.Skipped) {
		rep.Skipped = append(rep.Skipped, s)
		rep.BytesSkipped += s.Length
	}), record.WithWarning(func(s record.Skipped) { rep.Torn = &s }))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	comp := r.firstCompression()
	w, err := Create(out, append([]WriterOption{WithCompression(string(comp))}, opts...)...)
	if err != nil {
		return nil, err
	}
	it := r.newLinearIter(record.Filter{})
	defer it.Close()
	var m record.Message
	for {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return nil, err
		}
		err := it.NextInto(&m)
		if err == io.EOF {
			break
		}
		if err == nil {
			id := m.Channel.ID
			if w.byID[id] == nil {
				c := r.connection(id)
				w.addConnection(id, c.Topic, c.Fields)
			}
			err = w.WriteMessage(id, &m)
		}
		if err != nil {
			w.Abort()
			return nil, err
		}
		rep.Messages++
	}
	rep.Chunks = len(w.infos)
	if len(w.chunkConns) > 0 {
		rep.Chunks++
	}
	rep.Connections = len(w.conns)
	if err := w.Close(); err != nil {
		return nil, err
	}
	return rep, nil
}

// firstCompression is the compression of the first chunk, CompressionNone
// when there is none.
func (r *Reader) firstCompression() Compression {
	lex := NewLexer(r.r, r.size, r.path, r.dataStart)
	for {
		rec, err := lex.Next()
		if rec != nil && rec.Op == OpChunk {
			if h, err := ParseChunkHeader(rec.Header); err == nil {
				switch h.Compression {
				case CompressionLZ4, CompressionBZ2:
					return h.Compression
				}
			}
			return CompressionNone
		}
		if err != nil {
			return CompressionNone
		}
	}
}

// chunkOpField is the op field of a chunk record header.
var chunkOpField = []byte("\x04\x00\x00\x00op=\x05")

// resync looks for the next chunk record after a damaged stretch starting
// at from: a record whose header holds op=0x05 and parses as a chunk
// header. It returns its offset, or -1.
func (r *Reader) resync(from int64) int64 {
	const window = 1 << 20
	const maxHeader = 4096
	buf := make([]byte, window+len(chunkOpField))
	for base := from + 1; base < r.size; base += window {
		n, _ := r.r.ReadAt(buf[:min(int64(len(buf)), r.size-base)], base)
		for k := 0; ; k++ {
			i := bytes.Index(buf[k:n], chunkOpField)
			if i < 0 {
				break
			}
			k += i
			field := base + int64(k) // the op field's length prefix
			for q := max(from+1, field-maxHeader); q <= field-4; q++ {
				if r.chunkAt(q, field) {
					return q
				}
			}
		}
	}
	return -1
}

// chunkAt reports whether a chunk record starts at q with its op field at
// field.
func (r *Reader) chunkAt(q, field int64) bool {
	var l [4]byte
	if n, _ := r.r.ReadAt(l[:], q); n < 4 {
		return false
	}
	hl := int64(binary.LittleEndian.Uint32(l[:]))
	if hl > 4096 || field+int64(len(chunkOpField)) > q+4+hl {
		return false
	}
	rec, err := NewLexer(r.r, r.size, r.path, q).Next()
	if rec == nil || rec.Op != OpChunk || err != nil && !errIsTruncation(err) {
		return false
	}
	_, err = ParseChunkHeader(rec.Header)
	return err == nil
}
