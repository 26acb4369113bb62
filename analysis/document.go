package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Document is the JSON of results that `analyze --json` prints and a
// baseline stores: the result itself for one kind; for "all",
// {"kind":"all","<kind>":{...},...} in the order of results. It is
// indented and ends in a newline.
func Document(kind string, results []Result) ([]byte, error) {
	var raw bytes.Buffer
	if kind == "all" {
		raw.WriteString(`{"kind":"all"`)
		for _, r := range results {
			b, err := json.Marshal(r)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&raw, ",%q:", r.Kind())
			raw.Write(b)
		}
		raw.WriteString("}")
	} else {
		if len(results) != 1 {
			return nil, fmt.Errorf("%w: a %s document holds one result, not %d", ErrKind, kind, len(results))
		}
		b, err := json.Marshal(results[0])
		if err != nil {
			return nil, err
		}
		raw.Write(b)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// WriteText prints each result's summary line ("# kind: summary") and its
// tables that have rows, per-observation (Detail) tables left out; wide
// prints every column.
func WriteText(w io.Writer, results []Result, wide bool) error {
	var b bytes.Buffer
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s: %s\n", r.Kind(), r.Summary())
		for _, t := range r.Tables() {
			if t.Detail || len(t.Rows) == 0 {
				continue
			}
			b.WriteString("\n")
			if err := t.WriteText(&b, wide); err != nil {
				return err
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
