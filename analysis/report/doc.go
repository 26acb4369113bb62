// Package report renders analysis results as one self-contained HTML page:
// the summary tables and the figures inlined as SVG, with no external
// resources.
package report
