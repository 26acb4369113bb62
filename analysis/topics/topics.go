package topics

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/baseline"
	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/zeebo/xxh3"
)

// Kind is the registry row of the topics analysis: it reads messages as
// recorded (Raw) and has one flag of its own, --gap.
var Kind = analysis.Kind{
	Name: "topics",
	New:  func(o analysis.Options) analysis.Analyzer { return New(gapNs(o)) },
	Summary: "topic health of any recording: per topic the count, rate, period " +
		"median/p99/std, gaps (longer than --gap or 3x the median period), " +
		"header-stamp latency, stamps going backwards, duplicate payloads, " +
		"message sizes and bandwidth.",
	Keys: baseline.Keys{
		{Path: "topics.topics", Table: "topics", Noun: "topic", Key: []string{"topic"}},
		{Path: "topics.gaps", Table: "topic_gaps", Noun: "topic gap", PerObservation: true},
	},
	Raw: true,
	Flags: []analysis.Flag{analysis.DurationFlag("gap",
		"an interval between two messages of a topic longer than this is a gap, e.g. 500ms (0: 3 times the topic's median period)")},
}

// gapNs is --gap in ns (0: 3 times each topic's median period).
func gapNs(o analysis.Options) int64 {
	d, _ := o.Flags["gap"].(time.Duration)
	return int64(d)
}

// noStamp marks a message without a header stamp in topicAcc.Stamps.
const noStamp = math.MinInt64

// Topics accumulates the health of every topic: log times, header stamps,
// sizes and duplicate payloads. It reads messages as recorded
// (a Raw kind): the only field it decodes is header.stamp, read from
// the bytes of types whose first field is a std_msgs Header.
type Topics struct {
	gapNs  int64
	topics map[string]*topicAcc
}

// topicAcc is what Topics keeps of one topic: per message its log time,
// header stamp (noStamp: the type has no Header) and a 128-bit XXH3 of
// its bytes, in any order; the statistics sort them (messageOrder), so
// they do not depend on the order of the inputs.
type topicAcc struct {
	types   []string
	times   []int64
	stamps  []int64
	sums    []xxh3.Uint128
	bytes   int64
	minSize int64
	maxSize int64
	// dec and stamp cache how the last decoder seen reads header stamps.
	dec   decode.Decoder
	stamp stampReader
}

// New returns an empty topics accumulator; gapNs is the shortest
// interval called a gap (0: 3 times each topic's median period).
func New(gapNs int64) *Topics { return &Topics{gapNs: gapNs, topics: map[string]*topicAcc{}} }

// Kind implements analysis.Analyzer.
func (t *Topics) Kind() string { return "topics" }

// Wants implements analysis.Analyzer: every type.
func (t *Topics) Wants(string) bool { return true }

// Add implements analysis.Analyzer.
func (t *Topics) Add(m *analysis.Message) error {
	a := t.topics[m.Topic]
	if a == nil {
		a = &topicAcc{minSize: math.MaxInt64}
		t.topics[m.Topic] = a
	}
	if !slices.Contains(a.types, m.Type) {
		a.types = append(a.types, m.Type)
	}
	if m.Decoder != a.dec || a.dec == nil {
		a.dec, a.stamp = m.Decoder, newStampReader(m.Decoder, m.Encoding)
	}
	size := int64(len(m.Data))
	a.times = append(a.times, m.LogTime)
	a.stamps = append(a.stamps, a.stamp.read(m.Data))
	a.sums = append(a.sums, xxh3.Hash128(m.Data))
	a.bytes += size
	a.minSize, a.maxSize = min(a.minSize, size), max(a.maxSize, size)
	return nil
}

// Merge implements analysis.Analyzer.
func (t *Topics) Merge(other analysis.Analyzer) error {
	o, ok := other.(*Topics)
	if !ok {
		return analysis.MergeKindError(t.Kind(), other)
	}
	for name, b := range o.topics {
		a := t.topics[name]
		if a == nil {
			t.topics[name] = b
			continue
		}
		for _, typ := range b.types {
			if !slices.Contains(a.types, typ) {
				a.types = append(a.types, typ)
			}
		}
		a.times = append(a.times, b.times...)
		a.stamps = append(a.stamps, b.stamps...)
		a.sums = append(a.sums, b.sums...)
		a.bytes += b.bytes
		a.minSize, a.maxSize = min(a.minSize, b.minSize), max(a.maxSize, b.maxSize)
		a.dec = nil
	}
	return nil
}

// stampReader reads header.stamp from the bytes of one message type.
type stampReader uint8

const (
	stampNone stampReader = iota // the type has no Header first
	stampROS1                    // uint32 seq, uint32 sec, uint32 nsec
	stampROS2                    // CDR: 4-byte encapsulation, int32 sec, uint32 nanosec
)

// newStampReader is how messages of dec's type carry a header stamp: a
// type has one when its first field is a std_msgs/Header, the convention
// message_filters and tf rely on.
func newStampReader(dec decode.Decoder, encoding string) stampReader {
	if dec == nil {
		return stampNone
	}
	t := dec.Type()
	if t == nil || len(t.Fields) == 0 {
		return stampNone
	}
	f := t.Fields[0]
	if f.Kind != msgdef.Struct || f.Array != msgdef.Scalar || f.Msg == nil || f.Msg.Name != "std_msgs/Header" {
		return stampNone
	}
	h := f.Msg.Fields
	switch {
	case encoding == "ros1" && len(h) >= 2 && h[0].Kind == msgdef.Uint32 && h[1].Kind == msgdef.Time:
		return stampROS1
	case encoding == "cdr" && len(h) >= 1 && h[0].Kind == msgdef.Struct && h[0].Msg != nil &&
		h[0].Msg.Name == "builtin_interfaces/Time":
		return stampROS2
	}
	return stampNone
}

// read returns the header stamp in ns since the Unix epoch, or noStamp
// for a type without one or a message too short to hold it.
func (r stampReader) read(data []byte) int64 {
	switch r {
	case stampROS1:
		if len(data) >= 12 {
			return int64(binary.LittleEndian.Uint32(data[4:]))*1e9 + int64(binary.LittleEndian.Uint32(data[8:]))
		}
	case stampROS2:
		if len(data) >= 12 {
			var bo binary.ByteOrder = binary.LittleEndian
			if data[1]&1 == 0 { // CDR_BE, PL_CDR_BE
				bo = binary.BigEndian
			}
			return int64(int32(bo.Uint32(data[4:])))*1e9 + int64(bo.Uint32(data[8:]))
		}
	}
	return noStamp
}

// Stat is the health of one topic. Times are log times; periods are
// the intervals between consecutive log times in seconds; latency is log
// time − header.stamp in seconds, for types with a Header. Percentiles
// interpolate linearly between closest ranks (numpy's default method);
// std is the population standard deviation (numpy.std).
type Stat struct {
	Topic string `json:"topic"`
	// Type lists the topic's message types, comma-separated, in name
	// order.
	Type    string       `json:"type"`
	Count   int64        `json:"count"`
	FirstNs int64        `json:"first_ns"`
	LastNs  int64        `json:"last_ns"`
	Span    analysis.Num `json:"span_s"`
	// Rate is (count − 1) / span (NaN with fewer than 2 messages or a
	// span of 0).
	Rate         analysis.Num `json:"rate_hz"`
	PeriodMedian analysis.Num `json:"period_median_s"`
	PeriodP99    analysis.Num `json:"period_p99_s"`
	PeriodStd    analysis.Num `json:"period_std_s"`
	PeriodMax    analysis.Num `json:"period_max_s"`
	// GapThreshold is the period above which an interval is a gap (--gap,
	// or 3 times the median period).
	GapThreshold analysis.Num `json:"gap_threshold_s"`
	Gaps         int64        `json:"gaps"`
	GapLongest   analysis.Num `json:"gap_longest_s"`
	GapTotal     analysis.Num `json:"gap_total_s"`
	// GapShare is GapTotal / Span.
	GapShare analysis.Num `json:"gap_share"`
	// Stamped counts the messages with a header stamp.
	Stamped    int64        `json:"stamped"`
	LatencyP50 analysis.Num `json:"latency_p50_s"`
	LatencyP95 analysis.Num `json:"latency_p95_s"`
	LatencyP99 analysis.Num `json:"latency_p99_s"`
	LatencyMax analysis.Num `json:"latency_max_s"`
	// StampsBackwards counts stamps earlier than the one before them, in
	// log time order.
	StampsBackwards int64 `json:"stamps_backwards"`
	// Duplicates counts messages whose bytes equal those of the message
	// before them on the topic, in log time order (equal 128-bit XXH3).
	Duplicates int64        `json:"duplicates"`
	Bytes      int64        `json:"bytes"`
	SizeMin    int64        `json:"size_min"`
	SizeMax    int64        `json:"size_max"`
	SizeMean   analysis.Num `json:"size_mean"`
	// Bandwidth is Bytes / Span in bytes per second.
	Bandwidth analysis.Num `json:"bandwidth_bps"`
}

// Gap is one gap: the interval between two consecutive messages of a
// topic longer than its threshold.
type Gap struct {
	Topic   string       `json:"topic"`
	StartNs int64        `json:"start_ns"`
	EndNs   int64        `json:"end_ns"`
	Length  analysis.Num `json:"length_s"`
}

// Result is the result of the topics analysis.
type Result struct {
	KindName string `json:"kind"`
	// GapNs is --gap in ns (0: 3 times each topic's median period).
	GapNs  int64  `json:"gap_ns"`
	Topics []Stat `json:"topics"`
	Gaps   []Gap  `json:"gaps"`
}

// Kind implements analysis.Result.
func (r *Result) Kind() string { return "topics" }

// Result implements analysis.Analyzer.
func (t *Topics) Result() (analysis.Result, error) {
	res := &Result{KindName: "topics", GapNs: t.gapNs, Topics: []Stat{}, Gaps: []Gap{}}
	for _, name := range analysis.SortedKeys(t.topics) {
		s, gaps := t.topics[name].stat(name, t.gapNs)
		res.Topics = append(res.Topics, s)
		res.Gaps = append(res.Gaps, gaps...)
	}
	return res, nil
}

// stat computes the statistics of topic a.
func (a *topicAcc) stat(name string, gapNs int64) (Stat, []Gap) {
	nan := analysis.Num(math.NaN())
	n := len(a.times)
	s := Stat{Topic: name, Count: int64(n), Bytes: a.bytes, SizeMin: a.minSize, SizeMax: a.maxSize,
		Rate: nan, PeriodMedian: nan, PeriodP99: nan, PeriodStd: nan, PeriodMax: nan, GapThreshold: nan, GapLongest: 0, GapTotal: 0, GapShare: nan,
		LatencyP50: nan, LatencyP95: nan, LatencyP99: nan, LatencyMax: nan, SizeMean: nan, Bandwidth: nan}
	types := slices.Sorted(slices.Values(a.types))
	s.Type = strings.Join(types, ",")
	if n == 0 {
		return s, nil
	}
	idx := a.order()
	times := make([]int64, n)
	var lat []float64
	prevStamp := int64(noStamp)
	for k, i := range idx {
		times[k] = a.times[i]
		if k > 0 && a.sums[i] == a.sums[idx[k-1]] {
			s.Duplicates++
		}
		if st := a.stamps[i]; st != noStamp {
			lat = append(lat, float64(a.times[i]-st)/1e9)
			if prevStamp != noStamp && st < prevStamp {
				s.StampsBackwards++
			}
			prevStamp = st
		}
	}
	s.FirstNs, s.LastNs = times[0], times[n-1]
	span := float64(times[n-1]-times[0]) / 1e9
	s.Span = analysis.Num(span)
	s.SizeMean = analysis.Num(float64(a.bytes) / float64(n))
	if span > 0 {
		s.Rate = analysis.Num(float64(n-1) / span)
		s.Bandwidth = analysis.Num(float64(a.bytes) / span)
	}
	var gaps []Gap
	if n > 1 {
		periods := make([]float64, n-1)
		for i := range periods {
			periods[i] = float64(times[i+1]-times[i]) / 1e9
		}
		sorted := analysis.SortedCopy(periods)
		median := analysis.Percentile(sorted, 50)
		s.PeriodMedian, s.PeriodP99 = analysis.Num(median), analysis.Num(analysis.Percentile(sorted, 99))
		s.PeriodStd = analysis.Num(numpyStd(periods))
		s.PeriodMax = analysis.Num(sorted[len(sorted)-1])
		threshold := 3 * median
		if gapNs > 0 {
			threshold = float64(gapNs) / 1e9
		}
		s.GapThreshold = analysis.Num(threshold)
		var lengths []float64
		for i, p := range periods {
			if p > threshold {
				lengths = append(lengths, p)
				gaps = append(gaps, Gap{Topic: name, StartNs: times[i], EndNs: times[i+1], Length: analysis.Num(p)})
			}
		}
		s.Gaps = int64(len(lengths))
		if len(lengths) > 0 {
			s.GapLongest = analysis.Num(slices.Max(lengths))
			s.GapTotal = analysis.Num(pairwiseSum(lengths))
		}
		if span > 0 {
			s.GapShare = analysis.Num(float64(s.GapTotal) / span)
		}
	}
	s.Stamped = int64(len(lat))
	if len(lat) > 0 {
		slices.Sort(lat)
		s.LatencyP50, s.LatencyP95, s.LatencyP99 = analysis.Num(analysis.Percentile(lat, 50)), analysis.Num(analysis.Percentile(lat, 95)), analysis.Num(analysis.Percentile(lat, 99))
		s.LatencyMax = analysis.Num(lat[len(lat)-1])
	}
	return s, gaps
}

// order returns the indices of the messages in log time order, equal log
// times by stamp, then by digest: an order of their content alone.
func (a *topicAcc) order() []int {
	idx := make([]int, len(a.times))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		return cmp.Or(cmp.Compare(a.times[i], a.times[j]), cmp.Compare(a.stamps[i], a.stamps[j]),
			cmp.Compare(a.sums[i].Hi, a.sums[j].Hi), cmp.Compare(a.sums[i].Lo, a.sums[j].Lo))
	})
	return idx
}

// pairwiseSum is numpy's pairwise summation of float64 values (the sum of
// numpy.sum and numpy.mean): blocks of up to 128 values summed in 8
// interleaved lanes, larger arrays split in halves at a multiple of 8.
func pairwiseSum(x []float64) float64 {
	n := len(x)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], x[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += x[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += x[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(x[:n2]) + pairwiseSum(x[n2:])
}

// numpyStd is numpy.std(x): the population standard deviation, the mean
// and the sum of squared deviations summed pairwise.
func numpyStd(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	n := float64(len(x))
	mean := pairwiseSum(x) / n
	d := make([]float64, len(x))
	for i, v := range x {
		d[i] = (v - mean) * (v - mean)
	}
	return math.Sqrt(pairwiseSum(d) / n)
}

// Tables implements analysis.Result.
func (r *Result) Tables() []*analysis.Table {
	t := analysis.NewTable("topics", false, "topic", "type", "count:i", "first_ns:i", "last_ns:i", "span_s:f", "rate_hz:f",
		"period_median_s:f", "period_p99_s:f", "period_std_s:f", "period_max_s:f", "gap_threshold_s:f", "gaps:i", "gap_longest_s:f",
		"gap_total_s:f", "gap_share:f", "stamped:i", "latency_p50_s:f", "latency_p95_s:f", "latency_p99_s:f",
		"latency_max_s:f", "stamps_backwards:i", "duplicates:i", "bytes:i", "size_min:i", "size_max:i", "size_mean:f",
		"bandwidth_bps:f").
		ShowByDefault("topic", "count", "rate_hz", "period_median_s", "gaps", "gap_longest_s", "gap_share", "latency_p50_s",
			"latency_max_s", "stamps_backwards", "duplicates", "bandwidth_bps").
		Describe("Health of each topic: count, rate = (count − 1)/span, the period between consecutive log times "+
			"(median, 99th percentile, population std), gaps (periods above the threshold: --gap or 3× the median "+
			"period), latency = log time − header.stamp for types with a Header (percentiles interpolated as numpy's "+
			"default), stamps earlier than the one before, payloads equal to the one before, sizes and bandwidth.",
			"rate_hz:Hz", "bytes:B", "size_min:B", "size_max:B", "size_mean:B", "bandwidth_bps:B/s")
	for _, s := range r.Topics {
		t.Add(s.Topic, s.Type, s.Count, s.FirstNs, s.LastNs, s.Span, s.Rate, s.PeriodMedian, s.PeriodP99, s.PeriodStd,
			s.PeriodMax, s.GapThreshold, s.Gaps, s.GapLongest, s.GapTotal, s.GapShare, s.Stamped, s.LatencyP50, s.LatencyP95,
			s.LatencyP99, s.LatencyMax, s.StampsBackwards, s.Duplicates, s.Bytes, s.SizeMin, s.SizeMax, s.SizeMean,
			s.Bandwidth)
	}
	g := analysis.NewTable("topic_gaps", true, "topic", "start_ns:i", "end_ns:i", "length_s:f").
		Describe("Every gap: two consecutive messages of a topic further apart than its gap threshold.")
	for _, x := range r.Gaps {
		g.Add(x.Topic, x.StartNs, x.EndNs, x.Length)
	}
	return []*analysis.Table{t, g}
}

// Summary implements analysis.Result.
func (r *Result) Summary() string {
	var msgs, gaps int64
	worst := -1
	for i, s := range r.Topics {
		msgs += s.Count
		gaps += s.Gaps
		if s.Gaps > 0 && (worst < 0 || cmp.Compare(float64(s.GapLongest), float64(r.Topics[worst].GapLongest)) > 0) {
			worst = i
		}
	}
	out := fmt.Sprintf("%d topics, %d messages; %d gaps", len(r.Topics), msgs, gaps)
	if worst >= 0 {
		w := r.Topics[worst]
		out += fmt.Sprintf(" (longest %s s on %s)", analysis.FormatCell(analysis.RoundSig(float64(w.GapLongest))), w.Topic)
	}
	return out
}

// HasData implements analysis.Result: a message.
func (r *Result) HasData() bool { return len(r.Topics) > 0 }

// Warnings implements analysis.Result: topics whose stamps go backwards.
func (r *Result) Warnings() []string {
	var out []string
	for _, s := range r.Topics {
		if s.StampsBackwards > 0 {
			out = append(out, fmt.Sprintf("%s: %d header stamps earlier than the one before", s.Topic, s.StampsBackwards))
		}
	}
	return out
}
