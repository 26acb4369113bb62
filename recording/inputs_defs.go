package recording

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
)

// noteMissingDefinitions says once per type, through OnWarning, that a
// definition the recording lacks (storesNoDefinition: rosbag2's schema
// encoding "unknown", an empty ROS1 message_definition) is the registry's
// (or --msg-path's). Types the registry does not know either are left to
// RequireDefinitions and SkipBad.
func (in *Inputs) noteMissingDefinitions() {
	var unknown topicsByType
	why, from := map[string]string{}, map[string]string{}
	for i := range in.files {
		chans, err := in.File(i).Channels()
		if err != nil {
			continue
		}
		for _, ch := range chans {
			if ch.Schema == nil || !decode.StoresNoDefinition(ch.Schema) {
				continue
			}
			dec, err := in.res.For(ch)
			if err != nil {
				continue
			}
			unknown.add(ch.Schema.Name, ch.Topic)
			why[ch.Schema.Name] = "its message_definition is empty"
			if ch.Schema.Encoding == "" {
				why[ch.Schema.Name] = "it has no message definitions"
			}
			if ch.Schema.Encoding == msgdef.EncodingUnknown {
				why[ch.Schema.Name] = fmt.Sprintf("rosbag2 wrote schema encoding %q", msgdef.EncodingUnknown)
			}
			from[ch.Schema.Name] = "the registry's definition"
			if d := dec.Type().Distro; d != "" {
				from[ch.Schema.Name] = "the built-in definition of ROS 2 " + d
			}
		}
	}
	for _, name := range unknown.types {
		in.warn("%s: the recording stores no definition of %s (%s); decoded with %s",
			strings.Join(unknown.topics[name], ", "), name, why[name], from[name])
	}
}

// RequireDefinitions fails with one error naming every selected type that
// has no definition — neither stored in the recording (some rosbag2
// databases store none) nor in the registry — so that the user learns them
// all at once, or with the first stored definition that does not parse,
// naming its file and topic. With SkipBad it returns nil: those topics are
// left out, each reported once when the inputs were opened
// (leaveOutUndecodable).
func (in *Inputs) RequireDefinitions() error {
	if in.o.SkipBad {
		return nil
	}
	var missing, unsupported topicsByType
	err := in.undecodable(func(i int, ch *record.Channel, err error) error {
		switch {
		case !decode.Decodes(ch.MessageEncoding):
			unsupported.add(fmt.Sprintf("%q", ch.MessageEncoding), ch.Topic)
		case errors.Is(err, record.ErrUnknownType), errors.Is(err, record.ErrUnsupported):
			name := TypeName(ch)
			if name == "" {
				name = "(a channel without a schema)"
			}
			missing.add(name, ch.Topic)
		default:
			return definitionError(err, in.paths[i], ch) // a stored definition that is damaged
		}
		return nil
	})
	if err != nil {
		return err
	}
	types := missing.types
	if len(types) == 0 && len(unsupported.types) > 0 {
		var parts []string
		for _, enc := range unsupported.types {
			parts = append(parts, fmt.Sprintf("%s (%s)", enc, strings.Join(unsupported.topics[enc], ", ")))
		}
		return &record.Error{File: strings.Join(in.paths, ", "), Offset: -1, Err: record.ErrUnsupported,
			Detail: fmt.Sprintf("baglab decodes ROS1 and CDR messages, not the message encoding %s: leave those topics out with --topics, or read past them with --skip-bad",
				strings.Join(parts, ", "))}
	}
	if len(types) == 0 {
		return nil
	}
	sort.Strings(types)
	var parts []string
	for _, name := range types {
		parts = append(parts, fmt.Sprintf("%s (%s)", name, strings.Join(missing.topics[name], ", ")))
	}
	var distros []string
	for _, name := range types {
		if why := in.res.Registry().DistroNote(name); why != "" {
			distros = append(distros, name+" ("+why+")")
		}
	}
	hint := "add their packages with --msg-path DIR"
	if len(distros) > 0 {
		hint = fmt.Sprintf("give --distro %s for %s; else %s", strings.Join(msgdef.Distros(), "|"), strings.Join(distros, ", "), hint)
	}
	return &record.Error{File: strings.Join(in.paths, ", "), Offset: -1, Err: record.ErrUnknownType,
		Detail: fmt.Sprintf("no definition for %d type(s): %s; the recording stores none for them and baglab's registry lacks them: %s",
			len(types), strings.Join(parts, "; "), hint)}
}

// leaveOutUndecodable reports through Skip, once per topic and type, the
// selected channels whose decoder cannot be made, which SkipBad leaves
// out: every verb names them alike, whether or not it reads them.
func (in *Inputs) leaveOutUndecodable() {
	_ = in.undecodable(func(i int, ch *record.Channel, err error) error {
		return in.Skip(undecodableChannel(err, in.paths[i], ch))
	})
}

// undecodable calls f, in input and channel order, with each selected
// channel whose decoder cannot be made (JSON needs none): the index of
// its input and the resolver's error. It stops at the first error f
// returns; an input whose channels could not be read is passed over, and
// the first such error returned at the end.
func (in *Inputs) undecodable(f func(i int, ch *record.Channel, err error) error) error {
	var first error
	for i := range in.files {
		chans, err := in.File(i).Channels()
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		for _, ch := range chans {
			if (in.filter.Topic != nil && !in.filter.Topic(ch.Topic)) || ch.MessageEncoding == "json" {
				continue
			}
			if _, err := in.res.For(ch); err != nil {
				if err := f(i, ch, err); err != nil {
					return err
				}
			}
		}
	}
	return first
}

// undecodableChannel is the error of a channel whose decoder cannot be
// made (err, the resolver's), placed in file: a channelError, which Skip
// reports once per topic and type.
func undecodableChannel(err error, file string, ch *record.Channel) error {
	return channelError{definitionError(err, file, ch), ch.Topic + "\x00" + TypeName(ch)}
}

// definitionError places err, the decode.Resolver's error for ch, in file: at
// the offset of the record that stores ch's definition (bag connection,
// MCAP schema) when the container gave one, and says so.
func definitionError(err error, file string, ch *record.Channel) error {
	err = record.WithFile(err, file, -1, ch.Topic)
	var e *record.Error
	if ch.Schema == nil || ch.Schema.Offset <= 0 || !errors.As(err, &e) || e.Offset >= 0 {
		return err
	}
	c := *e
	c.Offset = ch.Schema.Offset
	c.Detail = strings.TrimPrefix(c.Detail+"; ", "; ") + "the offset is that of the record storing the definition"
	return &c
}

// topicsByType gathers the topics of some types: the types in the order
// first added, each with its topics, once each, in the order added.
type topicsByType struct {
	types  []string
	topics map[string][]string
}

func (g *topicsByType) add(typ, topic string) {
	if g.topics == nil {
		g.topics = map[string][]string{}
	}
	list, ok := g.topics[typ]
	if !ok {
		g.types = append(g.types, typ)
	}
	if !slices.Contains(list, topic) {
		g.topics[typ] = append(list, topic)
	}
}

// TypeName is the type a channel carries, as stored ("" without a schema).
func TypeName(ch *record.Channel) string {
	if ch.Schema == nil {
		return ""
	}
	return ch.Schema.Name
}
