package remote

import (
	"context"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
)

// bucket is a bucket of object storage (s3://, gs://, azblob://) as this
// package uses it. Its errors carry this package's sentinels (ErrNotFound,
// ErrAccess, ErrChanged) where they apply. The full build opens buckets
// through gocloud.dev/blob (blob.go); the lean one (tag baglab_lean) has
// none and leaves object storage to baglab-full (blob_lean.go).
type bucket interface {
	// fetcher reads the object key, whose URL is raw; scheme says how
	// the object's versions are named.
	fetcher(raw, key, scheme string) fetcher
	// list calls fn, in key order, for each object under the prefix key
	// or, with delim, for each object and sub-prefix directly under it,
	// until fn returns false.
	list(ctx context.Context, key string, delim bool, fn func(key string, dir bool, size int64) bool) error
	readAll(ctx context.Context, key string) ([]byte, error)
	exists(ctx context.Context, key string) (bool, error)
	delete(ctx context.Context, key string) error
	// newWriter starts the object key; closing the writer commits it,
	// unless ctx was cancelled first, which aborts it.
	newWriter(ctx context.Context, key string) (io.WriteCloser, error)
}

// bucketSchemes are the schemes of object storage URLs, which buckets
// serve (the others this package reads, http and https, are web servers).
var bucketSchemes = []string{"s3", "gs", "azblob"}

// InBucket reports whether url names object storage: s3://, gs:// or
// azblob://.
func InBucket(url string) bool {
	scheme, _, ok := strings.Cut(url, "://")
	return ok && slices.Contains(bucketSchemes, scheme)
}

// MentionsBucket reports whether arg holds an object storage URL anywhere:
// alone, as a flag's value (--out=s3://...) or in a comma list.
func MentionsBucket(arg string) bool {
	for _, s := range bucketSchemes {
		if strings.Contains(arg, s+"://") {
			return true
		}
	}
	return false
}

// openBucket opens the bucket of the object or prefix url names and
// returns it with the key; an error is an *Error of op naming url.
func openBucket(ctx context.Context, url, op string) (bucket, string, error) {
	u, key, err := splitBlobURL(url)
	if err != nil {
		return nil, "", &Error{URL: url, Op: op, Err: err}
	}
	b, err := bucketOf(ctx, u)
	if err != nil {
		return nil, "", &Error{URL: url, Op: op, Err: err}
	}
	return b, key, nil
}

// splitBlobURL returns the bucket URL and the key of an object URL. The
// key is taken as written, never unescaped: an export's part
// "topic=%2Fa/part-1.parquet" is that key, percent sign and all.
func splitBlobURL(raw string) (*url.URL, string, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return nil, "", errors.New("not a URL")
	}
	host, key, _ := strings.Cut(rest, "/")
	if host == "" {
		return nil, "", errors.New("no bucket in the URL")
	}
	return &url.URL{Scheme: scheme, Host: host}, key, nil
}
