package recording

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/baglab/baglab/record"
)

// TopicMatcher returns a predicate selecting topics by any of patterns. A
// pattern is an exact topic name, a glob (`*` within one level, `**` across
// levels, `?`, `[...]`), or a regular expression prefixed with `re:`. No
// patterns select every topic (nil predicate).
func TopicMatcher(patterns []string) (func(string) bool, error) {
	var exact = map[string]bool{}
	var res []*regexp.Regexp
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			continue
		case strings.HasPrefix(p, "re:"):
			re, err := regexp.Compile(p[3:])
			if err != nil {
				return nil, fmt.Errorf("topic pattern %q: %w", p, err)
			}
			res = append(res, re)
		case strings.ContainsAny(p, "*?["):
			re, err := globRegexp(p)
			if err != nil {
				return nil, fmt.Errorf("topic pattern %q: %w", p, err)
			}
			res = append(res, re)
		default:
			exact[p] = true
			if !strings.HasPrefix(p, "/") {
				exact["/"+p] = true
			}
		}
	}
	if len(exact) == 0 && len(res) == 0 {
		return nil, nil
	}
	return func(topic string) bool {
		if exact[topic] {
			return true
		}
		for _, re := range res {
			if re.MatchString(topic) {
				return true
			}
		}
		return false
	}, nil
}

// globRegexp translates a topic glob into an anchored regular expression.
func globRegexp(glob string) (*regexp.Regexp, error) {
	if _, err := path.Match(glob, ""); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("^")
	if !strings.HasPrefix(glob, "/") && !strings.HasPrefix(glob, "*") {
		b.WriteString("/?")
	}
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(glob[i:], ']')
			class := glob[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		case '\\':
			if i+1 < len(glob) {
				i++
				b.WriteString(regexp.QuoteMeta(string(glob[i])))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// TimeSpec is a point in time given on the command line: absolute, or
// relative to the start of the recording.
type TimeSpec struct {
	ns       int64
	relative bool
	set      bool
}

// ParseTimeSpec parses an RFC 3339 time ("2024-05-01T12:00:00Z"), seconds
// since the Unix epoch ("1714564800.25"), or an offset from the start of the
// recording ("+12.5s", "+2m", "+1h30m", "+12.5"). The empty string is unset.
func ParseTimeSpec(s string) (TimeSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return TimeSpec{}, nil
	}
	if strings.HasPrefix(s, "+") {
		rest := s[1:]
		if ns, ok := decimalSeconds(rest); ok {
			return TimeSpec{ns: ns, relative: true, set: true}, checkRange(s, ns)
		}
		if f, err := strconv.ParseFloat(rest, 64); err == nil {
			return TimeSpec{ns: secondsToNs(f), relative: true, set: true}, checkFinite(s, f)
		}
		d, err := time.ParseDuration(rest)
		if err != nil {
			return TimeSpec{}, fmt.Errorf("time %q: want +SECONDS or +DURATION like +12.5s", s)
		}
		return TimeSpec{ns: int64(d), relative: true, set: true}, nil
	}
	if ns, ok := decimalSeconds(s); ok {
		return TimeSpec{ns: ns, set: true}, checkRange(s, ns)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return TimeSpec{ns: secondsToNs(f), set: true}, checkFinite(s, f)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return TimeSpec{}, fmt.Errorf("time %q: want RFC 3339 (2024-05-01T12:00:00Z), seconds since the epoch, or +OFFSET from the start", s)
	}
	return TimeSpec{ns: t.UnixNano(), set: true}, nil
}

func checkFinite(s string, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 9e9 {
		return fmt.Errorf("time %q out of range", s)
	}
	return nil
}

// maxSeconds bounds a time given in seconds (about the year 2255).
const maxSeconds = 9e9

func checkRange(s string, ns int64) error {
	if ns > maxSeconds*1e9 || ns < -maxSeconds*1e9 {
		return fmt.Errorf("time %q out of range", s)
	}
	return nil
}

// decimalSeconds parses plain decimal seconds ("1714564822.886275716",
// "-2", ".5") to nanoseconds exactly, as a float64 cannot (an epoch time
// in it is only good to ~200 ns); digits past the ninth round. ok is false
// for any other form (exponents, which ParseFloat takes) and for seconds
// beyond maxSeconds.
func decimalSeconds(s string) (ns int64, ok bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || len(whole) > 10 || strings.Trim(whole+frac, "0123456789") != "" {
		return 0, false
	}
	sec := int64(0)
	if whole != "" {
		sec, _ = strconv.ParseInt(whole, 10, 64)
	}
	if sec > maxSeconds {
		return 0, false
	}
	round := len(frac) > 9 && frac[9] >= '5'
	frac = (frac + "000000000")[:9]
	sub, _ := strconv.ParseInt(frac, 10, 64)
	ns = sec*1e9 + sub
	if round {
		ns++
	}
	if neg {
		ns = -ns
	}
	return ns, true
}

func secondsToNs(f float64) int64 {
	sec := math.Floor(f)
	return int64(sec)*1e9 + int64(math.Round((f-sec)*1e9))
}

// IsSet reports whether the spec was given.
func (t TimeSpec) IsSet() bool { return t.set }

// IsRelative reports whether the spec is an offset from the start.
func (t TimeSpec) IsRelative() bool { return t.relative }

// Resolve returns the time in ns since the epoch, given the recording's
// start; 0 when unset.
func (t TimeSpec) Resolve(startNs int64) int64 {
	if !t.set {
		return 0
	}
	if t.relative {
		return startNs + t.ns
	}
	return t.ns
}

// parsedSelection is a Selection whose patterns and times parsed.
type parsedSelection struct {
	patterns, excluded []string
	match, exclude     func(string) bool
	start, end         TimeSpec
}

// keep is the predicate of the topics the selection keeps: those --topics
// matches and --exclude-topics does not; nil when it keeps every topic.
func (p *parsedSelection) keep() func(string) bool {
	switch {
	case p.exclude == nil:
		return p.match
	case p.match == nil:
		return func(t string) bool { return !p.exclude(t) }
	}
	return func(t string) bool { return p.match(t) && !p.exclude(t) }
}

// trimmed is the patterns of list that are not blank.
func trimmed(list []string) []string {
	var out []string
	for _, t := range list {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// parseSelection checks a Selection before any input is read.
func parseSelection(s Selection) (*parsedSelection, error) {
	p := &parsedSelection{patterns: trimmed(s.Topics), excluded: trimmed(s.ExcludeTopics)}
	var err error
	if p.match, err = TopicMatcher(p.patterns); err != nil {
		return nil, fmt.Errorf("%w: --topics: %v", ErrSelection, err)
	}
	if p.exclude, err = TopicMatcher(p.excluded); err != nil {
		return nil, fmt.Errorf("%w: --exclude-topics: %v", ErrSelection, err)
	}
	if p.start, err = ParseTimeSpec(s.Start); err != nil {
		return nil, fmt.Errorf("%w: --start: %v", ErrSelection, err)
	}
	if p.end, err = ParseTimeSpec(s.End); err != nil {
		return nil, fmt.Errorf("%w: --end: %v", ErrSelection, err)
	}
	return p, nil
}

// resolve makes the filter of the selection against the inputs' combined
// summary. Patterns that match no topic at all are an error, and so is
// --exclude-topics leaving none; a pattern among others that matches
// nothing, and a window outside the recording, are warnings.
func (p *parsedSelection) resolve(sum *record.Summary, warn func(string, ...any)) (record.Filter, error) {
	f := record.Filter{Topic: p.keep()}
	if p.match != nil {
		found := false
		for _, t := range sum.Topics {
			found = found || p.match(t.Topic)
		}
		if !found {
			return f, fmt.Errorf("%w: --topics %s matches no topic of the input (see baglab info)", ErrSelection, strings.Join(p.patterns, ","))
		}
	}
	if p.exclude != nil && len(sum.Topics) > 0 {
		left := false
		for _, t := range sum.Topics {
			left = left || f.Topic(t.Topic)
		}
		if !left {
			return f, fmt.Errorf("%w: --exclude-topics %s leaves no topic of the input", ErrSelection, strings.Join(p.excluded, ","))
		}
	}
	for i, patterns := range [][]string{p.patterns, p.excluded} {
		for _, pat := range patterns {
			one, _ := TopicMatcher([]string{pat})
			hit := false
			for _, t := range sum.Topics {
				hit = hit || one(t.Topic)
			}
			if !hit {
				warn("%s %s matches no topic of the input", [...]string{"--topics", "--exclude-topics"}[i], pat)
			}
		}
	}
	f.Start = p.start.Resolve(sum.StartNs)
	f.End = p.end.Resolve(sum.StartNs)
	if p.end.IsSet() && f.End <= 0 {
		f.End = -1 // an end at or before the epoch selects nothing (0 would mean "no end")
	}
	if f.Start != 0 && f.End != 0 && f.End <= f.Start {
		return f, fmt.Errorf("%w: --end (%d ns) is not after --start (%d ns)", ErrSelection, f.End, f.Start)
	}
	if sum.MessageCount > 0 && (p.start.IsSet() || p.end.IsSet()) {
		switch {
		case f.Start != 0 && f.Start > sum.EndNs:
			warn("the time window starts at %s, after the recording ends (%s): no message is selected", formatTime(f.Start), formatTime(sum.EndNs))
		case f.End != 0 && f.End <= sum.StartNs:
			warn("the time window ends at %s, before the recording starts (%s): no message is selected", formatTime(f.End), formatTime(sum.StartNs))
		}
	}
	return f, nil
}

// formatTime renders ns since the epoch for a note: RFC 3339 and seconds.
func formatTime(ns int64) string {
	if ns < 0 {
		return "the epoch"
	}
	return fmt.Sprintf("%s (%d.%09d s)", time.Unix(0, ns).UTC().Format(time.RFC3339Nano), ns/1e9, ns%1e9)
}
