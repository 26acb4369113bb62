package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gocloud.dev/blob"
)

// Writer writes one object. Nothing is visible under its URL until
// Commit succeeds; Abort (or a failed Commit) leaves no object, and
// leaves an object already there as it was.
type Writer struct {
	url    string
	w      *blob.Writer
	cancel context.CancelFunc
	done   bool
}

// Create starts the object at url (s3://, gs:// or azblob://). ctx bounds
// the upload: cancelling it aborts it.
func Create(ctx context.Context, url string) (*Writer, error) {
	scheme, _, _ := strings.Cut(url, "://")
	if scheme != "s3" && scheme != "gs" && scheme != "azblob" {
		return nil, &Error{URL: url, Op: "write", Err: fmt.Errorf("%w: only object storage (s3://, gs://, azblob://) is written", ErrUnsupported)}
	}
	u, key, err := splitBlobURL(url)
	if err == nil && (key == "" || strings.HasSuffix(key, "/")) {
		err = errors.New("names a prefix, not an object")
	}
	if err != nil {
		return nil, &Error{URL: url, Op: "write", Err: err}
	}
	b, err := bucketOf(ctx, u)
	if err != nil {
		return nil, &Error{URL: url, Op: "write", Err: blobError(err)}
	}
	ctx, cancel := context.WithCancel(ctx)
	w, err := b.NewWriter(ctx, key, nil)
	if err != nil {
		cancel()
		return nil, &Error{URL: url, Op: "write", Err: blobError(err)}
	}
	return &Writer{url: url, w: w, cancel: cancel}, nil
}

// URL is the object's URL.
func (w *Writer) URL() string { return w.url }

// Write appends p to the object.
func (w *Writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, &Error{URL: w.url, Op: "write", Err: blobError(err)}
	}
	return n, nil
}

// Commit finishes the upload: the object becomes visible whole.
func (w *Writer) Commit() error {
	if w.done {
		return nil
	}
	w.done = true
	defer w.cancel()
	if err := w.w.Close(); err != nil {
		return &Error{URL: w.url, Op: "write", Err: blobError(err)}
	}
	return nil
}

// Abort drops the upload; nothing becomes visible. Idempotent, and a
// no-op after Commit.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.cancel() // a cancelled context makes Close abort the upload
	w.w.Close()
}
