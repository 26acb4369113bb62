package mcapfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
)

// npmTruth is a *.mcap.foxglove-npm.json file: what npm @mcap/core read.
type npmTruth struct {
	Size   int64 `json:"size"`
	Header struct {
		Profile string `json:"profile"`
		Library string `json:"library"`
	} `json:"header"`
	Statistics struct {
		MessageCount     string `json:"messageCount"`
		ChannelCount     int    `json:"channelCount"`
		MessageStartTime string `json:"messageStartTime"`
		MessageEndTime   string `json:"messageEndTime"`
	} `json:"statistics"`
	ChunkCompression []string `json:"chunk_compression"`
	ReadMode         string   `json:"read_mode"`
	MessageCountRead int      `json:"message_count_read"`
	AllMessagesSHA   string   `json:"all_messages_sha256"`
	Schemas          []struct {
		ID       uint16 `json:"id"`
		Name     string `json:"name"`
		Encoding string `json:"encoding"`
		SHA256   string `json:"sha256"`
	} `json:"schemas"`
	Topics map[string]struct {
		ChannelIDs      []uint32 `json:"channel_ids"`
		MessageEncoding string   `json:"message_encoding"`
		SchemaName      string   `json:"schema_name"`
		SchemaEncoding  string   `json:"schema_encoding"`
		MessageCount    uint64   `json:"message_count"`
		PayloadBytes    int      `json:"payload_bytes"`
		FirstLogTime    string   `json:"first_log_time_ns"`
		LastLogTime     string   `json:"last_log_time_ns"`
	} `json:"topics"`
}

func rosbag2MCAPs(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(fixtures(t), "rosbag2", "*", "*", "*.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(fixtures(t), "rosbag2", "*", "*", "*", "*.mcap"))
	files = append(files, more...)
	if len(files) < 20 {
		t.Fatalf("found %d rosbag2 MCAPs under %s", len(files), fixtures(t))
	}
	return files
}

func TestRosbag2MCAP(t *testing.T) {
	for _, path := range rosbag2MCAPs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path + ".foxglove-npm.json")
			if err != nil {
				t.Fatal(err)
			}
			var want npmTruth
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if ok, why := r.Indexed(); ok != (want.ReadMode == "indexed") {
				t.Errorf("Indexed() = %v (%s), npm read mode %s", ok, why, want.ReadMode)
			}
			if r.Profile() != want.Header.Profile || r.Library() != want.Header.Library {
				t.Errorf("header %q %q, want %+v", r.Profile(), r.Library(), want.Header)
			}
			sum, err := r.Summary()
			if err != nil {
				t.Fatal(err)
			}
			// The span is checked against the messages npm read (the
			// statistics of rewriter_a_0 say 1000000 for a first message at 0).
			first, last := int64(1<<63-1), int64(-1<<63)
			for _, tp := range want.Topics {
				f, _ := strconv.ParseInt(tp.FirstLogTime, 10, 64)
				l, _ := strconv.ParseInt(tp.LastLogTime, 10, 64)
				first, last = min(first, f), max(last, l)
			}
			if strconv.FormatUint(sum.MessageCount, 10) != want.Statistics.MessageCount || sum.StartNs != first || sum.EndNs != last {
				t.Errorf("summary count %d [%d, %d], want %s [%d, %d]", sum.MessageCount, sum.StartNs, sum.EndNs, want.Statistics.MessageCount, first, last)
			}
			comps := append([]string(nil), want.ChunkCompression...)
			for i, c := range comps {
				if c == "" {
					comps[i] = "none"
				}
			}
			sort.Strings(comps)
			if got := joinCompressions(comps); sum.Compression != got {
				t.Errorf("compression %q, want %q", sum.Compression, got)
			}
			chs, err := r.Channels()
			if err != nil {
				t.Fatal(err)
			}
			// rosbag2's statistics count only channels with messages.
			if len(chs) < want.Statistics.ChannelCount {
				t.Errorf("%d channels, want at least %d", len(chs), want.Statistics.ChannelCount)
			}
			schemaSHA := map[string]string{}
			for _, s := range want.Schemas {
				schemaSHA[s.Name] = s.SHA256
			}
			for _, c := range chs {
				if c.Schema.Name == "" {
					continue
				}
				sha := sha256.Sum256(c.Schema.Data)
				if hex.EncodeToString(sha[:]) != schemaSHA[c.Schema.Name] {
					t.Errorf("schema %s data differs from npm's", c.Schema.Name)
				}
			}
			topicCount := map[string]uint64{}
			for _, tp := range sum.Topics {
				topicCount[tp.Topic] = tp.MessageCount
			}

			// Every message, in reader order, hashed as the truth recipe says:
			// sha256 over (topic NUL log_time NUL payload).
			type seen struct {
				n           uint64
				bytes       int
				first, last int64
			}
			per := map[string]*seen{}
			h := sha256.New()
			it, err := r.Messages(record.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			prev := int64(-1 << 63)
			recordtest.Each(t, it, func(m *record.Message) {
				if m.LogTime < prev {
					t.Fatalf("message %d goes back in time", n)
				}
				prev = m.LogTime
				n++
				h.Write([]byte(m.Channel.Topic))
				h.Write([]byte{0})
				h.Write([]byte(strconv.FormatInt(m.LogTime, 10)))
				h.Write([]byte{0})
				h.Write(m.Data)
				s := per[m.Channel.Topic]
				if s == nil {
					s = &seen{first: m.LogTime}
					per[m.Channel.Topic] = s
				}
				s.n++
				s.bytes += len(m.Data)
				s.last = m.LogTime
				if tp := want.Topics[m.Channel.Topic]; m.Channel.MessageEncoding != tp.MessageEncoding || m.Channel.Schema.Name != tp.SchemaName || m.Channel.Schema.Encoding != tp.SchemaEncoding {
					t.Fatalf("channel %+v, want %+v", m.Channel, tp)
				}
			})
			if n != want.MessageCountRead {
				t.Errorf("read %d messages, want %d", n, want.MessageCountRead)
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != want.AllMessagesSHA {
				t.Errorf("messages hash %s, want %s (npm @mcap/core order and bytes)", got, want.AllMessagesSHA)
			}
			for topic, tp := range want.Topics {
				s := per[topic]
				if s == nil {
					t.Errorf("topic %s: no messages", topic)
					continue
				}
				if s.n != tp.MessageCount || s.bytes != tp.PayloadBytes || strconv.FormatInt(s.first, 10) != tp.FirstLogTime || strconv.FormatInt(s.last, 10) != tp.LastLogTime {
					t.Errorf("topic %s: %d msgs %d bytes [%d, %d], want %+v", topic, s.n, s.bytes, s.first, s.last, tp)
				}
				if topicCount[topic] != tp.MessageCount {
					t.Errorf("summary count of %s: %d, want %d", topic, topicCount[topic], tp.MessageCount)
				}
			}
			if probs, err := Check(path); err != nil {
				t.Fatal(err)
			} else {
				for _, p := range probs {
					if p.Severity == record.SeverityError {
						t.Errorf("Check: %v", p)
					}
				}
			}
		})
	}
}
