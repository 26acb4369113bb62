package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Diff is one difference between a baseline and a new result.
type Diff struct {
	// Path locates the value ("models[item=cup,room=kitchen,...].sigma_x").
	Path string
	// Old and New are the values as JSON text ("" when absent).
	Old, New string
	// Rel is the relative change of a number (NaN for other values).
	Rel float64
}

func (d Diff) String() string {
	switch {
	case d.Old == "":
		return fmt.Sprintf("%s: added %s", d.Path, d.New)
	case d.New == "":
		return fmt.Sprintf("%s: removed (was %s)", d.Path, d.Old)
	case !math.IsNaN(d.Rel):
		return fmt.Sprintf("%s: %s -> %s (%+.3g%%)", d.Path, d.Old, d.New, d.Rel*100)
	}
	return fmt.Sprintf("%s: %s -> %s", d.Path, d.Old, d.New)
}

// CompareBaseline compares two `analyze --json` documents. Numbers may move
// by a relative tolerance tol (|new-old| <= tol*max(|old|,|new|), with an
// absolute floor of 1e-12); strings, booleans, NaN and infinities must be
// equal. Arrays of objects are matched by identity (their string fields and
// their id fields) when that identity is unique, otherwise by position.
func CompareBaseline(old, new []byte, tol float64) ([]Diff, error) {
	var a, b any
	if err := decodeJSON(old, &a); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if err := decodeJSON(new, &b); err != nil {
		return nil, fmt.Errorf("new result: %w", err)
	}
	ka, kb := kindOf(a), kindOf(b)
	if ka == "" {
		return nil, fmt.Errorf("baseline: not an analysis result (no \"kind\"); make one with analyze --json")
	}
	if ka != kb {
		return nil, fmt.Errorf("baseline is a %q result, this run is %q: compare results of the same kind", ka, kb)
	}
	var diffs []Diff
	compareJSON("", a, b, tol, &diffs)
	return diffs, nil
}

// kindOf is the "kind" field of a result document, "" when it has none.
func kindOf(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	k, _ := m["kind"].(string)
	return k
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

func compareJSON(path string, a, b any, tol float64, out *[]Diff) {
	add := func(rel float64) {
		*out = append(*out, Diff{Path: path, Old: jsonText(a), New: jsonText(b), Rel: rel})
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			add(math.NaN())
			return
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			va, inA := x[k]
			vb, inB := y[k]
			switch {
			case !inA:
				*out = append(*out, Diff{Path: p, New: jsonText(vb), Rel: math.NaN()})
			case !inB:
				*out = append(*out, Diff{Path: p, Old: jsonText(va), Rel: math.NaN()})
			default:
				compareJSON(p, va, vb, tol, out)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			add(math.NaN())
			return
		}
		compareArrays(path, x, y, tol, out)
	case json.Number:
		fa, _ := x.Float64()
		if y, ok := b.(json.Number); ok {
			if x == y {
				return // the same text (also for numbers beyond float64)
			}
			fb, _ := y.Float64()
			if !within(fa, fb, tol) {
				add(relChange(fa, fb))
			}
			return
		}
		add(math.NaN())
	default:
		fa, sa := special(a)
		fb, sb := special(b)
		if sa && sb {
			if !(math.IsNaN(fa) && math.IsNaN(fb)) && fa != fb {
				add(math.NaN())
			}
			return
		}
		if jsonText(a) != jsonText(b) {
			add(math.NaN())
		}
	}
}

func within(a, b, tol float64) bool {
	d := math.Abs(a - b)
	return d <= 1e-12 || d <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func relChange(a, b float64) float64 {
	if a == 0 {
		return math.Inf(1)
	}
	return (b - a) / math.Abs(a)
}

// identity names an array element: its string fields and integer id
// fields, in key order.
func identity(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	keys := make([]string, 0, len(m))
	for k, e := range m {
		switch e.(type) {
		case string:
			if _, sp := special(e); !sp {
				keys = append(keys, k)
			}
		case json.Number:
			if k == "id" || strings.HasSuffix(k, "_id") || k == "window" || k == "index" || k == "degree" || k == "sequence_number" {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return "", false
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strings.Trim(jsonText(m[k]), `"`)
	}
	return strings.Join(parts, ","), true
}

func compareArrays(path string, a, b []any, tol float64, out *[]Diff) {
	ia, okA := identities(a)
	ib, okB := identities(b)
	if okA && okB {
		for _, k := range sortedKeys(unionKeys(ia, ib)) {
			p := path + "[" + k + "]"
			va, inA := ia[k]
			vb, inB := ib[k]
			switch {
			case !inA:
				*out = append(*out, Diff{Path: p, New: jsonText(vb), Rel: math.NaN()})
			case !inB:
				*out = append(*out, Diff{Path: p, Old: jsonText(va), Rel: math.NaN()})
			default:
				compareJSON(p, va, vb, tol, out)
			}
		}
		return
	}
	n := max(len(a), len(b))
	for i := 0; i < n; i++ {
		p := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case i >= len(a):
			*out = append(*out, Diff{Path: p, New: jsonText(b[i]), Rel: math.NaN()})
		case i >= len(b):
			*out = append(*out, Diff{Path: p, Old: jsonText(a[i]), Rel: math.NaN()})
		default:
			compareJSON(p, a[i], b[i], tol, out)
		}
	}
}

func identities(l []any) (map[string]any, bool) {
	if len(l) == 0 {
		return map[string]any{}, true
	}
	m := make(map[string]any, len(l))
	for _, v := range l {
		id, ok := identity(v)
		if !ok {
			return nil, false
		}
		if _, dup := m[id]; dup {
			return nil, false
		}
		m[id] = v
	}
	return m, true
}

func unionKeys(a, b map[string]any) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}
