package msgdef

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
)

// cdrWalker decodes little-endian XCDR1 bytes with a Type into JSON-like
// values (int64/uint64 as strings, as the npm reference output has them).
// It is a test oracle for the layout of a Type only; the real codec is
// decode/cdr.
type cdrWalker struct {
	b   []byte
	off int
}

var errShort = errors.New("short")

func (w *cdrWalker) take(n, align int) ([]byte, error) {
	if align > 1 {
		w.off += (align - w.off%align) % align
	}
	if n < 0 || w.off+n > len(w.b) {
		return nil, errShort
	}
	p := w.b[w.off : w.off+n]
	w.off += n
	return p, nil
}

func (w *cdrWalker) count() (int, error) {
	p, err := w.take(4, 4)
	if err != nil {
		return 0, err
	}
	return int(binary.LittleEndian.Uint32(p)), nil
}

func (w *cdrWalker) elem(f *Field) (any, error) {
	if f.Kind == Struct {
		return w.msg(f.Msg)
	}
	if f.Kind == String {
		n, err := w.count()
		if err != nil {
			return nil, err
		}
		p, err := w.take(n, 1)
		if err != nil || n == 0 {
			return "", err
		}
		return string(p[:n-1]), nil
	}
	size := f.Kind.Size()
	p, err := w.take(size, size)
	if err != nil {
		return nil, err
	}
	switch f.Kind {
	case Bool:
		return p[0] != 0, nil
	case Int8:
		return float64(int8(p[0])), nil
	case Uint8:
		return float64(p[0]), nil
	case Int16:
		return float64(int16(binary.LittleEndian.Uint16(p))), nil
	case Uint16:
		return float64(binary.LittleEndian.Uint16(p)), nil
	case Int32:
		return float64(int32(binary.LittleEndian.Uint32(p))), nil
	case Uint32:
		return float64(binary.LittleEndian.Uint32(p)), nil
	case Int64:
		return strconv.FormatInt(int64(binary.LittleEndian.Uint64(p)), 10), nil
	case Uint64:
		return strconv.FormatUint(binary.LittleEndian.Uint64(p), 10), nil
	case Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(p))), nil
	case Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(p)), nil
	}
	return nil, fmt.Errorf("kind %v not handled by the test walker", f.Kind)
}

func (w *cdrWalker) msg(t *Type) (map[string]any, error) {
	m := map[string]any{}
	if len(t.Fields) == 0 {
		_, err := w.take(1, 1) // rosidl gives empty messages one dummy byte
		return m, err
	}
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.Array == Scalar {
			v, err := w.elem(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			m[f.Name] = v
			continue
		}
		n := f.Len
		if f.Array == Sequence {
			var err error
			if n, err = w.count(); err != nil {
				return nil, err
			}
			if f.Len > 0 && n > f.Len {
				return nil, fmt.Errorf("%s: %d elements, bound %d", f.Name, n, f.Len)
			}
		}
		list := []any{}
		for j := 0; j < n; j++ {
			v, err := w.elem(f)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %w", f.Name, j, err)
			}
			list = append(list, v)
		}
		m[f.Name] = list
	}
	return m, nil
}

// decodeCDR decodes a whole CDR message and insists every byte is used
// (up to the final 4-byte alignment padding).
func decodeCDR(t *Type, data []byte) (map[string]any, error) {
	if len(data) < 4 || data[1] != 1 {
		return nil, fmt.Errorf("not little-endian CDR")
	}
	w := &cdrWalker{b: data[4:]}
	m, err := w.msg(t)
	if err != nil {
		return nil, err
	}
	if rest := len(w.b) - w.off; rest >= 4 {
		return nil, fmt.Errorf("%d bytes left over", rest)
	}
	return m, nil
}

// npmTruth is the part of the *.foxglove-npm.json reference we use.
type npmTruth struct {
	Topics map[string]struct {
		SchemaName   string `json:"schema_name"`
		MessageCount int    `json:"message_count"`
		DecodeError  string `json:"decode_error"`
		First        any    `json:"first_message"`
		Last         any    `json:"last_message"`
	} `json:"topics"`
}

// TestRosbag2Schemas resolves every schema of the real rosbag2 MCAP
// fixtures with FromSchema and checks the result against the messages:
// every message must decode using exactly its bytes, and the first and
// last message of each topic must equal what the npm Foxglove libraries
// decoded. Service-event schemas (bare .srv text, which the npm libraries
// cannot read) must give info/request/response events that match the
// event type recorded in each message.
func TestRosbag2Schemas(t *testing.T) {
	dir := testenv.Fixtures(t, "rosbag2")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*.mcap"))
	if err != nil || len(files) < 10 {
		t.Fatalf("rosbag2 fixtures: %d files, %v", len(files), err)
	}
	reg := Default()
	events := 0
	for _, file := range files {
		t.Run(strings.TrimPrefix(file, dir+"/"), func(t *testing.T) {
			var truth npmTruth
			if b, err := os.ReadFile(file + ".foxglove-npm.json"); err == nil {
				if err := json.Unmarshal(b, &truth); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rd, err := mcap.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			it, err := rd.Messages(mcap.InOrder(mcap.LogTimeOrder))
			if err != nil {
				t.Fatal(err)
			}
			types := map[uint16]*Type{}
			first, last, counts := map[string]any{}, map[string]any{}, map[string]int{}
			for {
				schema, ch, msg, err := it.NextInto(nil)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				typ := types[schema.ID]
				if typ == nil {
					if typ, err = FromSchema(schema.Name, schema.Encoding, schema.Data, reg); err != nil {
						t.Fatalf("FromSchema(%s): %v", schema.Name, err)
					}
					types[schema.ID] = typ
					if want, _ := canonical(schema.Name); typ.Name != want || typ.FullName != schema.Name {
						t.Errorf("names %s %s for %s", typ.Name, typ.FullName, schema.Name)
					}
				}
				if ch.MessageEncoding != "cdr" {
					continue
				}
				v, err := decodeCDR(typ, msg.Data)
				if err != nil {
					t.Fatalf("%s message at %d: %v", ch.Topic, msg.LogTime, err)
				}
				if strings.HasSuffix(ch.Topic, "/_service_event") {
					checkEvent(t, typ, v)
					events++
				}
				if counts[ch.Topic] == 0 {
					first[ch.Topic] = v
				}
				last[ch.Topic] = v
				counts[ch.Topic]++
			}
			for topic, tt := range truth.Topics {
				if counts[topic] != tt.MessageCount && tt.DecodeError == "" {
					t.Errorf("%s: %d messages, npm %d", topic, counts[topic], tt.MessageCount)
				}
				if tt.First == nil {
					continue
				}
				if !reflect.DeepEqual(first[topic], tt.First) {
					t.Errorf("%s first message:\n got %v\nwant %v", topic, first[topic], tt.First)
				}
				if !reflect.DeepEqual(last[topic], tt.Last) {
					t.Errorf("%s last message:\n got %v\nwant %v", topic, last[topic], tt.Last)
				}
			}
		})
	}
	if events < 20 {
		t.Errorf("only %d service events checked", events)
	}
}

// checkEvent checks a decoded service event: a request event carries the
// request only, a response event the response only.
func checkEvent(t *testing.T, typ *Type, v map[string]any) {
	t.Helper()
	if typ.Fields[0].Msg.Name != "service_msgs/ServiceEventInfo" || !strings.HasSuffix(typ.Name, "_Event") {
		t.Fatalf("not an event type: %s", typ.Name)
	}
	info := v["info"].(map[string]any)
	et := info["event_type"].(float64)
	req, resp := len(v["request"].([]any)), len(v["response"].([]any))
	isReq := et == 0 || et == 1
	if et > 3 || (isReq && (req != 1 || resp != 0)) || (!isReq && (req != 0 || resp != 1)) {
		t.Errorf("event_type %v with %d requests and %d responses", et, req, resp)
	}
	if gid := info["client_gid"].([]any); len(gid) != 16 {
		t.Errorf("client_gid has %d bytes", len(gid))
	}
}

func TestServiceEvent(t *testing.T) {
	srv := "int64 a\nint64 b\n---\nint64 sum\n"
	sep := strings.Repeat("=", 80)
	tests := []struct {
		name, text string
	}{
		{"example_interfaces/srv/AddTwoInts_Event", srv},
		{"example_interfaces/AddTwoInts_Event", srv},
		{"example_interfaces/srv/AddTwoInts_Event", sep + "\nSRV: example_interfaces/srv/AddTwoInts\n" + srv},
		{"example_interfaces/srv/AddTwoInts_Event", "int64 a\nP b\n---\nint64 sum\n" + sep + "\nMSG: example_interfaces/msg/P\nint64 b\n"},
	}
	for _, tc := range tests {
		for _, via := range []string{"ServiceEvent", "FromSchema"} {
			var typ *Type
			var err error
			if via == "ServiceEvent" {
				typ, err = ServiceEvent(tc.name, tc.text, Default())
			} else {
				typ, err = FromSchema(tc.name, "ros2msg", []byte(tc.text), Default())
			}
			if err != nil {
				t.Fatalf("%s(%s): %v", via, tc.name, err)
			}
			var got []string
			for i := range typ.Fields {
				got = append(got, fieldSig(&typ.Fields[i]))
			}
			want := []string{
				"info struct/ service_msgs/msg/ServiceEventInfo -> service_msgs/ServiceEventInfo",
				"request struct/ example_interfaces/srv/AddTwoInts_Request [<=1] -> example_interfaces/AddTwoInts_Request",
				"response struct/ example_interfaces/srv/AddTwoInts_Response [<=1] -> example_interfaces/AddTwoInts_Response",
			}
			if !reflect.DeepEqual(got, want) || typ.Name != "example_interfaces/AddTwoInts_Event" || typ.FullName != "example_interfaces/srv/AddTwoInts_Event" {
				t.Errorf("%s(%q): %s %s\n%q", via, tc.text, typ.Name, typ.FullName, got)
			}
			if req := typ.Fields[1].Msg; req.FullName != "example_interfaces/srv/AddTwoInts_Request" || len(req.Fields) != 2 || req.Fields[1].Name != "b" {
				t.Errorf("request %+v", req)
			}
			info := typ.Fields[0].Msg
			if len(info.Constants) != 4 || info.Field("client_gid").Len != 16 || info.Field("stamp").Msg.Name != "builtin_interfaces/Time" {
				t.Errorf("ServiceEventInfo %+v", info)
			}
		}
	}
	// Without a registry ServiceEventInfo is unknown, and the error says so.
	if _, err := ServiceEvent("a/srv/S_Event", srv, nil); !errors.Is(err, record.ErrUnknownType) || !strings.Contains(err.Error(), "service_msgs/ServiceEventInfo") {
		t.Errorf("no registry: %v", err)
	}
	for _, name := range []string{"a/srv/S", "a/msg/S_Event", "a/srv/_Event", "S_Event"} {
		if _, err := ServiceEvent(name, srv, Default()); !errors.Is(err, record.ErrFormat) {
			t.Errorf("ServiceEvent(%q): %v", name, err)
		}
	}
	for _, text := range []string{"int32 a\n", "int32 a\n---\n---\n"} {
		if _, err := ServiceEvent("a/srv/S_Event", text, Default()); !errors.Is(err, record.ErrFormat) {
			t.Errorf("ServiceEvent(%q): %v", text, err)
		}
	}
}

func TestFromSchema(t *testing.T) {
	reg := Default()
	tests := []struct {
		name, enc, data string
		want            string // Name of the result, or "" for an error
		sentinel        error
	}{
		{"std_msgs/Header", "ros1msg", "uint32 seq\ntime stamp\nstring frame_id\n", "std_msgs/Header", nil},
		{"a/msg/B", "ros2msg", "builtin_interfaces/Time t\n", "a/B", nil},
		{"remap_msgs/srv/Query_Event", "ros2msg", "", "remap_msgs/Query_Event", nil},
		{"remap_msgs/srv/Query_Event", "ros2msg", "string[] patterns\n---\nbool success\n", "remap_msgs/Query_Event", nil},
		// rosbag2 stores the event of a service without dependencies with
		// encoding "unknown" and the bare .srv text (issue 31 point 11).
		{"remap_msgs/srv/AddPlugin_Event", "unknown", "string plugin_name\nbool threaded\n---\nbool success", "remap_msgs/AddPlugin_Event", nil},
		{"remap_msgs/srv/RemovePlugin_Event", "unknown", "string plugin_name\n---\nbool success", "remap_msgs/RemovePlugin_Event", nil},
		{"example_interfaces/srv/AddTwoInts_Event", "unknown", "int64 a\nint64 b\n---\nint64 sum\n", "example_interfaces/AddTwoInts_Event", nil},
		{"remap_msgs/srv/AddPlugin_Event", "unknown", "", "remap_msgs/AddPlugin_Event", nil},
		{"example_interfaces/srv/AddTwoInts_Event", "unknown", "", "", record.ErrUnknownType},
		{"geometry_msgs/Point", "", "", "geometry_msgs/Point", nil},
		{"builtin_interfaces/msg/Time", "", "", "builtin_interfaces/Time", nil},
		{"remap_msgs/srv/Query_Request", "", "", "remap_msgs/Query_Request", nil},
		{"nobody/msg/Nothing", "", "", "", record.ErrUnknownType},
		{"a/msg/B", "ros2idl", "module a {};", "", record.ErrUnsupported},
		{"a", "jsonschema", "{}", "", record.ErrUnsupported},
		{"a/B", "ros1msg", "int32 x\nint32 x\n", "", record.ErrFormat},
	}
	for _, tc := range tests {
		typ, err := FromSchema(tc.name, tc.enc, []byte(tc.data), reg)
		if tc.want == "" {
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("FromSchema(%s, %q): %v, want %v", tc.name, tc.enc, err, tc.sentinel)
			}
			continue
		}
		if err != nil {
			t.Errorf("FromSchema(%s, %q): %v", tc.name, tc.enc, err)
			continue
		}
		if typ.Name != tc.want {
			t.Errorf("FromSchema(%s, %q).Name = %s", tc.name, tc.enc, typ.Name)
		}
	}
	if _, err := FromSchema("a/B", "", nil, nil); !errors.Is(err, record.ErrUnknownType) {
		t.Errorf("nil registry: %v", err)
	}
}
