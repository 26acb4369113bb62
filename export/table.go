package export

import (
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
)

// Table writes rows that no recording holds as such — TF lookups, matched
// sets of several topics — as one dataset file, DIR/<topic path>.parquet
// (or .csv), through the same writers, options and meta columns as an
// export of a topic. Rows are messages of one type t, each pushed into
// the row builders by a Decoder.
type Table struct {
	e   *Exporter
	src *Source
	ch  *record.Channel
	t   *msgdef.Type
	m   record.Message
}

// NewTable starts the file for topic under dir. definition is t's text
// for the file's metadata.
func NewTable(dir, topic string, t *msgdef.Type, definition string, opts ...Option) (*Table, error) {
	e, err := New(dir, opts...)
	if err != nil {
		return nil, err
	}
	ch := &record.Channel{Topic: topic, MessageEncoding: "ros1",
		Schema: &record.Schema{Name: t.Name, Encoding: "ros1msg", Data: []byte(definition)}}
	return &Table{e: e, src: e.Source(""), ch: ch, t: t}, nil
}

// Add appends one row: meta gives the meta columns (log_time,
// publish_time, sequence, source_file), d pushes the fields of t.
func (t *Table) Add(meta Meta, d Decoder) error {
	t.m = record.Message{Channel: t.ch, LogTime: meta.LogTime, PublishTime: meta.PublishTime,
		Sequence: meta.Sequence, Source: meta.Source, Offset: -1}
	return t.src.Write(&t.m, t.t, d)
}

// Close writes the file and renames it into place.
func (t *Table) Close() error {
	if err := t.src.Close(); err != nil {
		t.e.Abort()
		return err
	}
	return t.e.Close()
}

// Abort removes what was written.
func (t *Table) Abort() {
	t.src.Close()
	t.e.Abort()
}

// Files returns the paths written, after Close.
func (t *Table) Files() []string { return t.e.Files() }
