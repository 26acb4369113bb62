package recording

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/baglab/baglab/internal/digest"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/mcapfile"
	"github.com/baglab/baglab/recording/remote"
)

// Recordings named by URL (package remote) are read in place: a ROS1 bag
// or an MCAP file through range requests, fetching its head and tail when
// it is opened and then only the chunks a reading asks for, as are the
// MCAP splits of a rosbag2 prefix; a format that needs a named file (a
// rosbag2 .db3 database, a prefix of .db3 or zstd-compressed splits) and
// the checks of doctor and check, which read every byte, go through a private
// temporary copy, which the session's note announces.

// session returns o.Remote, or a session of its own (private true) that
// the caller closes.
func (o OpenOptions) session() (s *remote.Session, private bool) {
	if o.Remote != nil {
		return o.Remote, false
	}
	return remote.NewSession(context.Background(), remote.Options{}), true
}

// urlError is the error of a URL that cannot be opened: an *InputError
// (exit 4 in the CLI) naming the URL, wrapping the remote error.
func urlError(url string, err error) error {
	var ie *InputError
	if err == nil || errors.As(err, &ie) || errors.Is(err, context.Canceled) {
		return err
	}
	var re *remote.Error
	if errors.As(err, &re) && re.URL == url {
		return &InputError{Path: url, Err: re.Err}
	}
	return &InputError{Path: url, Err: err}
}

// openURL opens the recording at a URL: an object read through range
// requests when its format reads from an io.ReaderAt, a private copy
// otherwise.
func openURL(url string, o OpenOptions) (record.Reader, error) {
	s, private := o.session()
	done := func() {
		if private {
			s.Close()
		}
	}
	if remote.IsPrefix(url) {
		r, err := openURLFolder(url, s, private, o)
		if err != nil || r == nil {
			if err == nil {
				r, err = openURLCopy(url, s, private, o)
			}
			done()
		}
		return r, err
	}
	obj, err := s.Open(url)
	if err != nil {
		done()
		return nil, urlError(url, err)
	}
	format, err := sniffObject(obj)
	if err != nil {
		done()
		return nil, err
	}
	if c, _ := formatRow(format); c.reader == nil {
		r, err := openURLCopy(url, s, private, o)
		done()
		return r, err
	}
	r, err := OpenReaderAt(obj, obj.Size(), url, o)
	if err != nil {
		obj.Trim()
		done()
		return nil, err
	}
	release := obj.Trim
	if private {
		release = func() { s.Close() }
	}
	return &urlReader{Reader: r, release: release}, nil
}

// sniffObject tells the format of an object from its first bytes.
func sniffObject(obj *remote.Object) (Format, error) {
	head := make([]byte, min(obj.Size(), 16))
	if n, err := obj.ReadAt(head, 0); err != nil && (err != io.EOF || n < len(head)) {
		return "", urlError(obj.URL(), err)
	}
	return sniffBytes(obj.URL(), head)
}

// sniffURL is Sniff of a URL.
func sniffURL(url string) (Format, error) {
	s := remote.NewSession(context.Background(), remote.Options{})
	defer s.Close()
	if remote.IsPrefix(url) {
		names, err := listNames(s, url)
		if err != nil {
			return "", err
		}
		return sniffBag2(url, url+"metadata.yaml", names, func() (*db3.Bag2Metadata, error) { return readURLMetadata(s, url) })
	}
	obj, err := s.Open(url)
	if err != nil {
		return "", urlError(url, err)
	}
	return sniffObject(obj)
}

// listNames lists the names of the objects directly under the prefix url.
func listNames(s *remote.Session, url string) ([]string, error) {
	entries, err := remote.List(s.Context(), url)
	if err != nil {
		return nil, urlError(url, err)
	}
	return fileNames(entries), nil
}

// maxMetadata bounds the metadata.yaml of a rosbag2 prefix read into
// memory (rosbag2 writes a few kB per topic).
const maxMetadata = 64 << 20

// readURLMetadata reads the metadata.yaml under the rosbag2 prefix url.
func readURLMetadata(s *remote.Session, url string) (*db3.Bag2Metadata, error) {
	u := url + "metadata.yaml"
	obj, err := s.Open(u)
	if err != nil {
		return nil, urlError(u, err)
	}
	defer obj.Trim()
	if obj.Size() > maxMetadata {
		return nil, &record.Error{File: u, Offset: -1, Err: record.ErrLength,
			Detail: fmt.Sprintf("%d bytes, more than a metadata.yaml holds (at most %d read)", obj.Size(), maxMetadata)}
	}
	b := make([]byte, obj.Size())
	if _, err := obj.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, urlError(u, err)
	}
	return db3.ParseBag2Metadata(b, u)
}

// openURLFolder opens the rosbag2 prefix url as openMCAPDir opens a local
// folder when its splits are MCAP files as they are (compression_mode
// NONE or MESSAGE): each read through range requests, as an MCAP object
// is, merged in log time order. It returns a nil reader for a prefix that
// needs a local copy: db3 splits (sqlite reads a named file) or splits
// compressed whole (zstd streams). private is the session's: closing the
// reader closes it.
func openURLFolder(url string, s *remote.Session, private bool, o OpenOptions) (record.Reader, error) {
	names, err := listNames(s, url)
	if err != nil {
		return nil, err
	}
	var meta *db3.Bag2Metadata
	if slices.Contains(names, "metadata.yaml") {
		if meta, err = readURLMetadata(s, url); err != nil {
			return nil, err
		}
	}
	format, err := sniffBag2(url, url+"metadata.yaml", names, func() (*db3.Bag2Metadata, error) { return meta, nil })
	if err != nil || format != FormatMCAP {
		return nil, err
	}
	// The splits as mcapSplits finds a local folder's.
	var splits []string
	mode := db3.CompressionNone
	if meta != nil {
		if mode, err = meta.Compression(); err != nil || mode == db3.CompressionFile {
			return nil, err
		}
		splits = meta.SplitNames(func(name string) bool { return slices.Contains(names, name) })
	}
	if len(splits) == 0 {
		splits = orderSplits(names, ".mcap")
	}
	var objs []*remote.Object
	release := func() {
		for _, obj := range objs {
			obj.Trim()
		}
	}
	if private {
		release = func() { s.Close() }
	}
	r, err := mergeSplits(url, splits, mode, o, func(name string) (record.Reader, error) {
		u := url + name
		obj, err := s.Open(u)
		if err != nil {
			return nil, urlError(u, err)
		}
		objs = append(objs, obj)
		return mcapfile.NewReader(obj, obj.Size(), u, o.read(u))
	})
	if err != nil {
		release()
		return nil, err
	}
	return &urlReader{Reader: r, release: release}, nil
}

// urlReader is a recording read from a remote object; closing it drops
// the object's cached blocks (or closes its private session).
type urlReader struct {
	record.Reader
	release func()
}

// Unwrap returns the format's reader.
func (u *urlReader) Unwrap() record.Reader { return u.Reader }

// Close closes the reader and releases the object; idempotent.
func (u *urlReader) Close() error {
	err := u.Reader.Close()
	if u.release != nil {
		u.release()
		u.release = nil
	}
	return err
}

// openURLCopy opens the recording at url (an object or a rosbag2 folder)
// from a private temporary copy: of a private session, removed when the
// reader closes; else the session's (remote.Session.LocalCopy).
func openURLCopy(url string, s *remote.Session, private bool, o OpenOptions) (record.Reader, error) {
	var local string
	var release func()
	if private {
		dir, path, err := copyURL(url, s)
		if err != nil {
			return nil, err
		}
		local, release = path, func() { os.RemoveAll(dir) }
	} else {
		// The command's session keeps the copy for a reading that opens
		// the recording again (its messages after its summary).
		path, done, err := s.LocalCopy(url, func() (string, string, error) { return copyURL(url, s) })
		if err != nil {
			return nil, err
		}
		local, release = path, done
	}
	r, err := OpenWith(local, o)
	if err != nil {
		release()
		return nil, renameError(err, local, url)
	}
	return &copyReader{urlReader{Reader: r, release: release}, local, url}, nil
}

// copyReader is a recording read from a private copy of a URL: its
// messages name the URL as their source, not the copy.
type copyReader struct {
	urlReader
	local, url string
}

// Messages iterates the copy's messages, naming the URL as their source.
func (c *copyReader) Messages(f record.Filter) (record.Iterator, error) {
	it, err := c.Reader.Messages(f)
	if err != nil {
		return nil, renameError(err, c.local, c.url)
	}
	return &sourceIter{it, c.local, c.url}, nil
}

type sourceIter struct {
	record.Iterator
	local, url string
}

func (s *sourceIter) Next() (*record.Message, error) {
	m, err := s.Iterator.Next()
	if err != nil {
		return m, renameError(err, s.local, s.url)
	}
	if rest, ok := strings.CutPrefix(m.Source, s.local); ok {
		m.Source = s.url + rest
	}
	return m, nil
}

// copyURL copies the object at url, or every object directly under the
// prefix url (a rosbag2 folder), into a new private temporary folder dir,
// as local, under the URL's last name; the caller removes dir.
func copyURL(url string, s *remote.Session) (dir, local string, err error) {
	dir, err = os.MkdirTemp("", "baglab-remote-*")
	if err != nil {
		return "", "", err
	}
	name := path.Base(strings.TrimSuffix(url, "/"))
	urls, dst := []string{url}, []string{filepath.Join(dir, name)}
	if remote.IsPrefix(url) {
		entries, err := remote.List(s.Context(), url)
		if err != nil {
			os.RemoveAll(dir)
			return "", "", urlError(url, err)
		}
		urls, dst = nil, nil
		for _, e := range entries {
			if !e.Dir {
				urls = append(urls, e.URL)
				dst = append(dst, filepath.Join(dir, name, e.Name))
			}
		}
		if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
			os.RemoveAll(dir)
			return "", "", err
		}
	}
	s.Note("%s: copied to a private temporary folder (this format is read from a named file)", url)
	for i, u := range urls {
		if err := copyObject(s, u, dst[i]); err != nil {
			os.RemoveAll(dir)
			return "", "", err
		}
	}
	return dir, filepath.Join(dir, name), nil
}

// copyObject copies one object into the file dst, fetching each byte once.
func copyObject(s *remote.Session, url, dst string) error {
	obj, err := s.Open(url)
	if err == nil {
		err = obj.CopyToFile(dst)
	}
	return urlError(url, err)
}

// renameError makes an error about the local copy at local name url
// instead.
func renameError(err error, local, url string) error {
	var re *record.Error
	if errors.As(err, &re) && strings.HasPrefix(re.File, local) {
		re.File = url + strings.TrimPrefix(re.File, local)
	}
	var ie *InputError
	if errors.As(err, &ie) && strings.HasPrefix(ie.Path, local) {
		ie.Path = url + strings.TrimPrefix(ie.Path, local)
	}
	return err
}

// expandURL is Expand of one URL: an object is one recording; a prefix
// ("s3://bucket/runs/") is one when it is a rosbag2 folder, and otherwise
// stands for the recordings directly under it and its rosbag2
// sub-folders, in name order.
func expandURL(url string) ([]string, error) {
	if !remote.IsPrefix(url) {
		return []string{url}, nil
	}
	ctx := context.Background()
	entries, err := remote.List(ctx, url)
	if err != nil {
		return nil, urlError(url, err)
	}
	if isBag2Names(fileNames(entries)) {
		return []string{url}, nil
	}
	var out []string
	for _, e := range entries {
		switch {
		case e.Dir:
			sub, err := remote.List(ctx, e.URL)
			if err == nil && isBag2Names(fileNames(sub)) {
				out = append(out, e.URL)
			}
		case recordingExt(e.Name):
			out = append(out, e.URL)
		}
	}
	if len(out) == 0 {
		return nil, &InputError{Path: url, Err: ErrNoRecordings}
	}
	return out, nil
}

func fileNames(entries []remote.Entry) []string {
	var names []string
	for _, e := range entries {
		if !e.Dir {
			names = append(names, e.Name)
		}
	}
	return names
}

// checkURL is Check of a URL: the checks read every byte, so they run on
// a private temporary copy; what they find names the URL.
func checkURL(ctx context.Context, url string, o CheckOptions) ([]record.Problem, error) {
	s := o.Remote
	if s == nil {
		s = remote.NewSession(ctx, remote.Options{})
		defer s.Close()
	}
	dir, local, err := copyURL(url, s)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	o.Remote = nil
	probs, err := Check(ctx, local, o)
	return probs, renameError(err, local, url)
}

// repairURL is Repair of a URL: the object is copied into a private
// temporary folder and repaired from there; what Repair reports names the
// URL.
func repairURL(ctx context.Context, f Format, url, out string, o RepairOptions) (*RepairReport, error) {
	s := o.Remote
	if s == nil {
		s = remote.NewSession(ctx, remote.Options{})
		defer s.Close()
	}
	dir, local, err := copyURL(url, s)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	o.Remote = nil
	rep, err := Repair(ctx, f, local, out, o)
	if rep != nil {
		rep.Summary = strings.ReplaceAll(rep.Summary, local, url)
	}
	return rep, renameError(err, local, url)
}

// Digest is digest.Of of a path or a URL: an object is read in order, each
// byte once; a prefix (a rosbag2 folder) digests as a folder of the
// objects directly under it.
func Digest(p string) (digest.Digest, error) {
	if !remote.IsURL(p) {
		return digest.Of(p)
	}
	s := remote.NewSession(context.Background(), remote.Options{})
	defer s.Close()
	return digestURL(s, p)
}

// DigestWhileReading starts hashing the recording at p, when it is a
// remote object, while a reading of it through the session s fetches its
// bytes (OpenOptions.Remote), and returns the function that, once that
// reading is done, gives its Digest: each byte is fetched once for the
// reading and the hash together. A local path or a prefix (a rosbag2
// folder) is hashed when the function is called, as Digest does.
func DigestWhileReading(s *remote.Session, p string) func() (digest.Digest, error) {
	if s == nil || !remote.IsURL(p) || remote.IsPrefix(p) {
		return func() (digest.Digest, error) { return Digest(p) }
	}
	obj, err := s.Open(p)
	if err != nil {
		return func() (digest.Digest, error) { return digest.Digest{}, urlError(p, err) }
	}
	obj.Hash()
	return func() (digest.Digest, error) {
		sum, n, err := obj.Sum()
		obj.Trim()
		if err != nil {
			return digest.Digest{}, urlError(p, err)
		}
		return digest.Digest{Size: n, SHA256: hex.EncodeToString(sum)}, nil
	}
}

// digestURL is Digest of a URL, read through s.
func digestURL(s *remote.Session, p string) (digest.Digest, error) {
	one := func(url string) (digest.File, error) {
		obj, err := s.Open(url)
		if err != nil {
			return digest.File{}, urlError(url, err)
		}
		defer obj.Trim()
		sum, n, err := obj.Sum()
		if err != nil {
			return digest.File{}, urlError(url, err)
		}
		return digest.File{Path: url, Size: n, SHA256: hex.EncodeToString(sum)}, nil
	}
	if !remote.IsPrefix(p) {
		f, err := one(p)
		return digest.Digest{Size: f.Size, SHA256: f.SHA256}, err
	}
	entries, err := remote.List(s.Context(), p)
	if err != nil {
		return digest.Digest{}, urlError(p, err)
	}
	var files []digest.File
	for _, e := range entries {
		if e.Dir {
			continue
		}
		f, err := one(e.URL)
		if err != nil {
			return digest.Digest{}, err
		}
		f.Path = e.Name
		files = append(files, f)
	}
	return digest.OfFiles(files), nil
}
