package record

import (
	"slices"
	"strings"
)

// SummaryBuilder folds per-channel message counts and time spans into a
// Summary, the one way for every container and for summaries combined
// (recording.CombineSummaries). Its rules:
//   - every channel given is listed under its topic, with its messages or
//     none: a topic whose channels hold no message is listed with count 0
//     and times 0 (as rosbag info and the MCAP and db3 summaries list it);
//   - a topic's type, encoding and MD5 are those of the first channel
//     given on it;
//   - a topic's times span its channels' messages, the file's span all
//     messages, and FrequencyHz is Frequency over the topic's own span;
//   - topics come in name order, compressions in the order first given.
//
// The zero value is ready to use.
type SummaryBuilder struct {
	topics map[string]*TopicSummary
	chans  []*Channel
	comps  []string
	// messages counts the messages added, logged from start to end
	messages   uint64
	start, end int64
}

// Channel lists ch (its topic with no messages, unless Add adds some).
func (b *SummaryBuilder) Channel(ch *Channel) {
	b.chans = append(b.chans, ch)
	b.topic(TopicSummary{Topic: ch.Topic, Type: ch.Schema.Name, Encoding: ch.MessageEncoding, MD5: ch.Schema.MD5})
}

// topic returns the summary of t.Topic, made from t when it is new.
func (b *SummaryBuilder) topic(t TopicSummary) *TopicSummary {
	if b.topics == nil {
		b.topics = map[string]*TopicSummary{}
	}
	if s := b.topics[t.Topic]; s != nil {
		return s
	}
	t.MessageCount, t.StartNs, t.EndNs, t.FrequencyHz = 0, 0, 0, 0
	b.topics[t.Topic] = &t
	return &t
}

// Add lists ch, as Channel does, with n messages logged from first to
// last (n may be 0).
func (b *SummaryBuilder) Add(ch *Channel, n uint64, first, last int64) {
	b.Channel(ch)
	b.count(b.topics[ch.Topic], n, first, last)
}

// AddTopic adds t, a topic of another summary: its counts to the topic of
// the same name (made with t's type when new).
func (b *SummaryBuilder) AddTopic(t TopicSummary) {
	b.count(b.topic(t), t.MessageCount, t.StartNs, t.EndNs)
}

// AddChannels lists chs in the summary's Channels without counting them
// under a topic (the channels of a summary whose topics AddTopic adds).
func (b *SummaryBuilder) AddChannels(chs []*Channel) {
	b.chans = append(b.chans, chs...)
}

// count adds n messages from first to last to t and to the file.
func (b *SummaryBuilder) count(t *TopicSummary, n uint64, first, last int64) {
	if n == 0 {
		return
	}
	if t.MessageCount == 0 {
		t.StartNs, t.EndNs = first, last
	} else {
		t.StartNs, t.EndNs = min(t.StartNs, first), max(t.EndNs, last)
	}
	t.MessageCount += n
	if b.messages == 0 {
		b.start, b.end = first, last
	} else {
		b.start, b.end = min(b.start, first), max(b.end, last)
	}
	b.messages += n
}

// Compression adds the compressions c names ("lz4", or several joined by
// ","), each once.
func (b *SummaryBuilder) Compression(c string) {
	for _, x := range strings.Split(c, ",") {
		if x != "" && !slices.Contains(b.comps, x) {
			b.comps = append(b.comps, x)
		}
	}
}

// Summary returns the summary of the file at path in format.
func (b *SummaryBuilder) Summary(path, format string) *Summary {
	s := &Summary{Path: path, Format: format, MessageCount: b.messages, StartNs: b.start, EndNs: b.end,
		Compression: strings.Join(b.comps, ","), Channels: b.chans, Topics: []TopicSummary{}}
	s.DurationNs = s.EndNs - s.StartNs
	for _, t := range b.topics {
		t.FrequencyHz = Frequency(t.MessageCount, t.StartNs, t.EndNs)
		s.Topics = append(s.Topics, *t)
	}
	slices.SortFunc(s.Topics, func(x, y TopicSummary) int { return strings.Compare(x.Topic, y.Topic) })
	return s
}
