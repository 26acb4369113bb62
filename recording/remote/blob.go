//go:build !baglab_lean

package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// blobFetcher reads one object of a bucket.
type blobFetcher struct {
	url    string
	bucket *blob.Bucket
	key    string
	scheme string // s3, gs or azblob: how a version is named and asked for
}

func (f *blobFetcher) close() error { return nil } // buckets are shared, see buckets

// get reads a range; etag, when set, is the version to read: S3's and
// Azure's ETag (If-Match), a GCS object's generation (ifGenerationMatch).
func (f *blobFetcher) get(ctx context.Context, off, n int64, etag string) (io.ReadCloser, objectInfo, error) {
	var opts *blob.ReaderOptions
	if etag != "" {
		opts = &blob.ReaderOptions{BeforeRead: func(as func(any) bool) error {
			switch f.scheme {
			case "s3":
				var in *s3.GetObjectInput
				if as(&in) {
					in.IfMatch = aws.String(etag)
				}
			case "gs":
				var h **storage.ObjectHandle
				if gen, err := strconv.ParseInt(strings.TrimPrefix(etag, "gen:"), 10, 64); err == nil && as(&h) {
					*h = (*h).If(storage.Conditions{GenerationMatch: gen})
				}
			case "azblob":
				var do *azblobblob.DownloadStreamOptions
				if as(&do) {
					e := azcore.ETag(etag)
					do.AccessConditions = &azblobblob.AccessConditions{ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfMatch: &e}}
				}
			}
			return nil
		}}
	}
	r, err := f.bucket.NewRangeReader(ctx, f.key, off, n, opts)
	if err != nil {
		return nil, objectInfo{}, blobError(err)
	}
	info := objectInfo{size: r.Size(), ranged: true}
	var s3out s3.GetObjectOutput
	var gcs *storage.Reader
	var az azblobblob.DownloadStreamResponse
	switch {
	case f.scheme == "s3" && r.As(&s3out):
		info.etag = aws.ToString(s3out.ETag)
	case f.scheme == "gs" && r.As(&gcs):
		info.etag = "gen:" + strconv.FormatInt(gcs.Attrs.Generation, 10)
	case f.scheme == "azblob" && r.As(&az) && az.ETag != nil:
		info.etag = string(*az.ETag)
	default:
		info.etag = r.ModTime().UTC().Format("2006-01-02T15:04:05.000000000Z")
	}
	return r, info, nil
}

// getSuffix asks an S3 server for the object's last n bytes; gocloud
// has no such range, so the request's Range is set before it goes.
// Other stores are read head first.
func (f *blobFetcher) getSuffix(ctx context.Context, n int64) (io.ReadCloser, int64, objectInfo, error) {
	if f.scheme != "s3" {
		return nil, 0, objectInfo{}, errNoSuffix
	}
	r, err := f.bucket.NewRangeReader(ctx, f.key, 0, n, &blob.ReaderOptions{BeforeRead: func(as func(any) bool) error {
		var in *s3.GetObjectInput
		if !as(&in) {
			return fmt.Errorf("%w: not an S3 request", ErrUnsupported)
		}
		in.Range = aws.String(fmt.Sprintf("bytes=-%d", n))
		return nil
	}})
	if err != nil {
		return nil, 0, objectInfo{}, blobError(err)
	}
	var out s3.GetObjectOutput
	if !r.As(&out) {
		r.Close()
		return nil, 0, objectInfo{}, fmt.Errorf("%w: not an S3 response", ErrProtocol)
	}
	start, end, total, err := checkSuffix(aws.ToString(out.ContentRange), n)
	if err != nil {
		r.Close()
		return nil, 0, objectInfo{}, err
	}
	info := objectInfo{size: total, etag: aws.ToString(out.ETag), ranged: true}
	return &limitedBody{r: io.LimitReader(r, end-start+1), c: r}, start, info, nil
}

// blobError maps gocloud's error codes onto this package's sentinels,
// keeping the cause.
func blobError(err error) error {
	if err == nil {
		return nil
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%w (%v)", ErrNotFound, err)
	case gcerrors.PermissionDenied:
		return fmt.Errorf("%w (%v)", ErrAccess, err)
	case gcerrors.FailedPrecondition:
		return fmt.Errorf("%w (%v)", ErrChanged, err)
	case gcerrors.Canceled:
		return context.Canceled
	}
	// S3's SignatureDoesNotMatch and InvalidAccessKeyId are codes gocloud
	// does not map: their status says it.
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		if c := causeOf(hs.HTTPStatusCode()); c != nil {
			return fmt.Errorf("%w (%v)", c, err)
		}
	}
	return err
}

// buckets holds the buckets opened so far, one per scheme and name, for
// the life of the process: opening one loads credentials and builds a
// client, which every object of the bucket shares.
var buckets struct {
	sync.Mutex
	m map[string]*blob.Bucket
}

// bucketOf opens (once) the bucket of u, an s3://, gs:// or azblob:// URL.
func bucketOf(ctx context.Context, u *url.URL) (bucket, error) {
	key := u.Scheme + "://" + u.Host
	buckets.Lock()
	defer buckets.Unlock()
	if b := buckets.m[key]; b != nil {
		return gocloudBucket{b}, nil
	}
	var b *blob.Bucket
	var err error
	if u.Scheme == "s3" {
		b, err = openS3(ctx, u.Host)
	} else {
		b, err = blob.OpenBucket(ctx, u.Scheme+"://"+u.Host)
	}
	if err != nil {
		return nil, blobError(err)
	}
	if buckets.m == nil {
		buckets.m = map[string]*blob.Bucket{}
	}
	buckets.m[key] = b
	return gocloudBucket{b}, nil
}

// gocloudBucket is a bucket through gocloud.dev/blob.
type gocloudBucket struct{ b *blob.Bucket }

func (g gocloudBucket) fetcher(raw, key, scheme string) fetcher {
	return &blobFetcher{url: raw, bucket: g.b, key: key, scheme: scheme}
}

func (g gocloudBucket) list(ctx context.Context, key string, delim bool, fn func(key string, dir bool, size int64) bool) error {
	opts := &blob.ListOptions{Prefix: key}
	if delim {
		opts.Delimiter = "/"
	}
	it := g.b.List(opts)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return blobError(err)
		}
		if !fn(obj.Key, obj.IsDir, obj.Size) {
			return nil
		}
	}
}

func (g gocloudBucket) readAll(ctx context.Context, key string) ([]byte, error) {
	data, err := g.b.ReadAll(ctx, key)
	return data, blobError(err)
}

func (g gocloudBucket) exists(ctx context.Context, key string) (bool, error) {
	ok, err := g.b.Exists(ctx, key)
	return ok, blobError(err)
}

func (g gocloudBucket) delete(ctx context.Context, key string) error {
	return blobError(g.b.Delete(ctx, key))
}

func (g gocloudBucket) newWriter(ctx context.Context, key string) (io.WriteCloser, error) {
	w, err := g.b.NewWriter(ctx, key, nil)
	if err != nil {
		return nil, blobError(err)
	}
	return blobWriter{w}, nil
}

// blobWriter maps a gocloud writer's errors as blobError does.
type blobWriter struct{ w *blob.Writer }

func (w blobWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	return n, blobError(err)
}

func (w blobWriter) Close() error { return blobError(w.w.Close()) }

// openS3 opens an S3 bucket with the standard AWS configuration: the
// AWS_* variables, the shared config and credentials files. With an
// endpoint set (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3 or the profile's
// endpoint_url) the server is an S3-compatible one: it is addressed
// path-style, and its region defaults to us-east-1. EC2 instance metadata
// credentials are used only with AWS_EC2_METADATA_DISABLED=false. The SDK's own retries
// are off: Object retries, once, for every scheme.
func openS3(ctx context.Context, bucket string) (*blob.Bucket, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if os.Getenv("AWS_EC2_METADATA_DISABLED") != "false" {
		// No instance metadata unless asked for: off an EC2 instance the
		// SDK would otherwise try 169.254.169.254 for credentials.
		opts = append(opts, awsconfig.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	endpoint := cfg.BaseEndpoint != nil || os.Getenv("AWS_ENDPOINT_URL_S3") != ""
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = endpoint
		o.RetryMaxAttempts = 1
		if endpoint {
			// S3-compatible servers need not know the newer checksums.
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	return s3blob.OpenBucket(ctx, client, bucket, &s3blob.Options{
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
	})
}
