package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/baglab/baglab/internal/parallel"
)

// File is a file being written under a temporary name (".NAME.tmp-*" in
// its final directory). Commit renames it to its final path, Abort removes
// it; after either, both are no-ops. Until then it is listed for Cleanup.
type File struct {
	*os.File
	path    string
	sync    bool  // Close syncs (Synced)
	closed  bool  // the temporary file is closed (Close or Commit)
	done    bool  // committed or aborted
	pending int64 // bytes written since writeback was last started
}

// writebackEvery is how many bytes a synced File takes before it asks the
// system to start writing them to disk: the sync that closes it then
// waits for the last few only, where it would wait for the whole file
// (100-130 ms for the 351 MB of a 1 GB conversion, a fifth of its time).
const writebackEvery = 8 << 20

// WriteMax is the most one write call hands the system (File.Write;
// internal/sqlitefile sizes its writes by it too). Linux (6.18,
// ext4, the VM CI runs in) takes large writes into its page cache at a
// cost that varies up to ninefold: 1 GiB from dd took 0.20-1.85 s in
// writes of 1 MiB and 0.22-0.23 s in writes of 256 KiB (9 runs each,
// alternately), as large writes get large folios. A 1 GB conversion to
// MCAP took 0.42-0.52 s in writes of at most 256 KiB, 0.46-0.54 s at 128
// KiB, 0.38-0.61 s at 512 KiB and 0.46-0.95 s at 1 MiB (11 runs each).
const WriteMax = 256 << 10

// Write writes p to the file, in writes of at most WriteMax bytes; see
// writebackEvery.
func (f *File) Write(p []byte) (int, error) { return writeIn(f, p, f.File.Write) }

// WriteString writes s to the file as Write does.
func (f *File) WriteString(s string) (int, error) { return writeIn(f, s, f.File.WriteString) }

// writeIn writes p with write, at most WriteMax bytes a call.
func writeIn[T string | []byte](f *File, p T, write func(T) (int, error)) (int, error) {
	n := 0
	for len(p) > 0 {
		k, err := write(p[:min(len(p), WriteMax)])
		n += k
		f.wrote(int64(k))
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

// ReadFrom copies r to the file (io.Copy's path); see writebackEvery.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	n, err := f.File.ReadFrom(r)
	f.wrote(n)
	return n, err
}

// wrote counts n bytes written and, when the file is synced, starts the
// writeback of its dirty pages every writebackEvery bytes. Only a hint:
// Close's sync is what makes the file durable.
func (f *File) wrote(n int64) {
	if !f.sync {
		return
	}
	if f.pending += n; f.pending >= writebackEvery {
		f.pending = 0
		startWriteback(f.File)
	}
}

// Option configures Create.
type Option func(*options)

type options struct {
	dirs *DirSet
	sync *bool // nil: the default of Create (sync) or CreateDir (none)
}

// WithDirs creates the missing parent directories of the path, recording
// them in d so that d.RemoveEmpty can take them away again after a failure.
// It applies to Create.
func WithDirs(d *DirSet) Option { return func(o *options) { o.dirs = d } }

// Synced sets whether the output is synced to disk before it is renamed
// into place (fsync of the file, or of every file in the directory and of
// the directory), so that a power cut can leave it missing but never
// short. Create's default is to sync, CreateDir's not to. Without the
// sync, a power cut soon after the rename may leave the output short or
// empty (its reader then says so), as cp, rosbag and rosbag2 leave
// theirs; a large output is written at the page cache's speed, not the
// disk's.
func Synced(on bool) Option { return func(o *options) { o.sync = &on } }

func newOptions(opts []Option, sync bool) options {
	o := options{sync: &sync}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Create starts the file that will become path. Its mode is that of
// os.Create (0666 less the umask: 0644 under umask 022), not CreateTemp's
// private 0600: outputs are meant to be shared.
func Create(path string, opts ...Option) (*File, error) {
	o := newOptions(opts, true)
	dir := filepath.Dir(path)
	if o.dirs != nil {
		if err := o.dirs.MkdirAll(dir); err != nil {
			return nil, err
		}
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o666 &^ umask); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	af := &File{File: f, path: path, sync: *o.sync}
	live.add(f.Name())
	return af, nil
}

// Path is the final path.
func (f *File) Path() string { return f.path }

// Close syncs (Synced) and closes the temporary file, keeping it for
// Commit (or Abort); it is idempotent.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	var err error
	if f.sync {
		err = syncFile(f.File)
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}

// CloseAll closes files as Close does, with their syncs at once (up to
// 16, parallel.All): one commit of the file system's journal can then
// serve them all, where closing them one after the other waits for one
// commit each. It closes every file whatever the others' closes return,
// and returns the errors of those that failed, joined in list order.
func CloseAll(files []*File) error {
	return parallel.All(len(files), 16, func(i int) error {
		if err := files[i].Close(); err != nil {
			return fmt.Errorf("writing %s: %w", files[i].path, err)
		}
		return nil
	})
}

// Commit closes the file and renames it to its final path. On failure the
// temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	tmp := f.Name()
	defer live.remove(tmp)
	err := f.Close()
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if !f.closed {
		f.closed = true
		f.File.Close()
	}
	os.Remove(f.Name())
	live.remove(f.Name())
}

// dirMode is the mode of the directories made for outputs, before the
// umask: 0755 under umask 022, as mkdir(1) makes them.
const dirMode = 0o777

// MkdirAll creates dir and its missing parents for outputs, with the mode
// DirSet and Dir give theirs (0777 less the umask).
func MkdirAll(dir string) error { return os.MkdirAll(dir, dirMode) }

// Write writes path with fill through a temporary file, creating missing
// parent directories (MkdirAll).
func Write(path string, fill func(io.Writer) error) error {
	if err := MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return errors.Join(fmt.Errorf("writing %s", path), err)
	}
	return f.Commit()
}

// Dir is a directory being written under a temporary name, renamed into
// place by Commit (a rosbag2 folder).
type Dir struct {
	tmp, path string
	sync      bool // Commit syncs (Synced)
	done      bool
}

// CreateDir starts the directory that will become path; it takes Synced
// (default: no sync).
func CreateDir(path string, opts ...Option) (*Dir, error) {
	o := newOptions(opts, false)
	path = filepath.Clean(path) // "out/" names out, not a folder inside it
	tmp, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	live.add(tmp)
	return &Dir{tmp: tmp, path: path, sync: *o.sync}, nil
}

// Sync syncs every file the directory holds, and the directory itself
// where the system can (syncsDirs), to disk: up to 16 at once
// (parallel.All), so that one commit of the file system's journal can
// serve them all. Commit calls it when the
// directory is Synced; a caller that moves a file out of the directory
// calls it first.
func (d *Dir) Sync() error {
	entries, err := os.ReadDir(d.tmp)
	if err != nil {
		return err
	}
	var names []string
	if syncsDirs {
		names = append(names, d.tmp)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, filepath.Join(d.tmp, e.Name()))
		}
	}
	return parallel.All(len(names), 16, func(i int) error {
		f, err := os.Open(names[i])
		if err != nil {
			return err
		}
		err = syncFile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// syncFile is (*os.File).Sync, the one place outputs are synced; a test
// counts the calls.
var syncFile = (*os.File).Sync

// Name is the temporary directory to write into.
func (d *Dir) Name() string { return d.tmp }

// Commit renames the directory to its final path (mode 0777 less the
// umask); on failure it is removed. A directory already at the path (an
// output the caller was told to overwrite) is replaced whole: it is moved
// aside, the new one renamed into place, and the old one removed, so that
// the path never holds a mix of both.
func (d *Dir) Commit() error {
	if d.done {
		return nil
	}
	d.done = true
	defer live.remove(d.tmp)
	err := os.Chmod(d.tmp, dirMode&^umask)
	if err == nil && d.sync {
		err = d.Sync()
	}
	old := ""
	if st, serr := os.Lstat(d.path); err == nil && serr == nil && st.IsDir() {
		old, err = os.MkdirTemp(filepath.Dir(d.path), "."+filepath.Base(d.path)+".old-*")
		if err == nil { // not in live: a signal must never remove the old output
			err = os.Rename(d.path, filepath.Join(old, "dir"))
		}
	}
	if err == nil {
		err = os.Rename(d.tmp, d.path)
		if err != nil && old != "" {
			os.Rename(filepath.Join(old, "dir"), d.path) // put the old one back
		}
	}
	if old != "" {
		defer os.RemoveAll(old)
	}
	if err != nil {
		os.RemoveAll(d.tmp)
		return fmt.Errorf("writing %s: %w", d.path, err)
	}
	return nil
}

// Abort removes the directory and what it holds.
func (d *Dir) Abort() {
	if d.done {
		return
	}
	d.done = true
	os.RemoveAll(d.tmp)
	live.remove(d.tmp)
}

// Cleanup removes every temporary file and directory not yet committed or
// aborted: the process is about to end on a signal, and no partial output
// may stay behind. A writer still holding one fails at its commit.
func Cleanup() {
	for _, name := range live.take() {
		os.RemoveAll(name)
	}
}

// registry lists the temporary names in use.
type registry struct {
	mu    sync.Mutex
	names map[string]bool
}

var live = &registry{names: map[string]bool{}}

func (r *registry) add(name string) {
	r.mu.Lock()
	r.names[name] = true
	r.mu.Unlock()
}

func (r *registry) remove(name string) {
	r.mu.Lock()
	delete(r.names, name)
	r.mu.Unlock()
}

func (r *registry) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.names))
	for n := range r.names {
		out = append(out, n)
	}
	clear(r.names)
	return out
}

// DirSet creates directories and remembers the ones it created.
type DirSet struct {
	mu      sync.Mutex
	created []string
}

// MkdirAll creates dir and its missing parents (mode 0777 less the umask),
// recording those it created.
func (d *DirSet) MkdirAll(dir string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mkdirAll(dir)
}

func (d *DirSet) mkdirAll(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return &os.PathError{Op: "mkdir", Path: dir, Err: errors.New("not a directory")}
		}
		return nil
	}
	if err := d.mkdirAll(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, dirMode); err != nil && !os.IsExist(err) {
		return err
	}
	d.created = append(d.created, dir)
	return nil
}

// RemoveEmpty removes the directories it created that are empty, deepest
// first.
func (d *DirSet) RemoveEmpty() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.created) - 1; i >= 0; i-- {
		os.Remove(d.created[i]) // fails, harmlessly, when not empty
	}
	d.created = nil
}
