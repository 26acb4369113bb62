package studytest

import (
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
)

// Dir generates the study o describes with the default registry, writes
// it in every format into a new temporary directory of tb
// (studygen.WriteAll) and returns that directory; a failure ends the test.
func Dir(tb testing.TB, o studygen.Options) string {
	tb.Helper()
	s, err := studygen.Generate(msgdef.Default(), o)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if _, err := studygen.WriteAll(dir, s); err != nil {
		tb.Fatal(err)
	}
	return dir
}
