package recording

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/baglab/baglab/internal/fserr"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/remote"
)

// InputError is an input that cannot be opened at all: it does not exist,
// may not be read, or is a folder where a file is expected. Damage inside a
// readable input is a *record.Error instead.
type InputError struct {
	Path string
	Err  error
}

// ErrNoRecordings is the cause of an InputError for a folder (or an object
// storage prefix) that holds nothing baglab reads: there is no input to
// open, as with a path that does not exist.
var ErrNoRecordings = errors.New("a folder with no recordings in it (.bag, .mcap or .db3 files, or rosbag2 folders)")

func (e *InputError) Error() string { return fmt.Sprintf("input %s: %v", e.Path, e.Err) }

// Unwrap returns the cause (often an fs error).
func (e *InputError) Unwrap() error { return e.Err }

// splitName matches the numbered split files rosbag2 writes: NAME_N.mcap or
// NAME_N.db3 (an ending isSplitExt accepts).
var splitName = regexp.MustCompile(`^(.*)_([0-9]+)\.([a-z0-9]+)$`)

// Expand turns the paths a user names into recordings. A file is one
// recording. A rosbag2 folder — one with a metadata.yaml, or one holding
// only the numbered splits of one recording (NAME_0.mcap, NAME_1.mcap ...,
// or .db3) — is one recording. Any other folder stands for the recordings
// in it: its .bag, .bag.active, .mcap and .db3 files and its rosbag2
// sub-folders, each a separate recording, in name order. A folder with
// none of these is an error, as is a path that does not exist (an
// *InputError).
func Expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if remote.IsURL(p) {
			found, err := expandURL(p)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, &InputError{Path: p, Err: fserr.Cause(err)}
		}
		if !st.IsDir() || IsBag2Folder(p) {
			out = append(out, p)
			continue
		}
		found, _, err := folderRecordings(p)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, &InputError{Path: p, Err: ErrNoRecordings}
		}
		out = append(out, found...)
	}
	return out, nil
}

// expandInputs is Expand leaving the path "-" to standard input when
// stdin is given.
func expandInputs(paths []string, stdin bool) ([]string, error) {
	if !stdin {
		return Expand(paths)
	}
	var out []string
	for _, p := range paths {
		if p == Stdin {
			out = append(out, p)
			continue
		}
		e, err := Expand([]string{p})
		if err != nil {
			return nil, err
		}
		out = append(out, e...)
	}
	return out, nil
}

// folderRecordings lists the recordings directly in a plain folder, and
// the names of the other entries it leaves out (sub-folders that are no
// rosbag2 recording, other files; hidden ones are not named).
func folderRecordings(dir string) (found, leftOut []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, &InputError{Path: dir, Err: fserr.Cause(err)}
	}
	for _, e := range entries { // ReadDir sorts by name
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() || e.Type()&os.ModeSymlink != 0 && isDirPath(p):
			if IsBag2Folder(p) {
				found = append(found, p)
				continue
			}
		case recordingExt(e.Name()):
			found = append(found, p)
			continue
		}
		if !strings.HasPrefix(e.Name(), ".") {
			leftOut = append(leftOut, e.Name())
		}
	}
	return found, leftOut, nil
}

// FolderNote says which entries of the plain folder dir a reading leaves
// out, or "" when there are none (or dir is no such folder).
func FolderNote(dir string) string {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() || IsBag2Folder(dir) {
		return ""
	}
	_, left, err := folderRecordings(dir)
	if err != nil || len(left) == 0 {
		return ""
	}
	const most = 5
	names := left
	if len(names) > most {
		names = append(names[:most:most], fmt.Sprintf("and %d more", len(left)-most))
	}
	return fmt.Sprintf("%s: left out %d entries that are not recordings (sub-folders are not searched): %s", dir, len(left), strings.Join(names, ", "))
}

func isDirPath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// folderMetadata is the metadata.yaml of the rosbag2 folder at path; nil
// when path is no folder holding one, or it does not parse (a reading of
// the folder says why).
func folderMetadata(path string) *db3.Bag2Metadata {
	if !isDirPath(path) {
		return nil
	}
	m, err := db3.ReadBag2Metadata(path)
	if err != nil {
		return nil
	}
	return m
}

// IsBag2Folder reports whether dir is one rosbag2 recording: it has a
// metadata.yaml, or every recording file in it is a numbered split
// (NAME_N.mcap or NAME_N.db3) of one NAME and one storage format.
func IsBag2Folder(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "metadata.yaml")); err == nil {
		return true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return isBag2Names(names)
}

// isBag2Names reports whether the files of a folder, by name, make one
// rosbag2 recording (see IsBag2Folder).
func isBag2Names(names []string) bool {
	name, ext, n := "", "", 0
	for _, f := range names {
		if f == "metadata.yaml" {
			return true
		}
		if !recordingExt(f) {
			continue
		}
		m := splitName.FindStringSubmatch(f)
		if m == nil || !isSplitExt(m[3]) || (n > 0 && (m[1] != name || m[3] != ext)) {
			return false
		}
		name, ext = m[1], m[3]
		n++
	}
	return n > 0
}

// bag2Splits lists the split files of a rosbag2 folder without
// metadata.yaml in split order (NAME_0, NAME_1, ... NAME_10).
func bag2Splits(dir, ext string) []string {
	matches, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
	for i, m := range matches {
		matches[i] = filepath.Base(m)
	}
	return orderSplits(matches, ext)
}

// orderSplits returns the names among names that end in ext, in split
// order (NAME_0, NAME_1, ... NAME_10), after those that are no numbered
// split, by name.
func orderSplits(names []string, ext string) []string {
	type split struct {
		name string
		n    int
	}
	var splits []split
	for _, base := range names {
		if !strings.HasSuffix(base, ext) {
			continue
		}
		n := -1
		if s := splitName.FindStringSubmatch(base); s != nil {
			fmt.Sscan(s[2], &n)
		}
		splits = append(splits, split{base, n})
	}
	sort.SliceStable(splits, func(i, j int) bool {
		if splits[i].n != splits[j].n {
			return splits[i].n < splits[j].n
		}
		return splits[i].name < splits[j].name
	})
	out := make([]string, len(splits))
	for i, s := range splits {
		out[i] = s.name
	}
	return out
}
