package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
)

// fetcher makes one request for the bytes [off, off+n) of an object.
type fetcher interface {
	// get returns the body of the range, exactly n bytes long unless the
	// object ends first, and what the response told of the object. etag,
	// when not empty, is the version the request must read (If-Match).
	// A server that ignores the range answers with the whole object:
	// info.ranged is then false and the body starts at byte 0.
	get(ctx context.Context, off, n int64, etag string) (io.ReadCloser, objectInfo, error)
	// close releases what the fetcher holds (a bucket).
	close() error
}

// suffixer is a fetcher that can ask for an object's last n bytes before
// it knows the object's size (Range: bytes=-n), so that opening fetches
// the tail beside the head, not after it. getSuffix returns the body of
// the last n bytes (the whole object when shorter), where they start, and
// what the response told of the object; a response that is not that
// range is an error. It returns errNoSuffix, and makes no request, when
// this object's store cannot be asked so.
type suffixer interface {
	getSuffix(ctx context.Context, n int64) (body io.ReadCloser, start int64, info objectInfo, err error)
}

// errNoSuffix is getSuffix's answer for a store it cannot ask for an
// object's last bytes.
var errNoSuffix = errors.New("remote: the store cannot be asked for an object's last bytes")

// checkSuffix checks the Content-Range of a response to a request for an
// object's last n bytes: the range ends the object, and is n bytes long
// or the whole object.
func checkSuffix(contentRange string, n int64) (start, end, total int64, err error) {
	start, end, total, err = parseContentRange(contentRange)
	if err != nil {
		return 0, 0, 0, err
	}
	if start < 0 || total < 0 || end != total-1 || end-start+1 > n || end-start+1 < n && start != 0 {
		return 0, 0, 0, fmt.Errorf("%w: asked for the last %d bytes, got Content-Range %q", ErrProtocol, n, contentRange)
	}
	return start, end, total, nil
}

// objectInfo is what a response says of its object.
type objectInfo struct {
	size   int64 // the whole object's length; -1 when not told
	etag   string
	ranged bool // the body is the range asked for
}

// httpFetcher reads http(s) URLs with Range requests.
type httpFetcher struct {
	url    string
	client *http.Client
}

func (f *httpFetcher) close() error { return nil }

func (f *httpFetcher) get(ctx context.Context, off, n int64, etag string) (io.ReadCloser, objectInfo, error) {
	req, err := f.rangeRequest(ctx, fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	if err != nil {
		return nil, objectInfo{}, err
	}
	if etag != "" && !strings.HasPrefix(etag, "W/") {
		req.Header.Set("If-Match", etag)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, objectInfo{}, err
	}
	info := objectInfo{size: -1, etag: resp.Header.Get("ETag")}
	switch resp.StatusCode {
	case http.StatusPartialContent:
		start, end, total, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err == nil && (start != off || end-start+1 > n || total >= 0 && end >= total || total >= 0 && end-start+1 < n && end != total-1) {
			err = fmt.Errorf("%w: asked for bytes %d-%d, got Content-Range %q", ErrProtocol, off, off+n-1, resp.Header.Get("Content-Range"))
		}
		if err != nil {
			resp.Body.Close()
			return nil, info, err
		}
		info.size, info.ranged = total, true
		return &limitedBody{r: io.LimitReader(resp.Body, end-start+1), c: resp.Body}, info, nil
	case http.StatusOK:
		info.size = resp.ContentLength
		return resp.Body, info, nil
	case http.StatusRequestedRangeNotSatisfiable:
		// bytes */SIZE: the range starts past the end.
		_, _, total, err := parseContentRange(resp.Header.Get("Content-Range"))
		resp.Body.Close()
		if err == nil && total >= 0 && off >= total {
			info.size, info.ranged = total, true
			return http.NoBody, info, nil
		}
		return nil, info, fmt.Errorf("%w: HTTP 416 for bytes %d-%d (Content-Range %q)", ErrProtocol, off, off+n-1, resp.Header.Get("Content-Range"))
	}
	msg := resp.Status
	resp.Body.Close()
	if _, after, ok := strings.Cut(msg, " "); ok {
		msg = after
	}
	return nil, info, wrapStatus(resp.StatusCode, msg)
}

// rangeRequest is a GET of the byte range rng ("bytes=...").
func (f *httpFetcher) rangeRequest(ctx context.Context, rng string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Range", rng)
	// Compression would make byte offsets meaningless.
	req.Header.Set("Accept-Encoding", "identity")
	return req, nil
}

func (f *httpFetcher) getSuffix(ctx context.Context, n int64) (io.ReadCloser, int64, objectInfo, error) {
	req, err := f.rangeRequest(ctx, fmt.Sprintf("bytes=-%d", n))
	if err != nil {
		return nil, 0, objectInfo{}, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, 0, objectInfo{}, err
	}
	info := objectInfo{size: -1, etag: resp.Header.Get("ETag")}
	if resp.StatusCode != http.StatusPartialContent {
		// The whole object (a server that ignores Range), or an error
		// the head's request reports too: left unread.
		resp.Body.Close()
		return nil, 0, info, fmt.Errorf("%w: HTTP %d to a request for the last %d bytes", ErrProtocol, resp.StatusCode, n)
	}
	start, end, total, err := checkSuffix(resp.Header.Get("Content-Range"), n)
	if err != nil {
		resp.Body.Close()
		return nil, 0, info, err
	}
	info.size, info.ranged = total, true
	return &limitedBody{r: io.LimitReader(resp.Body, end-start+1), c: resp.Body}, start, info, nil
}

// limitedBody reads at most the range's length of a body and closes it.
type limitedBody struct {
	r io.Reader
	c io.Closer
}

func (b *limitedBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *limitedBody) Close() error               { return b.c.Close() }

// parseContentRange parses "bytes START-END/TOTAL" (TOTAL may be "*",
// then -1) and "bytes */TOTAL" (START and END -1).
func parseContentRange(s string) (start, end, total int64, err error) {
	bad := func() (int64, int64, int64, error) {
		return -1, -1, -1, fmt.Errorf("%w: Content-Range %q", ErrProtocol, s)
	}
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return bad()
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return bad()
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil || total < 0 {
			return bad()
		}
	}
	if rng == "*" {
		if total < 0 {
			return bad()
		}
		return -1, -1, total, nil
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return bad()
	}
	if start, err = strconv.ParseInt(a, 10, 64); err != nil || start < 0 {
		return bad()
	}
	if end, err = strconv.ParseInt(b, 10, 64); err != nil || end < start {
		return bad()
	}
	return start, end, total, nil
}

// temporary reports whether err is worth a retry: a timeout, a reset or
// refused connection, a body cut short, a 5xx or 429 status.
func temporary(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.temporary()
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		return (&statusError{code: hs.HTTPStatusCode()}).temporary()
	}
	if errors.Is(err, ErrProtocol) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrAccess) || errors.Is(err, ErrChanged) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, errStalled) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed)
}
