package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
)

// Exporter writes datasets under one output directory: one Parquet or CSV
// file per topic (DIR/<topic path>.parquet, "/a/b" → a/b.parquet), or
// Hive-partitioned part files (see Partition). Rows arrive through Sources,
// one per input file, or through Run, which exports several inputs in
// parallel with the same output.
//
// Output is deterministic: the same inputs in the same order give
// byte-identical files whatever the number of jobs. A row group never spans
// two input files. A topic whose type differs between inputs (another
// definition) gets a file of its own per variant: a/b.parquet, a/b.v2.parquet …
//
// Every file is written under a temporary name in its directory; Close
// renames them all into place, Abort removes them. Nothing is written
// outside the directory.
type Exporter struct {
	dir string
	cfg config

	mu       sync.Mutex
	dirs     atomicfile.DirSet // created, so that a failed export takes away those it left empty
	tables   map[tableKey]*table
	order    []*table
	paths    map[string]bool
	variants map[string]int
	sources  int
	// partNames names the part files of inputs by number (Input.Part).
	partNames map[int]string
	// written holds what each input exported, by number, once its Source
	// has closed without error (see exported); partitioned output only,
	// which the dataset manifest describes.
	written map[int][]ManifestTopic
	files   []string
	closed  bool
	// background is the one slot for a record written in the background
	// (see writeQueue).
	background chan struct{}
}

// New returns an Exporter writing under dir (created if missing).
func New(dir string, opts ...Option) (*Exporter, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.format == CSV && cfg.arrays.Mode == ArraysFirst && cfg.arrays.N < 1 {
		return nil, fmt.Errorf("export: first:N needs N >= 1")
	}
	e := &Exporter{dir: filepath.Clean(dir), cfg: cfg, tables: map[tableKey]*table{},
		paths: map[string]bool{}, variants: map[string]int{}, background: make(chan struct{}, 1)}
	if err := e.dirs.MkdirAll(e.dir); err != nil {
		return nil, err
	}
	return e, nil
}

// tableKey identifies one output file.
type tableKey struct {
	topic  string
	schema string // type name and Arrow schema fingerprint
	part   string // partition value, "" when not partitioned
	source int    // input index when partitioned, else -1
}

// tableInfo describes a dataset's messages, for the file metadata.
type tableInfo struct {
	topic, typeName, definition, md5, msgEncoding, schemaEncoding string
}

// tableWriter is a format's file writer.
type tableWriter interface {
	write(rec arrow.RecordBatch) error
	abort()
}

// table is one output file.
type table struct {
	key     tableKey
	info    tableInfo
	out     *outFile
	pq      *parquetWriter
	csv     *csvWriter
	q       writeQueue
	slot    chan struct{} // the exporter's background slot
	sources []string
	last    int // index of the last source that wrote, -1 at first
	closed  bool
}

// writeQueue lets a table's format writer (Parquet encoding and
// compression, or CSV formatting) write one record in a goroutine of its
// own while the caller decodes and builds the next rows. The records of a
// table are written one at a time, in the order given. At most one record
// of the whole export is written in the background (the exporter's
// background slot): when the slot is taken the record is written by the
// caller, so memory grows by one record at most.
type writeQueue struct {
	pending chan struct{} // closed when the background write ends; nil if none
	mu      sync.Mutex
	err     error // the first write error
}

func (q *writeQueue) failed() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

func (q *writeQueue) fail(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
	}
}

// wait returns when the background write, if any, has ended, with the
// first write error.
func (q *writeQueue) wait() error {
	if q.pending != nil {
		<-q.pending
		q.pending = nil
	}
	return q.failed()
}

// write writes rec with w: in the background when slot has room, else
// here. The caller keeps its reference to rec.
func (q *writeQueue) write(w tableWriter, rec arrow.RecordBatch, slot chan struct{}) error {
	if err := q.wait(); err != nil {
		return err
	}
	select {
	case slot <- struct{}{}:
	default:
		err := w.write(rec)
		if err != nil {
			q.fail(err)
		}
		return err
	}
	rec.Retain()
	done := make(chan struct{})
	q.pending = done
	go func() {
		defer close(done)
		defer func() { <-slot }()
		defer rec.Release()
		if err := w.write(rec); err != nil {
			q.fail(err)
		}
	}()
	return nil
}

func (t *table) writer() tableWriter {
	if t.pq != nil {
		return t.pq
	}
	return t.csv
}

// table returns the table for key, creating its file on first use.
func (e *Exporter) table(key tableKey, info tableInfo, sc *arrow.Schema, rowBytes int64) (*table, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("export: exporter closed")
	}
	if t, ok := e.tables[key]; ok {
		return t, nil
	}
	rel, err := e.relPath(key, sc)
	if err != nil {
		return nil, err
	}
	out, err := createOut(filepath.Join(e.dir, filepath.FromSlash(rel)), &e.dirs)
	if err != nil {
		return nil, err
	}
	t := &table{key: key, info: info, out: out, last: -1, slot: e.background}
	if e.cfg.format == CSV {
		t.csv, err = newCSVWriter(out, sc, &e.cfg)
	} else {
		t.pq, err = newParquetWriter(out, sc, &e.cfg, rowBytes)
	}
	if err != nil {
		out.abort()
		return nil, err
	}
	e.tables[key] = t
	e.order = append(e.order, t)
	return t, nil
}

// relPath names the file of key, numbering schema variants in order of
// appearance. Called with e.mu held.
func (e *Exporter) relPath(key tableKey, sc *arrow.Schema) (string, error) {
	ext := e.cfg.format.ext()
	var base, scope string
	if e.cfg.partition == PartitionNone {
		p, err := topicPath(key.topic)
		if err != nil {
			return "", err
		}
		base, scope = p, key.topic
	} else {
		base = hiveKey(sc, "topic") + "=" + hiveValue(key.topic) + "/" +
			hiveKey(sc, e.cfg.partition.String()) + "=" + hiveValue(key.part) +
			"/part-" + e.partName(key.source)
		scope = base
	}
	for n := e.variants[scope]; ; n++ {
		rel := base
		if n > 0 {
			rel += ".v" + strconv.Itoa(n+1)
		}
		rel += ext
		if !e.paths[rel] {
			e.variants[scope] = n + 1
			e.paths[rel] = true
			return rel, nil
		}
	}
}

// partName is the name of input i's part files: its Input.Part, else its
// number. Called with e.mu held.
func (e *Exporter) partName(i int) string {
	if p, ok := e.partNames[i]; ok {
		return p
	}
	return strconv.Itoa(i)
}

// hiveKey returns the partition column name for name: with leading
// underscores while the rows already have a column of that name, since
// readers add the partition columns to the file's.
func hiveKey(sc *arrow.Schema, name string) string {
	for sc.HasField(name) {
		name = "_" + name
	}
	return name
}

// write appends rec to t on behalf of source src (index i). The record may
// be written in the background (see writeQueue); a write error is then
// returned by a later write or by finish.
func (t *table) write(rec arrow.RecordBatch, i int, src string) error {
	if t.closed {
		return errors.New("export: table closed")
	}
	if err := t.q.wait(); err != nil {
		return err
	}
	if t.last != i {
		t.last = i
		t.sources = append(t.sources, src)
	}
	return t.q.write(t.writer(), rec, t.slot)
}

// finish writes the footer (Parquet metadata) and closes the temporary
// file.
func (t *table) finish(version string) error {
	if t.closed {
		return nil
	}
	t.closed = true
	if err := t.q.wait(); err != nil {
		t.writer().abort()
		return fmt.Errorf("export: %s: %w", t.out.path, err)
	}
	var err error
	if t.pq != nil {
		srcs, _ := json.Marshal(t.sources)
		err = t.pq.close([][2]string{
			{"baglab.version", version},
			{"baglab.topic", t.info.topic},
			{"baglab.message_type", t.info.typeName},
			{"baglab.message_encoding", t.info.msgEncoding},
			{"baglab.schema_encoding", t.info.schemaEncoding},
			{"baglab.md5", t.info.md5},
			{"baglab.definition", t.info.definition},
			{"baglab.source_files", string(srcs)},
		})
	} else {
		err = t.csv.close()
	}
	if err == nil {
		err = t.out.finish()
	}
	if err != nil {
		return fmt.Errorf("export: %s: %w", t.out.path, err)
	}
	return nil
}

// finishSource closes the tables private to source i (partitioned output).
func (e *Exporter) finishSource(i int) error {
	e.mu.Lock()
	var mine []*table
	for _, t := range e.order {
		if t.key.source == i && i >= 0 {
			mine = append(mine, t)
		}
	}
	e.mu.Unlock()
	outs := make([]*outFile, len(mine))
	for k, t := range mine {
		if err := t.finish(e.cfg.version); err != nil {
			return err
		}
		outs[k] = t.out
	}
	return closeOuts(outs)
}

// Close finishes every file and renames them into place. Every Source must
// be closed first. On error nothing is left behind (as with Abort).
func (e *Exporter) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	order := e.order
	e.mu.Unlock()
	outs := make([]*outFile, len(order))
	for k, t := range order {
		if err := t.finish(e.cfg.version); err != nil {
			e.abortAll()
			return err
		}
		outs[k] = t.out
	}
	if err := closeOuts(outs); err != nil {
		e.abortAll()
		return err
	}
	for _, t := range order {
		if err := t.out.commit(); err != nil {
			e.abortAll()
			return fmt.Errorf("export: %s: %w", t.out.path, err)
		}
		e.files = append(e.files, t.out.path)
	}
	sort.Strings(e.files)
	return nil
}

// Abort stops the export and removes its temporary files and the
// directories it created that are left empty. Files already renamed by a
// successful Close stay.
func (e *Exporter) Abort() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.abortAll()
}

func (e *Exporter) abortAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range e.order {
		if !t.closed {
			t.closed = true
			_ = t.q.wait()
			t.writer().abort()
		}
		t.out.abort()
	}
	e.dirs.RemoveEmpty()
}

// Files returns the paths of the files written, sorted, after Close.
func (e *Exporter) Files() []string { return append([]string(nil), e.files...) }

// Source is one input file's stream of messages into an Exporter. It
// buffers rows per topic and flushes a topic's rows as a row group when
// they reach the row-group bounds, or the largest buffer when all its
// buffers together exceed the memory budget. A Source is not safe for
// concurrent use; Sources of one Exporter may run concurrently only when
// the output is partitioned (Run handles the general case).
type Source struct {
	e      *Exporter
	index  int
	path   string
	chans  map[*record.Channel]*chanState
	bufs   map[tableKey]*buffer
	order  []*buffer
	bytes  int64
	emit   func(b *buffer, rec arrow.RecordBatch) error
	err    error
	closed bool
	// topics counts the rows appended per topic.
	topics map[string]*ManifestTopic
}

// chanState caches what a channel needs per message.
type chanState struct {
	root   *rootPlan
	key    tableKey
	info   tableInfo
	day    int64 // UTC day of cur, for date partitions
	cur    *buffer
	schema *arrow.Schema
	// written counts the rows of cs's topic (shared by its channels).
	written *ManifestTopic
}

// buffer is one table's pending rows from one source.
type buffer struct {
	key    tableKey
	info   tableInfo
	schema *arrow.Schema
	rb     *RowBuilder
	// rowBytes is the mean row size of the last flush.
	rowBytes int64
}

// Source starts the input file at path. Inputs are numbered in the order
// their Sources are created; partitioned part files carry that number.
func (e *Exporter) Source(path string) *Source {
	e.mu.Lock()
	i := e.sources
	e.sources++
	e.mu.Unlock()
	s := e.newSource(i, path)
	s.emit = s.writeDirect
	return s
}

func (e *Exporter) newSource(i int, path string) *Source {
	return &Source{e: e, index: i, path: path, chans: map[*record.Channel]*chanState{}, bufs: map[tableKey]*buffer{},
		topics: map[string]*ManifestTopic{}}
}

// Write exports m, a message of type t decoded by d. A message that fails
// to decode is left out and its error returned, annotated with file and
// topic; the Source stays usable.
func (s *Source) Write(m *record.Message, t *msgdef.Type, d Decoder) error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return errors.New("export: source closed")
	}
	cs, err := s.channel(m.Channel, t)
	if err != nil {
		return err
	}
	b := cs.cur
	if s.e.cfg.partition == PartitionDate {
		day := floorDiv(m.LogTime, 86400e9)
		if b == nil || day != cs.day {
			cs.day = day
			b = nil
		}
	}
	if b == nil {
		b = s.buffer(cs, m.LogTime)
		cs.cur = b
	}
	cfg := &s.e.cfg
	if n := b.rb.Len(); n > 0 && b.rb.Bytes()+int64(len(m.Data)) > cfg.rowGroupBytes {
		// Flush before the row group outgrows its bound (and its buffers
		// double past it): a message's decoded size is about its encoded
		// size.
		if err := s.flush(b); err != nil {
			return err
		}
	}
	before := b.rb.Bytes()
	err = b.rb.Append(MetaOf(m), d, m.Data)
	s.bytes += b.rb.Bytes() - before
	if err != nil {
		return record.WithFile(err, m.Source, m.Offset, cs.info.topic)
	}
	w := cs.written
	if w.MessageCount == 0 || m.LogTime < w.StartNs {
		w.StartNs = m.LogTime
	}
	if w.MessageCount == 0 || m.LogTime > w.EndNs {
		w.EndNs = m.LogTime
	}
	w.MessageCount++
	if b.rb.Len() >= cfg.rowGroupRows || b.rb.Bytes() >= cfg.rowGroupBytes {
		return s.flush(b)
	}
	if s.bytes > cfg.budget {
		return s.flush(s.largest())
	}
	return nil
}

// channel returns the cached state of ch, compiling it on first use.
func (s *Source) channel(ch *record.Channel, t *msgdef.Type) (*chanState, error) {
	if cs, ok := s.chans[ch]; ok && cs.root.t == t {
		return cs, nil
	}
	ct, err := s.e.cfg.plans.get(t, s.e.cfg.unverified)
	if err != nil {
		return nil, record.WithFile(err, s.path, -1, ch.Topic)
	}
	info := tableInfo{topic: ch.Topic, typeName: t.Name, definition: t.Text, msgEncoding: ch.MessageEncoding}
	if sch := ch.Schema; sch != nil {
		info.schemaEncoding, info.md5 = sch.Encoding, sch.MD5
		if len(sch.Data) > 0 {
			info.definition = string(sch.Data)
		}
		if sch.Name != "" {
			info.typeName = sch.Name
		}
	}
	key := tableKey{topic: ch.Topic, schema: t.Name + "\x00" + ct.fingerprint, source: -1}
	if s.e.cfg.partition != PartitionNone {
		key.source = s.index
	}
	w := s.topics[ch.Topic]
	if w == nil {
		w = &ManifestTopic{Topic: ch.Topic, Type: info.typeName}
		s.topics[ch.Topic] = w
	}
	cs := &chanState{root: ct.root, key: key, info: info, schema: ct.schema, written: w}
	s.chans[ch] = cs
	return cs, nil
}

// buffer returns the row buffer for cs's table at logTime's partition.
func (s *Source) buffer(cs *chanState, logTime int64) *buffer {
	key := cs.key
	switch s.e.cfg.partition {
	case PartitionSource:
		key.part = filepath.Base(s.path)
	case PartitionDate:
		key.part = time.Unix(0, logTime).UTC().Format("2006-01-02")
	}
	if b, ok := s.bufs[key]; ok {
		return b
	}
	b := &buffer{key: key, info: cs.info, schema: cs.schema, rb: newRowBuilder(s.e.cfg.mem, cs.root)}
	s.bufs[key] = b
	s.order = append(s.order, b)
	return b
}

// largest returns the buffer holding the most bytes (the first on ties).
func (s *Source) largest() *buffer {
	var big *buffer
	for _, b := range s.order {
		if big == nil || b.rb.Bytes() > big.rb.Bytes() {
			big = b
		}
	}
	return big
}

// flush hands b's rows to the output as one record.
func (s *Source) flush(b *buffer) error {
	if b.rb.Len() == 0 {
		return nil
	}
	s.bytes -= b.rb.Bytes()
	b.rowBytes = b.rb.Bytes() / int64(b.rb.Len())
	rec, err := b.rb.NewRecordBatch()
	if err == nil {
		err = s.emit(b, rec)
	}
	if err != nil {
		s.err = err
		return err
	}
	return nil
}

// writeDirect writes rec to its table from the calling goroutine.
func (s *Source) writeDirect(b *buffer, rec arrow.RecordBatch) error {
	defer rec.Release()
	t, err := s.e.table(b.key, b.info, b.schema, b.rowBytes)
	if err != nil {
		return err
	}
	return t.write(rec, s.index, s.path)
}

// Close flushes the Source's remaining rows (in the order its topics first
// appeared) and releases its buffers. Partitioned files of this input are
// finished; the Exporter's Close renames them.
func (s *Source) Close() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	for _, b := range s.order {
		if s.err == nil {
			s.flush(b)
		}
		b.rb.Release()
	}
	s.order, s.bufs, s.chans = nil, nil, nil
	if s.err == nil && s.e.cfg.partition != PartitionNone {
		s.err = s.e.finishSource(s.index)
		if s.err == nil {
			s.e.setWritten(s.index, s.topics)
		}
	}
	s.topics = nil
	return s.err
}

// setWritten records the rows input i exported per topic.
func (e *Exporter) setWritten(i int, topics map[string]*ManifestTopic) {
	out := make([]ManifestTopic, 0, len(topics))
	for _, t := range topics {
		if t.MessageCount > 0 {
			out = append(out, *t)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Topic < out[b].Topic })
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.written == nil {
		e.written = map[int][]ManifestTopic{}
	}
	e.written[i] = out
}

// exported returns the rows input i (its number in e) exported per topic,
// sorted by topic, with their first and last log times; topics without
// rows are left out. It is known for partitioned output once the input's
// Source has closed without error (nil before, and unpartitioned).
func (e *Exporter) exported(i int) []ManifestTopic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.written[i]
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
