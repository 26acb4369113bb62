package analysis

import "os"

// MergePartialFiles reads the partial files names (analyze --partial) and
// merges them, in that order, into accumulators of kinds with options o
// (MergePartials). It also returns the inputs the partials were made from,
// in order, and the earliest start (StartNs). A file that is not a
// partial of these kinds is an ErrPartial.
func MergePartialFiles(names []string, kinds []string, o Options) (*Accumulated, []Input, int64, error) {
	var ps []*PartialFile
	var inputs []Input
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
