package db3

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// The package's Reader and Writer implement the shared contracts.
var (
	_ record.Reader = (*Reader)(nil)
	_ record.Writer = (*Writer)(nil)
)

var sqliteMagic = []byte("SQLite format 3\x00")

// dbFile is one open .db3 file.
type dbFile struct {
	path        string
	db          *sql.DB
	hasQoS      bool
	hasHash     bool
	hasDefs     bool
	schemaVer   int
	rosDistro   string                    // the schema table's ros_distro, "" when none
	topics      map[int64]*record.Channel // by topic id in this file
	topicOrder  []int64
	compression string // "zstd" when messages are compressed one by one
	// release frees what the file is read from beyond db (the temporary
	// file and SQLite VFS of a decompressed split); nil for a plain file.
	release func() error
}

// Reader is an open rosbag2 sqlite3 recording: one .db3 file or a folder of
// split files. It implements record.Reader.
type Reader struct {
	path     string
	meta     *Bag2Metadata // nil for a bare file
	files    []*dbFile
	channels []*record.Channel
	closed   bool
	// leftOut are the errors of the splits record.WithSkipBad left out,
	// reported to onSkip by each Messages
	leftOut []error
	onSkip  func(record.Skipped)
	// compression is the summary's: "none", or "zstd" for a folder whose
	// messages or files are compressed.
	compression string
}

// Open opens a .db3 file, or a rosbag2 folder whose metadata.yaml names
// storage_identifier sqlite3 (its split files are read as one recording,
// merged in time order). The messages of a folder may be compressed one by
// one (compression_mode MESSAGE) or its split files whole (compression_mode
// FILE, the .db3.zstd files rosbag2's SequentialCompressionWriter leaves),
// in both cases with zstd; a compressed split is decompressed into a
// private temporary file (see openCompressed) when the reader opens it.
func Open(path string, opts ...Option) (*Reader, error) {
	o := record.NewReadOptions(opts...)
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	r := &Reader{path: path, compression: "none"}
	var paths []string
	messageCompression, fileCompression := "", false
	if st.IsDir() {
		meta, err := ReadBag2Metadata(path)
		if err != nil {
			return nil, err
		}
		if meta.StorageIdentifier != "sqlite3" {
			return nil, &record.Error{File: filepath.Join(path, "metadata.yaml"), Offset: -1, Field: "storage_identifier", Err: record.ErrUnsupported,
				Detail: fmt.Sprintf("storage %q is not sqlite3", meta.StorageIdentifier)}
		}
		mode, err := meta.Compression()
		if err != nil {
			return nil, err
		}
		switch mode {
		case CompressionMessage:
			messageCompression = "zstd"
			r.compression = "zstd"
		case CompressionFile:
			fileCompression = true
			r.compression = "zstd"
		}
		r.meta = meta
		paths = meta.SplitPaths(path)
		if len(paths) == 0 {
			glob := "*.db3"
			if fileCompression {
				glob = "*.db3.zstd"
			}
			paths, _ = filepath.Glob(filepath.Join(path, glob))
			sort.Strings(paths)
		}
		if len(paths) == 0 {
			return nil, &record.Error{File: path, Offset: -1, Err: record.ErrNotFound, Detail: "no .db3 file in the folder"}
		}
	} else {
		paths = []string{path}
	}
	for _, p := range paths {
		open := openFile
		if fileCompression {
			open = openCompressed
		}
		f, err := open(p)
		var re *record.Error
		if err != nil && o.SkipBad && st.IsDir() && errors.As(err, &re) {
			// A damaged split is left out; the others are read.
			r.leftOut, r.onSkip = append(r.leftOut, err), o.OnSkip
			continue
		}
		if err != nil {
			r.Close()
			return nil, err
		}
		f.compression = messageCompression
		r.files = append(r.files, f)
	}
	r.mergeChannels()
	return r, nil
}

// checkHeader verifies the SQLite header of the file at path (see
// checkHeaderAt).
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return checkHeaderAt(path, f, st.Size())
}

// checkHeaderAt verifies the SQLite header of the size bytes of ra and
// that they hold every page the header counts; path names the file in
// errors.
func checkHeaderAt(path string, ra io.ReaderAt, size int64) error {
	var h [100]byte
	n, _ := io.ReadFull(io.NewSectionReader(ra, 0, size), h[:])
	if n < len(sqliteMagic) || !bytes.Equal(h[:len(sqliteMagic)], sqliteMagic) {
		if n < len(sqliteMagic) && bytes.HasPrefix(sqliteMagic, h[:n]) {
			return &record.Error{File: path, Offset: 0, Field: "sqlite header", Err: record.ErrTruncated, Detail: fmt.Sprintf("file is %d bytes", n)}
		}
		return &record.Error{File: path, Offset: 0, Field: "sqlite header", Err: record.ErrFormat, Detail: "not an SQLite database"}
	}
	if n < len(h) {
		return &record.Error{File: path, Offset: int64(n), Field: "sqlite header", Err: record.ErrTruncated, Detail: fmt.Sprintf("file is %d bytes, the header is 100", n)}
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return &record.Error{File: path, Offset: 16, Field: "sqlite header.page_size", Err: record.ErrFormat, Detail: fmt.Sprintf("page size %d", pageSize)}
	}
	pages := int64(binary.BigEndian.Uint32(h[28:]))
	// The in-header page count is valid when the change counter matches
	// the version-valid-for number.
	if pages > 0 && binary.BigEndian.Uint32(h[24:]) == binary.BigEndian.Uint32(h[92:]) && pages*pageSize > size {
		return &record.Error{File: path, Offset: size, Field: "sqlite pages", Err: record.ErrTruncated,
			Detail: fmt.Sprintf("header counts %d pages of %d bytes (%d bytes), the file has %d", pages, pageSize, pages*pageSize, size)}
	}
	return nil
}

// dsn is the read-only URI of path. immutable=1 skips locking; it is left
// out when a write-ahead log sits beside the file, whose content it would
// ignore.
func dsn(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	q := "mode=ro"
	if _, err := os.Stat(abs + "-wal"); err != nil {
		q += "&immutable=1"
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q}
	return u.String(), nil
}

// sqlError wraps a driver error as bad data in file.
func sqlError(file, what string, err error) error {
	var re *record.Error
	if errors.As(err, &re) {
		return err
	}
	s := err.Error()
	switch {
	case strings.Contains(s, "malformed"):
		return &record.Error{File: file, Offset: -1, Field: what, Err: record.ErrTruncated,
			Detail: "the database file is damaged: SQLite finds its pages malformed while reading table " + what + " (baglab doctor checks it)"}
	case strings.Contains(s, "not a database") || strings.Contains(s, "encrypted"):
		return &record.Error{File: file, Offset: -1, Field: what, Err: record.ErrFormat,
			Detail: "the file is not an SQLite database, or its header is damaged"}
	case strings.Contains(s, "short read") || strings.Contains(s, "truncated"):
		return &record.Error{File: file, Offset: -1, Field: what, Err: record.ErrTruncated,
			Detail: "the database file is cut short while reading table " + what}
	}
	return &record.Error{File: file, Offset: -1, Field: what, Err: record.ErrFormat, Detail: s}
}

func openFile(path string) (*dbFile, error) {
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	d, err := dsn(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", d)
	if err != nil {
		return nil, err
	}
	f := &dbFile{path: path, db: db, topics: map[int64]*record.Channel{}}
	if err := f.load(); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// close closes the database and releases what it is read from.
func (f *dbFile) close() error {
	err := f.db.Close()
	if f.release != nil {
		if rerr := f.release(); err == nil {
			err = rerr
		}
	}
	return err
}

// columns lists a table's columns (none when the table does not exist).
func (f *dbFile) columns(table string) (map[string]bool, error) {
	rows, err := f.db.Query("SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, sqlError(f.path, table, err)
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, sqlError(f.path, table, err)
		}
		cols[n] = true
	}
	return cols, sqlError2(f.path, table, rows.Err())
}

func sqlError2(file, what string, err error) error {
	if err == nil {
		return nil
	}
	return sqlError(file, what, err)
}

// load reads the topics and message definitions.
func (f *dbFile) load() error {
	topicCols, err := f.columns("topics")
	if err != nil {
		return err
	}
	msgCols, err := f.columns("messages")
	if err != nil {
		return err
	}
	for _, c := range []string{"id", "name", "type", "serialization_format"} {
		if !topicCols[c] {
			return &record.Error{File: f.path, Offset: -1, Field: "topics." + c, Err: record.ErrFormat, Detail: "not a rosbag2 database: missing column"}
		}
	}
	for _, c := range []string{"id", "topic_id", "timestamp", "data"} {
		if !msgCols[c] {
			return &record.Error{File: f.path, Offset: -1, Field: "messages." + c, Err: record.ErrFormat, Detail: "not a rosbag2 database: missing column"}
		}
	}
	f.hasQoS, f.hasHash = topicCols["offered_qos_profiles"], topicCols["type_description_hash"]
	defCols, err := f.columns("message_definitions")
	if err != nil {
		return err
	}
	f.hasDefs = defCols["topic_type"] && defCols["encoding"] && defCols["encoded_message_definition"]
	if cols, err := f.columns("schema"); err == nil && cols["schema_version"] {
		_ = f.db.QueryRow("SELECT schema_version FROM schema LIMIT 1").Scan(&f.schemaVer)
		if cols["ros_distro"] {
			_ = f.db.QueryRow("SELECT ros_distro FROM schema LIMIT 1").Scan(&f.rosDistro)
		}
	}

	type def struct {
		id             int64
		encoding, text string
	}
	defs := map[string]def{}
	if f.hasDefs {
		rows, err := f.db.Query("SELECT id, topic_type, encoding, encoded_message_definition FROM message_definitions ORDER BY id")
		if err != nil {
			return sqlError(f.path, "message_definitions", err)
		}
		for rows.Next() {
			var d def
			var typ string
			if err := scanRow(rows, f.path, "message_definitions", []string{"id", "topic_type", "encoding", "encoded_message_definition"},
				[]colKind{kindInt, kindText, kindText, kindText}, &d.id, &typ, &d.encoding, &d.text); err != nil {
				rows.Close()
				return sqlError(f.path, "message_definitions", err)
			}
			if _, dup := defs[typ]; !dup {
				defs[typ] = d
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return sqlError(f.path, "message_definitions", err)
		}
	}

	q := "SELECT id, name, type, serialization_format"
	if f.hasQoS {
		q += ", offered_qos_profiles"
	} else {
		q += ", ''"
	}
	if f.hasHash {
		q += ", type_description_hash"
	} else {
		q += ", ''"
	}
	rows, err := f.db.Query(q + " FROM topics ORDER BY id")
	if err != nil {
		return sqlError(f.path, "topics", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name, typ, format, qos, hash string
		if err := scanRow(rows, f.path, "topics", []string{"id", "name", "type", "serialization_format", "offered_qos_profiles", "type_description_hash"},
			[]colKind{kindInt, kindText, kindText, kindText, kindText, kindText}, &id, &name, &typ, &format, &qos, &hash); err != nil {
			return err
		}
		s := &record.Schema{Name: typ}
		if d, ok := defs[typ]; ok && (d.encoding == "ros2msg" || d.encoding == "ros2idl") && (d.text != "" || d.encoding == "ros2msg" && hash != "") {
			// an empty ros2msg text with a type hash is an empty message's
			// definition (rosbag2 and baglab write it so)
			s.ID, s.Encoding, s.Data = uint16(d.id), d.encoding, []byte(d.text)
		} else if ok && d.encoding == msgdef.EncodingUnknown && d.text == "" {
			s.ID, s.Encoding = uint16(d.id), d.encoding // rosbag2 found no definition
		}
		md := map[string]string{}
		if f.hasQoS {
			md["offered_qos_profiles"] = qos
		}
		if hash != "" {
			md["type_description_hash"] = hash
		}
		f.topics[id] = &record.Channel{ID: uint32(id), Topic: name, MessageEncoding: format, Schema: s, Metadata: md}
		f.topicOrder = append(f.topicOrder, id)
	}
	return sqlError2(f.path, "topics", rows.Err())
}

// mergeChannels makes one channel per topic across the files: the first
// file's channel object is shared by every file where the topic has the
// same type and format. Topic ids are kept when they agree across files and
// renumbered from 1 otherwise.
func (r *Reader) mergeChannels() {
	type key struct{ name, typ, format string }
	byKey := map[key]*record.Channel{}
	consistent := true
	ids := map[uint32]key{}
	for _, f := range r.files {
		for _, id := range f.topicOrder {
			c := f.topics[id]
			k := key{c.Topic, c.Schema.Name, c.MessageEncoding}
			if have, ok := byKey[k]; ok {
				if have.ID != c.ID {
					consistent = false
				}
				f.topics[id] = have
				continue
			}
			if other, ok := ids[c.ID]; ok && other != k {
				consistent = false
			}
			ids[c.ID] = k
			byKey[k] = c
			r.channels = append(r.channels, c)
		}
	}
	if !consistent {
		for i, c := range r.channels {
			c.ID = uint32(i + 1)
		}
	}
	sort.SliceStable(r.channels, func(i, j int) bool { return r.channels[i].ID < r.channels[j].ID })
}

// Metadata returns the folder's metadata.yaml, or nil for a bare file.
func (r *Reader) Metadata() *Bag2Metadata { return r.meta }

// StoredMetadata is the recording's metadata as its last file stores it
// in its metadata table (ParseStoredMetadata), for a .db3 read without
// its folder's metadata.yaml; nil when the file stores none.
func (r *Reader) StoredMetadata() (*Bag2Metadata, error) {
	if len(r.files) == 0 {
		return nil, nil
	}
	f := r.files[len(r.files)-1]
	if cols, err := f.columns("metadata"); err != nil || !cols["metadata"] {
		return nil, err
	}
	var text string
	if err := f.db.QueryRow("SELECT metadata FROM metadata ORDER BY rowid DESC LIMIT 1").Scan(&text); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, sqlError(f.path, "metadata", err)
	}
	return ParseStoredMetadata([]byte(text), f.path)
}

// ROSDistro is the ROS distribution the recording names: metadata.yaml's
// ros_distro, else the first file's schema table's, "" when neither does.
func (r *Reader) ROSDistro() string {
	if r.meta != nil && r.meta.ROSDistro != "" {
		return r.meta.ROSDistro
	}
	for _, f := range r.files {
		if f.rosDistro != "" {
			return f.rosDistro
		}
	}
	return ""
}

// Files lists the .db3 files read, in order.
func (r *Reader) Files() []string {
	out := make([]string, len(r.files))
	for i, f := range r.files {
		out[i] = f.path
	}
	return out
}

// Channels lists one channel per topic.
func (r *Reader) Channels() ([]*record.Channel, error) {
	if r.closed {
		return nil, errClosed
	}
	return r.channels, nil
}

var errClosed = errors.New("db3: reader is closed")

// Summary counts messages per topic and finds each topic's first and last
// timestamps with one aggregate query per file (the timestamp index makes it
// cheap); the files of a split recording are combined. FrequencyHz is
// record.Frequency over the topic's own span.
func (r *Reader) Summary() (*record.Summary, error) {
	if r.closed {
		return nil, errClosed
	}
	stats := map[*record.Channel]*record.TopicSummary{}
	for _, f := range r.files {
		rows, err := f.db.Query("SELECT topic_id, COUNT(*), MIN(timestamp), MAX(timestamp) FROM messages GROUP BY topic_id")
		if err != nil {
			return nil, sqlError(f.path, "messages", err)
		}
		for rows.Next() {
			var id int64
			var n uint64
			var lo, hi int64
			if err := rows.Scan(&id, &n, &lo, &hi); err != nil {
				rows.Close()
				return nil, f.badMessageRow(err)
			}
			c := f.topics[id]
			if c == nil {
				rows.Close()
				var first int64
				if err := f.db.QueryRow("SELECT MIN(id) FROM messages WHERE topic_id = ?", id).Scan(&first); err != nil {
					return nil, sqlError(f.path, "messages", err)
				}
				return nil, f.missingTopic(first, id, n)
			}
			if t := stats[c]; t != nil {
				lo, hi = min(lo, t.StartNs), max(hi, t.EndNs)
				n += t.MessageCount
			}
			stats[c] = &record.TopicSummary{MessageCount: n, StartNs: lo, EndNs: hi}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, sqlError(f.path, "messages", err)
		}
	}
	var b record.SummaryBuilder
	b.Compression(r.compression)
	for _, c := range r.channels {
		if st := stats[c]; st != nil {
			b.Add(c, st.MessageCount, st.StartNs, st.EndNs)
		} else {
			b.Channel(c)
		}
	}
	return b.Summary(r.path, "db3"), nil
}

// Close closes every file; it is idempotent.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var first error
	for _, f := range r.files {
		if err := f.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
