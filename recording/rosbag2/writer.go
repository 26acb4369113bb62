package rosbag2

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
	"github.com/baglab/baglab/recording/mcapfile"
	"github.com/klauspost/compress/zstd"
)

// The storages a rosbag2 folder holds its splits in (storage_identifier).
const (
	StorageMCAP   = "mcap"
	StorageSQLite = "sqlite3"
)

// The compression modes of rosbag2 (--compression-mode): none, zstd of
// each closed split file, zstd of each message.
const (
	ModeNone    = ""
	ModeFile    = "file"
	ModeMessage = "message"
)

// Options configure a Writer. The zero value writes one MCAP split with
// zstd chunks.
type Options struct {
	// Storage is StorageMCAP ("" too) or StorageSQLite.
	Storage string
	// ChunkCompression compresses the chunks of MCAP splits: "none" (""
	// too, as rosbag2 and rosbags-convert write them), "zstd" or "lz4". It
	// does not apply to SQLite.
	ChunkCompression string
	// Mode compresses with zstd each split file once written (ModeFile:
	// NAME_N.mcap.zstd) or each message (ModeMessage), as rosbag2's
	// --compression-mode with --compression-format zstd.
	Mode string
	// SplitSize starts a new split when the message bytes of the current
	// one reach it (0: never); SplitDuration when a message is that much
	// later than the current split's first (0: never).
	SplitSize     int64
	SplitDuration time.Duration
	// RepeatLatched writes the last message of each latched topic (its
	// publisher offering transient-local durability) again at the start
	// of every split after the first, at the log time of that split's
	// first message (its publish time kept), as rosbag record
	// --repeat-latched does: a split read alone keeps its /tf_static.
	RepeatLatched bool
	// File writes the recording as one storage file at the path Create
	// gets, named with Storage's extension (.mcap, .db3), without a folder
	// or metadata.yaml: the file stores the metadata (an MCAP file's
	// "rosbag2" record, a .db3's metadata table), and rosbag2 opens it
	// alone. It takes no splits and no file compression.
	File bool
	// ROSDistro is metadata.yaml's and the sqlite schema table's
	// ros_distro.
	ROSDistro string
	// CustomData is metadata.yaml's custom_data, the key-value pairs a
	// recording carries for its users (ros2 bag record --custom-data).
	CustomData map[string]string
	// Sync has Close wait until every file of the recording is on disk
	// before renaming it into place (internal/atomicfile's Synced), so
	// that a power cut can leave it missing but never short. Without it,
	// as rosbag2, the recording is written at the page cache's speed.
	Sync bool
}

// Check reports what is wrong with o, naming the option.
func (o Options) Check() error {
	switch o.Storage {
	case "", StorageMCAP:
		switch o.ChunkCompression {
		case "", "zstd", "lz4", "none":
		default:
			return fmt.Errorf("MCAP chunk compression %q: want zstd, lz4 or none", o.ChunkCompression)
		}
	case StorageSQLite:
		if o.ChunkCompression != "" && o.ChunkCompression != "none" {
			return fmt.Errorf("sqlite3 storage has no chunks to compress with %s (use --compression-mode file or message)", o.ChunkCompression)
		}
	default:
		return fmt.Errorf("storage %q: want mcap or sqlite3", o.Storage)
	}
	switch o.Mode {
	case ModeNone, ModeFile, ModeMessage:
	default:
		return fmt.Errorf("compression mode %q: want none, file or message", o.Mode)
	}
	if o.SplitSize < 0 || o.SplitDuration < 0 {
		return errors.New("split size and duration cannot be negative")
	}
	if o.File && (o.SplitSize > 0 || o.SplitDuration > 0 || o.RepeatLatched || o.Mode == ModeFile) {
		return errors.New("a recording in one file has no splits to start or repeat latched messages in, and no split file to compress (write a folder)")
	}
	return nil
}

// splitFile is a storage file being written.
type splitFile interface {
	record.Writer
	Abort()
}

// channel is a channel of the recording.
type channel struct {
	c     record.Channel // as written: metadata offered_qos_profiles, type_description_hash
	count uint64
	inner uint32 // its id in the current split
	// latched channels keep their last message (once seen) with
	// RepeatLatched
	latched, seen bool
	last          record.Message
}

// file is one split as metadata.yaml lists it.
type file struct {
	path       string
	start, end int64
	count      uint64
}

// Writer writes a rosbag2 folder. It implements record.Writer; AddChannel
// takes the channel's offered_qos_profiles (version 9 YAML, "" for none)
// and type_description_hash from its Metadata.
type Writer struct {
	o      Options
	dir    *atomicfile.Dir
	path   string // the folder, or the file with Options.File
	name   string // the folder's base name, the splits' stem; the file's name with Options.File
	cur    splitFile
	curLen int64 // message bytes in the current split
	chans  []*channel
	files  []*file
	zenc   *zstd.Encoder
	zbuf   []byte         // a message compressed (ModeMessage)
	msg    record.Message // the message WriteMessage passes on
	count  uint64
	start  int64
	end    int64
	done   bool

	// EncodeMessage's: the data encoded for a split that is no
	// EncodingWriter or for ModeMessage, and the encoder of the message
	// being written straight into a split, through measured, which
	// notes its length
	encoded    []byte
	encode     func([]byte) ([]byte, error)
	measured   func([]byte) ([]byte, error)
	encodedLen int
}

// Create starts a rosbag2 folder at path (with o.File, a storage file),
// built under a temporary name beside it and renamed into place by Close.
func Create(path string, o Options) (*Writer, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if o.Storage == "" {
		o.Storage = StorageMCAP
	}
	path = filepath.Clean(path)
	name := filepath.Base(path)
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("rosbag2: name %q is not UTF-8, which the metadata cannot hold", name)
	}
	if o.File && FileStorage(name) != o.Storage {
		return nil, fmt.Errorf("rosbag2: %s: a file of %s storage is named *%s", path, o.Storage, Extension(o.Storage))
	}
	d, err := atomicfile.CreateDir(path, atomicfile.Synced(o.Sync))
	if err != nil {
		return nil, err
	}
	w := &Writer{o: o, dir: d, path: path, name: name}
	w.measured = func(dst []byte) ([]byte, error) {
		out, err := w.encode(dst)
		w.encodedLen = len(out) - len(dst)
		return out, err
	}
	if o.Mode != ModeNone {
		if w.zenc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest)); err != nil {
			d.Abort()
			return nil, err
		}
	}
	return w, nil
}

// Extension is the file extension of a storage's files: ".db3" for
// StorageSQLite, ".mcap" for StorageMCAP.
func Extension(storage string) string {
	if storage == StorageSQLite {
		return ".db3"
	}
	return ".mcap"
}

// FileStorage is the storage whose Extension path ends in, "" for
// neither: what a recording written as one file (Options.File) at path
// is stored as.
func FileStorage(path string) string {
	for _, storage := range []string{StorageMCAP, StorageSQLite} {
		if filepath.Ext(path) == Extension(storage) {
			return storage
		}
	}
	return ""
}

// open starts the next split and adds every channel to it.
func (w *Writer) open() error {
	name := w.name + "_" + strconv.Itoa(len(w.files)) + Extension(w.o.Storage)
	if w.o.File {
		name = w.name
	}
	path := filepath.Join(w.dir.Name(), name)
	var err error
	if w.o.Storage == StorageSQLite {
		var f *db3.Writer
		f, err = db3.Create(path, db3.WithROSDistro(w.o.ROSDistro), db3.WithMetadata(w.metadata))
		w.cur = f
	} else {
		c := w.o.ChunkCompression
		if c == "" {
			c = "none" // rosbag2's default, and rosbags-convert's
		}
		// compressed chunks, when asked for, as libmcap, rosbag2's MCAP
		// writer, writes them (zstd at its default level, the small or
		// incompressible ones stored; rosbag2's zstd_fast preset takes
		// libmcap's fastest level, without chunk CRCs)
		var f *mcapfile.Writer
		f, err = mcapfile.Create(path, mcapfile.WithProfile("ros2"), mcapfile.WithCompression(c), mcapfile.WithFastestCompression(),
			mcapfile.WithBackgroundWrites(), mcapfile.WithStoreUnhelpedChunks(), mcapfile.WithLibrary("baglab"))
		w.cur = f
	}
	if err != nil {
		w.cur = nil
		return err
	}
	w.files = append(w.files, &file{path: name})
	w.curLen = 0
	for _, ch := range w.chans {
		if err := w.addToSplit(ch); err != nil {
			return err
		}
	}
	return nil
}

// addToSplit adds ch to the current split.
func (w *Writer) addToSplit(ch *channel) error {
	c := ch.c
	c.Metadata = map[string]string{"offered_qos_profiles": ch.c.Metadata["offered_qos_profiles"]}
	if h := ch.c.Metadata["type_description_hash"]; h != "" {
		key := "topic_type_hash" // rosbag2's MCAP channel metadata
		if w.o.Storage == StorageSQLite {
			key = "type_description_hash"
		}
		c.Metadata[key] = h
	}
	id, err := w.cur.AddChannel(&c)
	ch.inner = id
	return err
}

// AddChannel adds a topic; its id counts from 1 in the order added. A
// recording holds one type per topic and one definition per type, as
// rosbag2 keeps them: a topic added again with its type and definition
// gets its first id (and keeps its first offered QoS); with another type,
// or with a type an earlier topic defined otherwise, it is refused
// (record.ErrUnsupported), where a reader would decode its messages with
// the wrong layout.
func (w *Writer) AddChannel(c *record.Channel) (uint32, error) {
	if w.done {
		return 0, errors.New("rosbag2: writer is closed")
	}
	if c.Schema == nil || c.Schema.Name == "" {
		return 0, fmt.Errorf("rosbag2: topic %s has no type", c.Topic)
	}
	if !utf8.ValidString(c.Topic) || !utf8.ValidString(c.Schema.Name) {
		return 0, fmt.Errorf("rosbag2: topic %q of type %q: not UTF-8, which metadata.yaml cannot hold", c.Topic, c.Schema.Name)
	}
	for i, ch := range w.chans {
		old := ch.c.Schema
		if old.Name == c.Schema.Name && (old.Encoding != c.Schema.Encoding || !bytes.Equal(old.Data, c.Schema.Data)) {
			return 0, fmt.Errorf("%w: topic %s: its type %s is defined unlike on topic %s, and a ROS 2 recording holds one definition per type", record.ErrUnsupported, c.Topic, c.Schema.Name, ch.c.Topic)
		}
		if ch.c.Topic != c.Topic {
			continue
		}
		if old.Name != c.Schema.Name || ch.c.MessageEncoding != c.MessageEncoding {
			return 0, fmt.Errorf("%w: topic %s carries %s (%s) and %s (%s), and a ROS 2 recording holds one type per topic", record.ErrUnsupported, c.Topic, old.Name, ch.c.MessageEncoding, c.Schema.Name, c.MessageEncoding)
		}
		return uint32(i + 1), nil
	}
	ch := &channel{c: *c, latched: w.o.RepeatLatched && OffersTransientLocal(c.Metadata["offered_qos_profiles"])}
	w.chans = append(w.chans, ch)
	if w.cur != nil {
		if err := w.addToSplit(ch); err != nil {
			return 0, err
		}
	}
	return uint32(len(w.chans)), nil
}

// WriteMessage writes m on channel id, starting a new split first when
// the current one is full.
func (w *Writer) WriteMessage(id uint32, m *record.Message) error {
	return w.write(id, m, nil)
}

// EncodeMessage is WriteMessage with the data encode appends to dst (m.Data
// unused), encoded straight into an MCAP split's chunk. When encode fails,
// nothing is written and its error is returned as is
// (record.EncodingWriter).
func (w *Writer) EncodeMessage(id uint32, m *record.Message, encode func(dst []byte) ([]byte, error)) error {
	return w.write(id, m, encode)
}

// write is WriteMessage with encode nil, EncodeMessage otherwise.
func (w *Writer) write(id uint32, m *record.Message, encode func([]byte) ([]byte, error)) error {
	if w.done {
		return errors.New("rosbag2: writer is closed")
	}
	if id == 0 || int(id) > len(w.chans) {
		return fmt.Errorf("rosbag2: unknown channel %d", id)
	}
	ch := w.chans[id-1]
	if w.cur != nil {
		f := w.files[len(w.files)-1]
		if (w.o.SplitSize > 0 && w.curLen >= w.o.SplitSize) ||
			(w.o.SplitDuration > 0 && f.count > 0 && m.LogTime-f.start >= int64(w.o.SplitDuration)) {
			if err := w.closeSplit(); err != nil {
				return err
			}
		}
	}
	opened := w.cur == nil
	if opened {
		if err := w.open(); err != nil {
			return err
		}
	}
	w.msg = *m // a field, not a variable that escapes per message
	_, direct := w.cur.(record.EncodingWriter)
	// The latched messages repeated in a new split go before m, once m
	// is encoded (a split is dropped while it holds nothing); a latched
	// message is kept encoded.
	repeat := opened && w.o.RepeatLatched && len(w.files) > 1
	if encode != nil && (!direct || w.o.Mode == ModeMessage || repeat || ch.latched) {
		data, err := encode(w.encoded[:0])
		if err != nil {
			w.dropOpened(opened)
			return err
		}
		w.encoded, w.msg.Data, encode = data, data, nil
	}
	if repeat {
		for _, l := range w.chans {
			if !l.seen || l == ch {
				continue
			}
			again := l.last
			again.LogTime = m.LogTime
			if err := w.put(l, &again, nil); err != nil {
				return err
			}
		}
	}
	if ch.latched { // its own copy, in the buffer of the one it replaces
		keep := ch.last.Data[:0]
		ch.last, ch.seen = w.msg, true
		ch.last.Data = append(keep, w.msg.Data...)
	}
	if err := w.put(ch, &w.msg, encode); err != nil {
		if encode != nil {
			w.dropOpened(opened)
		}
		return err
	}
	return nil
}

// put writes msg on ch into the current split, compressed first in
// ModeMessage, its data encoded straight into the split by encode unless
// nil, and counts it.
func (w *Writer) put(ch *channel, msg *record.Message, encode func([]byte) ([]byte, error)) error {
	if w.o.Mode == ModeMessage {
		w.zbuf = w.zenc.EncodeAll(msg.Data, w.zbuf[:0]) // the split copies it
		msg.Data = w.zbuf
	}
	size := len(msg.Data)
	if encode != nil {
		w.encode = encode
		if err := w.cur.(record.EncodingWriter).EncodeMessage(ch.inner, msg, w.measured); err != nil {
			return err
		}
		size = w.encodedLen
	} else if err := w.cur.WriteMessage(ch.inner, msg); err != nil {
		return err
	}
	t := msg.LogTime
	f := w.files[len(w.files)-1]
	if f.count == 0 || t < f.start {
		f.start = t
	}
	if f.count == 0 || t > f.end {
		f.end = t
	}
	if w.count == 0 || t < w.start {
		w.start = t
	}
	if w.count == 0 || t > w.end {
		w.end = t
	}
	f.count++
	ch.count++
	w.count++
	w.curLen += int64(size)
	return nil
}

// dropOpened removes the split write opened (opened) for a message that
// could not be encoded, so that no split stays empty: the next message
// opens it again.
func (w *Writer) dropOpened(opened bool) {
	if opened {
		w.cur.Abort()
		w.cur = nil
		w.files = w.files[:len(w.files)-1]
	}
}

// closeSplit finishes the current split (and compresses it in ModeFile).
// An MCAP split ends with the "rosbag2" metadata record rosbag2's MCAP
// storage writes: serialized_metadata, the recording's metadata so far.
func (w *Writer) closeSplit() error {
	cur := w.cur
	w.cur = nil
	if m, ok := cur.(*mcapfile.Writer); ok {
		if err := m.AddMetadata("rosbag2", map[string]string{"serialized_metadata": w.metadata().Serialized()}); err != nil {
			cur.Abort()
			return err
		}
	}
	if err := cur.Close(); err != nil {
		return err
	}
	if w.o.Mode != ModeFile {
		return nil
	}
	f := w.files[len(w.files)-1]
	src := filepath.Join(w.dir.Name(), f.path)
	if err := w.compressFile(src, src+".zstd"); err != nil {
		return err
	}
	f.path += ".zstd"
	return os.Remove(src)
}

// compressFile writes the zstd stream of src to dst.
func (w *Writer) compressFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	z, err := zstd.NewWriter(out, zstd.WithEncoderConcurrency(1))
	if err == nil {
		_, err = io.Copy(z, in)
		if cerr := z.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close finishes the last split, writes metadata.yaml and renames the
// folder into place. A recording without messages holds one empty split
// with every topic, as rosbag2 writes it.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	err := func() error {
		if w.cur == nil && len(w.files) == 0 {
			if err := w.open(); err != nil {
				return err
			}
		}
		if w.cur != nil {
			if err := w.closeSplit(); err != nil {
				return err
			}
		}
		if w.o.File {
			// The file alone, out of the folder it was made in (which
			// Abort then removes), over any file at the path.
			if w.o.Sync {
				if err := w.dir.Sync(); err != nil {
					return fmt.Errorf("writing %s: %w", w.path, err)
				}
			}
			if err := os.Rename(filepath.Join(w.dir.Name(), w.name), w.path); err != nil {
				return fmt.Errorf("writing %s: %w", w.path, err)
			}
			return nil
		}
		return os.WriteFile(filepath.Join(w.dir.Name(), "metadata.yaml"), w.metadata().YAML(), 0o644)
	}()
	w.done = true
	if w.zenc != nil {
		w.zenc.Close()
	}
	if err != nil || w.o.File {
		w.dir.Abort()
		return err
	}
	return w.dir.Commit()
}

// Abort removes everything written.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.cur != nil {
		w.cur.Abort()
	}
	if w.zenc != nil {
		w.zenc.Close()
	}
	w.dir.Abort()
}

// metadata is the recording's metadata so far (rosbag2's BagMetadata):
// metadata.yaml's, and what each split stores (the metadata table of a
// sqlite3 split, the "rosbag2" record of an MCAP split).
func (w *Writer) metadata() *db3.Bag2Metadata {
	m := &db3.Bag2Metadata{
		Version:           db3.MetadataVersion,
		StorageIdentifier: w.o.Storage,
		StartingTimeNs:    w.start,
		DurationNs:        w.end - w.start,
		MessageCount:      w.count,
		CustomData:        w.o.CustomData,
		ROSDistro:         w.o.ROSDistro,
	}
	for _, ch := range w.chans {
		m.Topics = append(m.Topics, db3.TopicMetadata(&ch.c, ch.count))
	}
	switch w.o.Mode {
	case ModeFile:
		m.CompressionFormat, m.CompressionMode = "zstd", "FILE"
	case ModeMessage:
		m.CompressionFormat, m.CompressionMode = "zstd", "MESSAGE"
	}
	for _, f := range w.files {
		m.RelativeFilePaths = append(m.RelativeFilePaths, f.path)
		m.Files = append(m.Files, db3.Bag2File{Path: f.path, StartingTimeNs: f.start, DurationNs: f.end - f.start, MessageCount: f.count})
	}
	return m
}
