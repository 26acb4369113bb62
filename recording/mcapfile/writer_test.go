package mcapfile

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// npmDump is what testdata/mcapdump.cjs prints (read by npm @mcap/core).
type npmDump struct {
	Header struct {
		Profile string `json:"profile"`
		Library string `json:"library"`
	} `json:"header"`
	Statistics *struct {
		MessageCount         string            `json:"messageCount"`
		ChannelCount         int               `json:"channelCount"`
		ChunkCount           int               `json:"chunkCount"`
		AttachmentCount      int               `json:"attachmentCount"`
		MetadataCount        int               `json:"metadataCount"`
		Start                string            `json:"start"`
		End                  string            `json:"end"`
		ChannelMessageCounts map[string]string `json:"channelMessageCounts"`
	} `json:"statistics"`
	Compressions         []string `json:"compressions"`
	MessageIndexChannels int      `json:"messageIndexChannels"`
	Schemas              []struct {
		ID       int    `json:"id"`
		Name     string `json:"name"`
		Encoding string `json:"encoding"`
		Data     string `json:"data"`
	} `json:"schemas"`
	Channels []struct {
		ID              int               `json:"id"`
		SchemaID        int               `json:"schemaId"`
		Topic           string            `json:"topic"`
		MessageEncoding string            `json:"messageEncoding"`
		Metadata        map[string]string `json:"metadata"`
	} `json:"channels"`
	Messages []struct {
		ChannelID   int    `json:"channelId"`
		Sequence    uint64 `json:"sequence"`
		LogTime     string `json:"logTime"`
		PublishTime string `json:"publishTime"`
		Data        string `json:"data"`
	} `json:"messages"`
	Attachments []struct {
		Name       string `json:"name"`
		MediaType  string `json:"mediaType"`
		LogTime    string `json:"logTime"`
		CreateTime string `json:"createTime"`
		Data       string `json:"data"`
	} `json:"attachments"`
	Metadata []struct {
		Name     string            `json:"name"`
		Metadata map[string]string `json:"metadata"`
	} `json:"metadata"`
	StreamMessageCount int `json:"streamMessageCount"`
	// Error is why McapStreamReader stopped (mode "stream-partial"), Done
	// whether it read the file to its end.
	Error string `json:"error"`
	Done  bool   `json:"done"`
}

// npmRead reads path with the npm @mcap/core reader: McapIndexedReader,
// or with mode "stream" McapStreamReader in file order (see
// testdata/mcapdump.cjs for the other modes).
func npmRead(t *testing.T, path string, mode ...string) *npmDump {
	t.Helper()
	testenv.RequirePeer(t, "mcap")
	cmd := exec.Command("node", append([]string{filepath.Join("testdata", "mcapdump.cjs"), testenv.NodeDir(t), path}, mode...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm @mcap/core could not read %s: %v\n%s", path, err, stderr.String())
	}
	var d npmDump
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testChannels are the channels writeTestFile writes: two ROS1 topics share
// one schema; a schemaless one.
var testChannels = []*record.Channel{
	{Topic: "/a", MessageEncoding: "ros1", Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data"), MD5: "992ce8a1687cec8c8bd883ec73ca41d1"}, Metadata: map[string]string{"callerid": "/talker"}},
	{Topic: "/b", MessageEncoding: "ros1", Schema: &record.Schema{Name: "std_msgs/String", Encoding: "ros1msg", Data: []byte("string data"), MD5: "992ce8a1687cec8c8bd883ec73ca41d1"}},
	{Topic: "/raw", MessageEncoding: "json", Schema: &record.Schema{}},
}

// testMessage is message i of the test file: channel, times, payload. Sizes
// vary from empty to 200 kB so that chunks split in several places; log
// times go backwards now and then.
func testMessage(i int) (ch int, logTime int64, data []byte) {
	ch = i % 3
	logTime = 1_000_000_000 + int64(i)*1000
	if i%7 == 3 {
		logTime -= 5500
	}
	n := (i * 37) % 300
	if i%50 == 49 {
		n = 200_000
	}
	data = make([]byte, n)
	for j := range data {
		data[j] = byte(i + j*13)
	}
	return ch, logTime, data
}

const testMessages = 600

func writeTestFile(t *testing.T, path string, opts ...WriterOption) {
	t.Helper()
	w, err := Create(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint32
	for _, c := range testChannels {
		id, err := w.AddChannel(c)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := w.AddMetadata("rosbag2", map[string]string{"distro": "noetic", "k": "v"}); err != nil {
		t.Fatal(err)
	}
	for i := range testMessages {
		ch, lt, data := testMessage(i)
		if err := w.WriteMessage(ids[ch], &record.Message{LogTime: lt, PublishTime: lt - 7, Sequence: uint64(i), Data: data}); err != nil {
			t.Fatal(err)
		}
		if i == 100 {
			if err := w.AddAttachment("calib.yaml", "text/yaml", 5, 6, []byte("fx: 1\n")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists before Close", path)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	for _, comp := range []string{"zstd", "lz4", "none"} {
		t.Run(comp, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.mcap")
			writeTestFile(t, path, WithCompression(comp), WithChunkSize(64<<10))

			// Expected content, from the same generator.
			type key struct {
				ch     int
				seq    uint64
				lt, pt int64
				data   string
			}
			var want []key
			for i := range testMessages {
				ch, lt, data := testMessage(i)
				want = append(want, key{ch: ch, seq: uint64(i), lt: lt, pt: lt - 7, data: string(data)})
			}
			byTime := append([]key(nil), want...)
			sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].lt < byTime[j].lt })

			// Our reader, indexed and linear.
			for _, mode := range []string{"indexed", "linear"} {
				var opts []Option
				if mode == "linear" {
					opts = append(opts, record.WithoutIndex())
				}
				r, err := Open(path, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if ok, why := r.Indexed(); ok != (mode == "indexed") {
					t.Fatalf("%s: Indexed() = %v (%s)", mode, ok, why)
				}
				if r.Profile() != "ros1" {
					t.Errorf("profile %q, want ros1 (inferred from the first channel)", r.Profile())
				}
				exp := byTime
				if mode == "linear" {
					exp = want
				}
				it, err := r.Messages(record.Filter{})
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				recordtest.Each(t, it, func(m *record.Message) {
					e := exp[i]
					if m.Channel.Topic != testChannels[e.ch].Topic || m.Sequence != e.seq || m.LogTime != e.lt || m.PublishTime != e.pt || string(m.Data) != e.data {
						t.Fatalf("%s message %d: %s seq %d log %d pub %d len %d, want %s seq %d log %d len %d", mode, i,
							m.Channel.Topic, m.Sequence, m.LogTime, m.PublishTime, len(m.Data), testChannels[e.ch].Topic, e.seq, e.lt, len(e.data))
					}
					if m.Channel.Topic != "/raw" && m.Channel.Schema.MD5 != "992ce8a1687cec8c8bd883ec73ca41d1" {
						t.Fatalf("md5 %q", m.Channel.Schema.MD5)
					}
					i++
				})
				if i != len(exp) {
					t.Fatalf("%s: %d messages, want %d", mode, i, len(exp))
				}
				sum, err := r.Summary()
				if err != nil {
					t.Fatal(err)
				}
				wantComp := comp
				if sum.MessageCount != testMessages || sum.Compression != wantComp || len(sum.Topics) != 3 || sum.Topics[0].MessageCount != 200 {
					t.Errorf("%s summary: %+v", mode, sum)
				}
				if probs, err := Check(path); err != nil || len(probs) != 0 {
					t.Errorf("Check: %v %v", probs, err)
				}
				r.Close()
			}

			if testing.Short() {
				return
			}
			// The independent reader: npm @mcap/core.
			d := npmRead(t, path)
			if d.Header.Profile != "ros1" || d.Header.Library != "baglab" {
				t.Errorf("header %+v", d.Header)
			}
			if len(d.Schemas) != 1 || d.Schemas[0].Name != "std_msgs/String" || d.Schemas[0].Encoding != "ros1msg" || d.Schemas[0].Data != hex.EncodeToString([]byte("string data")) {
				t.Errorf("schemas %+v, want one deduplicated std_msgs/String", d.Schemas)
			}
			if len(d.Channels) != 3 || d.Channels[0].Metadata["md5sum"] != "992ce8a1687cec8c8bd883ec73ca41d1" || d.Channels[0].Metadata["callerid"] != "/talker" || d.Channels[2].SchemaID != 0 {
				t.Errorf("channels %+v", d.Channels)
			}
			wantCompName := comp
			if comp == "none" {
				wantCompName = ""
			}
			if !reflect.DeepEqual(d.Compressions, []string{wantCompName}) {
				t.Errorf("compressions %v", d.Compressions)
			}
			st := d.Statistics
			if st == nil || st.MessageCount != fmt.Sprint(testMessages) || st.ChannelCount != 3 || st.AttachmentCount != 1 || st.MetadataCount != 1 || st.ChunkCount < 5 ||
				mustAtoi(t, st.Start) != byTime[0].lt || mustAtoi(t, st.End) != byTime[len(byTime)-1].lt || st.ChannelMessageCounts["0"] != "200" {
				t.Errorf("statistics %+v", st)
			}
			if d.MessageIndexChannels == 0 {
				t.Error("no message indexes")
			}
			if d.StreamMessageCount != testMessages {
				t.Errorf("stream reader (CRC checked) saw %d messages", d.StreamMessageCount)
			}
			if len(d.Messages) != testMessages {
				t.Fatalf("npm read %d messages", len(d.Messages))
			}
			for i, m := range d.Messages {
				e := byTime[i]
				if m.ChannelID != e.ch || m.Sequence != e.seq || mustAtoi(t, m.LogTime) != e.lt || mustAtoi(t, m.PublishTime) != e.pt || m.Data != hex.EncodeToString([]byte(e.data)) {
					t.Fatalf("npm message %d: ch %d seq %d log %s, want ch %d seq %d log %d", i, m.ChannelID, m.Sequence, m.LogTime, e.ch, e.seq, e.lt)
				}
			}
			if len(d.Attachments) != 1 || d.Attachments[0].Name != "calib.yaml" || d.Attachments[0].MediaType != "text/yaml" || d.Attachments[0].LogTime != "5" || d.Attachments[0].CreateTime != "6" || d.Attachments[0].Data != hex.EncodeToString([]byte("fx: 1\n")) {
				t.Errorf("attachments %+v", d.Attachments)
			}
			if len(d.Metadata) != 1 || d.Metadata[0].Name != "rosbag2" || !reflect.DeepEqual(d.Metadata[0].Metadata, map[string]string{"distro": "noetic", "k": "v"}) {
				t.Errorf("metadata %+v", d.Metadata)
			}
		})
	}
}

func TestWriterProfileAndErrors(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WithProfile("ros2"), WithCompression("lz4"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddChannel(&record.Channel{Topic: "/t", MessageEncoding: "cdr", Schema: &record.Schema{Name: "std_msgs/msg/String", Encoding: "ros2msg", Data: []byte("string data")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMessage(id+1, &record.Message{}); err == nil {
		t.Error("message on an unknown channel accepted")
	}
	if err := w.WriteMessage(id, &record.Message{LogTime: -1}); err == nil {
		t.Error("negative log time accepted")
	}
	if err := w.WriteMessage(id, &record.Message{LogTime: 5, PublishTime: 5, Data: []byte{0, 1, 0, 0, 1, 0, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "mem.mcap")
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile() != "ros2" {
		t.Errorf("profile %q", r.Profile())
	}
	chs, _ := r.Channels()
	if len(chs) != 1 || chs[0].MessageEncoding != "cdr" || chs[0].Schema.Encoding != "ros2msg" || chs[0].Schema.MD5 != "" {
		t.Errorf("channels %+v", chs)
	}
	for _, bad := range []WriterOption{WithCompression("bz2"), WithProfile("ros3"), WithChunkSize(0)} {
		if _, err := NewWriter(io.Discard, bad); err == nil {
			t.Error("bad option accepted")
		}
	}
	// Abort leaves nothing behind.
	dir := t.TempDir()
	cw, err := Create(filepath.Join(dir, "x.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	cw.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Abort left %v", ents)
	}
}
