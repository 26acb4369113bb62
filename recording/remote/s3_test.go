package remote

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/s3test"
)

// TestS3 reads and writes a real S3 server (SeaweedFS) through
// AWS_ENDPOINT_URL, path-style, with the standard AWS variables.
func TestS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "remote-test")
	data := randomBytes(3<<20+5, 21)
	srv.Put(t, "remote-test", "runs/a.bag", data)
	ctx := context.Background()
	clearBuckets()

	t.Run("read", func(t *testing.T) {
		obj, err := Open(ctx, "s3://remote-test/runs/a.bag", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Close()
		got := make([]byte, len(data))
		if _, err := obj.ReadAt(got, 0); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ReadAt: %v", err)
		}
		if st := obj.Stats(); st.Bytes != int64(len(data)) {
			t.Fatalf("fetched %d bytes of %d", st.Bytes, len(data))
		}
	})
	t.Run("changed during a read", func(t *testing.T) {
		srv.Put(t, "remote-test", "runs/b.bag", data)
		obj, err := Open(ctx, "s3://remote-test/runs/b.bag", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Close()
		srv.Put(t, "remote-test", "runs/b.bag", randomBytes(len(data), 22))
		_, err = obj.ReadAt(make([]byte, 1<<20), 1<<20)
		if !errors.Is(err, ErrChanged) {
			t.Fatalf("error %v, want ErrChanged", err)
		}
	})
	t.Run("missing key", func(t *testing.T) {
		_, err := Open(ctx, "s3://remote-test/runs/none.bag", Options{})
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "s3://remote-test/runs/none.bag") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("list and write", func(t *testing.T) {
		w, err := Create(ctx, "s3://remote-test/out/x.json")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("{}"))
		// Not visible before Commit.
		if _, err := List(ctx, "s3://remote-test/out/"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("listed before commit: %v", err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		a, _ := Create(ctx, "s3://remote-test/out/aborted.json")
		a.Write([]byte("partial"))
		a.Abort()
		es, err := List(ctx, "s3://remote-test/out/")
		if err != nil || len(es) != 1 || es[0].URL != "s3://remote-test/out/x.json" {
			t.Fatalf("listed %v, %v", es, err)
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
		clearBuckets()
		defer clearBuckets()
		_, err := Open(ctx, "s3://remote-test/runs/a.bag", Options{})
		if !errors.Is(err, ErrAccess) || strings.Contains(err.Error(), "not-the-secret") {
			t.Fatalf("error %v", err)
		}
	})
}

// clearBuckets forgets the buckets opened, so that the next picks up the
// environment again.
func clearBuckets() {
	buckets.Lock()
	buckets.m = nil
	buckets.Unlock()
}
