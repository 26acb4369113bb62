package analysis

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// A baseline is a saved result document — `analyze --json` (an analysis
// result) or `info --json` (a dataset: message counts per topic, time
// spans, types, MD5s) — optionally carrying a "baseline" member with the
// tolerances and comments of its owner:
//
//	{
//	  "baseline": {
//	    "comment": "the 2024 study; EM decision values vary with the CPU",
//	    "tolerances": {
//	      "placements.models[*].decision_value": {"rel": 1e-3},
//	      "grasps.attempts.rows": {"abs": 5, "comment": "two flaky recordings"},
//	      "files[*].topics[*].frequency_hz": {"ignore": true}
//	    }
//	  },
//	  "kind": "all", ...
//	}
//
// The file may hold // line comments; those in the "baseline" member and
// before the document are kept by Update (the rest of the file is
// regenerated). A dataset baseline with a "baseline" member is written
// {"baseline": {...}, "kind": "dataset", "files": [...]}.

// Tolerance says how far one statistic may move: by Abs, or by Rel of the
// larger magnitude of old and new. Ignore leaves it out of the comparison.
type Tolerance struct {
	Rel     float64 `json:"rel,omitempty"`
	Abs     float64 `json:"abs,omitempty"`
	Ignore  bool    `json:"ignore,omitempty"`
	Comment string  `json:"comment,omitempty"`
	// floor lets any difference up to 1e-12 pass (the default tolerance).
	floor bool
}

func (t Tolerance) String() string {
	switch {
	case t.Ignore:
		return "ignored"
	case t.Rel > 0 && t.Abs > 0:
		return fmt.Sprintf("rel %g or abs %g", t.Rel, t.Abs)
	case t.Abs > 0:
		return fmt.Sprintf("abs %g", t.Abs)
	case t.Rel > 0:
		return fmt.Sprintf("rel %g", t.Rel)
	}
	return "exact"
}

// allows reports whether a and b are within t.
func (t Tolerance) allows(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return a == b
	}
	d := math.Abs(a - b)
	return (t.floor && d <= 1e-12) || d <= t.Abs || d <= t.Rel*math.Max(math.Abs(a), math.Abs(b))
}

// PathTolerance is the tolerance of the statistics whose paths match
// Pattern.
type PathTolerance struct {
	Pattern string
	Tolerance
	pat pathPattern
}

// Baseline is a parsed baseline document.
type Baseline struct {
	// Kind is the analysis kind ("all", "placements", …) or "dataset".
	Kind string
	// Comment is the "comment" of the baseline member.
	Comment string
	// Tolerances in file order; the first whose pattern matches a
	// statistic's path applies.
	Tolerances []PathTolerance

	sections []section
	header   []byte // the text before the document
	meta     []byte // the "baseline" member's value as written
}

// section is one top-level part of a normalised document: an analysis
// kind ("placements") or "files" for a dataset.
type section struct {
	name string
	v    any
}

// ErrNotBaseline is returned for a document that is neither an analysis
// result nor a dataset summary.
var ErrNotBaseline = errors.New("not a baseline (make one with analyze --json or info --json)")

// ParseBaseline parses a baseline file.
func ParseBaseline(data []byte) (*Baseline, error) {
	clean := stripComments(data)
	var doc any
	if err := decodeJSON(clean, &doc); err != nil {
		return nil, err
	}
	b := &Baseline{}
	if m, ok := doc.(map[string]any); ok {
		if _, ok := m["baseline"]; ok {
			start, end, err := memberSpan(clean, "baseline")
			if err != nil {
				return nil, err
			}
			if err := b.parseMeta(clean[start:end]); err != nil {
				return nil, fmt.Errorf("baseline member: %w", err)
			}
			b.meta = data[start:end]
			b.header = data[:bytes.IndexByte(clean, '{')]
		}
	}
	var err error
	if b.Kind, b.sections, err = normalise(doc); err != nil {
		return nil, err
	}
	return b, nil
}

// memberSpan returns the byte range of the value of the top-level member
// name of the JSON object in data.
func memberSpan(data []byte, name string) (int, int, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	if _, err := d.Token(); err != nil {
		return 0, 0, err
	}
	for d.More() {
		tk, err := d.Token()
		if err != nil {
			return 0, 0, err
		}
		start := int(d.InputOffset())
		for start < len(data) && (data[start] == ':' || isSpace(data[start])) {
			start++
		}
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return 0, 0, err
		}
		if tk == name {
			return start, int(d.InputOffset()), nil
		}
	}
	return 0, 0, fmt.Errorf("no member %q", name)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// stripComments blanks out // comments outside strings, keeping every
// other byte where it is.
func stripComments(data []byte) []byte {
	if !bytes.Contains(data, []byte("//")) {
		return data
	}
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		}
	}
	return out
}

// parseMeta reads the baseline member: its comment and its tolerances, in
// the order they are written. Its members are checked in name order, so
// that a member with several faults always reports the same one.
func (b *Baseline) parseMeta(raw []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("want an object: %v", err)
	}
	for _, k := range sortedKeys(m) {
		v := m[k]
		switch k {
		case "comment":
			if err := json.Unmarshal(v, &b.Comment); err != nil {
				return fmt.Errorf("comment: want a string")
			}
		case "tolerances":
			if err := b.decodeTolerances(v); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown field %q (want comment, tolerances)", k)
		}
	}
	return nil
}

// decodeTolerances reads the tolerances object in order.
func (b *Baseline) decodeTolerances(raw []byte) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tk, err := d.Token(); err != nil || tk != json.Delim('{') {
		return fmt.Errorf("tolerances: want an object of pattern: {rel, abs, ignore, comment}")
	}
	for d.More() {
		tk, err := d.Token()
		if err != nil {
			return err
		}
		pattern, _ := tk.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return err
		}
		t, err := parseTolerance(v)
		if err != nil {
			return fmt.Errorf("tolerances %q: %w", pattern, err)
		}
		pat, err := parsePattern(pattern)
		if err != nil {
			return fmt.Errorf("tolerances %q: %w", pattern, err)
		}
		b.Tolerances = append(b.Tolerances, PathTolerance{Pattern: pattern, Tolerance: t, pat: pat})
	}
	return nil
}

func parseTolerance(raw []byte) (Tolerance, error) {
	var t Tolerance
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&t); err != nil {
		return t, fmt.Errorf("want {\"rel\": R, \"abs\": A, \"ignore\": bool, \"comment\": text}: %v", err)
	}
	if t.Rel < 0 || t.Abs < 0 || math.IsNaN(t.Rel) || math.IsNaN(t.Abs) {
		return t, fmt.Errorf("rel and abs must be numbers >= 0")
	}
	return t, nil
}

// normalise splits a document into its sections and names its kind.
func normalise(doc any) (string, []section, error) {
	switch x := doc.(type) {
	case []any:
		return "dataset", []section{{"files", x}}, nil
	case map[string]any:
		kind, _ := x["kind"].(string)
		switch {
		case kind == "dataset":
			files, ok := x["files"].([]any)
			if !ok {
				return "", nil, fmt.Errorf("dataset baseline without a \"files\" array")
			}
			return kind, []section{{"files", files}}, nil
		case kind == "" && x["path"] != nil && x["format"] != nil:
			return "dataset", []section{{"files", []any{x}}}, nil
		case kind == "all":
			var secs []section
			for k, v := range x {
				if k != "kind" && k != "baseline" {
					secs = append(secs, section{k, withoutKind(v)})
				}
			}
			sort.Slice(secs, func(i, j int) bool {
				oi, oj := tableOrder(secs[i].name), tableOrder(secs[j].name)
				if oi != oj {
					return oi < oj
				}
				return secs[i].name < secs[j].name
			})
			return kind, secs, nil
		case kind != "":
			return kind, []section{{kind, withoutKind(x)}}, nil
		}
	}
	return "", nil, ErrNotBaseline
}

// withoutKind returns a result object without its "kind" (and "baseline")
// members: the kind is compared as a whole, not as a statistic.
func withoutKind(v any) any {
	x, ok := v.(map[string]any)
	if !ok {
		return v
	}
	m := make(map[string]any, len(x))
	for k, e := range x {
		if k != "kind" && k != "baseline" {
			m[k] = e
		}
	}
	return m
}

// CompareOptions configure Compare.
type CompareOptions struct {
	// Tolerance is the relative tolerance of the numbers no pattern of the
	// baseline names and that are not both integers (counts are exact
	// unless a pattern says otherwise). An absolute difference of 1e-12
	// always passes.
	Tolerance float64
	// ContentHash also compares a SHA-256 of the rows of per-observation
	// tables (in any order), not only their number.
	ContentHash bool
}

// Comparison is the outcome of comparing a result with a baseline.
type Comparison struct {
	// Kind is the kind of both documents.
	Kind string
	// Tolerance is the default relative tolerance used.
	Tolerance float64
	// Groups are the statistic groups, in report order: each kind's
	// summary statistics, then its tables.
	Groups []*GroupDiff
}

// GroupDiff is the comparison of one statistic group: a table, or the
// summary statistics of one analysis.
type GroupDiff struct {
	// Path is the group's glob path ("placements.groups", "placements").
	Path string
	// Key documents the table (nil for summary statistics and tables
	// without a documented key, which are compared as row counts).
	Key *TableKey
	// Table marks groups that are tables; OldRows and NewRows count their
	// rows (of every enclosing row both sides have).
	Table            bool
	OldRows, NewRows int
	// Added and Removed are the rows present on one side only.
	Added, Removed []Row
	// Diffs are the statistics beyond tolerance.
	Diffs []Diff
	// Compared counts the statistics compared.
	Compared int
}

// Row names one row of a table.
type Row struct {
	// Path is the full path of the row ("placements.groups[item=cup,…]").
	Path string
	// Key is its identity alone ("item=cup,room=kitchen,…").
	Key string
}

// Diff is one statistic beyond tolerance.
type Diff struct {
	// Path locates the statistic
	// ("placements.groups[item=cup,room=kitchen,surface=kitchen_table,reference_frame_id=plate].mean_x").
	Path string
	// Old and New are the values as JSON text ("" when absent).
	Old, New string
	// Rel is the relative change of a number (NaN for other values).
	Rel float64
	// Tolerance is the tolerance that applied.
	Tolerance Tolerance
	// Row marks a whole row, new (Old "") or removed (New "").
	Row bool
}

func (d Diff) String() string {
	switch {
	case d.Row && d.Old == "":
		return d.Path + ": new row"
	case d.Row:
		return d.Path + ": removed row"
	case d.Old == "":
		return fmt.Sprintf("%s: added %s", d.Path, d.New)
	case d.New == "":
		return fmt.Sprintf("%s: removed (was %s)", d.Path, d.Old)
	case !math.IsNaN(d.Rel):
		return fmt.Sprintf("%s: %s -> %s (%s, tolerance %s)", d.Path, d.Old, d.New, percent(d.Rel), d.Tolerance)
	}
	return fmt.Sprintf("%s: %s -> %s", d.Path, d.Old, d.New)
}

func percent(rel float64) string {
	if math.IsInf(rel, 0) {
		return "from 0"
	}
	return fmt.Sprintf("%+.3g%%", rel*100)
}

// Drift reports whether the group differs beyond tolerance.
func (g *GroupDiff) Drift() bool { return len(g.Added)+len(g.Removed)+len(g.Diffs) > 0 }

// Name is the group's noun for n rows ("placement groups"), or its path.
func (g *GroupDiff) Name(n int) string {
	if g.Key != nil {
		return g.Key.plural(n)
	}
	if g.Table {
		if n == 1 {
			return "row"
		}
		return "rows"
	}
	return "statistics"
}

// Summary is one line about the group: its rows, the new and removed ones
// and the statistics that differ.
func (g *GroupDiff) Summary() string {
	var parts []string
	if len(g.Added) > 0 {
		parts = append(parts, fmt.Sprintf("%d new %s", len(g.Added), g.Name(len(g.Added))))
	}
	if len(g.Removed) > 0 {
		parts = append(parts, fmt.Sprintf("%d removed %s", len(g.Removed), g.Name(len(g.Removed))))
	}
	if n := len(g.Diffs); n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s differ", n, g.Compared, plural(g.Compared, "statistic")))
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d %s within tolerance", g.Compared, plural(g.Compared, "statistic")))
	}
	s := strings.Join(parts, ", ")
	if g.Table {
		rows := fmt.Sprintf("%d rows", g.NewRows)
		if g.OldRows != g.NewRows {
			rows = fmt.Sprintf("%d -> %d rows", g.OldRows, g.NewRows)
		}
		if g.Key == nil || g.Key.PerObservation {
			rows += " (per observation)"
		}
		s = rows + ": " + s
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// Drift reports whether anything differs beyond tolerance.
func (c *Comparison) Drift() bool {
	for _, g := range c.Groups {
		if g.Drift() {
			return true
		}
	}
	return false
}

// Diffs returns every difference in report order, new and removed rows
// included (as Diffs with an empty Old or New).
func (c *Comparison) Diffs() []Diff {
	var out []Diff
	for _, g := range c.Groups {
		for _, r := range g.Removed {
			out = append(out, Diff{Path: r.Path, Old: r.Key, Rel: math.NaN(), Row: true})
		}
		for _, r := range g.Added {
			out = append(out, Diff{Path: r.Path, New: r.Key, Rel: math.NaN(), Row: true})
		}
		out = append(out, g.Diffs...)
	}
	return out
}

// current decodes the result document of this run and checks it is of the
// baseline's kind; verb names what the caller does with it, for the error.
func (b *Baseline) current(doc []byte, verb string) ([]section, error) {
	var v any
	if err := decodeJSON(doc, &v); err != nil {
		return nil, fmt.Errorf("new result: %w", err)
	}
	kind, secs, err := normalise(v)
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
// their documented keys (TableKeys); per-observation tables are compared
// by row count.
func (b *Baseline) Compare(current []byte, o CompareOptions) (*Comparison, error) {
	secs, err := b.current(current, "compare")
	if err != nil {
		return nil, err
	}
	c := &comparer{tols: b.Tolerances, def: Tolerance{Rel: o.Tolerance, floor: true}, hash: o.ContentHash,
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
		if oi, oj := tableOrder(gi.Path), tableOrder(gj.Path); oi != oj {
			return oi < oj
		}
		return gi.Path < gj.Path
	})
	return cmp, nil
}

// CompareBaseline compares two documents with the default relative
// tolerance tol and no tolerances of its own beyond the baseline's; it
// returns every difference (see Comparison.Diffs).
func CompareBaseline(old, new []byte, tol float64) ([]Diff, error) {
	b, err := ParseBaseline(old)
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
		g = &GroupDiff{Path: glob, Key: tableKey(glob), Table: table}
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
	for _, k := range sortedKeys(names) {
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
