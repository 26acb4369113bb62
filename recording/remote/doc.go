// Package remote reads recordings kept in object storage or behind a web
// server as an io.ReaderAt, fetching only the byte ranges a reader asks
// for.
//
// URLs: s3://bucket/key, gs://bucket/key, azblob://container/key,
// http://host/path and https://host/path (see IsURL). Object storage goes
// through gocloud.dev/blob (drivers s3blob, gcsblob, azureblob): one
// library for the three schemes, one error model (gcerrors) and one
// writer whose object is visible only once Close succeeds, where
// minio-go would cover S3 alone. S3 clients are built from the standard
// AWS configuration (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE,
// ~/.aws/config and credentials, AWS_REGION); AWS_ENDPOINT_URL (or
// AWS_ENDPOINT_URL_S3) names an S3-compatible server, addressed
// path-style. http(s) URLs are read with net/http Range requests.
//
// Open makes one request for the head of the object (which tells its size
// and ETag) and one for its tail (250,000 bytes, as the mcap CLI reads,
// where a ROS1 bag's index and an MCAP summary sit), both at once over
// HTTP and S3, which can ask for an object's last bytes without knowing
// its size (the tail's response must then tell the head's version, or the
// tail is asked for again after the head, with If-Match); every later
// read goes through a bounded block cache,
// fetches the missing blocks of one read in one request, runs the
// requests of concurrent reads in parallel and reads ahead, in parallel
// requests, while a reader goes through the object in order. A reader
// that knows the ranges it will read (the chunks a selection needs, from
// a recording's index) announces them with Plan: the object then fetches
// along them in large requests, and nothing between them. Stats counts
// the requests and bytes.
//
// Faults: timeouts, connection resets, cut bodies and HTTP 429/500/502/
// 503/504 are retried with bounded backoff, resuming where the body was
// cut; every request after the first names the ETag it expects (If-Match),
// so an object that changes during a read is an error wrapping ErrChanged,
// never a mix of two versions; a missing object or bucket wraps
// ErrNotFound and refused credentials ErrAccess, naming the URL and never
// a secret; a server that ignores Range is read once, as one stream, into
// a private temporary file (and Open says so through Options.OnNote).
// Cancelling the context given to Open stops every request.
//
// Create writes an object whole: it becomes visible only when Commit
// succeeds, never in part.
package remote
