package play

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// output is one advertised topic and the recorded topics that feed it.
type output struct {
	topic    Topic
	pub      Publisher
	recorded []string
	sent     uint64
	// idle marks an output with nothing to play in the selected part of
	// the recording: Run advertises it only if a message comes after all.
	idle bool
}

// plan maps the recorded channels of a reader to output topics.
type plan struct {
	res     *decode.Resolver
	skip    func(error) error  // Options.Skip
	outs    []*output          // sorted by output name
	byTopic map[string]*output // recorded topic → output

	mu      sync.Mutex
	chans   map[*record.Channel]played // the channels played
	sources map[string]*source         // by source.key
	skipped map[*record.Channel]bool   // channels Skip let go
}

// source is one recorded publisher of a topic: rosbag play advertises one
// roscpp publisher per recorded callerid and topic, latched when the first
// connection it met of that pair was, and a subscriber that connects later
// receives the last message of each latched one (both static transform
// publishers' /tf_static, say), not only the topic's last message.
type source struct {
	key   string // callerid, NUL, recorded topic
	topic string // recorded
	latch bool
}

// sourceOf returns the source of a channel, creating it when ch is the
// first of its callerid and topic. p.mu is held or p is being built.
func (p *plan) sourceOf(ch *record.Channel) *source {
	key := ch.Metadata["callerid"] + "\x00" + ch.Topic
	s := p.sources[key]
	if s == nil {
		s = &source{key: key, topic: ch.Topic, latch: recording.Latched(ch)}
		p.sources[key] = s
	}
	return s
}

// played is how the messages of a channel are played: converted into ROS1
// wire bytes by conv (nil: passed through; only the read-ahead's one
// goroutine calls it), published as src.
type played struct {
	conv decode.Conversion
	src  *source
}

// OutputName is the topic a recorded topic is published on by a player
// in the root namespace: remapped (FROM:=TO, matched against the recorded
// name), then prefixed. A remap whose FROM is the prefixed name instead
// replaces it, prefix and all, as rosbag play applies remaps to the names
// it advertises (-p /r with /r/a:=/x gives /x), so its command lines keep
// their meaning.
func OutputName(recorded, prefix string, remap map[string]string) string {
	name, _ := outputName(recorded, prefix, remap)
	return name
}

// outputName is OutputName, and whether rosbag play would advertise the
// name relative, to be resolved in its node's namespace: a relative
// recorded name (rosbag record stores a topic named relative as typed)
// not remapped and without a prefix, or any name under a relative prefix.
func outputName(recorded, prefix string, remap map[string]string) (string, bool) {
	name := path.Clean("/" + recorded)
	to, remapped := remap[name]
	if remapped {
		name = to
	}
	relative := !remapped && !strings.HasPrefix(recorded, "/")
	if prefix != "" {
		name = prefix + "/" + name
		relative = !strings.HasPrefix(prefix, "/")
	}
	name = path.Clean("/" + name)
	if to, ok := remap[name]; ok && !remapped && prefix != "" {
		return to, false
	}
	return name, relative
}

func newPlan(chans []*record.Channel, res *decode.Resolver, o *Options) (*plan, error) {
	p := &plan{res: res, skip: o.Skip, byTopic: map[string]*output{}, chans: map[*record.Channel]played{},
		sources: map[string]*source{}, skipped: map[*record.Channel]bool{}}
	byName := map[string]*output{}
	skipped := map[string]bool{}  // topics whose skipping was said
	leftSaid := map[string]bool{} // topics whose left-out fields were said
	for _, ch := range chans {
		if !o.selects(ch.Topic) {
			continue
		}
		if ch.MessageEncoding == "json" {
			if !skipped[ch.Topic] && o.Warn != nil {
				o.Warn(fmt.Sprintf("topic %s: JSON messages have no ROS1 form; not played", ch.Topic))
			}
			skipped[ch.Topic] = true
			continue
		}
		name, relative := outputName(ch.Topic, o.Prefix, o.Remap)
		if relative {
			name = path.Join("/", o.Namespace, name)
		}
		if o.Clock && name == clockTopic {
			// --clock publishes /clock itself; the recording's (a bag
			// recorded with -a in a simulation has one) would interleave
			// another time with it.
			if !skipped[ch.Topic] && o.Warn != nil {
				o.Warn(fmt.Sprintf("topic %s: not played, --clock publishes %s from the recording's times", ch.Topic, clockTopic))
			}
			skipped[ch.Topic] = true
			continue
		}
		t, conv, left, err := ros1Topic(res, ch)
		if left != nil && !leftSaid[ch.Topic] && o.Warn != nil {
			o.Warn(fmt.Sprintf("topic %s: %s is played as ROS1's %s, which has no place for its fields %s: they are left out",
				ch.Topic, left.Type, left.As, strings.Join(left.Fields, ", ")))
			leftSaid[ch.Topic] = true
		}
		if err != nil {
			if o.Skip == nil {
				return nil, err
			}
			if err := o.Skip(err); err != nil {
				return nil, err
			}
			p.skipped[ch] = true
			continue
		}
		t.Name = name
		p.chans[ch] = played{conv, p.sourceOf(ch)}
		out := byName[t.Name]
		if out == nil {
			out = &output{topic: t}
			byName[t.Name] = out
			p.outs = append(p.outs, out)
		} else if out.topic.MD5 != t.MD5 && out.topic.MD5 != "*" {
			return nil, fmt.Errorf("%w: %s would carry two types: %s (md5 %s, from %s) and %s (md5 %s, from %s); play one with --topics/--exclude or rename one with --remap",
				record.ErrUnsupported, t.Name, out.topic.Type, out.topic.MD5, strings.Join(out.recorded, ", "), t.Type, t.MD5, ch.Topic)
		} else {
			out.topic.Latching = out.topic.Latching || t.Latching
		}
		if p.byTopic[ch.Topic] == nil {
			p.byTopic[ch.Topic] = out
			out.recorded = append(out.recorded, ch.Topic)
		}
	}
	sort.Slice(p.outs, func(i, j int) bool { return p.outs[i].topic.Name < p.outs[j].topic.Name })
	return p, nil
}

// selects reports whether o plays the recorded topic.
func (o *Options) selects(topic string) bool {
	if o.Topics != nil && !o.Topics(topic) {
		return false
	}
	if o.Exclude != nil {
		if loc := o.Exclude.FindStringIndex(topic); loc != nil && loc[0] == 0 && loc[1] == len(topic) {
			return false
		}
	}
	return true
}

// ros1Topic returns the ROS1 connection fields a channel is played with,
// the converter of its messages and what it leaves out of them: ROS1
// channels keep their recorded type, MD5 sum and definition; CDR channels
// get the ROS1 definition of their type, or an equivalent one
// (decode.Resolver.ToROS1: a ROS1 subscriber checks the md5sum).
func ros1Topic(res *decode.Resolver, ch *record.Channel) (Topic, decode.Conversion, *decode.Left, error) {
	conv, c, left, err := res.ToROS1(ch, false)
	if err != nil {
		return Topic{}, nil, nil, record.WithFile(err, "", -1, ch.Topic)
	}
	if c, err = res.WithDefinition(c); err != nil {
		return Topic{}, nil, nil, record.WithFile(err, "", -1, ch.Topic)
	}
	t := Topic{Type: c.Schema.Name, MD5: c.Schema.MD5, Definition: string(c.Schema.Data), Latching: recording.Latched(ch)}
	if t.MD5 == "" {
		dec, err := res.For(c)
		if err != nil {
			return Topic{}, nil, nil, record.WithFile(err, "", -1, ch.Topic)
		}
		t.MD5 = msgdef.MD5(dec.Type())
	}
	return t, conv, left, nil
}

// converter returns the converter and source of a channel met while
// reading (the reader of an unindexed bag may hand out channels it found
// while scanning), or false when its topic is not played.
func (p *plan) converter(ch *record.Channel) (decode.Conversion, *source, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.chans[ch]; ok {
		return c.conv, c.src, true, nil
	}
	out := p.byTopic[ch.Topic]
	if out == nil || p.skipped[ch] {
		return nil, nil, false, nil
	}
	t, conv, _, err := ros1Topic(p.res, ch) // what it leaves out was said for the topic
	if err != nil {
		if p.skip == nil {
			return nil, nil, false, err
		}
		if err := p.skip(err); err != nil {
			return nil, nil, false, err
		}
		p.skipped[ch] = true
		return nil, nil, false, nil
	}
	if t.MD5 != out.topic.MD5 {
		return nil, nil, false, fmt.Errorf("%w: topic %s: a connection of type %s (md5 %s) appears after %s (md5 %s) was advertised",
			record.ErrUnsupported, ch.Topic, t.Type, t.MD5, out.topic.Type, out.topic.MD5)
	}
	c := played{conv, p.sourceOf(ch)}
	p.chans[ch] = c
	return c.conv, c.src, true, nil
}

// latches reports whether a recorded topic has a latched source.
func (p *plan) latches(topic string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.sources {
		if s.topic == topic && s.latch {
			return true
		}
	}
	return false
}

// selected reports whether messages of a recorded topic are played.
func (p *plan) selected(topic string) bool { return p.byTopic[topic] != nil }
