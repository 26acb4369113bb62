package analysis

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

// placementKey identifies a placement group.
var placementKey = []string{"item", "room", "surface", "reference_frame_id"}

// tableKeys is the documented key of every table of every result kind,
// and of the dataset documents `info --json` prints. A new table is one
// entry here (TestEveryTableHasAKey fails until it has one).
var tableKeys = []TableKey{
	{Path: "placements.groups", Table: "placement_groups", Noun: "placement group", Key: placementKey},
	{Path: "placements.frame_ranking", Table: "frame_ranking", Noun: "frame ranking", Key: placementKey},
	{Path: "placements.models", Table: "models", Noun: "placement model", Key: placementKey},
	{Path: "placements.models[*].cluster_stats", Table: "model_clusters", Noun: "model cluster", Key: []string{"index"}},
	{Path: "placements.recorded_models", Table: "recorded_models", Noun: "recorded model",
		Key: append([]string{"topic", "log_time_ns"}, placementKey...)},

	{Path: "grasps.grasps", Table: "grasps", Noun: "grasp", Key: []string{"model_id", "grasp_id"}},
	{Path: "grasps.models", Table: "grasp_models", Noun: "grasp model", Key: []string{"model_id"}},
	{Path: "grasps.objects", Table: "grasp_objects", Noun: "grasped object", Key: []string{"object_name"}},
	{Path: "grasps.attempts", Table: "attempts", Noun: "grasp attempt", PerObservation: true},
	{Path: "grasps.attempt_rates", Table: "attempt_rates", Noun: "attempt rate", Key: []string{"object_name", "source"}},
	{Path: "grasps.learning_curve", Table: "learning_curve", Noun: "learning-curve window", Key: []string{"object_name", "source", "window"}},

	{Path: "facts.facts", Table: "facts", Noun: "fact", Key: []string{"topic", "subject_id", "property", "target_id"}},
	{Path: "facts.intervals", Table: "fact_intervals", Noun: "fact interval", PerObservation: true},

	{Path: "map.degree_histogram", Table: "degree_histogram", Noun: "degree", Key: []string{"degree"}},
	{Path: "map.vertex_list", Table: "map_nodes", Noun: "map vertex", Nouns: "map vertices", PerObservation: true},
	{Path: "map.edge_list", Table: "map_edges", Noun: "map edge", PerObservation: true},
	{Path: "map.crossings", Table: "crossings", Noun: "crossing", Key: []string{"topic", "log_time_ns"}},
	{Path: "map.place_profiles", Table: "place_profiles", Noun: "place profile", Key: []string{"topic", "log_time_ns"}},

	{Path: "queries.by_id", Table: "queries_by_id", Noun: "query id", Key: []string{"id"}},
	{Path: "queries.by_pattern", Table: "queries_by_pattern", Noun: "query pattern", Key: []string{"pattern"}},
	{Path: "queries.errors", Table: "query_errors", Noun: "query error", Key: []string{"error_msg"}},
	{Path: "queries.calls", Table: "queries", Noun: "query call", PerObservation: true},

	{Path: "files", Noun: "file", Key: []string{"path"}},
	{Path: "files[*].topics", Noun: "topic", Key: []string{"topic"}},
	{Path: "files[*].metadata", Noun: "metadata record", Key: []string{"name"}},
	{Path: "files[*].attachments", Noun: "attachment", Key: []string{"name", "log_time_ns"}},
}

// TableKeys returns the documented keys of every table a baseline
// compares, in the order reports list them.
func TableKeys() []TableKey {
	out := make([]TableKey, len(tableKeys))
	copy(out, tableKeys)
	return out
}

// TableKeysText lists the table keys as `baglab check --help` does: one
// line per table, its path and its key fields ("per observation: row
// count" for per-observation tables).
func TableKeysText() string {
	var b strings.Builder
	for _, k := range tableKeys {
		key := strings.Join(k.Key, ", ")
		if k.PerObservation {
			key = "per observation: row count"
		}
		fmt.Fprintf(&b, "  %-36s %s\n", k.Path, key)
	}
	return strings.TrimRight(b.String(), "\n")
}

// tableKey returns the key of the table at the glob path p, nil when none
// is documented.
func tableKey(p string) *TableKey {
	for i := range tableKeys {
		if tableKeys[i].Path == p {
			return &tableKeys[i]
		}
	}
	return nil
}

// tableOrder is the position of the group at glob path p in reports:
// documented tables in their order, the summary of a kind before its
// tables, anything else after.
func tableOrder(p string) int {
	for i := range tableKeys {
		if tableKeys[i].Path == p {
			return 2*i + 1
		}
		if k, _, _ := strings.Cut(tableKeys[i].Path, "."); k == p && !strings.Contains(p, "[") {
			return 2 * i
		}
	}
	return 2 * len(tableKeys)
}
