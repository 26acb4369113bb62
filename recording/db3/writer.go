package db3

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/sqlitefile"
	"github.com/baglab/baglab/record"
)

// SchemaVersion is the rosbag2 sqlite3 schema version the Writer writes
// (tables schema, metadata, topics with type_description_hash,
// message_definitions, messages).
const SchemaVersion = 4

// The rosbag2 tables of SchemaVersion and its index on the message
// times, as rosbag2 creates them (sqlite_schema keeps this text).
const (
	schemaSQL      = "CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL)"
	metadataSQL    = "CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,metadata TEXT NOT NULL)"
	topicsSQL      = "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,type_description_hash TEXT NOT NULL)"
	definitionsSQL = "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,encoding TEXT NOT NULL,encoded_message_definition TEXT NOT NULL,type_description_hash TEXT NOT NULL)"
	messagesSQL    = "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL)"
	indexSQL       = "CREATE INDEX timestamp_idx ON messages (timestamp ASC)"
)

// pageSize is the SQLite page size of the files written: with pages of
// 32 KB, a reader takes a large message in fewer pages, and every SQLite
// reader takes any page size.
const pageSize = 32768

// maxMessage is the largest message SQLite reads back (SQLITE_MAX_LENGTH).
const maxMessage = 1_000_000_000

// WriterOption configures a Writer.
type WriterOption func(*writerOptions)

type writerOptions struct {
	rosDistro string
	metadata  func() *Bag2Metadata
}

// WithROSDistro sets the ros_distro recorded in the schema table and
// metadata (default "").
func WithROSDistro(d string) WriterOption {
	return func(o *writerOptions) { o.rosDistro = d }
}

// WithMetadata has the metadata table hold what metadata returns when the
// Writer closes, in place of the Writer's own: for a split of a recording
// written by several Writers, the whole recording's metadata so far, as
// rosbag2 stores it in each split.
func WithMetadata(metadata func() *Bag2Metadata) WriterOption {
	return func(o *writerOptions) { o.metadata = metadata }
}

type writtenTopic struct {
	id    int64
	c     record.Channel
	count uint64
}

// Writer writes a rosbag2 sqlite3 recording. It implements record.Writer.
type Writer struct {
	opts   writerOptions
	final  string // the path asked for
	out    output // where it is built (renamed to final by Close)
	tmp    string // its temporary name
	folder bool
	dbName string   // file name of the .db3 inside the folder
	dbFile *os.File // the .db3 inside the folder (out closes a bare one)
	db     *sqlitefile.File
	tables tables
	topics map[string]*writtenTopic
	byID   map[uint32]*writtenTopic
	order  []*writtenTopic
	defs   map[string]bool
	count  uint64
	start  int64
	end    int64
	closed bool
	err    error
}

// tables are the tables and index of a .db3 being written.
type tables struct {
	metadata, topics, definitions, messages *sqlitefile.Table
	times                                   *sqlitefile.Index
}

// output is the temporary file or folder a Writer builds.
type output interface {
	Commit() error
	Abort()
}

// Create writes a recording at path: a bare .db3 file when path ends in
// ".db3", otherwise a rosbag2 folder holding <name>_0.db3 and metadata.yaml.
// It is built under a temporary name in the same directory and renamed into
// place by Close, not synced to disk (rosbag2.Options.Sync syncs the
// folder a split is in). The file is written by internal/sqlitefile, not
// through a SQLite connection: SQLite's inserts made a conversion to
// sqlite3 take 2.2-2.7 times as long as reading its input.
func Create(path string, opts ...WriterOption) (*Writer, error) {
	w := &Writer{final: path, topics: map[string]*writtenTopic{}, byID: map[uint32]*writtenTopic{}, defs: map[string]bool{}}
	for _, o := range opts {
		o(&w.opts)
	}
	var db sqlitefile.Output
	if strings.HasSuffix(path, ".db3") {
		f, err := atomicfile.Create(path, atomicfile.Synced(false))
		if err != nil {
			return nil, err
		}
		w.out, w.tmp, db = f, f.Name(), f.File
	} else {
		d, err := atomicfile.CreateDir(path)
		if err != nil {
			return nil, err
		}
		w.out, w.tmp, w.folder, w.dbName = d, d.Name(), true, filepath.Base(path)+"_0.db3"
		f, err := os.Create(filepath.Join(w.tmp, w.dbName))
		if err != nil {
			d.Abort()
			return nil, err
		}
		w.dbFile, db = f, f
	}
	var err error
	if w.db, err = sqlitefile.New(db, pageSize); err != nil {
		w.discard()
		return nil, err
	}
	schema := w.db.Table("schema", schemaSQL)
	w.tables = tables{
		metadata:    w.db.Table("metadata", metadataSQL),
		topics:      w.db.Table("topics", topicsSQL),
		definitions: w.db.Table("message_definitions", definitionsSQL),
		messages:    w.db.Table("messages", messagesSQL),
	}
	w.tables.times = w.db.Index("timestamp_idx", "messages", indexSQL)
	if err := schema.Insert(SchemaVersion, sqlitefile.Null(), sqlitefile.Text(w.opts.rosDistro)); err != nil {
		w.discard()
		return nil, err
	}
	return w, nil
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("db3: writer is closed")
	}
	return nil
}

// AddChannel creates the topic (once per topic name) and its message
// definition (once per type): type = Schema.Name, serialization_format =
// MessageEncoding, offered_qos_profiles and type_description_hash from the
// channel metadata; the definition's encoding is Schema.Encoding, or
// "unknown" with an empty text when the channel has no definition, as
// rosbag2 writes it. It returns the topic id.
func (w *Writer) AddChannel(c *record.Channel) (uint32, error) {
	if err := w.usable(); err != nil {
		return 0, err
	}
	typ := ""
	if c.Schema != nil {
		typ = c.Schema.Name
	}
	if t, ok := w.topics[c.Topic]; ok {
		if t.c.Schema.Name != typ || t.c.MessageEncoding != c.MessageEncoding {
			return 0, fmt.Errorf("db3: topic %s added as %s/%s and as %s/%s", c.Topic, t.c.Schema.Name, t.c.MessageEncoding, typ, c.MessageEncoding)
		}
		return uint32(t.id), nil
	}
	qos, hash := c.Metadata["offered_qos_profiles"], c.Metadata["type_description_hash"]
	id := int64(len(w.order) + 1) // as INTEGER PRIMARY KEY numbers them
	if err := w.tables.topics.Insert(id, sqlitefile.Null(), sqlitefile.Text(c.Topic), sqlitefile.Text(typ),
		sqlitefile.Text(c.MessageEncoding), sqlitefile.Text(qos), sqlitefile.Text(hash)); err != nil {
		return 0, w.fail(err)
	}
	if typ != "" && !w.defs[typ] {
		enc, text := "unknown", ""
		if c.Schema.Encoding != "" && (len(c.Schema.Data) > 0 || c.Schema.Encoding == "ros2msg") {
			// an empty ros2msg text is an empty message's definition
			enc, text = c.Schema.Encoding, string(c.Schema.Data)
		}
		if err := w.tables.definitions.Insert(int64(len(w.defs)+1), sqlitefile.Null(), sqlitefile.Text(typ),
			sqlitefile.Text(enc), sqlitefile.Text(text), sqlitefile.Text(hash)); err != nil {
			return 0, w.fail(err)
		}
		w.defs[typ] = true
	}
	t := &writtenTopic{id: id, c: *c}
	if t.c.Schema == nil {
		t.c.Schema = &record.Schema{}
	}
	w.topics[c.Topic], w.byID[uint32(id)] = t, t
	w.order = append(w.order, t)
	return uint32(id), nil
}

// WriteMessage inserts m (its LogTime is the row timestamp) on the topic
// AddChannel returned.
func (w *Writer) WriteMessage(channelID uint32, m *record.Message) error {
	if err := w.usable(); err != nil {
		return err
	}
	t := w.byID[channelID]
	if t == nil {
		return fmt.Errorf("db3: unknown topic id %d", channelID)
	}
	if len(m.Data) > maxMessage {
		return w.fail(fmt.Errorf("db3: %s: a message of %d bytes is more than sqlite reads (%d)", w.final, len(m.Data), maxMessage))
	}
	rowid := int64(w.count + 1)
	if err := w.tables.messages.Insert(rowid, sqlitefile.Null(), sqlitefile.Int(t.id), sqlitefile.Int(m.LogTime), sqlitefile.Blob(m.Data)); err != nil {
		return w.fail(err)
	}
	w.tables.times.Add(m.LogTime, rowid)
	if w.count == 0 || m.LogTime < w.start {
		w.start = m.LogTime
	}
	if w.count == 0 || m.LogTime > w.end {
		w.end = m.LogTime
	}
	w.count++
	t.count++
	return nil
}

// metadata is the recording's metadata: WithMetadata's, else that of
// the one file written.
func (w *Writer) metadata() *Bag2Metadata {
	if w.opts.metadata != nil {
		return w.opts.metadata()
	}
	file := w.dbName
	if file == "" {
		file = filepath.Base(w.final)
	}
	m := &Bag2Metadata{
		Version:           MetadataVersion,
		StorageIdentifier: "sqlite3",
		RelativeFilePaths: []string{file},
		StartingTimeNs:    w.start,
		DurationNs:        w.end - w.start,
		MessageCount:      w.count,
		Files:             []Bag2File{{Path: file, StartingTimeNs: w.start, DurationNs: w.end - w.start, MessageCount: w.count}},
		ROSDistro:         w.opts.rosDistro,
	}
	for _, t := range w.order {
		m.Topics = append(m.Topics, TopicMetadata(&t.c, t.count))
	}
	return m
}

// Close commits, writes the metadata (table and, for a folder,
// metadata.yaml) and renames the recording into place. It is idempotent.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err == nil {
		if err := w.finish(); err != nil {
			w.fail(err)
		}
	}
	w.closeFiles()
	if w.err == nil {
		if err := w.out.Commit(); err != nil {
			w.fail(err)
		}
	}
	if w.err != nil {
		w.out.Abort()
	}
	return w.err
}

func (w *Writer) finish() error {
	meta := w.metadata()
	if err := w.tables.metadata.Insert(1, sqlitefile.Null(), sqlitefile.Int(int64(meta.Version)), sqlitefile.Text(meta.Serialized())); err != nil {
		return err
	}
	if err := w.db.Close(); err != nil {
		return err
	}
	if w.folder {
		return os.WriteFile(filepath.Join(w.tmp, "metadata.yaml"), meta.YAML(), 0o644)
	}
	return nil
}

// Abort discards the recording. Close afterwards returns the abort error.
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.fail(errors.New("db3: writer aborted"))
	w.Close()
}

// closeFiles stops the writing after an error (finish closed the
// database otherwise) and closes the .db3 of a folder, keeping the first
// error.
func (w *Writer) closeFiles() {
	if w.err != nil {
		w.db.Abort()
	}
	if w.dbFile != nil {
		if err := w.dbFile.Close(); err != nil {
			w.fail(err)
		}
		w.dbFile = nil
	}
}

// discard cleans up after a failed Create.
func (w *Writer) discard() {
	if w.db != nil {
		w.db.Abort()
	}
	if w.dbFile != nil {
		w.dbFile.Close()
	}
	w.out.Abort()
}
