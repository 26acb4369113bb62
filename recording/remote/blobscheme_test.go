package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
)

// blobScheme is a test object store of one gocloud scheme, holding data
// at runs/a.mcap and the objects runs/b.bag and runs/r2/metadata.yaml.
type blobScheme struct {
	bucket  string                         // its URL, ending in "/": "gs://gcs-lab/"
	data    []byte                         // runs/a.mcap
	get     func(key string) []byte        // an object's bytes, read past baglab
	replace func(t *testing.T, key string) // writes other bytes as key
}

// testBlobScheme reads, lists and writes the scheme's URLs: the head and
// tail on open, a range read, the object hashed while read, a prefix
// listed as a folder, an object written whole, a missing key, and an
// object replaced during a read.
func testBlobScheme(t *testing.T, sc blobScheme) {
	ctx := context.Background()
	data := sc.data
	obj, err := Open(ctx, sc.bucket+"runs/a.mcap", fastOptions())
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
	if err != nil || n != int64(len(data)) || !bytes.Equal(sum, sha256Of(data)) {
		t.Fatalf("Sum: %x %d %v", sum, n, err)
	}

	entries, err := List(ctx, sc.bucket+"runs/")
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

	w, err := Create(ctx, sc.bucket+"out/c.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data[:12345]); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := sc.get("out/c.bin"); !bytes.Equal(got, data[:12345]) {
		t.Fatalf("written object: %d bytes", len(got))
	}

	if _, err := Open(ctx, sc.bucket+"runs/none.bag", fastOptions()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing key: %v", err)
	}

	obj2, err := Open(ctx, sc.bucket+"runs/a.mcap", fastOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer obj2.Close()
	sc.replace(t, "runs/a.mcap")
	if _, err := obj2.ReadAt(mid, 1<<20); !errors.Is(err, ErrChanged) {
		t.Fatalf("replaced object: %v", err)
	}
}
