package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// startGCS starts fake-gcs-server (its fakestorage library, in process)
// on a free loopback port holding the objects of bucket, and points
// gs:// URLs at it (STORAGE_EMULATOR_HOST, which gocloud's gcsblob
// follows without credentials).
func startGCS(t *testing.T, bucket string, objects map[string][]byte) *fakestorage.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var initial []fakestorage.Object
	for k, v := range objects {
		initial = append(initial, fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: k}, Content: v})
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		InitialObjects: initial, Scheme: "http", Host: "127.0.0.1", Port: uint16(port),
		PublicHost: fmt.Sprintf("127.0.0.1:%d", port), Writer: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	t.Cleanup(srv.Stop)
	t.Setenv("STORAGE_EMULATOR_HOST", fmt.Sprintf("127.0.0.1:%d", port))
	return srv
}

// TestGCS reads, lists and writes gs:// URLs against fake-gcs-server: the
// head and tail on open, ranges through the cache, the object hashed while
// read, a prefix listed as a folder, an object written whole, a missing
// key, and an object replaced during a read.
func TestGCS(t *testing.T) {
	ctx := context.Background()
	data := randomBytes(3<<20+5, 21)
	srv := startGCS(t, "gcs-lab", map[string][]byte{"runs/a.mcap": data, "runs/b.bag": []byte("bag"), "runs/r2/metadata.yaml": []byte("x")})

	obj, err := Open(ctx, "gs://gcs-lab/runs/a.mcap", fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if obj.Size() != int64(len(data)) || obj.Stats().Requests != 2 {
		t.Fatalf("size %d, %d requests on open", obj.Size(), obj.Stats().Requests)
	}
	obj.Hash()
	mid := make([]byte, 100_000)
	if _, err := obj.ReadAt(mid, 1<<20); err != nil || !bytes.Equal(mid, data[1<<20:1<<20+100_000]) {
		t.Fatalf("ReadAt: %v", err)
	}
	sum, n, err := obj.Sum()
	want := sha256Of(data)
	if err != nil || n != int64(len(data)) || !bytes.Equal(sum, want) {
		t.Fatalf("Sum: %x %d %v", sum, n, err)
	}

	entries, err := List(ctx, "gs://gcs-lab/runs/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if fmt.Sprint(names) != "[a.mcap b.bag r2/]" {
		t.Fatalf("listed %v", names)
	}

	w, err := Create(ctx, "gs://gcs-lab/out/c.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data[:12345]); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := srv.GetObject("gcs-lab", "out/c.bin")
	if err != nil || !bytes.Equal(got.Content, data[:12345]) {
		t.Fatalf("written object: %v, %d bytes", err, len(got.Content))
	}

	if _, err := Open(ctx, "gs://gcs-lab/runs/none.bag", fastOptions()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing key: %v", err)
	}

	// Replaced while read: its generation (modification time) changes.
	obj2, err := Open(ctx, "gs://gcs-lab/runs/a.mcap", fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer obj2.Close()
	srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "gcs-lab", Name: "runs/a.mcap"}, Content: randomBytes(len(data), 22)})
	if _, err := obj2.ReadAt(mid, 1<<20); !errors.Is(err, ErrChanged) {
		t.Fatalf("replaced object: %v", err)
	}
}
