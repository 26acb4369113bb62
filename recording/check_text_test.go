package recording_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

// TestFileProblems: the doctor lines of a bag with a wrong md5sum and of
// a truncated bag, whose problem names the repair.
func TestFileProblems(t *testing.T) {
	dir := t.TempDir()
	md5 := filepath.Join(dir, "md5.bag")
	bw, err := bag.Create(md5)
	if err != nil {
		t.Fatal(err)
	}
	zero := strings.Repeat("0", 32)
	writeStrings(t, bw, zero, "string data\n", 3)
	ps := recording.FileProblems(md5, check(t, md5))
	want := md5 + ": error: topic /x: stored md5sum " + zero + " of std_msgs/String disagrees with its definition's MD5 " + stringMD5
	if len(ps) != 1 || ps[0].String() != want || !ps[0].IsError() {
		t.Errorf("%v, want %q", ps, want)
	}

	cut := filepath.Join(dir, "cut.bag")
	bw, _ = bag.Create(cut)
	writeStrings(t, bw, stringMD5, "string data\n", 50)
	data, _ := os.ReadFile(cut)
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	ps = recording.FileProblems(cut, check(t, cut))
	found := false
	for _, p := range ps {
		found = found || (p.IsError() && strings.HasSuffix(p.Message, "; `baglab reindex` salvages every intact message") &&
			strings.HasPrefix(p.String(), cut+": error at offset "))
	}
	if !found {
		t.Errorf("truncated bag: no error naming reindex: %v", ps)
	}
}

func TestUnreadableProblem(t *testing.T) {
	err := &record.Error{File: "x.bag", Offset: 71989, Field: "data_len", Err: record.ErrTruncated}
	p := recording.UnreadableProblem("x.bag", err)
	if p.Offset != 71989 || !p.IsError() || p.Message != record.Brief(err) || !strings.HasPrefix(p.String(), "x.bag: error at offset 71989: ") {
		t.Errorf("%+v", p)
	}
}

func TestRepairHint(t *testing.T) {
	dir := t.TempDir()
	b, m := filepath.Join(dir, "a.bag"), filepath.Join(dir, "a.mcap")
	bw, _ := bag.Create(b)
	writeStrings(t, bw, stringMD5, "string data\n", 1)
	mw, _ := mcapfile.Create(m)
	writeStrings(t, mw, stringMD5, "string data\n", 1)
	for _, c := range []struct {
		err  error
		want string
	}{
		{&record.Error{File: b, Offset: 4, Err: record.ErrTruncated}, b + " is damaged: 'baglab doctor " + b + "' checks it, 'baglab reindex " + b + "' salvages every intact message, --skip-bad reads past the damage"},
		{&record.Error{File: m, Offset: 4, Err: record.ErrCRC}, m + " is damaged: 'baglab doctor " + m + "' checks it, 'baglab recover " + m + "' salvages every intact message, --skip-bad reads past the damage"},
		{&record.Error{File: b, Offset: 4, Err: record.ErrUnknownType}, ""},
		{recording.MessageError(&record.Message{Source: b, Offset: 4100, Channel: &record.Channel{Topic: "/t"}},
			&record.Error{Offset: 2, Err: record.ErrTrailing}),
			"the message does not decode with the definition " + b + " stores for it: 'baglab doctor " + b + "' lists every such message, --skip-bad reads past them"},
		{&record.Error{Offset: 4, Err: record.ErrTruncated}, ""},
		{errors.New("other"), ""},
	} {
		if got := recording.RepairHint(c.err); got != c.want {
			t.Errorf("%v: got %q, want %q", c.err, got, c.want)
		}
	}
}
