package bag

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// TestEncryptedRosbag reads a bag that Debian rosbag encrypted for a GPG
// key (Bag.set_encryptor, as rosbag encrypt does): rosbag reads it, given
// the key; its chunks and index connections are ciphertext, which we
// cannot decrypt. Open, Check and Reindex must say so (ErrUnsupported at
// the bag header's encryptor field) instead of reading the ciphertext as a
// damaged bag, which sent users to a reindex that salvages nothing. Once
// rosbag decrypt has run, the bag holds the messages rosbag read from the
// encrypted one (rosbag decrypt numbers the connections anew, so messages
// of equal times are compared as sets).
func TestEncryptedRosbag(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs")
	dir := t.TempDir()
	home := filepath.Join(dir, "gnupg")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GNUPGHOME", home)
	const user = "baglab-test@example.invalid"
	gen := exec.Command("gpg", "--batch", "--passphrase", "", "--quick-gen-key", user, "future-default", "default", "never")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("gpg --quick-gen-key: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("gpgconf", "--kill", "gpg-agent").Run() })

	path := filepath.Join(dir, "encrypted.bag")
	want := runPeer(t, "encrypted", path, "lz4", user).Read
	if want.Count != 460 || len(want.Messages) != 460 {
		t.Fatalf("rosbag reads %d messages (count %d) of its encrypted bag, want 460", len(want.Messages), want.Count)
	}
	isEncrypted := func(what string, err error) {
		t.Helper()
		var re *record.Error
		if !errors.As(err, &re) || !errors.Is(err, record.ErrUnsupported) || re.Field != "bag_header.encryptor" ||
			re.Offset != int64(len(Magic)) || !strings.Contains(re.Detail, user) || !strings.Contains(re.Detail, "rosbag decrypt") {
			t.Fatalf("%s: %v, want the bag header's encryptor as unsupported", what, err)
		}
	}
	r, err := Open(path)
	if err == nil {
		r.Close()
	}
	isEncrypted("Open", err)
	_, err = Check(path)
	isEncrypted("Check", err)
	out := filepath.Join(dir, "reindexed.bag")
	_, err = Reindex(path, out)
	isEncrypted("Reindex", err)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Reindex left %s: %v", out, err)
	}

	if out, err := exec.Command(testenv.Python, "/usr/bin/rosbag", "decrypt", path).CombinedOutput(); err != nil {
		t.Fatalf("rosbag decrypt: %v\n%s", err, out)
	}
	r, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Indexed() {
		t.Fatalf("decrypted bag not indexed: %v", r.IndexError())
	}
	byAll := func(a, b msg) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.topic, b.topic), bytes.Compare(a.data, b.data))
	}
	got, wantMsgs := collect(t, r, record.Filter{}), want.msgs(t)
	slices.SortFunc(got, byAll)
	slices.SortFunc(wantMsgs, byAll)
	equalMsgs(t, got, wantMsgs)
}
