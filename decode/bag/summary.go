package bag

import (
	"cmp"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/baglab/baglab/decode/record"
)

// Summary describes the bag. With an index it is computed from the chunk
// infos and chunk headers alone, without decompressing anything: message
// counts per connection, start and end times, compressions. Without an
// index the whole file is scanned once (the result is cached); a damaged
// tail makes it fail unless WithSkipBad was given.
//
// TopicSummary.FrequencyHz is (count-1) over the topic's time span. With an
// index the span runs from the start of the first to the end of the last
// chunk holding the topic, so it is exact for a topic present in its first
// and last chunks from their first to their last message and an estimate
// otherwise; a scan measures it exactly.
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
	for _, c := range r.chunks {
		acc.compression(c.compression)
		for _, cc := range c.info.Counts {
			if cc.Count == 0 {
				continue
			}
			acc.add(cc.Conn, uint64(cc.Count), c.info.StartTime, c.info.EndTime)
		}
	}
	return acc.summary(), nil
}

// summaryAcc accumulates counts and time ranges per connection.
type summaryAcc struct {
	r      *Reader
	counts map[uint32]*connStats
	comps  []string
}

type connStats struct {
	count      uint64
	start, end int64
}

func newSummaryAcc(r *Reader) *summaryAcc {
	return &summaryAcc{r: r, counts: map[uint32]*connStats{}}
}

func (a *summaryAcc) compression(c Compression) {
	if c == "" {
		c = CompressionNone
	}
	if !slices.Contains(a.comps, string(c)) {
		a.comps = append(a.comps, string(c))
	}
}

func (a *summaryAcc) add(conn uint32, n uint64, start, end int64) {
	s := a.counts[conn]
	if s == nil {
		s = &connStats{start: math.MaxInt64, end: math.MinInt64}
		a.counts[conn] = s
	}
	s.count += n
	s.start = min(s.start, start)
	s.end = max(s.end, end)
}

func (a *summaryAcc) summary() *record.Summary {
	s := &record.Summary{Path: a.r.path, Format: "bag", Channels: a.r.channelList()}
	slices.Sort(a.comps)
	s.Compression = strings.Join(a.comps, ",")
	if s.Compression == "" {
		s.Compression = string(CompressionNone)
	}
	type topicAcc struct {
		record.TopicSummary
		start, end int64
	}
	topics := map[string]*topicAcc{}
	first := true
	for _, ch := range s.Channels {
		st := a.counts[ch.ID]
		if st == nil || st.count == 0 {
			continue
		}
		s.MessageCount += st.count
		if first || st.start < s.StartNs {
			s.StartNs = st.start
		}
		if first || st.end > s.EndNs {
			s.EndNs = st.end
		}
		first = false
		t := topics[ch.Topic]
		if t == nil {
			t = &topicAcc{TopicSummary: record.TopicSummary{Topic: ch.Topic, Type: ch.Schema.Name,
				Encoding: ch.MessageEncoding, MD5: ch.Schema.MD5}, start: st.start, end: st.end}
			topics[ch.Topic] = t
		}
		t.MessageCount += st.count
		t.start, t.end = min(t.start, st.start), max(t.end, st.end)
	}
	s.DurationNs = s.EndNs - s.StartNs
	for _, t := range topics {
		if span := t.end - t.start; t.MessageCount > 1 && span > 0 {
			t.FrequencyHz = float64(t.MessageCount-1) / (float64(span) / 1e9)
		}
		s.Topics = append(s.Topics, t.TopicSummary)
	}
	slices.SortFunc(s.Topics, func(x, y record.TopicSummary) int { return cmp.Compare(x.Topic, y.Topic) })
	return s
}

// scan reads an unindexed bag once, registering its connections and
// summarising it.
func (r *Reader) scan() (*record.Summary, error) {
	r.scanOnce.Do(func() {
		it := r.newLinearIter(record.Filter{})
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
			acc.add(m.Channel.ID, 1, m.LogTime, m.LogTime)
		}
		if r.scanErr == nil {
			r.scanned = acc.summary()
		}
	})
	return r.scanned, r.scanErr
}
