package db3

import (
	"database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/baglab/baglab/internal/merge"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/zfile"
)

// Messages streams the selected messages in timestamp order (rows with
// equal timestamps by id, files in folder order). Sequence counts the
// messages read from each file from 0; Offset is -1 (rows have no byte
// offset); PublishTime equals LogTime.
func (r *Reader) Messages(f record.Filter) (record.Iterator, error) {
	if r.closed {
		return nil, errClosed
	}
	for _, err := range r.leftOut {
		if r.onSkip != nil {
			r.onSkip(record.Skipped{Err: err})
		}
	}
	var cursors []*cursor
	for _, df := range r.files {
		var ids []int64
		for _, id := range df.topicOrder {
			if f.Topic == nil || f.Topic(df.topics[id].Topic) {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		q := "SELECT id, topic_id, timestamp, data FROM messages WHERE 1"
		var args []any
		if len(ids) < len(df.topicOrder) {
			q += " AND topic_id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",") + ")"
			for _, id := range ids {
				args = append(args, id)
			}
		}
		if f.Start != 0 {
			q += " AND timestamp >= ?"
			args = append(args, f.Start)
		}
		if f.End != 0 {
			q += " AND timestamp < ?"
			args = append(args, f.End)
		}
		rows, err := df.db.Query(q+" ORDER BY timestamp, id", args...)
		if err != nil {
			newIter(cursors).Close()
			return nil, sqlError(df.path, "messages", err)
		}
		cursors = append(cursors, &cursor{file: df, rows: rows})
	}
	return newIter(cursors), nil
}

// cursor is one file's query.
type cursor struct {
	file *dbFile
	rows *sql.Rows
	// current row
	id    int64
	topic int64
	ts    int64
	data  blobCol
	seq   uint64
	done  bool
}

// advance moves to the next row.
func (c *cursor) advance() error {
	if !c.rows.Next() {
		c.done = true
		if err := c.rows.Err(); err != nil {
			return sqlError(c.file.path, "messages", err)
		}
		return c.rows.Close()
	}
	if err := scanRow(c.rows, c.file.path, "messages", messageCols, messageKinds, &c.id, &c.topic, &c.ts, &c.data); err != nil {
		return err
	}
	if c.data.null {
		return columnError(c.file.path, "messages", c.id, "data", nil, kindBlob)
	}
	return nil
}

// iter merges the files' cursors by timestamp (merge.Merger: equal
// timestamps in folder order).
type iter struct {
	cursors []*cursor
	merge   *merge.Merger
	msg     record.Message
	zstd    zfile.MessageDecoder // compression_mode MESSAGE
	err     error
}

// newIter merges cursors.
func newIter(cursors []*cursor) *iter {
	it := &iter{cursors: cursors}
	it.merge = merge.New(len(cursors), func(i int) (int64, bool, error) {
		c := cursors[i]
		if err := c.advance(); err != nil || c.done {
			return 0, false, err
		}
		return c.ts, true, nil
	})
	return it
}

// Next returns the next message in timestamp order.
func (it *iter) Next() (*record.Message, error) {
	if it.err != nil {
		return nil, it.err
	}
	i, ok, err := it.merge.Next()
	if err != nil {
		return nil, it.fail(err)
	}
	if !ok {
		return nil, it.fail(io.EOF)
	}
	c := it.cursors[i]
	ch := c.file.topics[c.topic]
	if ch == nil {
		return nil, it.fail(c.file.missingTopic(c.id, c.topic, 1))
	}
	data := c.data.b
	if c.file.compression == "zstd" {
		var err error
		if data, err = it.zstd.Decode(data); err != nil {
			return nil, it.fail(&record.Error{File: c.file.path, Offset: -1, Topic: ch.Topic, Field: "messages.data", Err: record.ErrFormat, Detail: fmt.Sprintf("messages row %d: zstd: %v", c.id, err)})
		}
	}
	it.msg = record.Message{Channel: ch, LogTime: c.ts, PublishTime: c.ts, Sequence: c.seq, Source: c.file.path, Offset: -1, Data: data}
	c.seq++
	return &it.msg, nil
}

func (it *iter) fail(err error) error {
	it.err = err
	it.closeCursors()
	return err
}

func (it *iter) closeCursors() {
	for _, c := range it.cursors {
		c.rows.Close()
	}
	it.zstd.Close()
}

// Close ends the queries; it is idempotent.
func (it *iter) Close() error {
	if it.err == nil {
		it.err = io.EOF
	}
	it.closeCursors()
	return nil
}
