package recording

import (
	"context"
	"errors"
)

// DescribeEach describes the recordings args name, in order: each arg is
// expanded on its own (Expand: a folder that is not one recording stands
// for the recordings in it), and an arg that does not expand is described
// as given, so that Describe says what is wrong with it. A recording that
// cannot be described goes to fail and the others are still described;
// DescribeEach stops early only when ctx ends, with ctx's error. paths
// lists every recording tried, described or not, in order. o.Remote, when
// set, reads the URLs among args.
func DescribeEach(ctx context.Context, args []string, o OpenOptions, fail func(path string, err error)) (descs []*Description, paths []string, err error) {
	for _, arg := range args {
		expanded, err := Expand([]string{arg})
		if err != nil {
			expanded = []string{arg}
		}
		paths = append(paths, expanded...)
	}
	for _, path := range paths {
		d, err := DescribeWith(path, o)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			fail(path, err)
			continue
		}
		descs = append(descs, d)
	}
	return descs, paths, nil
}

// CheckEach checks the recordings files name (Expand: a folder stands for
// the recordings in it), in order, with o, and hands visit each one's
// problems (FileProblems) or the error that kept it from being read at
// all. It stops when files do not expand, at the first error visit
// returns, and when ctx ends (the check's error).
func CheckEach(ctx context.Context, files []string, o CheckOptions, visit func(file string, probs []FileProblem, err error) error) error {
	paths, err := Expand(files)
	if err != nil {
		return err
	}
	for _, file := range paths {
		ps, err := Check(ctx, file, o)
		if err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil) {
			return err
		}
		var probs []FileProblem
		if err == nil {
			probs = FileProblems(file, ps)
		}
		if err := visit(file, probs, err); err != nil {
			return err
		}
	}
	return nil
}
