package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// damagedDefinition is a stored definition that does not parse.
const damagedDefinition = "int32 x\nfloat64[ y\n"

// TestDamagedDefinitionOffset: export of a bag or MCAP file whose stored
// definition is damaged fails naming the file and the offset of the
// connection (bag) or schema (MCAP) record that stores it (issue 10 point
// 6); the offset is checked against the file's bytes.
func TestDamagedDefinitionOffset(t *testing.T) {
	dir := t.TempDir()
	ch := func() *record.Channel {
		return &record.Channel{Topic: "/broken", MessageEncoding: "ros1",
			Schema: &record.Schema{Name: "my_msgs/Broken", Encoding: "ros1msg", Data: []byte(damagedDefinition), MD5: "0123456789abcdef0123456789abcdef"}}
	}
	bagPath := filepath.Join(dir, "damaged.bag")
	bw, err := bag.Create(bagPath)
	if err != nil {
		t.Fatal(err)
	}
	mcapPath := filepath.Join(dir, "damaged.mcap")
	mw, err := mcapfile.Create(mcapPath, mcapfile.WithProfile("ros1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []interface {
		AddChannel(*record.Channel) (uint32, error)
		WriteMessage(uint32, *record.Message) error
		Close() error
	}{bw, mw} {
		id, err := w.AddChannel(ch())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteMessage(id, &record.Message{LogTime: 1e9, Data: []byte{1, 0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	at := regexp.MustCompile(`: offset (\d+): topic /broken: `)
	for _, c := range []struct {
		path string
		// stores reports whether a record at off stores the definition.
		stores func(data []byte, off int) bool
	}{
		{bagPath, func(data []byte, off int) bool {
			if off+4 > len(data) {
				return false
			}
			hl := int(binary.LittleEndian.Uint32(data[off:]))
			if off+8+hl > len(data) {
				return false
			}
			header := data[off+4 : off+4+hl]
			dl := int(binary.LittleEndian.Uint32(data[off+4+hl:]))
			end := min(off+8+hl+dl, len(data))
			return bytes.Contains(header, []byte("op=\x07")) && bytes.Contains(data[off+8+hl:end], []byte(damagedDefinition))
		}},
		{mcapPath, func(data []byte, off int) bool {
			if off+9 > len(data) || data[off] != 0x03 { // schema opcode
				return false
			}
			n := int(binary.LittleEndian.Uint64(data[off+1:]))
			return bytes.Contains(data[off+9:min(off+9+n, len(data))], []byte(damagedDefinition))
		}},
	} {
		_, stderr, code := run(t, "export", "--out", filepath.Join(dir, "out-"+filepath.Ext(c.path)[1:]), c.path)
		if code != exitBadInput {
			t.Errorf("%s: exit %d, want %d: %s", c.path, code, exitBadInput, stderr)
			continue
		}
		m := at.FindStringSubmatch(stderr)
		if m == nil || !strings.Contains(stderr, c.path+": offset ") {
			t.Errorf("%s: the error names no file and offset: %s", c.path, stderr)
			continue
		}
		off, _ := strconv.Atoi(m[1])
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if !c.stores(data, off) {
			t.Errorf("%s: offset %d is not the record storing the definition: %s", c.path, off, stderr)
		}
	}
}
