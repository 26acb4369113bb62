package baseline

import (
	"fmt"
	"strings"
)

// TableKey documents the identity of the rows of one table of a result
// document, as a baseline comparison matches them: rows of the baseline
// and of the new result with the same key are compared statistic by
// statistic; rows whose key is on one side only are reported once, as new
// or removed. Per-observation tables (one row per attempt, call,
// interval…) are compared by their number of rows (and, on request, a
// hash of their content), never row by row.
type TableKey struct {
	// Path locates the table's array in the result document, kind first,
	// "[*]" for the rows of an enclosing table ("placements.groups",
	// "placements.models[*].cluster_stats").
	Path string
	// Table is the name the table is exported under (--out), "" when the
	// rows are part of another table or not exported.
	Table string
	// Noun names one row ("placement group"); Nouns several ("" adds "s").
	Noun, Nouns string
	// Key lists the fields that identify a row, in the order row paths
	// show them. Empty for per-observation tables.
	Key []string
	// PerObservation marks tables compared by row count (and hash) only.
	PerObservation bool
}

// plural is the noun for n rows.
func (k *TableKey) plural(n int) string {
	if n == 1 {
		return k.Noun
	}
	if k.Nouns != "" {
		return k.Nouns
	}
	return k.Noun + "s"
}

// Keys are the documented keys of the tables a comparison knows, in the
// order reports list them: each analysis declares its own (analysis.Kind
// Keys), the dataset document has DatasetKeys. A table without a key is
// compared as a plain array.
type Keys []TableKey

// Text lists the keys as `baglab check --help` does: one line per table,
// its path and its key fields ("per observation: row count" for
// per-observation tables).
func (ks Keys) Text() string {
	var b strings.Builder
	for _, k := range ks {
		key := strings.Join(k.Key, ", ")
		if k.PerObservation {
			key = "per observation: row count"
		}
		fmt.Fprintf(&b, "  %-36s %s\n", k.Path, key)
	}
	return strings.TrimRight(b.String(), "\n")
}

// key returns the key of the table at the glob path p, nil when none is
// documented.
func (ks Keys) key(p string) *TableKey {
	for i := range ks {
		if ks[i].Path == p {
			return &ks[i]
		}
	}
	return nil
}

// order is the position of the group at glob path p in reports:
// documented tables in their order, the summary of a kind before its
// tables, anything else after.
func (ks Keys) order(p string) int {
	for i := range ks {
		if ks[i].Path == p {
			return 2*i + 1
		}
		if k, _, _ := strings.Cut(ks[i].Path, "."); k == p && !strings.Contains(p, "[") {
			return 2 * i
		}
	}
	return 2 * len(ks)
}
