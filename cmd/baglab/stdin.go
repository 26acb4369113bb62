package main

import (
	"io"
	"os"
	"slices"

	"github.com/baglab/baglab/recording"
	"golang.org/x/term"
)

// stdinFor is the reader behind the path "-" among files: stdin, unless it
// is a terminal, where reading a recording would wait for one forever.
func (g *globalOptions) stdinFor(files []string) (io.Reader, error) {
	if !slices.Contains(files, recording.Stdin) {
		return nil, nil
	}
	if f, ok := g.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return nil, usageErrorf("- reads a recording from stdin, which is a terminal: pipe one in (baglab cat - < demo/data/study.bag)")
	}
	return g.stdin, nil
}
