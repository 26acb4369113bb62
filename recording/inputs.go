package recording

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/remote"
)

// ErrSelection is the cause of a selection that cannot be used: a topic
// pattern or time that does not parse, patterns that match no topic at
// all, an end before the start.
var ErrSelection = errors.New("selection")

// Selection chooses messages by topic and log time, as the user wrote them.
type Selection struct {
	// Topics are topic patterns (see TopicMatcher); none selects every topic.
	Topics []string
	// ExcludeTopics are patterns of topics to leave out of those Topics
	// selects (rosbags-convert's --exclude-topic).
	ExcludeTopics []string
	// Start and End bound the log times, [Start, End) (see ParseTimeSpec);
	// relative times count from the start of the inputs.
	Start, End string
}

// InputOptions configure OpenInputs. The zero value reads every message of
// every input and stops at the first damage.
type InputOptions struct {
	// Registry serves definitions the recordings do not store
	// (msgdef.Default() when nil).
	Registry *msgdef.Registry
	// Distro is the ROS 2 distribution whose built-in common interfaces
	// serve the types a recording stores no definition of (msgdef.Distros);
	// "" takes the one the recordings name in rosbag2's metadata (see
	// NamedDistro) when they name a built-in one, else the types every
	// distribution defines alike.
	Distro string
	// Renames are the ROS 2 names of ROS1 types (ros1_bridge mapping
	// rules) when the inputs are copied into a ROS 2 recording; nil for
	// rosbags-convert's names.
	Renames *decode.Renames
	// KeepROS2Fields writes a ROS 2 type into a ROS1 bag under a
	// definition of its own fields when the ROS1 definition of its name
	// lacks some (Marker's texture); by default it goes under ROS1's, those
	// fields left out (decode.Resolver.ToROS1), and the messages that held
	// data in them are counted in a warning.
	KeepROS2Fields bool
	// Selection picks the messages the iterators hand on.
	Selection Selection
	// SkipBad goes on past damaged data — a chunk or record the container
	// cannot read, a message that does not decode, a channel whose
	// definition is missing or does not compile — reporting each to OnSkip
	// (see Skip), instead of stopping at the first.
	SkipBad bool
	// KeepUnverified, with SkipBad, keeps the messages no CRC vouches for,
	// marked record.Message.Unverified (see OpenOptions.KeepUnverified);
	// by default they are left out and reported through OnSkip.
	KeepUnverified bool
	// OnSkip receives what SkipBad skipped, a *record.Error naming the file
	// and offset.
	OnSkip func(error)
	// OnWarning receives the notes about a selection that is partly empty
	// (a topic pattern that matches nothing, a time window outside the
	// recording) and the torn end of a ROS1 bag that was never closed,
	// whose complete messages are all read (see OpenOptions.OnWarning).
	OnWarning func(string)
	// Progress, when set, is called with counts of messages read, from the
	// goroutines that read them.
	Progress func(n int)
	// Stdin is read for the path "-" (Stdin), as OpenStream reads a
	// stream; nil leaves "-" an ordinary (missing) path.
	Stdin io.Reader
	// Remote reads the URLs among the paths (see OpenOptions.Remote).
	Remote *remote.Session
	// InPlace reads local files in place (see OpenOptions.InPlace); only
	// a consumer that keeps Pinned data past the next message, and guards
	// its goroutines against faults, gains from it (WriteNDJSON does).
	InPlace bool
}

// Inputs are the recordings a command reads: each path opened (folders
// expanded, see Expand), their combined summary, one selection, one
// definition resolver and one meaning of skip-bad for every way of reading
// them (Messages and Decoded for one merged stream, File(i) for one
// recording, Each for per-input parallel work; a Plan gives every reader
// its channels' decoders under the one skip rule).
//
// A recording is open only while its messages are read (Each, an iterator
// of Messages, Decoded or a File's): what the inputs hold between
// readings is each one's summary and channels, so that thousands of
// recordings cost no more open files than their readings at once.
type Inputs struct {
	paths  []string
	given  []Given
	files  []*inputFile
	sums   []*record.Summary
	total  *record.Summary
	filter record.Filter
	res    *decode.Resolver
	o      InputOptions
	named  []named // what each recording says of itself in rosbag2's metadata
	lossMu sync.Mutex
	loss   Losses
	// leftOut holds the topics and types of the channels Skip reported as
	// left out (a Plan's channelError), each reported once
	leftOut sync.Map
	// noted holds the notes of ToROS2 said, each said once
	noted sync.Map
}

// OpenInputs opens every recording that paths name, reads their summaries
// and resolves o.Selection against them. A selection that does not parse
// fails before any file is opened; one that selects nothing of some
// patterns or times warns through o.OnWarning. A path that cannot be
// opened gives an *InputError, a damaged file a *record.Error, a bad
// selection an error wrapping ErrSelection.
func OpenInputs(paths []string, o InputOptions) (*Inputs, error) {
	sel, err := parseSelection(o.Selection)
	if err != nil {
		return nil, err
	}
	var expanded []string
	var given []Given
	for _, p := range paths {
		e, err := expandInputs([]string{p}, o.Stdin != nil)
		if err != nil {
			return nil, err
		}
		expanded = append(expanded, e...)
		given = append(given, Given{Path: p, Recordings: len(e)})
	}
	in := &Inputs{paths: expanded, given: given, res: decode.NewResolver(o.Registry), o: o}
	for _, p := range paths {
		if note := FolderNote(p); note != "" {
			in.warn("%s", note)
		}
	}
	open := OpenOptions{OnWarning: func(err error) { in.warn("%v", err) }, KeepUnverified: o.KeepUnverified, Remote: o.Remote, InPlace: o.InPlace}
	if o.SkipBad {
		open.OnSkip = func(err error) { in.report(err) }
	}
	stdin := o.Stdin
	defs := newShared()
	for _, p := range expanded {
		var r record.Reader
		var reopen func() (record.Reader, error)
		if p == Stdin && o.Stdin != nil {
			if stdin == nil {
				in.Close()
				return nil, &InputError{Path: p, Err: errors.New("standard input can be read only once")}
			}
			r, err = OpenStream(stdin, p, open)
			stdin = nil
		} else {
			reopen = func() (record.Reader, error) { return OpenWith(p, open) }
			r, err = OpenWith(p, open)
		}
		var f *inputFile
		if err == nil {
			in.named = append(in.named, bag2Named(p, r))
			f, err = openInputFile(p, r, reopen, defs)
		}
		if err != nil {
			in.Close()
			return nil, err
		}
		in.files = append(in.files, f)
		in.sums = append(in.sums, f.sum)
	}
	in.total = CombineSummaries(in.sums)
	reg, err := in.registry()
	if err != nil {
		in.Close()
		return nil, err
	}
	if reg != in.res.Registry() {
		in.res = decode.NewResolver(reg)
	}
	in.noteMissingDefinitions()
	if in.filter, err = sel.resolve(in.total, in.warn); err != nil {
		in.Close()
		return nil, err
	}
	if o.SkipBad {
		in.leaveOutUndecodable()
	}
	return in, nil
}

// registry is o.Registry set to the ROS 2 distribution o.Distro names,
// or else the one the recordings name (in.named) when they agree on a
// built-in one; recordings that name different ones are said through
// OnWarning and get the types all distributions define alike.
func (in *Inputs) registry() (*msgdef.Registry, error) {
	reg := in.o.Registry
	if reg == nil {
		reg = msgdef.Default()
	}
	distro := in.o.Distro
	if distro == "" {
		var known []string
		for _, n := range in.named {
			if d := n.distro; msgdef.IsDistro(d) && !slices.Contains(known, d) {
				known = append(known, d)
			}
		}
		switch len(known) {
		case 0:
			return reg, nil
		case 1:
			distro = known[0]
		default:
			in.warn("the recordings name different ROS 2 distributions (%s): a type they store no definition of "+
				"is decoded only when all of them define it alike (give --distro)", strings.Join(known, ", "))
			return reg, nil
		}
	}
	if reg.Distro() == distro {
		return reg, nil
	}
	reg = reg.Clone()
	if err := reg.SetDistro(distro); err != nil {
		return nil, err
	}
	return reg, nil
}

// NamedDistro is the ROS distribution the recordings name in rosbag2's
// metadata (bag2Named), when every one names the same; "" when one names
// none or two differ.
func (in *Inputs) NamedDistro() string {
	if len(in.named) == 0 {
		return ""
	}
	d := in.named[0].distro
	for _, n := range in.named[1:] {
		if n.distro != d {
			return ""
		}
	}
	return d
}

// CustomData is the custom_data of the recordings' rosbag2 metadata (what
// ros2 bag record --custom-data stored), all of it in one map. A key the
// recordings give different values keeps the first one's, and the others
// are said through OnWarning.
func (in *Inputs) CustomData() map[string]string {
	var out map[string]string
	for i, n := range in.named {
		for _, k := range slices.Sorted(maps.Keys(n.custom)) {
			v := n.custom[k]
			if old, ok := out[k]; ok {
				if old != v {
					in.warn("%s: custom_data %s is %q, where an earlier recording has %q: kept %q", in.paths[i], k, v, old, old)
				}
				continue
			}
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// Len is the number of recordings.
func (in *Inputs) Len() int { return len(in.paths) }

// Paths are the recordings, folders expanded, in the order read.
func (in *Inputs) Paths() []string { return in.paths }

// Given is a path as given to OpenInputs and how many recordings it named:
// the next Recordings of Paths (more than one for a plain folder).
type Given struct {
	Path       string
	Recordings int
}

// Given lists the paths OpenInputs was given, in order, with the
// recordings each named.
func (in *Inputs) Given() []Given { return in.given }

// Summary is the combined summary of every recording.
func (in *Inputs) Summary() *record.Summary { return in.total }

// Filter is the resolved selection.
func (in *Inputs) Filter() record.Filter { return in.filter }

// Resolver is the definition resolver shared by every reading.
func (in *Inputs) Resolver() *decode.Resolver { return in.res }

// Close closes the recording read from a stream, if any (the files are
// closed with the iterators that read them), and says through OnWarning
// which types had messages with strings that are not valid UTF-8.
func (in *Inputs) Close() error {
	for _, w := range in.res.InvalidUTF8() {
		in.warn("%s", w)
	}
	var errs []error
	for _, f := range in.files {
		errs = append(errs, f.Close())
	}
	in.files = nil
	return errors.Join(errs...)
}

// Skip is where every reader of the inputs sends damage it met: with
// SkipBad it reports err to OnSkip, counts it and returns nil (go on);
// otherwise it returns err (stop). A channel left out because its
// messages cannot be decoded (a Plan's error) is reported once per topic
// and type, however often it is met.
func (in *Inputs) Skip(err error) error {
	if !in.o.SkipBad || err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	if in.reportOnce(err) {
		in.report(err)
	}
	return nil
}

func (in *Inputs) report(err error) {
	in.tally(err)
	if in.o.OnSkip != nil {
		in.o.OnSkip(err)
	}
}

// Losses is what the skip-bad readings of the inputs left out or kept
// unverified so far, for the closing count of a command.
type Losses struct {
	// Ranges counts the damaged byte stretches read past, Bytes their
	// bytes; Beyond counts the bytes that files' own headers say followed
	// where the files now end (cut bags).
	Ranges int
	Bytes  int64
	Beyond int64
	// Dropped counts the messages left out that the readers saw and
	// counted (a chunk whose CRC fails, messages that do not decode);
	// Estimated those of stretches whose messages could not be counted
	// (a cut or unreadable stretch): what the reader estimated from the
	// sizes the file states (record.Skipped.Estimated), or else from the
	// bytes lost (in the file and past its end) at the mean message size
	// of the rest of the file.
	Dropped, Estimated uint64
	// Unverified counts the messages kept that no CRC vouches for.
	Unverified uint64
	// Topics counts the topics left out whole (no usable definition).
	Topics int
}

// Losses returns what was left out or kept unverified so far: the zero
// Losses when nothing was skipped.
func (in *Inputs) Losses() Losses {
	in.lossMu.Lock()
	defer in.lossMu.Unlock()
	return in.loss
}

// tally adds what err, a skipped stretch, message or channel, lost.
func (in *Inputs) tally(err error) {
	in.lossMu.Lock()
	defer in.lossMu.Unlock()
	var re *record.Error
	switch {
	case errors.As(err, &re) && re.Stretch != nil:
		s := re.Stretch
		in.loss.Ranges++
		if s.Length > 0 {
			in.loss.Bytes += s.Length
		}
		if s.Beyond > 0 {
			in.loss.Beyond += s.Beyond
		}
		switch {
		case s.Unverified:
			in.loss.Unverified += s.Kept
		case s.Dropped > 0:
			in.loss.Dropped += s.Dropped
		case s.Estimated == 0 && (s.Length > 0 || s.Beyond > 0):
			in.loss.Estimated += in.estimate(re.File, max(s.Length, 0), max(s.Beyond, 0), s.Kept)
		}
		in.loss.Estimated += s.Estimated
	case isUndecodableChannel(err):
		in.loss.Topics++
	default:
		in.loss.Dropped++ // one message that does not decode
	}
}

// estimate is how many messages the damaged bytes of file held and lost:
// length of them in the file, from which kept messages were salvaged, and
// beyond past its end. The mean message size is that of the messages its
// summary counts outside the stretch, over the bytes outside it; when the
// stretch holds every message counted (a torn chunk, the file's only
// one), that of all of them over the whole file. 0 when unknown.
func (in *Inputs) estimate(file string, length, beyond int64, kept uint64) uint64 {
	for i, p := range in.paths {
		if p != file || i >= len(in.sums) || in.sums[i].MessageCount == 0 {
			continue
		}
		count := in.sums[i].MessageCount
		size, ok := in.size(p)
		if !ok || size < length {
			return 0
		}
		per := float64(size) / float64(count)
		if count > kept && size > length {
			per = float64(size-length) / float64(count-kept)
		}
		return uint64(max(float64(length+beyond)/per-float64(kept), 0) + 0.5)
	}
	return 0
}

// size is the length of the input file or object at p.
func (in *Inputs) size(p string) (int64, bool) {
	if remote.IsURL(p) {
		if in.o.Remote == nil || remote.IsPrefix(p) {
			return 0, false
		}
		obj, err := in.o.Remote.Open(p) // the object the reading opened
		if err != nil {
			return 0, false
		}
		return obj.Size(), true
	}
	st, err := os.Stat(p)
	if err != nil {
		return 0, false
	}
	return st.Size(), true
}

func (in *Inputs) warn(format string, args ...any) {
	if in.o.OnWarning != nil {
		in.o.OnWarning(fmt.Sprintf(format, args...))
	}
}

// Count is the number of selected messages the summaries list, of the
// types want accepts (every type when want is nil): the total of a
// progress bar.
func (in *Inputs) Count(want func(typ string) bool) int64 {
	var n int64
	for _, s := range in.sums {
		for _, t := range s.Topics {
			if (in.filter.Topic == nil || in.filter.Topic(t.Topic)) && (want == nil || want(t.Type)) {
				n += int64(t.MessageCount)
			}
		}
	}
	return n
}
