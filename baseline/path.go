package baseline

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// A statistic's path is a list of segments: a field name, optionally with
// the identity of a row in brackets
// ("placements.models[item=cup,room=kitchen,surface=kitchen_table,reference_frame_id=plate].sigma_x").
// Key values that are empty or hold any of , = [ ] " \ or a control
// character are quoted as Go strings.
type pathSeg struct {
	name string
	// row is the bracketed part without brackets; hasRow tells "[]" apart
	// from no brackets.
	row    string
	hasRow bool
}

type statPath []pathSeg

func (p statPath) child(name string) statPath {
	q := make(statPath, len(p), len(p)+1)
	copy(q, p)
	return append(q, pathSeg{name: name})
}

// withRow returns p whose last pathSeg is indexed by row.
func (p statPath) withRow(row string) statPath {
	q := make(statPath, len(p))
	copy(q, p)
	q[len(q)-1].row, q[len(q)-1].hasRow = row, true
	return q
}

func (p statPath) String() string { return p.render(func(s pathSeg) string { return s.row }) }

// glob is p with every row written [*]: the path of its table.
func (p statPath) glob() string { return p.render(func(pathSeg) string { return "*" }) }

// render writes p with each row of a segment given by row, in brackets.
func (p statPath) render(row func(pathSeg) string) string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
		if s.hasRow {
			b.WriteByte('[')
			b.WriteString(row(s))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// keyText renders a row identity: the key fields in order, name=value.
func keyText(key []string, vals []string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = k + "=" + quoteKey(vals[i])
	}
	return strings.Join(parts, ",")
}

func quoteKey(v string) string {
	if v == "" || strings.ContainsAny(v, ",=[]\"\\") || strings.ContainsFunc(v, unicode.IsControl) {
		return strconv.Quote(v)
	}
	return v
}

// pathPattern is a parsed tolerance pattern: segments whose names and row
// parts are globs (* any run of characters, ? one character); a pathSeg
// without brackets matches every row, "**" any number of segments.
type pathPattern []pathSeg

func parsePattern(s string) (pathPattern, error) {
	if s == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	var p pathPattern
	for len(s) > 0 {
		var seg pathSeg
		i := strings.IndexAny(s, ".[")
		if i < 0 {
			i = len(s)
		}
		seg.name = s[:i]
		s = s[i:]
		if strings.HasPrefix(s, "[") {
			end, err := closingBracket(s)
			if err != nil {
				return nil, err
			}
			seg.row, seg.hasRow = s[1:end], true
			s = s[end+1:]
		}
		if seg.name == "" {
			return nil, fmt.Errorf("empty pathSeg")
		}
		p = append(p, seg)
		if strings.HasPrefix(s, ".") {
			s = s[1:]
			if s == "" {
				return nil, fmt.Errorf("ends with '.'")
			}
		} else if s != "" {
			return nil, fmt.Errorf("unexpected %q after ']'", s[:1])
		}
	}
	return p, nil
}

// closingBracket returns the index of the ']' closing s[0] == '[',
// skipping quoted key values.
func closingBracket(s string) (int, error) {
	inQuote := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == ']':
			return i, nil
		}
	}
	return 0, fmt.Errorf("unclosed '['")
}

func (p pathPattern) match(path statPath) bool {
	if len(p) == 0 {
		return len(path) == 0
	}
	if p[0].name == "**" && !p[0].hasRow {
		for i := 0; i <= len(path); i++ {
			if p[1:].match(path[i:]) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 || !globMatch(p[0].name, path[0].name) {
		return false
	}
	if p[0].hasRow && p[0].row != "*" && !(path[0].hasRow && globMatch(p[0].row, path[0].row)) {
		return false
	}
	return p[1:].match(path[1:])
}

// globMatch reports whether s matches pattern, where * stands for any run
// of characters and ? for one.
func globMatch(pattern, s string) bool {
	if !strings.ContainsAny(pattern, "*?") {
		return pattern == s
	}
	pr, sr := []rune(pattern), []rune(s)
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(sr) {
		switch {
		case px < len(pr) && (pr[px] == '?' || pr[px] == sr[sx]):
			px++
			sx++
		case px < len(pr) && pr[px] == '*':
			starP, starS = px, sx
			px++
		case starP >= 0:
			starS++
			px, sx = starP+1, starS
		default:
			return false
		}
	}
	for px < len(pr) && pr[px] == '*' {
		px++
	}
	return px == len(pr)
}
