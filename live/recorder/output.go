package recorder

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/live/rosnode"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// StatsTopic is the bag topic of the final statistics message.
const StatsTopic = "/baglab/record_stats"

// StatsMetadata is the MCAP metadata record holding the statistics.
const StatsMetadata = "baglab/record_stats"

const (
	stringType = "std_msgs/String"
	stringMD5  = "992ce8a1687cec8c8bd883ec73ca41d1"
	stringDef  = "string data\n"
)

// output is one file being written.
type output struct {
	path, active string
	mcap         bool
	f            *os.File
	w            record.Writer
	start        time.Time
	byConn       map[*rosnode.Connection]uint32
	byHeader     map[string]uint32
	written      map[*topicState]int64
}

// outputPath is the name of file number idx (rosbag: NAME_N.bag with
// --split).
func (o *Options) outputPath(idx int) string {
	if !o.Split {
		return o.Output
	}
	ext := filepath.Ext(o.Output)
	return fmt.Sprintf("%s_%d%s", strings.TrimSuffix(o.Output, ext), idx, ext)
}

// FirstPath is the file recording starts in, without its ".active"
// suffix: Output, or with --split NAME_0.bag (rosbag's naming).
func (o *Options) FirstPath() string { return o.outputPath(0) }

// checkOutput checks that path can be written (atomicfile.CheckFile:
// not a directory, in a directory that is writable or can be made, not an
// existing file unless Force). A failure is an *atomicfile.CheckError; an
// existing file's wraps fs.ErrExist, and the caller names its own flag to
// overwrite it.
func (o *Options) checkOutput(path string) error {
	return atomicfile.CheckFile(path, o.Force, nil)
}

// openOutput creates path.active (and its missing folders) with the modes
// of every output (atomicfile) and starts a bag or MCAP writer on it.
func (o *Options) openOutput(path string, now time.Time) (*output, error) {
	if err := o.checkOutput(path); err != nil {
		return nil, err
	}
	if err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return nil, err
	}
	active := path + ".active"
	f, err := os.OpenFile(active, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666) // os.Create's mode, as every output's
	if err != nil {
		return nil, err
	}
	out := &output{path: path, active: active, f: f, start: now,
		mcap:   strings.EqualFold(filepath.Ext(path), ".mcap"),
		byConn: map[*rosnode.Connection]uint32{}, byHeader: map[string]uint32{}, written: map[*topicState]int64{}}
	db := &dropBehind{f: f}
	if out.mcap {
		out.w, err = mcapfile.NewWriter(db, mcapfile.WithCompression(cmp.Or(o.Compression, "zstd")),
			mcapfile.WithChunkSize(int64(o.ChunkSize)), mcapfile.WithProfile("ros1"))
	} else {
		out.w, err = bag.NewWriter(db, bag.WithCompression(cmp.Or(o.Compression, "none")),
			bag.WithChunkSize(int64(o.ChunkSize)))
	}
	if err != nil {
		f.Close()
		os.Remove(active)
		return nil, fmt.Errorf("%s: %w", active, err)
	}
	return out, nil
}

// size is the number of bytes handed to the file so far.
func (out *output) size() int64 {
	n, _ := out.f.Seek(0, io.SeekCurrent)
	return n
}

// channel returns the channel id for a connection, registering one per
// distinct (topic, publisher header).
func (out *output) channel(c *rosnode.Connection) (uint32, error) {
	if id, ok := out.byConn[c]; ok {
		return id, nil
	}
	key := c.Topic + "\x00" + string(c.Header.Encode())
	if id, ok := out.byHeader[key]; ok {
		out.byConn[c] = id
		return id, nil
	}
	md := map[string]string{}
	for _, f := range c.Header {
		switch f.Key {
		case "topic", "type", "md5sum", "message_definition":
		default:
			md[f.Key] = f.Value
		}
	}
	h := c.Header
	id, err := out.w.AddChannel(&record.Channel{
		Topic:           c.Topic,
		MessageEncoding: "ros1",
		Schema: &record.Schema{Name: h.Value("type"), Encoding: "ros1msg",
			Data: []byte(h.Value("message_definition")), MD5: h.Value("md5sum")},
		Metadata: md,
	})
	if err != nil {
		return 0, err
	}
	out.byConn[c], out.byHeader[key] = id, id
	return id, nil
}

func (out *output) write(it *item, t time.Time) error {
	id, err := out.channel(it.conn)
	if err != nil {
		return err
	}
	ns := t.UnixNano()
	if err := out.w.WriteMessage(id, &record.Message{LogTime: ns, PublishTime: ns, Data: it.data}); err != nil {
		return err
	}
	out.written[it.topic]++
	return nil
}

// TopicStats counts one topic of a recording.
type TopicStats struct {
	Topic string `json:"topic"`
	// Received counts messages received; Written those written (to every
	// file so far); Dropped those dropped from a full buffer or, larger
	// than the buffer or --max-message, as they arrived.
	Received int64 `json:"received"`
	Written  int64 `json:"written"`
	Dropped  int64 `json:"dropped"`
	// Evicted counts, in snapshot mode, those the buffer let go to keep
	// within --snapshot-duration and --snapshot-size.
	Evicted int64 `json:"evicted,omitempty"`
	// FileWritten counts those written to this file.
	FileWritten int64 `json:"file_written"`
	Bytes       int64 `json:"bytes"`
}

// Stats is the content of the statistics kept in each file.
type Stats struct {
	Node    string       `json:"node"`
	Started time.Time    `json:"started"`
	Closed  time.Time    `json:"closed"`
	Topics  []TopicStats `json:"topics"`
}

// finish writes the statistics, closes the writer and renames the file
// into place.
func (out *output) finish(st Stats, callerID string) error {
	var errs []error
	if mw, ok := out.w.(*mcapfile.Writer); ok {
		md := map[string]string{"node": st.Node, "started": st.Started.Format(time.RFC3339Nano), "closed": st.Closed.Format(time.RFC3339Nano)}
		for _, t := range st.Topics {
			b, _ := json.Marshal(t)
			md[t.Topic] = string(b)
		}
		errs = append(errs, mw.AddMetadata(StatsMetadata, md))
	} else {
		id, err := out.w.AddChannel(&record.Channel{Topic: StatsTopic, MessageEncoding: "ros1",
			Schema:   &record.Schema{Name: stringType, Encoding: "ros1msg", Data: []byte(stringDef), MD5: stringMD5},
			Metadata: map[string]string{"callerid": callerID, "latching": "0"}})
		if err == nil {
			b, _ := json.Marshal(st)
			ns := st.Closed.UnixNano()
			err = out.w.WriteMessage(id, &record.Message{LogTime: ns, PublishTime: ns, Data: stringMsg(string(b))})
		}
		errs = append(errs, err)
	}
	errs = append(errs, out.w.Close(), out.f.Sync(), out.f.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing %s: %w", out.active, err)
	}
	return os.Rename(out.active, out.path)
}

// stringMsg serializes a std_msgs/String.
func stringMsg(s string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}
