package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/plot"
	"github.com/baglab/baglab/analysis/tabular"
	"github.com/baglab/baglab/internal/atomicfile"
)

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
