package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Writer writes one object. Nothing is visible under its URL until
// Commit succeeds; Abort (or a failed Commit) leaves no object, and
// leaves an object already there as it was.
type Writer struct {
	url    string
	w      io.WriteCloser
	cancel context.CancelFunc
	done   bool
}

// Create starts the object at url (s3://, gs:// or azblob://). ctx bounds
// the upload: cancelling it aborts it.
func Create(ctx context.Context, url string) (*Writer, error) {
	if !InBucket(url) {
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
		return nil, &Error{URL: url, Op: "write", Err: err}
	}
	ctx, cancel := context.WithCancel(ctx)
	w, err := b.newWriter(ctx, key)
	if err != nil {
		cancel()
		return nil, &Error{URL: url, Op: "write", Err: err}
	}
	return &Writer{url: url, w: w, cancel: cancel}, nil
}

// URL is the object's URL.
func (w *Writer) URL() string { return w.url }

// Write appends p to the object.
func (w *Writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, &Error{URL: w.url, Op: "write", Err: err}
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
		return &Error{URL: w.url, Op: "write", Err: err}
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

// Exists reports whether an object is at url or, when dir is set, whether
// any object lies under the prefix url names: an output that would be
// overwritten.
func Exists(ctx context.Context, url string, dir bool) (bool, error) {
	b, key, err := openBucket(ctx, url, "stat")
	if err != nil {
		return false, err
	}
	if !dir {
		ok, err := b.exists(ctx, key)
		if err != nil {
			return false, &Error{URL: url, Op: "stat", Err: err}
		}
		return ok, nil
	}
	keys, err := objectsUnder(ctx, b, url, key, 1)
	return len(keys) > 0, err
}

// objectsUnder lists the keys of the objects under the prefix key (at
// any depth), at most max of them when max > 0.
func objectsUnder(ctx context.Context, b bucket, url, key string, max int) ([]string, error) {
	if key != "" && !strings.HasSuffix(key, "/") {
		key += "/"
	}
	var keys []string
	err := b.list(ctx, key, false, func(k string, _ bool, _ int64) bool {
		keys = append(keys, k)
		return max <= 0 || len(keys) < max
	})
	if err != nil {
		return nil, &Error{URL: url, Op: "list", Err: err}
	}
	return keys, nil
}

// deleteOthers deletes the objects under the prefix url but those named
// in keep (relative to it, with slashes), after a folder output replaced
// whole was uploaded.
func deleteOthers(ctx context.Context, url string, keepRel []string) error {
	b, key, err := openBucket(ctx, url, "delete")
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, rel := range keepRel {
		keep[strings.Trim(key, "/")+"/"+rel] = true
	}
	keys, err := objectsUnder(ctx, b, url, key, 0)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if !keep[k] {
			if err := b.delete(ctx, k); err != nil {
				return &Error{URL: url, Op: "delete", Err: fmt.Errorf("%s: %w", k, err)}
			}
		}
	}
	return nil
}
