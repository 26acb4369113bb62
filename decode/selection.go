package decode

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
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
		if f, err := strconv.ParseFloat(rest, 64); err == nil {
			return TimeSpec{ns: secondsToNs(f), relative: true, set: true}, checkFinite(s, f)
		}
		d, err := time.ParseDuration(rest)
		if err != nil {
			return TimeSpec{}, fmt.Errorf("time %q: want +SECONDS or +DURATION like +12.5s", s)
		}
		return TimeSpec{ns: int64(d), relative: true, set: true}, nil
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
