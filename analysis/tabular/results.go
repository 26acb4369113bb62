package tabular

import "github.com/baglab/baglab/analysis"

// WriteResults writes every table of results into dir as
// DIR/<table>.parquet and DIR/<table>.csv, and returns the number of
// tables written.
func WriteResults(dir string, results []analysis.Result) (int, error) {
	n := 0
	for _, r := range results {
		for _, t := range r.Tables() {
			if err := ParquetDir(dir).WriteTable(t); err != nil {
				return n, err
			}
			if err := CSVDir(dir).WriteTable(t); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
