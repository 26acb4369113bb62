package media

import (
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/record"
)

// indexDefinition is the index's row, as a message definition, so that
// the export package's Parquet and CSV writers write it (with the
// log_time, publish_time, sequence and source_file columns they add).
const indexDefinition = `string topic
string field
string kind
time stamp
string frame_id
string encoding
uint32 width
uint32 height
uint64 points
string file
`

// IndexName is the base name of the index files (index.parquet,
// index.csv) in the output directory.
const IndexName = "index"

// writeIndex writes the entries as dir/index.parquet and dir/index.csv
// and returns their paths.
func writeIndex(dir string, entries []Entry) ([]string, error) {
	t, err := msgdef.ParseBundle("baglab/MediaFile", indexDefinition, msgdef.ROS1, nil)
	if err != nil {
		return nil, err
	}
	ch := &record.Channel{Topic: "/" + IndexName, MessageEncoding: "ros1",
		Schema: &record.Schema{Name: t.Name, Encoding: "ros1msg", Data: []byte(indexDefinition)}}
	var paths []string
	for _, format := range []export.Format{export.Parquet, export.CSV} {
		ex, err := export.New(dir, export.WithFormat(format), export.WithTimeFormat(export.TimeNs))
		if err != nil {
			return paths, err
		}
		src := ex.Source(dir)
		for i := range entries {
			e := &entries[i]
			m := &record.Message{Channel: ch, LogTime: e.LogTime, PublishTime: e.PublishTime, Sequence: e.Sequence, Source: e.Source}
			dec := export.DecoderFunc(func(_ []byte, s sink.Sink) error {
				emitEntry(t, e, s)
				return nil
			})
			if err := src.Write(m, t, dec); err != nil {
				ex.Abort()
				return paths, err
			}
		}
		if err := src.Close(); err != nil {
			ex.Abort()
			return paths, err
		}
		if err := ex.Close(); err != nil {
			return paths, err
		}
		paths = append(paths, ex.Files()...)
	}
	return paths, nil
}

// emitEntry sends e to s as a message of the index type t.
func emitEntry(t *msgdef.Type, e *Entry, s sink.Sink) {
	f := func(i int) *msgdef.Field { return &t.Fields[i] }
	s.BeginMessage(t)
	s.String(f(0), []byte(e.Topic))
	s.String(f(1), []byte(e.Field))
	s.String(f(2), []byte(e.Kind.String()))
	s.Time(f(3), e.Stamp/1e9, e.Stamp%1e9)
	s.String(f(4), []byte(e.FrameID))
	s.String(f(5), []byte(e.Encoding))
	s.Uint(f(6), uint64(e.Width))
	s.Uint(f(7), uint64(e.Height))
	s.Uint(f(8), uint64(e.Points))
	s.String(f(9), []byte(e.Path))
	s.EndMessage()
}
