package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.txt")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "hello" {
		t.Fatalf("%q, %v", b, err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// A failing writer leaves neither the file nor its temporary.
	bad := filepath.Join(dir, "bad.txt")
	boom := errors.New("boom")
	if err := Write(bad, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "sub" {
		t.Errorf("left %v", entries)
	}
}

func TestAbortAndCommitOnce(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("data")
	f.Abort()
	f.Abort()
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("abort left %v", entries)
	}
}

// TestModeFollowsUmask: outputs get os.Create's mode, 0644 under umask
// 022, never CreateTemp's 0600.
func TestModeFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	want := 0o666 &^ umask
	if umask == 0o022 {
		want = 0o644
	}
	if st.Mode().Perm() != want {
		t.Errorf("mode %v, want %v (umask %03o)", st.Mode().Perm(), want, umask)
	}
	d, err := CreateDir(filepath.Join(dir, "folder"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "folder")); err != nil || st.Mode().Perm() != 0o777&^umask {
		t.Errorf("folder: %v %v", st, err)
	}
}

// TestCleanup removes the temporaries still being written, and nothing
// else; their commit then fails.
func TestCleanup(t *testing.T) {
	dir := t.TempDir()
	done, err := Create(filepath.Join(dir, "done"))
	if err != nil {
		t.Fatal(err)
	}
	done.Commit()
	open, err := Create(filepath.Join(dir, "open"))
	if err != nil {
		t.Fatal(err)
	}
	open.WriteString("half")
	folder, err := CreateDir(filepath.Join(dir, "folder"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(folder.Name(), "a.db3"), []byte("x"), 0o644)
	Cleanup()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "done" {
		t.Errorf("left %v", entries)
	}
	if err := open.Commit(); err == nil {
		t.Error("commit after cleanup succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "open")); !os.IsNotExist(err) {
		t.Errorf("open: %v", err)
	}
}

// TestDirSet: directories made for outputs go again after a failure when
// they stayed empty.
func TestDirSet(t *testing.T) {
	dir := t.TempDir()
	var ds DirSet
	f, err := Create(filepath.Join(dir, "a", "b", "x.parquet"), WithDirs(&ds))
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	ds.RemoveEmpty()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	if _, err := Create(filepath.Join(dir, "file", "x"), WithDirs(&ds)); err == nil {
		t.Error("created under a file")
	}
}

// TestCloseAll: CloseAll closes the files (skipping one closed already)
// for Commit, which then renames them with their contents, and names a
// file whose close failed.
func TestCloseAll(t *testing.T) {
	dir := t.TempDir()
	var files []*File
	for _, name := range []string{"a", "b", "c"} {
		f, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("data " + name)
		files = append(files, f)
	}
	if err := files[2].Close(); err != nil {
		t.Fatal(err)
	}
	if err := CloseAll(files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !f.closed {
			t.Errorf("%s not closed", f.Path())
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(f.Path()); err != nil || string(b) != "data "+filepath.Base(f.Path()) {
			t.Errorf("%s: %q, %v", f.Path(), b, err)
		}
	}
	bad, err := Create(filepath.Join(dir, "bad"))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Abort()
	bad.File.Close() // closed underneath: its sync fails
	if err := CloseAll([]*File{bad}); err == nil || !strings.Contains(err.Error(), bad.Path()) {
		t.Errorf("CloseAll of a file whose sync fails: %v, want an error naming %s", err, bad.Path())
	}
	// Every file is closed whatever the others' closes return, and every
	// failure is reported, in list order.
	var mixed []*File
	for _, name := range []string{"bad1", "good", "bad2"} {
		f, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Abort()
		if name != "good" {
			f.File.Close()
		}
		mixed = append(mixed, f)
	}
	err = CloseAll(mixed)
	lines := strings.Split(fmt.Sprint(err), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "writing "+mixed[0].Path()+": ") || !strings.HasPrefix(lines[1], "writing "+mixed[2].Path()+": ") {
		t.Errorf("CloseAll of two failing files: %v, want both, in list order", err)
	}
	if !mixed[1].closed {
		t.Error("the file between two failing ones is not closed")
	}
}

// TestMkdirAllMode: MkdirAll and DirSet make folders, parents too, 0777
// less the umask (0775 under umask 002).
func TestMkdirAllMode(t *testing.T) {
	old := syscall.Umask(0o002)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := t.TempDir()
	var ds DirSet
	if err := MkdirAll(filepath.Join(dir, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if err := ds.MkdirAll(filepath.Join(dir, "c", "d")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a", "a/b", "c", "c/d"} {
		if st, err := os.Stat(filepath.Join(dir, d)); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != 0o775 {
			t.Errorf("%s: mode %v, want 0775", d, st.Mode().Perm())
		}
	}
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	if err := MkdirAll(filepath.Join(dir, "file", "x")); err == nil {
		t.Error("made a folder under a file")
	}
}

// TestCommitDirReplaces: a directory committed over an existing one
// replaces it whole (no file of the old one stays beside the new ones)
// and leaves nothing aside.
func TestCommitDirReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	for i, names := range [][]string{{"a", "b", "c"}, {"a"}} {
		d, err := CreateDir(path + "/") // as a user types a folder
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(d.Name(), n), []byte{byte(i)}, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(path)
	if len(ents) != 1 || ents[0].Name() != "a" {
		t.Errorf("after the second commit: %v, want only a", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(path, "a")); len(b) != 1 || b[0] != 1 {
		t.Errorf("a holds %v, want the second run's", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%s holds %v, want only out", dir, ents)
	}
}

// TestEveryWritePathKeepsItsBytes writes past several writeback hints
// through Write, WriteString and ReadFrom (io.Copy's path from a reader
// without WriteTo): the committed file holds every byte in order.
func TestEveryWritePathKeepsItsBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.bin")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	block := make([]byte, 3<<20+17)
	for i := range block {
		block[i] = byte(i * 7)
	}
	for i := range 4 {
		block[0] = byte(i)
		if _, err := f.Write(block); err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(string(block[:1<<20])); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, io.LimitReader(bytes.NewReader(block), 2<<20)); err != nil {
			t.Fatal(err)
		}
		want.Write(block)
		want.Write(block[:1<<20])
		want.Write(block[:2<<20])
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("file of %d bytes differs from the %d written", len(got), want.Len())
	}
}

// BenchmarkCommit writes 256 MiB in 1 MiB writes and commits it: the
// sync on closing waits only for what the writeback hints left.
func BenchmarkCommit(b *testing.B) {
	dir := b.TempDir()
	block := make([]byte, 1<<20)
	for i := range block {
		block[i] = byte(i)
	}
	b.SetBytes(256 << 20)
	for b.Loop() {
		f, err := Create(filepath.Join(dir, "out.bin"))
		if err != nil {
			b.Fatal(err)
		}
		for range 256 {
			if _, err := f.Write(block); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSynced: a File syncs on Close unless Synced(false); a Dir syncs
// every file it holds and itself on Commit only when Synced(true); a Dir
// whose sync fails is not renamed into place.
func TestSynced(t *testing.T) {
	var synced []string
	fail := false
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	syncFile = func(f *os.File) error {
		synced = append(synced, filepath.Base(f.Name()))
		if fail {
			return errors.New("no space")
		}
		return f.Sync()
	}
	dir := t.TempDir()
	for _, c := range []struct {
		opts []Option
		want int
	}{{nil, 1}, {[]Option{Synced(true)}, 1}, {[]Option{Synced(false)}, 0}} {
		synced = nil
		f, err := Create(filepath.Join(dir, "f"), c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(make([]byte, writebackEvery+1))
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if len(synced) != c.want {
			t.Errorf("Create with %d options: synced %v, want %d syncs", len(c.opts), synced, c.want)
		}
	}
	fill := func(d *Dir) {
		for _, name := range []string{"a_0.mcap", "metadata.yaml"} {
			if err := os.WriteFile(filepath.Join(d.Name(), name), []byte(name), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		opts []Option
		want string
	}{{nil, ""}, {[]Option{Synced(false)}, ""}, {[]Option{Synced(true)}, "a_0.mcap metadata.yaml out.tmp"}} {
		synced = nil
		out := filepath.Join(dir, "out")
		os.RemoveAll(out)
		d, err := CreateDir(out, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		fill(d)
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		for i, name := range synced {
			if strings.HasPrefix(name, ".out.tmp-") {
				synced[i] = "out.tmp"
			}
		}
		slices.Sort(synced)
		if !syncsDirs {
			c.want = strings.TrimSuffix(strings.TrimSuffix(c.want, "out.tmp"), " ")
		}
		if got := strings.Join(synced, " "); got != c.want {
			t.Errorf("CreateDir with %d options: synced %q, want %q", len(c.opts), got, c.want)
		}
	}
	fail = true
	bad := filepath.Join(dir, "bad")
	d, err := CreateDir(bad, Synced(true))
	if err != nil {
		t.Fatal(err)
	}
	fill(d)
	if err := d.Commit(); err == nil || !strings.Contains(err.Error(), "no space") || !strings.Contains(err.Error(), bad) {
		t.Errorf("Commit of a Dir whose sync fails: %v, want the error naming %s", err, bad)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a Dir whose sync failed is in place: %v", err)
	}
	if _, err := os.Stat(d.Name()); !os.IsNotExist(err) {
		t.Errorf("a Dir whose sync failed left its temporary: %v", err)
	}
}
