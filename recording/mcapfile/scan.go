package mcapfile

import (
	"io"
	"slices"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/internal/chunked"
	"github.com/foxglove/mcap/go/mcap"
)

// scanResult is what a full linear scan learns.
type scanResult struct {
	channels     []*record.Channel
	counts       map[uint16]uint64
	spans        map[uint16]chunked.Span // log times of each channel's first and last messages
	compressions []string
	attachments  []Attachment
	metadata     []Metadata
}

// scan reads the whole data section once and caches what it found. With
// record.WithSkipBad it goes on past damage, silently: the iterators report it.
func (r *Reader) scan() (*scanResult, error) {
	r.mu.Lock()
	if r.scanned != nil {
		defer r.mu.Unlock()
		return r.scanned, nil
	}
	r.mu.Unlock()
	w := r.newWalker(nil)
	defer w.close()
	sr := &scanResult{counts: map[uint16]uint64{}, spans: map[uint16]chunked.Span{}, attachments: []Attachment{}, metadata: []Metadata{}}
	t := r.newTracker()
	for {
		it, err := w.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch it.op {
		case mcap.OpSchema, mcap.OpChannel:
			ch, fresh, err := t.add(it)
			if err != nil {
				if r.opts.SkipBad {
					continue
				}
				return nil, err
			}
			if fresh {
				sr.channels = append(sr.channels, ch)
			}
		case mcap.OpMessage:
			id, _, lt, pt, err := t.message(it)
			if err == nil {
				err = messageTimes(r.file, it.errOffset(), lt, pt)
			}
			if err != nil {
				if r.opts.SkipBad {
					continue
				}
				return nil, err
			}
			sr.counts[id]++
			sr.spans[id] = sr.spans[id].With(int64(lt), sr.counts[id] == 1)
			if it.inChunk {
				name := it.chunkHdr.compression
				if name == "" {
					name = "none"
				}
				if !slices.Contains(sr.compressions, name) {
					sr.compressions = append(sr.compressions, name)
				}
			}
		case mcap.OpAttachment:
			a, err := attachmentFromHead(r.file, it.frame, it.body)
			if err != nil {
				if r.opts.SkipBad {
					continue
				}
				return nil, err
			}
			sr.attachments = append(sr.attachments, a)
		case mcap.OpMetadata:
			m, err := safeParse(r.file, it.errOffset(), "metadata", mcap.ParseMetadata, it.body)
			if err != nil {
				if r.opts.SkipBad {
					continue
				}
				return nil, err
			}
			sr.metadata = append(sr.metadata, Metadata{Name: m.Name, Metadata: m.Metadata, Offset: it.offset})
		}
	}
	sortChannels(sr.channels)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scanned = sr
	return sr, nil
}
