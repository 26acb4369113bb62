package mcapfile

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// fixtures is the public fixture tree (testenv.Fixtures: absent, the test
// skips, or fails when CI is set).
func fixtures(t testing.TB) string {
	t.Helper()
	return testenv.Fixtures(t)
}

// conformanceInputs lists the MCAP conformance inputs; every one has an
// expected-output JSON beside it.
func conformanceInputs(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(fixtures(t), "mcap-conformance", "data", "*", "*.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 416 {
		t.Fatalf("found %d conformance inputs under %s, want 416", len(files), fixtures(t))
	}
	return files
}

// expected is one conformance JSON: records with named fields.
type expected struct {
	Records []struct {
		Type   string               `json:"type"`
		Fields [][2]json.RawMessage `json:"fields"`
	} `json:"records"`
}

// confRecord is a record of the JSON with its fields by name.
type confRecord struct {
	typ    string
	fields map[string]json.RawMessage
}

func loadExpected(t *testing.T, mcapPath string) []confRecord {
	b, err := os.ReadFile(mcapPath[:len(mcapPath)-len(".mcap")] + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	var out []confRecord
	for _, r := range e.Records {
		cr := confRecord{typ: r.Type, fields: map[string]json.RawMessage{}}
		for _, f := range r.Fields {
			var name string
			if err := json.Unmarshal(f[0], &name); err != nil {
				t.Fatal(err)
			}
			cr.fields[name] = f[1]
		}
		out = append(out, cr)
	}
	return out
}

func (c confRecord) uint(t *testing.T, name string) uint64 {
	var s string
	if err := json.Unmarshal(c.fields[name], &s); err != nil {
		t.Fatalf("%s.%s: %v", c.typ, name, err)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s.%s: %v", c.typ, name, err)
	}
	return v
}

func (c confRecord) str(t *testing.T, name string) string {
	var s string
	if err := json.Unmarshal(c.fields[name], &s); err != nil {
		t.Fatalf("%s.%s: %v", c.typ, name, err)
	}
	return s
}

func (c confRecord) bytes(t *testing.T, name string) []byte {
	var ss []string
	if err := json.Unmarshal(c.fields[name], &ss); err != nil {
		t.Fatalf("%s.%s: %v", c.typ, name, err)
	}
	out := []byte{}
	for _, s := range ss {
		v, err := strconv.ParseUint(s, 10, 8)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, byte(v))
	}
	return out
}

func (c confRecord) strMap(t *testing.T, name string) map[string]string {
	m := map[string]string{}
	if err := json.Unmarshal(c.fields[name], &m); err != nil {
		t.Fatalf("%s.%s: %v", c.typ, name, err)
	}
	return m
}

// msgKey is what a Message record carries.
type msgKey struct {
	Channel          uint32
	Sequence         uint64
	LogTime, PubTime int64
	Data             string
}

func (m msgKey) String() string {
	return fmt.Sprintf("{ch %d seq %d log %d pub %d data %x}", m.Channel, m.Sequence, m.LogTime, m.PubTime, m.Data)
}

func readAll(t testing.TB, r *Reader, f record.Filter) []msgKey {
	it, err := r.Messages(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []msgKey
	recordtest.Each(t, it, func(m *record.Message) {
		out = append(out, msgKey{m.Channel.ID, m.Sequence, m.LogTime, m.PublishTime, string(m.Data)})
	})
	return out
}

// chanKey is what a Channel record (with its schema) carries.
type chanKey struct {
	ID                     uint32
	Topic, MessageEncoding string
	Metadata               map[string]string
	SchemaID               uint16
	SchemaName, SchemaEnc  string
	SchemaData             string
}

type attKey struct {
	Name, MediaType     string
	LogTime, CreateTime uint64
	Data                string
}

type mdKey struct {
	Name     string
	Metadata map[string]string
}

func TestConformance(t *testing.T) {
	for _, path := range conformanceInputs(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			recs := loadExpected(t, path)
			var wantMsgs []msgKey
			schemas := map[uint64]confRecord{}
			wantChans := map[uint32]chanKey{}
			wantAtts := []attKey{}
			wantMD := []mdKey{}
			for _, r := range recs {
				switch r.typ {
				case "Schema":
					schemas[r.uint(t, "id")] = r
				case "Channel":
					sid := r.uint(t, "schema_id")
					ck := chanKey{ID: uint32(r.uint(t, "id")), Topic: r.str(t, "topic"), MessageEncoding: r.str(t, "message_encoding"),
						Metadata: r.strMap(t, "metadata"), SchemaID: uint16(sid)}
					if s, ok := schemas[sid]; ok {
						ck.SchemaName, ck.SchemaEnc, ck.SchemaData = s.str(t, "name"), s.str(t, "encoding"), string(s.bytes(t, "data"))
					}
					wantChans[ck.ID] = ck
				case "Message":
					wantMsgs = append(wantMsgs, msgKey{uint32(r.uint(t, "channel_id")), r.uint(t, "sequence"),
						int64(r.uint(t, "log_time")), int64(r.uint(t, "publish_time")), string(r.bytes(t, "data"))})
				case "Attachment":
					wantAtts = append(wantAtts, attKey{r.str(t, "name"), r.str(t, "media_type"), r.uint(t, "log_time"), r.uint(t, "create_time"), string(r.bytes(t, "data"))})
				case "Metadata":
					wantMD = append(wantMD, mdKey{r.str(t, "name"), r.strMap(t, "metadata")})
				}
			}

			// Linear read: file order.
			lin, err := Open(path, record.WithoutIndex())
			if err != nil {
				t.Fatal(err)
			}
			defer lin.Close()
			if got := readAll(t, lin, record.Filter{}); !equalMsgs(got, wantMsgs) {
				t.Errorf("linear messages\n got %v\nwant %v", got, wantMsgs)
			}

			// Default read: through the index when usable, in log time order.
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			want := wantMsgs
			if ok, _ := r.Indexed(); ok {
				want = append([]msgKey(nil), wantMsgs...)
				sort.SliceStable(want, func(i, j int) bool { return want[i].LogTime < want[j].LogTime })
			}
			if got := readAll(t, r, record.Filter{}); !equalMsgs(got, want) {
				t.Errorf("messages\n got %v\nwant %v", got, want)
			}

			probs, err := Check(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probs {
				if p.Severity == record.SeverityError {
					t.Errorf("Check: %v", p)
				}
			}

			for _, rd := range []*Reader{r, lin} {
				chs, err := rd.Channels()
				if err != nil {
					t.Fatal(err)
				}
				gotChans := map[uint32]chanKey{}
				for _, c := range chs {
					gotChans[c.ID] = chanKey{c.ID, c.Topic, c.MessageEncoding, c.Metadata, c.Schema.ID, c.Schema.Name, c.Schema.Encoding, string(c.Schema.Data)}
				}
				if !reflect.DeepEqual(gotChans, wantChans) {
					t.Errorf("channels\n got %+v\nwant %+v", gotChans, wantChans)
				}
				atts, err := rd.Attachments()
				if err != nil {
					t.Fatal(err)
				}
				gotAtts := []attKey{}
				for _, a := range atts {
					data, err := io.ReadAll(rd.AttachmentData(a))
					if err != nil {
						t.Fatal(err)
					}
					gotAtts = append(gotAtts, attKey{a.Name, a.MediaType, a.LogTime, a.CreateTime, string(data)})
				}
				if !reflect.DeepEqual(gotAtts, wantAtts) {
					t.Errorf("attachments\n got %+v\nwant %+v", gotAtts, wantAtts)
				}
				mds, err := rd.Metadata()
				if err != nil {
					t.Fatal(err)
				}
				gotMD := []mdKey{}
				for _, m := range mds {
					gotMD = append(gotMD, mdKey{m.Name, m.Metadata})
				}
				if !reflect.DeepEqual(gotMD, wantMD) {
					t.Errorf("metadata\n got %+v\nwant %+v", gotMD, wantMD)
				}
				sum, err := rd.Summary()
				if err != nil {
					t.Fatal(err)
				}
				if sum.MessageCount != uint64(len(wantMsgs)) {
					t.Errorf("summary message count %d, want %d", sum.MessageCount, len(wantMsgs))
				}
				perTopic := map[string]uint64{}
				for _, m := range wantMsgs {
					perTopic[wantChans[m.Channel].Topic]++
				}
				gotPer := map[string]uint64{}
				for _, tp := range sum.Topics {
					if tp.MessageCount > 0 {
						gotPer[tp.Topic] = tp.MessageCount
					}
				}
				if !maps.Equal(gotPer, perTopic) {
					t.Errorf("summary topic counts %v, want %v", gotPer, perTopic)
				}
				if len(wantMsgs) > 0 {
					lo, hi := wantMsgs[0].LogTime, wantMsgs[0].LogTime
					for _, m := range wantMsgs {
						lo, hi = min(lo, m.LogTime), max(hi, m.LogTime)
					}
					if sum.StartNs != lo || sum.EndNs != hi {
						t.Errorf("summary times [%d, %d], want [%d, %d]", sum.StartNs, sum.EndNs, lo, hi)
					}
				}
			}
		})
	}
}

func equalMsgs(a, b []msgKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
