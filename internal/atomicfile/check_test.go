package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bag")
	file := filepath.Join(dir, "afile")
	sub := filepath.Join(dir, "sub")
	for _, p := range []string{in, file} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.bag")
	if err := os.Link(in, link); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "sym.bag")
	if err := os.Symlink("in.bag", sym); err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(cwd, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		path   string
		force  bool
		inputs []string
		err    error  // nil: no error
		dir    string // CheckError.Dir
	}{
		{"new file", filepath.Join(dir, "out.bag"), false, []string{in}, nil, ""},
		{"in missing folders", filepath.Join(dir, "a", "b", "out.bag"), false, nil, nil, ""},
		{"the input, spelled relative", rel, true, []string{in}, ErrInput, ""},
		{"a hard link to the input", link, true, []string{filepath.Join(dir, "none"), in}, ErrInput, ""},
		{"the input through a symlink", in, true, []string{sym}, ErrInput, ""},
		{"exists", in, false, nil, fs.ErrExist, ""},
		{"exists, force", in, true, []string{filepath.Join(dir, "out.bag")}, nil, ""},
		{"a directory", sub, true, nil, ErrIsDir, ""},
		{"under a file", filepath.Join(file, "out.bag"), false, nil, ErrNotDir, file},
		{"deep under a file", filepath.Join(file, "x", "out.bag"), false, nil, ErrNotDir, file},
	} {
		err := CheckFile(c.path, c.force, c.inputs)
		if c.err == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var ce *CheckError
		if !errors.As(err, &ce) || !errors.Is(err, c.err) || ce.Path != c.path || ce.Dir != c.dir {
			t.Errorf("%s: %#v, want %v on %s (dir %q)", c.name, err, c.err, c.path, c.dir)
		}
	}
	if got := CheckFile(in, false, nil).Error(); got != in+": file already exists" {
		t.Errorf("exists: %q", got)
	}
	if got := CheckFile(filepath.Join(file, "out.bag"), false, nil).Error(); got != file+": not a directory" {
		t.Errorf("under a file: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("the checks created or removed something: %v", entries)
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		err        error
		dir        string
	}{
		{"existing", dir, nil, ""},
		{"to make", filepath.Join(dir, "a", "b"), nil, ""},
		{"a file", file, ErrNotDir, ""},
		{"a file, trailing slash", file + "/", ErrNotDir, file},
		{"under a file", filepath.Join(file, "x"), ErrNotDir, file},
	} {
		err := CheckDir(c.path)
		var ce *CheckError
		switch {
		case c.err == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != nil && (!errors.As(err, &ce) || !errors.Is(err, c.err) || ce.Path != c.path || ce.Dir != c.dir):
			t.Errorf("%s: %#v, want %v on %s (dir %q)", c.name, err, c.err, c.path, c.dir)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckDir made a directory: %v", err)
	}
}

// A directory without write permission fails the access check. Root may
// write anywhere, so only other users see it.
func TestCheckReadOnlyDir(t *testing.T) {
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	err := CheckFile(filepath.Join(ro, "sub", "out.bag"), false, nil)
	if os.Geteuid() == 0 {
		if err != nil {
			t.Errorf("root: %v", err)
		}
		return
	}
	var ce *CheckError
	if !errors.As(err, &ce) || !errors.Is(err, fs.ErrPermission) || ce.Dir != ro {
		t.Errorf("%#v, want permission denied on %s", err, ro)
	}
}
