package recording

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/zfile"
	"github.com/baglab/baglab/recording/mcapfile"
	"github.com/baglab/baglab/recording/remote"
)

// CheckOptions configure Check.
type CheckOptions struct {
	// Registry resolves definitions a file does not carry (nil: the
	// embedded native packages).
	Registry *msgdef.Registry
	// NoDecode skips decoding every message.
	NoDecode bool
	// Progress, if not nil, is called before the decode pass with the
	// number of messages, and returns the function told of each message
	// decoded.
	Progress func(total int64) func(n int)
	// Distro is the ROS 2 distribution whose built-in definitions serve
	// the types the recording stores none of (InputOptions.Distro; ""
	// takes the one the recording names, as every verb does).
	Distro string
	// Remote reads URLs (see OpenOptions.Remote).
	Remote *remote.Session
}

// Check examines the recording at path and lists its problems:
//   - the container's own structural check (bag.Check, mcapfile.Check,
//     db3.Check), which a rosbag2 MCAP folder runs on each of its files;
//   - once, for every channel: its definition resolves, as every verb
//     resolves it (OpenInputs and a Plan), and for ROS1 its
//     MD5 agrees with the stored md5sum (an encoding baglab does not
//     decode, protobuf say, is a warning: its messages are not checked);
//   - unless o.NoDecode, every message decodes with its definition (at
//     most three problems a channel, then a count), and a message with
//     strings that are not valid UTF-8 is a warning naming the first.
//
// Repeated findings are merged into one with a count. The error is for a
// file that cannot be examined at all (not a recording, unreadable), or
// ctx ending.
func Check(ctx context.Context, path string, o CheckOptions) ([]record.Problem, error) {
	if remote.IsURL(path) {
		return checkURL(ctx, path, o)
	}
	probs, err := checkStructure(path)
	if err != nil {
		return nil, err
	}
	damaged := false
	for _, p := range probs {
		damaged = damaged || p.Severity == record.SeverityError
	}
	more, err := checkMessages(ctx, path, o, damaged)
	if err != nil {
		return nil, err
	}
	return collapse(append(probs, more...)), nil
}

// checkStructure runs the container's check.
func checkStructure(path string) ([]record.Problem, error) {
	format, err := Sniff(path)
	if err != nil {
		return nil, err
	}
	c, _ := formatRow(format)
	if c.check == nil {
		return nil, fmt.Errorf("%s: unsupported format %q", path, format)
	}
	return c.check(path)
}

// checkMCAPSplit runs mcapfile's check on a split of a rosbag2 MCAP
// folder, decompressed first when the folder's files are compressed (a
// damaged zstd stream is then its problem).
func checkMCAPSplit(path string, compressed bool) ([]record.Problem, error) {
	if f, err := Sniff(path); !compressed || err == nil && f == FormatMCAP {
		return mcapfile.Check(path)
	}
	z, err := zfile.Decompress(path)
	var re *record.Error
	if errors.As(err, &re) {
		return []record.Problem{errorProblem(err)}, nil
	}
	if err != nil {
		return nil, err
	}
	defer z.Close()
	return mcapfile.CheckReaderAt(z, z.Size(), path), nil
}

// checkMessages reads the recording at path as every verb reads its
// inputs (OpenInputs, with the ROS 2 distribution it names, and a Plan of
// its channels' decoders): it resolves every channel's definition,
// compares ROS1 MD5s and decodes every message. When the structural
// check already found damage, read errors are not reported again.
func checkMessages(ctx context.Context, path string, o CheckOptions, damaged bool) ([]record.Problem, error) {
	readError := func(err error) []record.Problem {
		if damaged {
			return nil
		}
		return []record.Problem{errorProblem(err)}
	}
	in, err := OpenInputs([]string{path}, InputOptions{Registry: o.Registry, Distro: o.Distro})
	if err != nil {
		return readError(err), nil
	}
	defer in.Close()
	f := in.File(0)
	chans, err := f.Channels()
	if err != nil {
		return readError(err), nil
	}
	plan := in.newPlan(nil)
	var probs []record.Problem
	add := func(off int64, format string, args ...any) {
		probs = append(probs, record.Problem{Offset: off, Severity: record.SeverityError, Message: fmt.Sprintf(format, args...)})
	}
	type schemaCheck struct{ name, md5, def string }
	checked := map[schemaCheck]bool{}
	for _, ch := range chans {
		dec, _, err := plan.Channel(ch, path)
		if err != nil {
			off := record.OffsetOf(err) // the record storing the definition, if known
			var re *record.Error        // naming the file and topic again
			if errors.As(err, &re) && re.Err != nil {
				err = re.Err
			}
			if errors.Is(err, record.ErrUnsupported) { // not damage: baglab cannot decode it
				probs = append(probs, record.Problem{Offset: -1, Severity: record.SeverityWarning,
					Message: fmt.Sprintf("topic %s: its messages are not checked: %v", ch.Topic, err)})
				continue
			}
			add(off, "topic %s: definition of %s: %v", ch.Topic, TypeName(ch), err)
			continue
		}
		s := ch.Schema
		if dec == nil || ch.MessageEncoding != "ros1" || s == nil || s.MD5 == "" || s.MD5 == "*" {
			continue
		}
		if sum := msgdef.MD5(dec.Type()); sum != s.MD5 {
			k := schemaCheck{s.Name, s.MD5, string(s.Data)}
			if !checked[k] {
				checked[k] = true
				add(-1, "topic %s: stored md5sum %s of %s disagrees with its definition's MD5 %s", ch.Topic, s.MD5, TypeName(ch), sum)
			}
		}
	}
	if o.NoDecode {
		return probs, nil
	}
	progress := func(int) {}
	if o.Progress != nil {
		progress = o.Progress(int64(f.Summary().MessageCount))
	}
	it, err := f.Messages(ctx)
	if err != nil {
		return append(probs, readError(err)...), nil
	}
	defer it.Close()
	failures := map[*record.Channel]int{}
	invalid := map[*record.Channel]int{} // messages with strings that are not UTF-8
	for {
		m, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			probs = append(probs, readError(err)...)
			break
		}
		progress(1)
		ch := m.Channel
		dec, ok, _ := plan.Decoder(m) // a channel's error is said above
		if !ok || dec == nil {        // left out, or JSON
			continue
		}
		before := dec.InvalidUTF8()
		if _, err := dec.DecodeValue(m.Data); err != nil {
			failures[ch]++
			if failures[ch] <= 3 {
				add(m.Offset, "%s", record.Brief(MessageError(m, err)))
			}
		} else if dec.InvalidUTF8() > before {
			if invalid[ch]++; invalid[ch] <= 3 {
				probs = append(probs, record.Problem{Offset: m.Offset, Severity: record.SeverityWarning,
					Message: record.Brief(MessageError(m, dec.CheckUTF8(m.Data))) + " (read as U+FFFD, as rosbag does)"})
			}
		}
	}
	for _, ch := range chans {
		if n := failures[ch]; n > 3 {
			add(-1, "topic %s: %d messages failed to decode in all", ch.Topic, n)
		}
		if n := invalid[ch]; n > 3 {
			probs = append(probs, record.Problem{Offset: -1, Severity: record.SeverityWarning,
				Message: fmt.Sprintf("topic %s: %d messages have strings that are not valid UTF-8 in all", ch.Topic, n)})
		}
	}
	return probs, nil
}

// errorProblem is a read error as a problem.
func errorProblem(err error) record.Problem {
	return record.Problem{Offset: record.OffsetOf(err), Severity: record.SeverityError, Message: record.Brief(err)}
}

// collapse merges repeated findings (damage early in a file often makes
// every later record complain alike) into one with a count.
func collapse(probs []record.Problem) []record.Problem {
	type key struct {
		sev record.Severity
		msg string
	}
	index := map[key]int{}
	counts := map[int]int{}
	var out []record.Problem
	for _, p := range probs {
		k := key{p.Severity, p.Message}
		if i, ok := index[k]; ok {
			counts[i]++
			continue
		}
		index[k] = len(out)
		out = append(out, p)
	}
	for i, n := range counts {
		out[i].Message += fmt.Sprintf(" (and %d more like it)", n)
	}
	return out
}
