package remote

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"

	"gocloud.dev/blob"
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
	scheme, _, _ := strings.Cut(prefix, "://")
	if scheme != "s3" && scheme != "gs" && scheme != "azblob" {
		return nil, &Error{URL: prefix, Op: "list", Err: errors.New("a web server's folders cannot be listed: name the files (" + ErrUnsupported.Error() + ")")}
	}
	b, key, err := openBucket(ctx, prefix, "list")
	if err != nil {
		return nil, err
	}
	return listBucket(ctx, b, prefix, key)
}

func listBucket(ctx context.Context, b *blob.Bucket, prefix, key string) ([]Entry, error) {
	if key != "" && !strings.HasSuffix(key, "/") {
		key += "/"
		prefix += "/"
	}
	base := strings.TrimSuffix(prefix, key)
	it := b.List(&blob.ListOptions{Prefix: key, Delimiter: "/"})
	var out []Entry
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{URL: prefix, Op: "list", Err: blobError(err)}
		}
		name := strings.TrimPrefix(obj.Key, key)
		if name == "" {
			continue // the folder's own marker object
		}
		out = append(out, Entry{URL: base + obj.Key, Name: name, Dir: obj.IsDir, Size: obj.Size})
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
