//go:build baglab_lean

package remote

import (
	"context"
	"fmt"
	"net/url"
)

// bucketOf has no object storage in the lean build: the lean baglab hands
// every command naming an s3://, gs:// or azblob:// URL to baglab-full
// before it reads anything, so this is reached only by a library caller.
func bucketOf(_ context.Context, u *url.URL) (bucket, error) {
	return nil, fmt.Errorf("%w: %s:// is read by baglab-full (this is the lean build)", ErrUnsupported, u.Scheme)
}
