package recording

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/recordtest"
	"github.com/baglab/baglab/record"
)

const sampleDir = "../testdata/sample/"

// readAll returns every message of r as "topic time seq len(data)" lines
// and the data bytes concatenated.
func readAll(t *testing.T, r record.Reader) ([]string, []byte) {
	t.Helper()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var data []byte
	recordtest.Each(t, it, func(m *record.Message) {
		lines = append(lines, fmt.Sprintf("%s %d %d %d %d", m.Channel.Topic, m.LogTime, m.PublishTime, m.Sequence, len(m.Data)))
		data = append(data, m.Data...)
	})
	return lines, data
}

// TestOpenStream: a bag (indexed, unindexed, compressed) or an MCAP file
// read from a stream gives the messages of the file, in the same order,
// its errors naming the stream.
func TestOpenStream(t *testing.T) {
	for _, name := range []string{"study.bag", "study-bz2.bag", "study-lz4.bag", "broken/study.bag.active", "study.mcap", "study-none.mcap", "queries.mcap"} {
		t.Run(name, func(t *testing.T) {
			path := sampleDir + name
			file, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// iotest-like: the stream hands out a few bytes at a time.
			s, err := OpenStream(bufio.NewReaderSize(io.LimitReader(bytes.NewReader(raw), int64(len(raw))), 16), "-", OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want, wantData := readAll(t, file)
			got, gotData := readAll(t, s)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || !bytes.Equal(gotData, wantData) {
				t.Errorf("stream gives %d messages, the file %d (or other bytes)", len(got), len(want))
			}
			if len(got) == 0 {
				t.Error("no messages")
			}
			if got, want := fmt.Sprintf("%T", s.(*streamReader).Unwrap()), fmt.Sprintf("%T", file); got != want {
				t.Errorf("format %q, file %q", got, want)
			}
			if err := s.Close(); err != nil {
				t.Error(err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestOpenStreamErrors(t *testing.T) {
	db3, err := os.ReadFile(sampleDir + "queries.db3")
	if err != nil {
		t.Fatal(err)
	}
	cut, err := os.ReadFile(sampleDir + "broken/study-truncated.bag")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   []byte
		want error
		text string
	}{
		{"empty", nil, record.ErrTruncated, "-: offset 0"},
		{"not a recording", []byte("hello, world\n"), record.ErrFormat, "not a recording"},
		{"db3", db3, record.ErrUnsupported, "give its path"},
		{"cut bag", cut, record.ErrTruncated, "-:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := OpenStream(bytes.NewReader(c.in), "-", OpenOptions{})
			if err == nil {
				r.Close()
			}
			if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.text) {
				t.Errorf("error %v, want %v naming %q", err, c.want, c.text)
			}
		})
	}
	// With OnSkip the cut bag gives what it holds.
	var skipped []error
	r, err := OpenStream(bytes.NewReader(cut), "-", OpenOptions{OnSkip: func(err error) { skipped = append(skipped, err) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, _ := readAll(t, r); len(got) == 0 {
		t.Error("skip-bad: no messages from the cut bag")
	}
}

// TestInputsStdin: "-" in OpenInputs is the Stdin reader, once.
func TestInputsStdin(t *testing.T) {
	raw, err := os.ReadFile(sampleDir + "study.mcap")
	if err != nil {
		t.Fatal(err)
	}
	in, err := OpenInputs([]string{"-", sampleDir + "queries.mcap"}, InputOptions{Stdin: bytes.NewReader(raw)})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Paths()[0] != "-" || in.File(0).Summary().MessageCount == 0 {
		t.Errorf("paths %v, stdin summary %+v", in.Paths(), in.File(0).Summary())
	}
	if _, err := OpenInputs([]string{"-", "-"}, InputOptions{Stdin: bytes.NewReader(raw)}); err == nil {
		t.Error("stdin read twice")
	}
	if _, err := OpenInputs([]string{"-"}, InputOptions{}); err == nil {
		t.Error(`"-" without Stdin opened`)
	}
}

func TestNDJSONShapes(t *testing.T) {
	open := func() *Inputs {
		in, err := OpenInputs([]string{sampleDir + "study.bag"}, InputOptions{Selection: Selection{Topics: []string{"/lama/objects"}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close() })
		return in
	}
	lines := func(o NDJSONOptions) []map[string]json.RawMessage {
		var b bytes.Buffer
		if _, err := open().WriteNDJSON(context.Background(), &b, o); err != nil {
			t.Fatal(err)
		}
		var out []map[string]json.RawMessage
		dec := json.NewDecoder(&b)
		for dec.More() {
			var m map[string]json.RawMessage
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	}
	plain := lines(NDJSONOptions{Fields: []string{"sequence", "publish_time", "source"}})
	mcap := lines(NDJSONOptions{Shape: "mcap"})
	if len(plain) == 0 || len(plain) != len(mcap) {
		t.Fatalf("%d and %d lines", len(plain), len(mcap))
	}
	for i, p := range plain {
		m := mcap[i]
		var ns, pub int64
		json.Unmarshal(p["log_time_ns"], &ns)
		json.Unmarshal(p["publish_time_ns"], &pub)
		if want := fmt.Sprintf("%d.%09d", ns/1e9, ns%1e9); string(m["log_time"]) != want {
			t.Errorf("log_time %s, want %s", m["log_time"], want)
		}
		if want := fmt.Sprintf("%d.%09d", pub/1e9, pub%1e9); string(m["publish_time"]) != want {
			t.Errorf("publish_time %s, want %s", m["publish_time"], want)
		}
		if string(m["sequence"]) != string(p["sequence"]) || string(m["topic"]) != string(p["topic"]) ||
			string(m["data"]) != string(p["message"]) || string(p["source"]) != `"`+sampleDir+`study.bag"` {
			t.Errorf("line %d: %v vs %v", i, m, p)
		}
		if _, ok := m["type"]; ok || len(m) != 5 {
			t.Errorf("mcap line has keys %v", m)
		}
	}
	for _, bad := range []NDJSONOptions{{Shape: "ros"}, {Fields: []string{"offset"}}, {Shape: "mcap", Fields: []string{"sequence"}}} {
		if err := CheckNDJSON(bad); !errors.Is(err, ErrLineOption) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	for _, c := range []struct {
		ns   int64
		want string
	}{{0, "0.000000000"}, {1, "0.000000001"}, {1714564800000000001, "1714564800.000000001"}, {1714564800123456789, "1714564800.123456789"}, {-1500000000, "-1.500000000"}} {
		if got := string(appendDecimalTime(nil, c.ns)); got != c.want {
			t.Errorf("%d: %s, want %s", c.ns, got, c.want)
		}
	}
}
