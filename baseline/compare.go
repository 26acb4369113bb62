package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// baseline's kind; verb names what the caller does with it, for the error.
func (b *Baseline) current(doc []byte, verb string) ([]section, error) {
	var v any
	if err := decodeJSON(doc, &v); err != nil {
		return nil, fmt.Errorf("new result: %w", err)
	}
	kind, secs, err := normalise(v, b.keys)
	if err != nil {
		return nil, fmt.Errorf("new result: %w", err)
	}
	if kind != b.Kind {
		return nil, fmt.Errorf("baseline is a %q result, this run is %q: %s results of the same kind", b.Kind, kind, verb)
	}
	return secs, nil
}

// Compare compares the result document current (`analyze --json` or
// `info --json` output) with the baseline. Rows of tables are matched by
// their documented keys (Keys); per-observation tables are compared
// by row count.
func (b *Baseline) Compare(current []byte, o CompareOptions) (*Comparison, error) {
	secs, err := b.current(current, "compare")
	if err != nil {
		return nil, err
	}
	c := &comparer{tols: b.Tolerances, def: Tolerance{Rel: o.Tolerance, floor: true}, hash: o.ContentHash, keys: b.keys,
		groups: map[string]*GroupDiff{}}
	now := map[string]any{}
	for _, s := range secs {
		now[s.name] = s.v
	}
	seen := map[string]bool{}
	for _, s := range b.sections {
		seen[s.name] = true
		p := statPath{{name: s.name}}
		g := c.groupFor(p)
		if v, ok := now[s.name]; ok {
			c.value(g, p, s.v, v)
		} else {
			g.Compared++
			c.add(g, p, s.v, nil, math.NaN(), Tolerance{})
		}
	}
	for _, s := range secs {
		if !seen[s.name] {
			p := statPath{{name: s.name}}
			g := c.groupFor(p)
			g.Compared++
			c.add(g, p, nil, s.v, math.NaN(), Tolerance{})
		}
	}
	order := map[string]int{}
	for _, s := range b.sections {
		order[s.name] = len(order)
	}
	for _, s := range secs {
		if _, ok := order[s.name]; !ok {
			order[s.name] = len(order)
		}
	}
	cmp := &Comparison{Kind: b.Kind, Tolerance: o.Tolerance}
	for _, g := range c.groups {
		if g.Table || g.Compared > 0 || g.Drift() {
			cmp.Groups = append(cmp.Groups, g)
		}
	}
	sectionOf := func(g *GroupDiff) int {
		name, _, _ := strings.Cut(g.Path, ".")
		name, _, _ = strings.Cut(name, "[")
		return order[name]
	}
	sort.Slice(cmp.Groups, func(i, j int) bool {
		gi, gj := cmp.Groups[i], cmp.Groups[j]
		if si, sj := sectionOf(gi), sectionOf(gj); si != sj {
			return si < sj
		}
		if oi, oj := b.keys.order(gi.Path), b.keys.order(gj.Path); oi != oj {
			return oi < oj
		}
		return gi.Path < gj.Path
	})
	return cmp, nil
}

// CompareDocs compares two documents with the default relative
// tolerance tol and no tolerances of its own beyond the baseline's; it
// returns every difference (see Comparison.Diffs).
func CompareDocs(old, new []byte, tol float64, keys Keys) ([]Diff, error) {
	b, err := Parse(old, keys)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	c, err := b.Compare(new, CompareOptions{Tolerance: tol})
	if err != nil {
		return nil, err
	}
	return c.Diffs(), nil
}

type comparer struct {
	tols   []PathTolerance
	def    Tolerance
	hash   bool
	keys   Keys
	groups map[string]*GroupDiff
}

// groupFor returns the group of the statistics below p: the table of the
// nearest enclosing row, or the summary of p's section.
func (c *comparer) groupFor(p statPath) *GroupDiff {
	end := 1
	for i := len(p) - 1; i >= 0; i-- {
		if p[i].hasRow {
			end = i + 1
			break
		}
	}
	q := make(statPath, end)
	copy(q, p[:end])
	q[end-1].row, q[end-1].hasRow = "", false
	return c.group(q.glob(), end > 1 || p[0].hasRow)
}

func (c *comparer) group(glob string, table bool) *GroupDiff {
	g, ok := c.groups[glob]
	if !ok {
		g = &GroupDiff{Path: glob, Key: c.keys.key(glob), Table: table}
		if g.Key != nil {
			g.Table = true
		}
		c.groups[glob] = g
	}
	return g
}

// tolerance returns the tolerance of the statistic at p; ints marks two
// integers (exact unless a pattern says otherwise).
func (c *comparer) tolerance(p statPath, ints bool) Tolerance {
	for _, t := range c.tols {
		if t.pat.match(p) {
			return t.Tolerance
		}
	}
	if ints {
		return Tolerance{}
	}
	return c.def
}

func (c *comparer) add(g *GroupDiff, p statPath, a, b any, rel float64, tol Tolerance) {
	d := Diff{Path: p.String(), Rel: rel, Tolerance: tol}
	if a != nil {
		d.Old = jsonText(a)
	}
	if b != nil {
		d.New = jsonText(b)
	}
	g.Diffs = append(g.Diffs, d)
}

func (c *comparer) value(g *GroupDiff, p statPath, a, b any) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			c.scalar(g, p, a, b)
			return
		}
		c.object(g, p, x, y, nil)
	case []any:
		y, ok := b.([]any)
		if !ok {
			c.scalar(g, p, a, b)
			return
		}
		c.array(g, p, x, y)
	default:
		c.scalar(g, p, a, b)
	}
}

// object compares the fields of two objects, but not the key fields of a
// matched row (equal by construction).
func (c *comparer) object(g *GroupDiff, p statPath, x, y map[string]any, key []string) {
	names := map[string]bool{}
	for k := range x {
		names[k] = true
	}
	for k := range y {
		names[k] = true
	}
	for _, k := range key {
		delete(names, k)
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		q := p.child(k)
		va, inA := x[k]
		vb, inB := y[k]
		switch {
		case inA && inB:
			c.value(g, q, va, vb)
		case c.tolerance(q, false).Ignore:
		default:
			g.Compared++
			c.add(g, q, va, vb, math.NaN(), Tolerance{})
		}
	}
}

func (c *comparer) array(g *GroupDiff, p statPath, a, b []any) {
	if !hasObject(a) && !hasObject(b) {
		if len(a) != len(b) {
			if !c.tolerance(p, false).Ignore {
				g.Compared++
				c.add(g, p, a, b, math.NaN(), Tolerance{})
			}
			return
		}
		for i := range a {
			c.value(g, p.withRow(strconv.Itoa(i)), a[i], b[i])
		}
		return
	}
	t := c.group(p.glob(), true)
	t.OldRows += len(a)
	t.NewRows += len(b)
	if t.Key == nil || t.Key.PerObservation {
		c.count(t, p.child("rows"), len(a), len(b))
		if c.hash {
			ha, hb := contentHash(a), contentHash(b)
			q := p.child("sha256")
			if tol := c.tolerance(q, false); !tol.Ignore {
				t.Compared++
				if ha != hb {
					t.Diffs = append(t.Diffs, Diff{Path: q.String(), Old: ha, New: hb, Rel: math.NaN(), Tolerance: tol})
				}
			}
		}
		return
	}
	ka, ra := keyRows(a, t.Key.Key)
	kb, rb := keyRows(b, t.Key.Key)
	for i, k := range ka {
		q := p.withRow(k)
		y, ok := rb[k]
		if !ok {
			t.Removed = append(t.Removed, Row{Path: q.String(), Key: k})
			continue
		}
		x := a[i]
		xm, okA := x.(map[string]any)
		ym, okB := y.(map[string]any)
		if okA && okB {
			c.object(t, q, xm, ym, t.Key.Key)
		} else {
			c.value(t, q, x, y)
		}
	}
	for _, k := range kb {
		if _, ok := ra[k]; !ok {
			t.Added = append(t.Added, Row{Path: p.withRow(k).String(), Key: k})
		}
	}
}

// count compares two row counts, exact unless a pattern says otherwise.
func (c *comparer) count(g *GroupDiff, p statPath, a, b int) {
	tol := c.tolerance(p, true)
	if tol.Ignore {
		return
	}
	g.Compared++
	if a == b || tol.allows(float64(a), float64(b)) {
		return
	}
	g.Diffs = append(g.Diffs, Diff{Path: p.String(), Old: strconv.Itoa(a), New: strconv.Itoa(b),
		Rel: relChange(float64(a), float64(b)), Tolerance: tol})
}

func (c *comparer) scalar(g *GroupDiff, p statPath, a, b any) {
	na, numA := a.(json.Number)
	nb, numB := b.(json.Number)
	ints := numA && numB && isInteger(na) && isInteger(nb)
	tol := c.tolerance(p, ints)
	if tol.Ignore {
		return
	}
	g.Compared++
	if numA && numB {
		if na == nb {
			return // the same text (also for numbers beyond float64)
		}
		fa, errA := na.Float64()
		fb, errB := nb.Float64()
		if errA == nil && errB == nil && tol.allows(fa, fb) {
			return
		}
		c.add(g, p, a, b, relChange(fa, fb), tol)
		return
	}
	fa, sa := special(a)
	fb, sb := special(b)
	if sa && sb {
		if !(math.IsNaN(fa) && math.IsNaN(fb)) && fa != fb {
			c.add(g, p, a, b, math.NaN(), tol)
		}
		return
	}
	if jsonText(a) != jsonText(b) {
		c.add(g, p, a, b, math.NaN(), tol)
	}
}

func isInteger(v any) bool {
	n, ok := v.(json.Number)
	return ok && !strings.ContainsAny(string(n), ".eE")
}

func hasObject(l []any) bool {
	for _, v := range l {
		if _, ok := v.(map[string]any); ok {
			return true
		}
	}
	return false
}

// keyRows returns the identity of each row, in order, and the rows by
// identity. A row whose key repeats one before it gets "#N" appended.
func keyRows(rows []any, key []string) ([]string, map[string]any) {
	keys := make([]string, len(rows))
	byKey := make(map[string]any, len(rows))
	vals := make([]string, len(key))
	for i, r := range rows {
		m, _ := r.(map[string]any)
		for j, k := range key {
			v, ok := m[k]
			switch x := v.(type) {
			case string:
				vals[j] = x
			case json.Number:
				vals[j] = string(x)
			default:
				if ok {
					vals[j] = jsonText(v)
				} else {
					vals[j] = ""
				}
			}
		}
		id := keyText(key, vals)
		if m == nil {
			id = "#" + strconv.Itoa(i)
		}
		for n := 2; ; n++ {
			if _, dup := byKey[id]; !dup {
				break
			}
			id = strings.TrimSuffix(id, "#"+strconv.Itoa(n-1)) + "#" + strconv.Itoa(n)
		}
		keys[i] = id
		byKey[id] = r
	}
	return keys, byKey
}

// contentHash is a SHA-256 of the rows' JSON texts in sorted order: it
// does not depend on the order of the rows.
func contentHash(rows []any) string {
	texts := make([]string, len(rows))
	for i, r := range rows {
		b, _ := json.Marshal(r)
		texts[i] = string(b)
	}
	sort.Strings(texts)
	h := sha256.New()
	for _, t := range texts {
		io.WriteString(h, t)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// decodeJSON decodes one JSON document; anything after it is an error.
func decodeJSON(data []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("data after the JSON document at byte %d", d.InputOffset())
	}
	return nil
}

func jsonText(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	// A whole added or removed section would make an unreadable line.
	const maxText = 160
	if len(b) > maxText {
		return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(string(b[:maxText]), ""), len(b))
	}
	return string(b)
}

// special parses the Num spellings of non-finite values.
func special(v any) (float64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	switch s {
	case "NaN":
		return math.NaN(), true
	case "+Inf", "Inf":
		return math.Inf(1), true
	case "-Inf":
		return math.Inf(-1), true
	}
	return 0, false
}

func relChange(a, b float64) float64 {
	if a == 0 {
		return math.Inf(1)
	}
	return (b - a) / math.Abs(a)
}
