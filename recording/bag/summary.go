package bag

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/chunked"
)

// Summary describes the bag. With an index it is computed from the chunk
// infos, chunk headers and a few index data records, without decompressing
// anything: message counts per connection, compressions (of a remote bag
// those of the chunk headers read, at least the first's, with
// record.Summary.CompressionNote saying how many were), and each topic's
// exact first and last log times, read from the index data records of the
// chunks whose time range can hold them (see spanReader). Without an index
// the whole file is scanned once (the result is cached); a damaged tail
// makes it fail unless record.WithSkipBad was given.
//
// TopicSummary.FrequencyHz is record.Frequency over the topic's own span.
func (r *Reader) Summary() (*record.Summary, error) {
	if !r.indexed {
		s, err := r.scan()
		if err != nil {
			return nil, err
		}
		c := *s
		return &c, nil
	}
	acc := newSummaryAcc(r)
	sr := newSpanReader(r)
	sr.prefetch()
	for _, conn := range r.connOrder {
		if l := sr.lists[conn]; l != nil {
			sp, err := sr.conn(conn)
			if err != nil {
				return nil, err
			}
			acc.count(conn, l.count).span = sp
		}
	}
	if len(r.chunks) > 0 {
		// Of a remote bag, the first chunk's header is in the head its
		// opening fetched.
		if err := r.loadChunkHeaders(r.chunks[:1]); err != nil {
			return nil, err
		}
	}
	comps, unread := r.chunkHeadersRead()
	for _, c := range comps {
		acc.compression(c)
	}
	s := acc.summary()
	if unread > 0 {
		s.CompressionNote = fmt.Sprintf("from %d of %d chunk headers; the others were not read", len(comps), len(r.chunks))
	}
	return s, nil
}

// summaryAcc accumulates counts and time spans per connection.
type summaryAcc struct {
	r     *Reader
	stats map[uint32]*connStats
	comps []string
}

type connStats struct {
	count uint64
	span  chunked.Span
}

func newSummaryAcc(r *Reader) *summaryAcc {
	return &summaryAcc{r: r, stats: map[uint32]*connStats{}}
}

func (a *summaryAcc) compression(c Compression) {
	if c == "" {
		c = CompressionNone
	}
	if !slices.Contains(a.comps, string(c)) {
		a.comps = append(a.comps, string(c))
	}
}

// count adds n messages of conn.
func (a *summaryAcc) count(conn uint32, n uint64) *connStats {
	s := a.stats[conn]
	if s == nil {
		s = &connStats{}
		a.stats[conn] = s
	}
	s.count += n
	return s
}

// message adds one message of conn at t.
func (a *summaryAcc) message(conn uint32, t int64) {
	s := a.count(conn, 1)
	s.span = s.span.With(t, s.count == 1)
}

func (a *summaryAcc) summary() *record.Summary {
	var b record.SummaryBuilder
	slices.Sort(a.comps)
	if len(a.comps) == 0 {
		a.comps = append(a.comps, string(CompressionNone))
	}
	b.Compression(strings.Join(a.comps, ","))
	for _, ch := range a.r.channelList() {
		if st := a.stats[ch.ID]; st != nil {
			b.Add(ch, st.count, st.span.First, st.span.Last)
		} else {
			b.Channel(ch)
		}
	}
	return b.Summary(a.r.path, "bag")
}

// scan reads an unindexed bag once, registering its connections and
// summarising it.
func (r *Reader) scan() (*record.Summary, error) {
	r.scanOnce.Do(func() {
		it := r.newLinearIter(record.Filter{})
		it.quiet = true
		defer it.Close()
		acc := newSummaryAcc(r)
		it.onChunk = acc.compression
		var m record.Message
		for {
			err := it.NextInto(&m)
			if err != nil {
				if err != io.EOF {
					r.scanErr = err
				}
				break
			}
			acc.message(m.Channel.ID, m.LogTime)
		}
		if r.scanErr == nil {
			r.scanned = acc.summary()
			switch {
			case r.crashed():
				r.scanned.Unindexed = "never closed: index_pos is 0"
			case r.indexErr != nil:
				r.scanned.Unindexed = record.Brief(r.indexErr)
			case r.opts.NoIndex:
				r.scanned.Unindexed = "index ignored on request"
			}
		}
	})
	return r.scanned, r.scanErr
}
