package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Output is an output named by URL (a file, or a folder of files such as
// an export's dataset), staged: the code that writes it writes under
// Local, a private temporary path, as it writes any local output
// (internal/atomicfile: temporary names, then renames), and Publish then
// uploads each new or changed file as one object, written whole (Writer),
// so that no reader ever sees part of an object. Close removes the local
// copy.
type Output struct {
	url   string
	tmp   string // the private temporary folder
	local string
	dir   bool
	last  []string // sub-folders published after the rest
	seen  map[string]stamp
	// replace deletes, once a folder is published, the objects under
	// its prefix that it does not hold
	replace bool
}

type stamp struct {
	size int64
	mod  time.Time
}

// StageOutput stages the output at url, a folder when dir is set. pull
// names sub-folders of a folder output whose objects are copied into
// Local first, for a writer that reads what an earlier run left there
// (an export's manifest); Publish uploads them after the rest, so that
// they never name objects not yet there.
func StageOutput(ctx context.Context, url string, dir bool, pull ...string) (*Output, error) {
	if !InBucket(url) {
		return nil, &Error{URL: url, Op: "write", Err: fmt.Errorf("%w: outputs go to object storage (s3://, gs://, azblob://) or local paths", ErrUnsupported)}
	}
	o, err := newOutput(url, dir)
	if err != nil {
		return nil, err
	}
	o.last = pull
	for _, p := range pull {
		if err := o.pull(ctx, p); err != nil {
			o.Close()
			return nil, err
		}
	}
	return o, nil
}

// newOutput makes the private temporary folder of an output.
func newOutput(url string, dir bool) (*Output, error) {
	tmp, err := os.MkdirTemp("", "baglab-out-*")
	if err != nil {
		return nil, err
	}
	o := &Output{url: strings.TrimSuffix(url, "/"), tmp: tmp, dir: dir, seen: map[string]stamp{}}
	o.local = filepath.Join(tmp, path.Base(o.url))
	if dir {
		if err := os.Mkdir(o.local, 0o700); err != nil {
			o.Close()
			return nil, err
		}
	}
	return o, nil
}

// StageFile stages the file output at url as StageOutput does, its
// object's bytes copied into Local first (nothing when there is no such
// object), read through s (nil: a session of its own): a file that a
// verb reads and may rewrite, such as a baseline. Publish uploads it only
// when the verb changed it. An http(s) URL can be staged too, to be read:
// publishing a change to it fails.
func StageFile(ctx context.Context, s *Session, url string) (*Output, error) {
	o, err := newOutput(url, false)
	if err != nil {
		return nil, err
	}
	if s == nil {
		s = NewSession(ctx, Options{})
		defer s.Close()
	}
	obj, err := s.Open(url)
	if errors.Is(err, ErrNotFound) {
		return o, nil
	}
	if err == nil {
		err = obj.CopyToFile(o.local)
	}
	if err != nil {
		o.Close()
		return nil, err
	}
	st, err := os.Stat(o.local)
	if err != nil {
		o.Close()
		return nil, err
	}
	o.seen[""] = stamp{st.Size(), st.ModTime()}
	return o, nil
}

// CopyToFile copies the object into a new file dst (mode 0600), fetching
// each byte once, and then drops its cached blocks.
func (obj *Object) CopyToFile(dst string) error {
	defer obj.Trim()
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.NewSectionReader(obj, 0, obj.Size()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// URL is the output's URL.
func (o *Output) URL() string { return o.url }

// Local is the local path the output is written to.
func (o *Output) Local() string { return o.local }

// pull copies the objects under the sub-folder sub into Local.
func (o *Output) pull(ctx context.Context, sub string) error {
	prefix := o.url + "/" + sub + "/"
	b, key, err := openBucket(ctx, prefix, "list")
	if err != nil {
		return err
	}
	keys, err := objectsUnder(ctx, b, prefix, key, 0)
	if err != nil {
		return err
	}
	for _, k := range keys {
		rel := sub + "/" + strings.TrimPrefix(k, key)
		dst := filepath.Join(o.local, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		data, err := b.readAll(ctx, k)
		if err != nil {
			return &Error{URL: o.url + "/" + rel, Op: "read", Err: err}
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return err
		}
		st, err := os.Stat(dst)
		if err != nil {
			return err
		}
		o.seen[filepath.ToSlash(rel)] = stamp{st.Size(), st.ModTime()}
	}
	return nil
}

// Publish uploads the output: the file, or every file of the folder (a
// folder output, or a file output its writer made a folder, such as a
// rosbag2 folder) that
// is new or changed since it was staged (leaving out hidden names, the
// temporary files of a writer), the pulled sub-folders last. It returns
// the URLs written.
func (o *Output) Publish(ctx context.Context) ([]string, error) {
	st, err := os.Stat(o.local)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if old, ok := o.seen[""]; ok && old.size == st.Size() && old.mod.Equal(st.ModTime()) {
			return nil, nil // a staged file left as it was
		}
		return []string{o.url}, upload(ctx, o.local, o.url)
	}
	var rels, all []string
	err = filepath.WalkDir(o.local, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != o.local {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(o.local, p)
		rel = filepath.ToSlash(rel)
		all = append(all, rel)
		st, err := d.Info()
		if err != nil {
			return err
		}
		if old, ok := o.seen[rel]; ok && old.size == st.Size() && old.mod.Equal(st.ModTime()) {
			return nil
		}
		rels = append(rels, rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	isLast := func(rel string) bool {
		return slices.ContainsFunc(o.last, func(p string) bool { return strings.HasPrefix(rel, p+"/") })
	}
	slices.SortStableFunc(rels, func(a, b string) int {
		switch la, lb := isLast(a), isLast(b); {
		case la && !lb:
			return 1
		case lb && !la:
			return -1
		}
		return strings.Compare(a, b)
	})
	var urls []string
	for _, rel := range rels {
		u := o.url + "/" + rel
		if err := upload(ctx, filepath.Join(o.local, filepath.FromSlash(rel)), u); err != nil {
			return urls, err
		}
		urls = append(urls, u)
	}
	if o.replace {
		if err := deleteOthers(ctx, o.url, all); err != nil {
			return urls, err
		}
	}
	return urls, nil
}

// ReplaceWhole makes Publish of a folder output delete the objects under
// its prefix that the folder does not hold, after uploading it: the
// prefix is then the folder, never a mix of two runs' objects (a verb's
// --force on a folder it writes whole). A bucket's root is refused: it
// would delete the whole bucket's other objects.
func (o *Output) ReplaceWhole() error {
	_, key, err := splitBlobURL(o.url)
	if err == nil && strings.Trim(key, "/") == "" {
		err = errors.New("a bucket's root is not replaced whole: name a prefix under it")
	}
	if err != nil {
		return &Error{URL: o.url, Op: "write", Err: err}
	}
	o.replace = true
	return nil
}

// upload writes the file at local as the object url, whole.
func upload(ctx context.Context, local, url string) error {
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	w, err := Create(ctx, url)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// Close removes the local copy; idempotent.
func (o *Output) Close() error {
	if o.tmp == "" {
		return nil
	}
	err := os.RemoveAll(o.tmp)
	o.tmp = ""
	return err
}

// Download copies the object at url into a new private temporary folder,
// or, for a prefix, every object directly under it whose name ends in
// one of exts (all when none), in name order; it returns the local paths
// and the folder, which the caller removes. s, when not nil, is the
// session that reads (and counts) the objects.
func Download(ctx context.Context, s *Session, url string, exts ...string) (paths []string, tmp string, err error) {
	if s == nil {
		s = NewSession(ctx, Options{})
		defer s.Close()
	}
	tmp, err = os.MkdirTemp("", "baglab-in-*")
	if err != nil {
		return nil, "", err
	}
	urls := []string{url}
	if IsPrefix(url) {
		entries, err := List(ctx, url)
		if err != nil {
			os.RemoveAll(tmp)
			return nil, "", err
		}
		urls = nil
		for _, e := range entries {
			if !e.Dir && (len(exts) == 0 || slices.ContainsFunc(exts, func(x string) bool { return strings.HasSuffix(e.Name, x) })) {
				urls = append(urls, e.URL)
			}
		}
	}
	for _, u := range urls {
		obj, err := s.Open(u)
		if err != nil {
			os.RemoveAll(tmp)
			return nil, "", err
		}
		dst := filepath.Join(tmp, path.Base(u))
		if err := obj.CopyToFile(dst); err != nil {
			os.RemoveAll(tmp)
			return nil, "", err
		}
		paths = append(paths, dst)
	}
	return paths, tmp, nil
}
