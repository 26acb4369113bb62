package remote

import (
	"context"
	"errors"
	"sort"
	"strings"
)

// Entry is one name directly under a listed prefix: an object, or a
// sub-prefix (Dir, its URL ending in "/").
type Entry struct {
	URL  string
	Name string // the last part of the key ("a.bag", "run1/")
	Dir  bool
	Size int64
}

// List returns what lies directly under the prefix URL (which ends in
// "/"; the bucket root is "s3://bucket/"), in name order. http(s) URLs
// cannot be listed (ErrUnsupported); a prefix with nothing under it wraps
// ErrNotFound.
func List(ctx context.Context, prefix string) ([]Entry, error) {
	if !InBucket(prefix) {
		return nil, &Error{URL: prefix, Op: "list", Err: errors.New("a web server's folders cannot be listed: name the files (" + ErrUnsupported.Error() + ")")}
	}
	b, key, err := openBucket(ctx, prefix, "list")
	if err != nil {
		return nil, err
	}
	return listBucket(ctx, b, prefix, key)
}

func listBucket(ctx context.Context, b bucket, prefix, key string) ([]Entry, error) {
	if key != "" && !strings.HasSuffix(key, "/") {
		key += "/"
		prefix += "/"
	}
	base := strings.TrimSuffix(prefix, key)
	var out []Entry
	err := b.list(ctx, key, true, func(k string, dir bool, size int64) bool {
		if name := strings.TrimPrefix(k, key); name != "" { // "": the folder's own marker object
			out = append(out, Entry{URL: base + k, Name: name, Dir: dir, Size: size})
		}
		return true
	})
	if err != nil {
		return nil, &Error{URL: prefix, Op: "list", Err: err}
	}
	if len(out) == 0 {
		return nil, &Error{URL: prefix, Op: "list", Err: ErrNotFound}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// IsPrefix reports whether a URL names a prefix (a folder) rather than
// an object: it ends in "/", or is a bucket alone.
func IsPrefix(url string) bool {
	_, rest, ok := strings.Cut(url, "://")
	return ok && (strings.HasSuffix(rest, "/") || !strings.Contains(rest, "/"))
}
