package analysis_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/studygen/studytest"
)

// FuzzMergePartial feeds damaged and hostile partial files (--from-partial
// reads files written anywhere) through ReadPartial, the merge of every
// kind's state and the results: each either fails with an error or gives
// a result, and never panics. The placement learner is left out (its
// cross-validated EM takes seconds per input, which leaves a fuzzer no
// executions); the statistics and every state decoder run. The seed is
// the partial of a small generated study, every kind with data.
func FuzzMergePartial(f *testing.F) {
	dir := studytest.Dir(f, studygen.Options{Seed: 3, Sessions: 2})
	paths := []string{filepath.Join(dir, "study.bag"), filepath.Join(dir, "queries.mcap")}
	f.Add(partialJSON(f, paths))
	f.Add([]byte(`{"format":"baglab.analysis.partial","version":1,"kinds":{}}`))
	args := analysis.DefaultArgs()
	args.NoLearn = true
	opts, err := args.Options(kinds.All())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := analysis.ReadPartial(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		acc, err := analysis.MergePartials([]*analysis.PartialFile{p, p}, []string{"a", "b"}, kinds.All(), opts)
		if err != nil {
			return
		}
		if _, err := acc.Outcome(); err != nil {
			return
		}
	})
}
