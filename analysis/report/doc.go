// Package report renders analysis results as one self-contained HTML page
// that opens offline: a provenance block first (baglab version, command
// line, options, and each input's size, SHA-256, format, time range and
// message count), then per analysis its numbered, captioned tables (text
// left-aligned, numbers right-aligned with one precision per column,
// times in RFC 3339, long tables collapsed, columns sortable by a few
// lines of inline script) and its figures inlined as SVG. A page with
// nothing to report says so.
package report
