package mcapfile

import (
	"fmt"
	"io"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// tracker follows the schema and channel records of a linear read. With
// record.WithSkipBad it falls back on the summary section for a schema or channel
// whose record was lost.
type tracker struct {
	r       *Reader
	schemas map[uint16]*mcap.Schema
	at      map[uint16]int64 // offset of each schema record
	chans   map[uint16]*record.Channel
}

func (r *Reader) newTracker() *tracker {
	return &tracker{r: r, schemas: map[uint16]*mcap.Schema{}, at: map[uint16]int64{}, chans: map[uint16]*record.Channel{}}
}

// add reads a schema or channel record. For a channel it returns the
// channel, and whether it is the first record of its id.
func (t *tracker) add(rec item) (ch *record.Channel, fresh bool, err error) {
	file := t.r.file
	if rec.op == mcap.OpSchema {
		s, err := safeParse(file, rec.errOffset(), "schema", mcap.ParseSchema, rec.body)
		if err != nil {
			return nil, false, err
		}
		t.schemas[s.ID] = s
		t.at[s.ID] = rec.errOffset()
		return nil, false, nil
	}
	c, err := safeParse(file, rec.errOffset(), "channel", mcap.ParseChannel, rec.body)
	if err != nil {
		return nil, false, err
	}
	s, at := t.schema(c.SchemaID)
	if s == nil && c.SchemaID != 0 {
		return nil, false, errorf(file, rec.errOffset(), "channel.schema_id", record.ErrFormat, "channel %d uses schema %d before its schema record", c.ID, c.SchemaID)
	}
	_, seen := t.chans[c.ID]
	ch = t.r.channel(c, s, at)
	t.chans[c.ID] = ch
	return ch, !seen, nil
}

// schema returns the schema of an id met so far, or with record.WithSkipBad the
// summary's, with the offset of its record.
func (t *tracker) schema(id uint16) (*mcap.Schema, int64) {
	if s := t.schemas[id]; s != nil {
		return s, t.at[id]
	}
	if t.r.opts.SkipBad && t.r.summary != nil {
		return t.r.summary.schemas[id], t.r.summary.schemaAt[id]
	}
	return nil, 0
}

// message parses the head of a message record and finds its channel.
func (t *tracker) message(rec item) (id uint16, seq uint32, logTime, pubTime uint64, err error) {
	file := t.r.file
	if id, seq, logTime, pubTime, err = parseMessageHead(file, rec.errOffset(), rec.body); err != nil {
		return
	}
	if t.chans[id] == nil && t.r.opts.SkipBad && t.r.summary != nil {
		if c := t.r.summary.channels[id]; c != nil {
			if s, at := t.schema(c.SchemaID); s != nil || c.SchemaID == 0 {
				t.chans[id] = t.r.channel(c, s, at)
			}
		}
	}
	if t.chans[id] == nil {
		err = errorf(file, rec.errOffset(), "message.channel_id", record.ErrFormat, "message on channel %d before its channel record", id)
	}
	return
}

// linearIter yields messages in file order.
type linearIter struct {
	r      *Reader
	w      *walker
	f      record.Filter
	t      *tracker
	wanted map[uint16]bool     // whether the filter selects a channel's topic
	lost   map[uint16]struct{} // channels reported lost (WithSkipBad)
	msg    record.Message
	err    error
}

func newLinearIter(r *Reader, f record.Filter) *linearIter {
	return &linearIter{
		r:      r,
		w:      r.messageWalker(),
		f:      f,
		t:      r.newTracker(),
		wanted: map[uint16]bool{},
		lost:   map[uint16]struct{}{},
	}
}

// Next returns the next message in file order.
func (it *linearIter) Next() (*record.Message, error) {
	if it.err != nil {
		return nil, it.err
	}
	m, err := it.next()
	if err != nil {
		it.err = err
		it.w.close()
		return nil, err
	}
	return m, nil
}

func (it *linearIter) next() (*record.Message, error) {
	for {
		rec, err := it.w.next()
		if err != nil {
			return nil, err
		}
		switch rec.op {
		case mcap.OpSchema, mcap.OpChannel:
			ch, _, err := it.t.add(rec)
			if err != nil {
				if !it.r.opts.SkipBad {
					return nil, err
				}
				it.skipRecord(rec, err, "the record is left out")
				continue
			}
			if ch != nil {
				delete(it.wanted, uint16(ch.ID))
			}
		case mcap.OpMessage:
			id, seq, lt, pt, err := it.t.message(rec)
			if err != nil {
				if !it.r.opts.SkipBad {
					return nil, err
				}
				if len(rec.body) < messageHeadLen {
					it.skipRecord(rec, err, "the record is left out")
				} else if _, done := it.lost[id]; !done {
					it.lost[id] = struct{}{}
					it.skipRecord(rec, err, fmt.Sprintf("the messages of channel %d, which no channel record defines, are left out", id))
				}
				continue
			}
			if err := messageTimes(it.r.file, rec.errOffset(), lt, pt); err != nil {
				if !it.r.opts.SkipBad {
					return nil, err
				}
				it.skipRecord(rec, err, "the message is left out")
				continue
			}
			ch := it.t.chans[id]
			want, ok := it.wanted[id]
			if !ok {
				want = it.f.Topic == nil || it.f.Topic(ch.Topic)
				it.wanted[id] = want
			}
			if !want || !it.f.Match(ch.Topic, int64(lt)) {
				continue
			}
			it.msg = record.Message{
				Channel:     ch,
				LogTime:     int64(lt),
				PublishTime: int64(pt),
				Sequence:    uint64(seq),
				Source:      it.r.file,
				Offset:      rec.messageOffset(),
				Unverified:  rec.unverified,
				Data:        rec.body[messageHeadLen:],
			}
			return &it.msg, nil
		}
	}
}

// skipRecord reports a record that cannot be used: its own bytes, or those
// of the compressed chunk that holds it.
func (it *linearIter) skipRecord(rec item, err error, what string) {
	off, n := rec.frame.offset, rec.frame.end()-rec.frame.offset
	if rec.offset >= 0 {
		off, n = rec.offset, recordHeaderLen+int64(len(rec.body))
	}
	it.r.skip(record.Skipped{Offset: off, Length: n, Note: what, Err: err})
}

// Close releases the iterator; it is idempotent.
func (it *linearIter) Close() error {
	if it.err == nil {
		it.err = io.EOF
	}
	it.w.close()
	return nil
}
