package analysis

import (
	"os"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/internal/digest"
)

// MergePartialFiles reads the partial files names (analyze --partial) and
// merges them, in that order, into accumulators of kinds with options o
// (MergePartials). It also returns the inputs the partials were made from,
// in order, and the earliest start (StartNs). A file that is not a
// partial of these kinds is an ErrPartial.
func MergePartialFiles(names []string, kinds []string, o Options) (*Accumulated, []PartialInput, int64, error) {
	var ps []*PartialFile
	var inputs []PartialInput
	for _, name := range names {
		r, err := os.Open(name)
		if err != nil {
			return nil, nil, 0, err
		}
		p, err := ReadPartial(r, name)
		r.Close()
		if err != nil {
			return nil, nil, 0, err
		}
		ps = append(ps, p)
		inputs = append(inputs, p.Inputs...)
	}
	acc, err := MergePartials(ps, names, kinds, o)
	if err != nil {
		return nil, nil, 0, err
	}
	return acc, inputs, StartNs(ps), nil
}

// DescribeInputs returns what a partial file records of each input of in:
// its path, size and SHA-256 (internal/digest), and from its summary its
// format, time range and message count.
func DescribeInputs(in *decode.Inputs) ([]PartialInput, error) {
	out := make([]PartialInput, in.Len())
	for i, p := range in.Paths() {
		d, err := digest.Of(p)
		if err != nil {
			return nil, err
		}
		out[i] = PartialInput{Path: p, Size: d.Size, SHA256: d.SHA256}
		if s := in.FileSummary(i); s != nil {
			out[i].Format, out[i].StartNs, out[i].EndNs, out[i].MessageCount = s.Format, s.StartNs, s.EndNs, s.MessageCount
		}
	}
	return out, nil
}
