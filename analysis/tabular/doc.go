// Package tabular writes the tidy tables of analysis results as CSV
// (encoding/csv) and Parquet (Apache Arrow pqarrow) files, each written
// under a temporary name in the target directory and renamed into place.
package tabular
