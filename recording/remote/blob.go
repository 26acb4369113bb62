package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"

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
	s3     bool // ETags come from S3's GetObjectOutput
}

func (f *blobFetcher) close() error { return nil } // buckets are shared, see buckets

func (f *blobFetcher) get(ctx context.Context, off, n int64, etag string) (io.ReadCloser, objectInfo, error) {
	var opts *blob.ReaderOptions
	if etag != "" && f.s3 {
		opts = &blob.ReaderOptions{BeforeRead: func(as func(any) bool) error {
			var in *s3.GetObjectInput
			if as(&in) {
				in.IfMatch = aws.String(etag)
			}
			return nil
		}}
	}
	r, err := f.bucket.NewRangeReader(ctx, f.key, off, n, opts)
	if err != nil {
		return nil, objectInfo{}, blobError(err)
	}
	info := objectInfo{size: r.Size(), ranged: true}
	var out s3.GetObjectOutput
	if f.s3 && r.As(&out) {
		info.etag = aws.ToString(out.ETag)
	} else {
		// gs:// and azblob://: the version is the modification time.
		info.etag = r.ModTime().UTC().Format("2006-01-02T15:04:05.000000000Z")
	}
	return r, info, nil
}

// blobError maps gocloud's error codes onto this package's sentinels,
// keeping the cause.
func blobError(err error) error {
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
func bucketOf(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	key := u.Scheme + "://" + u.Host
	buckets.Lock()
	defer buckets.Unlock()
	if b := buckets.m[key]; b != nil {
		return b, nil
	}
	var b *blob.Bucket
	var err error
	if u.Scheme == "s3" {
		b, err = openS3(ctx, u.Host)
	} else {
		b, err = blob.OpenBucket(ctx, u.Scheme+"://"+u.Host)
	}
	if err != nil {
		return nil, err
	}
	if buckets.m == nil {
		buckets.m = map[string]*blob.Bucket{}
	}
	buckets.m[key] = b
	return b, nil
}

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
