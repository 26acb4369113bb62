package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
)

// ErrNotBaseline is returned for a document that is neither an analysis
// result nor a dataset summary.
var ErrNotBaseline = errors.New("not a baseline (make one with analyze --json or info --json)")

// Parse parses a baseline file.
func Parse(data []byte, keys Keys) (*Baseline, error) {
	clean := stripComments(data)
	var doc any
	if err := decodeJSON(clean, &doc); err != nil {
		return nil, err
	}
	b := &Baseline{keys: keys, raw: data}
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
	if b.Kind, b.sections, err = normalise(doc, keys); err != nil {
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
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
func normalise(doc any, keys Keys) (string, []section, error) {
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
				oi, oj := keys.order(secs[i].name), keys.order(secs[j].name)
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
