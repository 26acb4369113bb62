package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/fserr"
	"github.com/baglab/baglab/recording"
)

// Error is a baseline file that cannot be parsed, compared with a
// run or updated from one. Path is the baseline file.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("baseline %s: %v", e.Path, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Read reads and parses the baseline file path. A file that cannot
// be read is a *recording.InputError, one that does not parse a
// *Error.
func Read(path string, keys Keys) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		err = fserr.Cause(err)
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w (make the first baseline with analyze --json or info --json)", err)
		}
		return nil, &recording.InputError{Path: path, Err: err}
	}
	b, err := Parse(data, keys)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return b, nil
}

// ReportFormats are the formats of a Report.
var ReportFormats = []string{"junit", "markdown"}

// Report is one report file of a check: Format one of
// ReportFormats, Path a file, or "-" for CheckOptions.Stdout.
type Report struct {
	Format, Path string
}

// ParseReport parses "junit:FILE" or "markdown:FILE".
func ParseReport(s string) (Report, error) {
	format, file, ok := strings.Cut(s, ":")
	for _, f := range ReportFormats {
		if ok && file != "" && format == f {
			return Report{Format: format, Path: file}, nil
		}
	}
	return Report{}, fmt.Errorf("%q: want junit:FILE or markdown:FILE", s)
}

// CheckOptions configure Check.
type CheckOptions struct {
	CompareOptions
	// Path is the baseline file: named in the reports, and rewritten by
	// Update.
	Path string
	// Name, when set, names the baseline in the reports instead of Path
	// (a local copy of a baseline kept in object storage).
	Name string
	// MaxLines is the number of detail lines of the text report at most.
	MaxLines int
	// Reports are also written (each atomically).
	Reports []Report
	// Update rewrites the baseline file from the run (Baseline.Update)
	// instead of failing on drift.
	Update bool
	// Stdout receives the reports whose Path is "-".
	Stdout io.Writer
	// Now and Host go into JUnit reports (default time.Now and
	// os.Hostname).
	Now  time.Time
	Host string
}

// CheckResult is what Check found and did.
type CheckResult struct {
	// Drift is true when the run is out of tolerance (also after an
	// update).
	Drift bool
	// Updated is true when the baseline file was rewritten; Unchanged
	// when an update would have written the bytes it holds, and it was
	// left untouched.
	Updated, Unchanged bool
}

// Check compares current with the baseline as `baglab check` does: it
// writes the text report to w and the report files of o, and with
// o.Update rewrites the baseline file o.Path from current, unless that
// would write the bytes it holds. Errors of the
// baseline's content are *Error; errors writing a file are
// returned as they are.
func (b *Baseline) Check(current []byte, o CheckOptions, w io.Writer) (*CheckResult, error) {
	name := o.Path
	if o.Name != "" {
		name = o.Name
	}
	c, err := b.Compare(current, o.CompareOptions)
	if err != nil {
		return nil, &Error{Path: name, Err: err}
	}
	if err := c.WriteText(w, name, o.MaxLines); err != nil {
		return nil, err
	}
	for _, r := range o.Reports {
		write := func(w io.Writer) error { return c.WriteMarkdown(w, name, 500) }
		if r.Format == "junit" {
			now, host := o.Now, o.Host
			if now.IsZero() {
				now = time.Now()
			}
			if host == "" {
				host, _ = os.Hostname()
			}
			write = func(w io.Writer) error { return c.WriteJUnit(w, name, now, host) }
		}
		if err := WriteReport(o.Stdout, r.Path, write); err != nil {
			return nil, err
		}
	}
	res := &CheckResult{Drift: c.Drift()}
	if o.Update {
		data, err := b.Update(current)
		if err != nil {
			return nil, &Error{Path: name, Err: err}
		}
		if bytes.Equal(data, b.raw) {
			res.Unchanged = true
			return res, nil
		}
		if err := WriteReport(o.Stdout, o.Path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return nil, err
		}
		res.Updated = true
	}
	return res, nil
}

// WriteReport writes one report file atomically (atomicfile.Write; "-"
// is stdout).
func WriteReport(stdout io.Writer, path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	return atomicfile.Write(path, write)
}
