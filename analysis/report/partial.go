package report

import "github.com/baglab/baglab/analysis"

// PartialInputs are the inputs partial files were made from
// (analysis.PartialInput), as the provenance block lists them.
func PartialInputs(in []analysis.PartialInput) []Input {
	out := make([]Input, len(in))
	for i, p := range in {
		out[i] = Input{Path: p.Path, Format: p.Format, Size: p.Size, SHA256: p.SHA256, StartNs: p.StartNs, EndNs: p.EndNs, Messages: p.MessageCount}
	}
	return out
}
