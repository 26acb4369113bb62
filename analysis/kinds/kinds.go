// Package kinds lists the analyses baglab runs, one row each, in the
// order the CLI shows them. A new analysis is its own package (its Kind
// declaring its tables' keys, its own flags and whether it reads messages
// as recorded), its figures' file in analysis/plot if it draws any, and
// one row here.
package kinds

import (
	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/plot"
	"github.com/baglab/baglab/analysis/topics"
	"github.com/baglab/baglab/baseline"
)

// row is one analysis: its Kind and the Builder of its figures (nil:
// none).
type row struct {
	kind    analysis.Kind
	figures plot.Builder
}

// rows are the analyses.
var rows = []row{
	{analysis.PlacementsKind, plot.For(plot.Placements)},
	{analysis.GraspsKind, plot.For(plot.Grasps)},
	{analysis.FactsKind, plot.For(plot.Facts)},
	{analysis.MapKind, plot.For(plot.Map)},
	{analysis.QueriesKind, plot.For(plot.Queries)},
	{topics.Kind, plot.For(plot.Topics)},
}

// All lists every analysis.
func All() []analysis.Kind {
	out := make([]analysis.Kind, len(rows))
	for i, r := range rows {
		out[i] = r.kind
	}
	return out
}

// Names lists the names of every analysis.
func Names() []string { return analysis.Names(All()) }

// Of expands an analysis kind: "all" names every one (analysis.Select).
func Of(kind string) ([]analysis.Kind, error) { return analysis.Select(All(), kind) }

// Help lists every analysis and then more (the CLI's "all") as help text
// (analysis.KindsHelp).
func Help(more ...analysis.Kind) string { return analysis.KindsHelp(append(All(), more...)...) }

// TableKeys are the keys of the tables of every analysis
// (analysis.TableKeys).
func TableKeys() baseline.Keys { return analysis.TableKeys(All()) }

// Figures draws the figures of results, in order: none for a result
// without data or of a kind without figures.
func Figures(results []analysis.Result, o plot.Options) []*plot.Figure {
	var out []*plot.Figure
	for _, r := range results {
		for _, row := range rows {
			if row.kind.Name == r.Kind() && row.figures != nil {
				out = append(out, row.figures(r, o)...)
			}
		}
	}
	return out
}
