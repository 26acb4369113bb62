package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/plot"
	"github.com/baglab/baglab/analysis/tabular"
	"github.com/baglab/baglab/internal/atomicfile"
)

// resultJSON is the --json document: the result itself for one kind; for
// all, {"kind":"all","<kind>":{...},...} in the order of analysis.Kinds.
func resultJSON(kind string, results []analysis.Result) ([]byte, error) {
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

// writeResultsText prints each result's headline and its tables.
func writeResultsText(w io.Writer, results []analysis.Result, wide bool) error {
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

// writeTables writes every table of results as Parquet and CSV.
func writeTables(dir string, results []analysis.Result) (int, error) {
	n := 0
	for _, r := range results {
		for _, t := range r.Tables() {
			if err := tabular.ParquetDir(dir).WriteTable(t); err != nil {
				return n, err
			}
			if err := tabular.CSVDir(dir).WriteTable(t); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// writePlots writes every figure of results as SVG and as PNG at dpi.
func writePlots(dir string, results []analysis.Result, po plot.Options, dpi float64) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range results {
		for _, f := range plot.Figures(r, po) {
			for _, format := range []string{"png", "svg"} {
				path := filepath.Join(dir, f.Name+"."+format)
				if err := atomicfile.Write(path, func(w io.Writer) error { return f.Render(w, format, dpi) }); err != nil {
					return n, err
				}
			}
			n++
		}
	}
	return n, nil
}
