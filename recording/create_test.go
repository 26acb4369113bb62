package recording_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// TestCreateFolders: Create makes the missing folders of its output; on
// Abort, and when Close fails (the temporary file's folder taken away
// meanwhile), it removes those it made that are empty again, keeping the
// empty folder that was there before, a folder it made that holds another
// file, and everything once the recording is in place. Both formats,
// since each has its own writer.
func TestCreateFolders(t *testing.T) {
	for _, ext := range []string{".bag", ".mcap"} {
		t.Run(ext, func(t *testing.T) {
			empty := filepath.Join(t.TempDir(), "empty") // there before, and empty
			if err := os.Mkdir(empty, 0o755); err != nil {
				t.Fatal(err)
			}
			create := func(path string) recording.Writer {
				t.Helper()
				w, err := recording.Create(path, recording.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				id, err := w.AddChannel(&record.Channel{Topic: "/s", MessageEncoding: "ros1",
					Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data\n"), MD5: stringMD5}})
				if err == nil {
					err = w.WriteMessage(id, &record.Message{LogTime: 1e9, PublishTime: 1e9, Data: stringMsg("x")})
				}
				if err != nil {
					w.Abort()
					t.Fatal(err)
				}
				return w
			}
			entries := func(dir string) int {
				t.Helper()
				ents, err := os.ReadDir(dir)
				if err != nil {
					t.Fatalf("%s: %v", dir, err)
				}
				return len(ents)
			}
			gone := func(what, dir string) {
				t.Helper()
				if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s: %s is there (%v)", what, dir, err)
				}
			}

			create(filepath.Join(empty, "a", "b", "out"+ext)).Abort()
			gone("abort", filepath.Join(empty, "a"))
			if n := entries(empty); n != 0 {
				t.Errorf("abort: %s holds %d entries, want it there and empty", empty, n)
			}

			w := create(filepath.Join(empty, "a", "b", "out"+ext))
			if err := os.RemoveAll(filepath.Join(empty, "a", "b")); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err == nil {
				t.Fatal("Close with the folder of its temporary file gone: no error")
			}
			gone("failed close", filepath.Join(empty, "a"))
			if n := entries(empty); n != 0 {
				t.Errorf("failed close: %s holds %d entries, want it there and empty", empty, n)
			}

			ok := filepath.Join(empty, "made", "ok"+ext)
			w = create(ok)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			w.Abort() // after Close: nothing to undo
			if _, err := os.Stat(ok); err != nil {
				t.Fatalf("after Close and Abort: %v", err)
			}
			create(filepath.Join(empty, "made", "c", "out"+ext)).Abort()
			gone("abort beside a file", filepath.Join(empty, "made", "c"))
			if n := entries(filepath.Join(empty, "made")); n != 1 {
				t.Errorf("abort beside a file: %d entries beside it, want 1", n)
			}
		})
	}
}

// TestCreateFolderMode: the folders Create makes for a recording have the
// mode of every output's folder, 0777 less the umask (0775 under umask
// 002), not a fixed 0755.
func TestCreateFolderMode(t *testing.T) {
	old := syscall.Umask(0o002)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "new")
	for _, name := range []string{"run.bag", "run.mcap"} {
		w, err := recording.Create(filepath.Join(dir, name), recording.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(dir); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != 0o775 {
			t.Errorf("%s: %s: mode %v, want 0775", name, dir, st.Mode().Perm())
		}
		w.Abort() // which removes dir (TestCreateFolders)
	}
}
