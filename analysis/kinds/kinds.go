// Package kinds lists the analyses baglab runs, one row each, in the
// order the CLI shows them. A new analysis is its own package (its Kind
// declaring its tables' keys, its own flags and whether it reads messages
// as recorded) and one row here.
package kinds

import (
	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/topics"
	"github.com/baglab/baglab/baseline"
)

// all holds the rows.
var all = []analysis.Kind{
	analysis.PlacementsKind,
	analysis.GraspsKind,
	analysis.FactsKind,
	analysis.MapKind,
	analysis.QueriesKind,
	topics.Kind,
}

// All lists every analysis.
func All() []analysis.Kind { return append([]analysis.Kind(nil), all...) }

// Names lists the names of every analysis.
func Names() []string { return analysis.Names(all) }

// Of expands an analysis kind: "all" names every one (analysis.Select).
func Of(kind string) ([]analysis.Kind, error) { return analysis.Select(All(), kind) }

// Help lists every analysis and then more (the CLI's "all") as help text
// (analysis.KindsHelp).
func Help(more ...analysis.Kind) string { return analysis.KindsHelp(append(All(), more...)...) }

// TableKeys are the keys of the tables of every analysis
// (analysis.TableKeys).
func TableKeys() baseline.Keys { return analysis.TableKeys(all) }
