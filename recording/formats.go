package recording

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/mcapfile"
	"github.com/baglab/baglab/recording/rosbag2"
)

// Format names a recording format.
type Format string

// The recording formats baglab reads.
const (
	FormatBag  Format = "bag"
	FormatMCAP Format = "mcap"
	FormatDB3  Format = "db3"
	// FormatROS2 is a rosbag2 folder baglab writes (metadata.yaml version
	// 9 and MCAP or sqlite3 splits, package rosbag2); it is read as the
	// format of its splits.
	FormatROS2 Format = "rosbag2"
)

// container is one row of the format table: all that the front door knows
// of a recording format. Sniff, Open, OpenWith, OpenStream, OpenReaderAt,
// Expand, Check, Create, CheckCompression, OutputFormat, Repair and
// RepairOutput look a format up here and nowhere else, so a new format is
// one row plus its own package (which implements record.Reader and, if
// baglab writes it, record.Writer). A field left nil or empty says the
// format lacks that ability; the functions that need it then refuse the
// format with an error naming it.
type container struct {
	// format is the format's name: Summary.Format, and the Format value
	// the functions above take and return.
	format Format
	// label names the format in messages to people ("MCAP compression
	// %q ...").
	label string
	// what says what a file of the format is, in the error for a file that
	// is none of the formats ("a ROS1 bag (#ROSBAG V2.0)").
	what string
	// magic are the first bytes of every file of the format (Sniff,
	// OpenStream, OpenReaderAt); nil for a format not told by its bytes.
	magic []byte
	// exts are the file name endings of the format's files that a plain
	// folder expands into (Expand), longest match first not needed: any
	// ending counts.
	exts []string
	// storage is the storage_identifier of a rosbag2 folder (metadata.yaml)
	// whose split files have this format, and splitExt the ending of those
	// split files (NAME_0.mcap); "" when rosbag2 does not store it.
	storage, splitExt string

	// open opens the file at path, or a rosbag2 folder of the format when
	// storage is set, with the options o (o.read(path) turns them into the
	// container's record.ReadOptions).
	open func(path string, o OpenOptions) (record.Reader, error)
	// reader reads a recording held in the size bytes of ra, name standing
	// for its path in errors and in Message.Source: a stream spooled to a
	// temporary file (OpenStream) or a remote source (OpenReaderAt). nil
	// when the format can only be read from a named file; noReader then
	// says why ("sqlite reads a named file").
	reader   func(ra io.ReaderAt, size int64, name string, o OpenOptions) (record.Reader, error)
	noReader string
	// check is the container's structural check of a file (or rosbag2
	// folder) of the format (Check adds the codec checks of every format).
	check func(path string) ([]record.Problem, error)

	// repair rebuilds the recording in into out (a folder that exists),
	// keeping every intact message; nil when baglab cannot repair the
	// format. repairVerb is the baglab verb that runs it, repairSuffix the
	// ending RepairOutput gives its output (".reindexed.bag").
	repair       func(ctx context.Context, in, out string, o RepairOptions) (*RepairReport, error)
	repairVerb   record.Repair
	repairSuffix string

	// create starts a recording of the format at path, in a folder that
	// exists; made holds the folders Create made for it, which the writer
	// removes again when its Close fails or on Abort (madeDirs). nil when
	// baglab does not write the format. createExts are the endings of the
	// output names that ask for it (OutputFormat), compressions the
	// compressions it writes, its default first (CreateOptions.Compression
	// "" picks it).
	create       func(path string, o CreateOptions, made *atomicfile.DirSet) (Writer, error)
	createExts   []string
	compressions []string
}

// formats is the format table, in the order Sniff tries the magics and a
// rosbag2 folder without metadata.yaml tries its split endings. It is a
// function, not a variable, because its rows refer to functions that look
// formats up (an initialisation cycle for a variable).
func formats() []container {
	return []container{
		{
			format: FormatBag, label: "bag", what: "a ROS1 bag (#ROSBAG V2.0)",
			magic: []byte("#ROSBAG V2.0\n"), exts: []string{".bag", ".bag.active"},
			open: func(path string, o OpenOptions) (record.Reader, error) {
				return bag.Open(path, o.read(path))
			},
			reader: func(ra io.ReaderAt, size int64, name string, o OpenOptions) (record.Reader, error) {
				return bag.NewReader(ra, size, name, o.read(name))
			},
			check:  bag.Check,
			repair: reindexBag, repairVerb: record.RepairReindex, repairSuffix: ".reindexed.bag",
			create: createBag, createExts: []string{".bag"}, compressions: []string{"none", "lz4", "bz2"},
		},
		{
			format: FormatMCAP, label: "MCAP", what: "an MCAP file",
			magic: []byte("\x89MCAP0\r\n"), exts: []string{".mcap"}, storage: "mcap", splitExt: ".mcap",
			open: openMCAP,
			reader: func(ra io.ReaderAt, size int64, name string, o OpenOptions) (record.Reader, error) {
				return mcapfile.NewReader(ra, size, name, o.read(name))
			},
			check:  checkMCAP,
			repair: recoverMCAP, repairVerb: record.RepairRecover, repairSuffix: ".recovered.mcap",
			create: createMCAP, createExts: []string{".mcap"}, compressions: []string{"zstd", "lz4", "none"},
		},
		{
			format: FormatDB3, label: "db3", what: "a rosbag2 sqlite3 database",
			magic: []byte("SQLite format 3\x00"), exts: []string{".db3"}, storage: "sqlite3", splitExt: ".db3",
			open: func(path string, o OpenOptions) (record.Reader, error) {
				return db3.Open(path, o.read(path))
			},
			noReader: "sqlite reads a named file",
			check:    db3.Check,
		},
		{
			format: FormatROS2, label: "rosbag2", what: "a rosbag2 folder",
			create: createROS2, compressions: []string{"none", "zstd", "lz4"}, // none first: rosbag2's default
		},
	}
}

// formatRow returns the row of format f.
func formatRow(f Format) (container, bool) {
	for _, c := range formats() {
		if c.format == f {
			return c, true
		}
	}
	return container{}, false
}

// read is o as the record.ReadOptions of the container file at path: the
// damage the container reports (a record.Skipped) goes to o.OnSkip and
// o.OnWarning as one *record.Error naming path (record.Skipped.AsError).
func (o OpenOptions) read(path string) record.ReadOption {
	ro := record.ReadOptions{InPlace: o.InPlace}
	if o.OnSkip != nil {
		ro.SkipBad, ro.KeepUnverified = true, o.KeepUnverified
		ro.OnSkip = func(s record.Skipped) { o.OnSkip(s.AsError(path)) }
	}
	if o.OnWarning != nil {
		ro.OnWarning = func(s record.Skipped) { o.OnWarning(s.AsError(path)) }
	}
	return ro.Option()
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// isSplitExt reports whether ext (without the dot) ends the split files
// of a rosbag2 folder of some format.
func isSplitExt(ext string) bool {
	for _, c := range formats() {
		if c.splitExt != "" && c.splitExt == "."+ext {
			return true
		}
	}
	return false
}

// recordingExt reports whether name ends as a recording of some format
// does.
func recordingExt(name string) bool {
	for _, c := range formats() {
		for _, x := range c.exts {
			if strings.HasSuffix(name, x) {
				return true
			}
		}
	}
	return false
}

// createBag is Create of a ROS1 bag.
func createBag(path string, o CreateOptions, made *atomicfile.DirSet) (Writer, error) {
	opts := []bag.WriterOption{bag.WithCompression(o.Compression)}
	if o.Sync {
		opts = append(opts, bag.WithSync())
	}
	w, err := bag.Create(path, opts...)
	if err != nil {
		return nil, err
	}
	return &bagWriter{w, madeDirs{made}}, nil
}

// createMCAP is Create of an MCAP file.
func createMCAP(path string, o CreateOptions, made *atomicfile.DirSet) (Writer, error) {
	opts := []mcapfile.WriterOption{mcapfile.WithCompression(o.Compression), mcapfile.WithBackgroundWrites()}
	if o.Profile != "" {
		opts = append(opts, mcapfile.WithProfile(o.Profile))
	}
	if o.Sync {
		opts = append(opts, mcapfile.WithSync())
	}
	w, err := mcapfile.Create(path, opts...)
	if err != nil {
		return nil, err
	}
	return &mcapWriter{w, madeDirs{made}}, nil
}

// createROS2 is Create of a rosbag2 folder: o.ROS2 with o.Compression
// for the chunks of MCAP splits.
func createROS2(path string, o CreateOptions, made *atomicfile.DirSet) (Writer, error) {
	ro := o.ROS2
	ro.Sync = o.Sync
	if ro.Storage != rosbag2.StorageSQLite {
		ro.ChunkCompression = o.Compression
	}
	w, err := rosbag2.Create(path, ro)
	if err != nil {
		return nil, err
	}
	return &ros2Writer{w, madeDirs{made}}, nil
}

// ros2Writer is a rosbag2 folder made by Create.
type ros2Writer struct {
	*rosbag2.Writer
	dirs madeDirs
}

func (w *ros2Writer) Close() error { return w.dirs.closed(w.Writer.Close()) }

func (w *ros2Writer) Abort() {
	w.Writer.Abort()
	w.dirs.aborted()
}

// reindexBag is Repair of a ROS1 bag: bag.ReindexContext.
func reindexBag(ctx context.Context, in, out string, o RepairOptions) (*RepairReport, error) {
	var opts []bag.WriterOption
	if o.Sync {
		opts = append(opts, bag.WithSync())
	}
	rep, err := bag.ReindexContext(ctx, in, out, opts...)
	if err != nil {
		return nil, err
	}
	return &RepairReport{Summary: rep.String(), Damaged: rep.Lost()}, nil
}

// recoverMCAP is Repair of an MCAP file: mcapfile.RecoverContext.
func recoverMCAP(ctx context.Context, in, out string, o RepairOptions) (*RepairReport, error) {
	var opts []mcapfile.RecoverOption
	if !o.KeepUnverified {
		opts = append(opts, mcapfile.WithDropUnverified())
	}
	if o.Sync {
		opts = append(opts, mcapfile.WithSyncedOutput())
	}
	rep, err := mcapfile.RecoverContext(ctx, in, out, opts...)
	if err != nil {
		return nil, err
	}
	return &RepairReport{Summary: rep.String(), Stretches: rep.Skipped, Damaged: len(rep.Skipped) > 0}, nil
}

// checkMCAP is the structural check of an MCAP file, or of each split of a
// rosbag2 MCAP folder (its problems named by the split) and of the folder's
// metadata.yaml message counts (db3.Bag2Metadata.CountProblems).
func checkMCAP(path string) ([]record.Problem, error) {
	if !isDirPath(path) {
		return mcapfile.Check(path)
	}
	files, mode, err := mcapSplits(path)
	if err != nil {
		return nil, err
	}
	compressed := mode == db3.CompressionFile
	var probs []record.Problem
	for _, f := range files {
		ps, err := checkMCAPSplit(f, compressed)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			p.Message = fmt.Sprintf("%s: %s", filepath.Base(f), p.Message)
			probs = append(probs, p)
		}
	}
	return append(probs, folderCountProblems(path)...), nil
}

// folderCountProblems compares the message counts of the rosbag2 MCAP
// folder's metadata.yaml with those of its splits; none when it has no
// metadata.yaml, or the splits do not open (their check says why).
func folderCountProblems(dir string) []record.Problem {
	m := folderMetadata(dir)
	if m == nil {
		return nil
	}
	r, err := openMCAPDir(dir, OpenOptions{})
	if err != nil {
		return nil
	}
	defer r.Close()
	s, err := r.Summary()
	if err != nil {
		return nil
	}
	return m.CountProblems(s)
}
