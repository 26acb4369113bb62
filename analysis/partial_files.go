package analysis

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// IsPartialFile reports whether path names a regular file whose first
// byte that is not white space is '{': a JSON document, as partial files
// are, never a recording (bags, MCAP and SQLite files start otherwise).
func IsPartialFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	var b [64]byte
	n, _ := io.ReadFull(f, b[:])
	s := bytes.TrimLeft(b[:n], " \t\r\n")
	return len(s) > 0 && s[0] == '{'
}

// ExpandPartials returns paths with each folder replaced by the *.json
// files in it, in name order; a folder without any is an error.
func ExpandPartials(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			out = append(out, p) // read (and refused) by MergePartialFiles
			continue
		}
		names, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("folder %s holds no partial file (*.json)", p)
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out, nil
}

// MergePartialFiles reads the partial files names (analyze --partial) and
// merges them, in that order, into accumulators of kinds with options o
// (MergePartials). It also returns the inputs the partials were made from,
// in order, and the earliest start (StartNs). A file that is not a
// partial of these kinds is an ErrPartial.
func MergePartialFiles(names []string, kinds []Kind, o Options) (*Accumulated, []Input, int64, error) {
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
