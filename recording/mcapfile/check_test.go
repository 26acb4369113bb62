package mcapfile

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/foxglove/mcap/go/mcap"
)

// mcapBuilder writes MCAP records by hand, for files no writer would make.
type mcapBuilder struct{ b []byte }

func (m *mcapBuilder) record(op mcap.OpCode, body []byte) int64 {
	off := int64(len(m.b))
	m.b = append(m.b, byte(op))
	m.b = binary.LittleEndian.AppendUint64(m.b, uint64(len(body)))
	m.b = append(m.b, body...)
	return off
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func (m *mcapBuilder) channel(id, schema uint16, topic string) {
	b := binary.LittleEndian.AppendUint16(nil, id)
	b = binary.LittleEndian.AppendUint16(b, schema)
	b = appendString(b, topic)
	b = appendString(b, "json")
	b = binary.LittleEndian.AppendUint32(b, 0) // empty metadata
	m.record(mcap.OpChannel, b)
}

func (m *mcapBuilder) message(ch uint16, t uint64) int64 {
	b := binary.LittleEndian.AppendUint16(nil, ch)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, t)
	b = binary.LittleEndian.AppendUint64(b, t)
	b = append(b, `{"a":1}`...)
	return m.record(mcap.OpMessage, b)
}

// handMade builds a file: header, data (records written by data), data end
// without a CRC, a summary section (records written by summary, if any) and
// the footer, without a summary CRC.
func handMade(data, summary func(m *mcapBuilder)) []byte {
	m := &mcapBuilder{b: append([]byte{}, mcap.Magic...)}
	m.record(mcap.OpHeader, appendString(appendString(nil, ""), "test"))
	data(m)
	m.record(mcap.OpDataEnd, make([]byte, 4))
	var start uint64
	if summary != nil {
		start = uint64(len(m.b))
		summary(m)
	}
	f := binary.LittleEndian.AppendUint64(nil, start)
	f = binary.LittleEndian.AppendUint64(f, 0)
	f = binary.LittleEndian.AppendUint32(f, 0)
	m.record(mcap.OpFooter, f)
	return append(m.b, mcap.Magic...)
}

// TestCheckEarlyMessages: messages met before their channel record are
// reported once per channel, and how depends on where the record is.
func TestCheckEarlyMessages(t *testing.T) {
	var first int64
	cases := []struct {
		name    string
		data    func(m *mcapBuilder)
		summary func(m *mcapBuilder)
		want    []record.Problem
		// messages Recover keeps and drops as orphans
		kept, orphans uint64
	}{
		{
			name: "channel record later",
			data: func(m *mcapBuilder) {
				first = m.message(1, 10)
				m.message(1, 11)
				m.message(1, 12)
				m.channel(1, 0, "/a")
				m.message(1, 13)
			},
			want: []record.Problem{{Severity: record.SeverityError, Message: "3 messages on channel 1 come before its channel record", Repair: record.RepairRecover}},
			kept: 1, orphans: 3,
		},
		{
			name: "no channel record",
			data: func(m *mcapBuilder) {
				m.channel(1, 0, "/a")
				m.message(1, 10)
				first = m.message(7, 11)
				m.message(7, 12)
			},
			want: []record.Problem{{Severity: record.SeverityError, Message: "2 messages on channel 7, which no channel record defines", Repair: record.RepairRecover}},
			kept: 1, orphans: 2,
		},
		{
			name: "only in the summary",
			data: func(m *mcapBuilder) {
				first = m.message(1, 10)
				m.message(1, 11)
			},
			summary: func(m *mcapBuilder) {
				m.channel(1, 0, "/a")
			},
			want: []record.Problem{{Severity: record.SeverityWarning, Message: "2 messages on channel 1, whose channel record is only in the summary section", Repair: record.RepairNone}},
			kept: 2,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := handMade(tc.data, tc.summary)
			tc.want[0].Offset = first
			got := CheckReaderAt(bytes.NewReader(file), int64(len(file)), "x.mcap")
			var probs []record.Problem
			for _, p := range got {
				// The hand-made files have no statistics or index.
				if strings.Contains(p.Message, "channel") {
					probs = append(probs, p)
				}
			}
			if !slices.Equal(probs, tc.want) {
				t.Errorf("Check = %v, want %v", got, tc.want)
			}
			dir := t.TempDir()
			in := filepath.Join(dir, "in.mcap")
			os.WriteFile(in, file, 0o644)
			rep, err := Recover(in, filepath.Join(dir, "out.mcap"))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Messages != tc.kept || rep.Orphans != tc.orphans || !rep.Complete {
				t.Errorf("Recover: %+v", *rep)
			}
		})
	}
}
