// Package baseline compares a result document with a saved one, as
// `baglab check --baseline` does. A baseline is the JSON of `analyze
// --json` (an analysis result) or `info --json` (a dataset), optionally
// with a "baseline" member holding the tolerances and comments of its
// owner (see Baseline).
//
// The package knows JSON, not analyses: the rows of a table are matched
// by the keys the caller gives (Keys: each analysis declares its tables'
// keys, analysis.Kind.Keys; DatasetKeys those of a dataset document), and
// per-observation tables are compared by their row count.
//
// Parse and Read read a baseline; Baseline.Compare gives a Comparison,
// which writes itself as text, Markdown and JUnit XML; Baseline.Update
// rewrites the file from a new result keeping its tolerances and
// comments; Baseline.Check does all of it as `baglab check` does.
package baseline
