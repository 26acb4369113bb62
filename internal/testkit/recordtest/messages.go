package recordtest

import (
	"errors"
	"io"
	"testing"

	"github.com/baglab/baglab/record"
)

// Read calls fn for every message of it, in order, until Next fails, and
// closes it. It returns the error that ended the read, nil at the end,
// where a Next that does not return io.EOF again fails the test (the
// record.Iterator contract). m and its Data are valid only during the
// call.
func Read(t testing.TB, it record.Iterator, fn func(m *record.Message)) error {
	t.Helper()
	defer it.Close()
	for {
		m, err := it.Next()
		if errors.Is(err, io.EOF) {
			if _, err := it.Next(); !errors.Is(err, io.EOF) {
				t.Fatalf("Next after the end = %v, want io.EOF", err)
			}
			return nil
		}
		if err != nil {
			return err
		}
		fn(m)
	}
}

// Each is Read where a read error fails the test.
func Each(t testing.TB, it record.Iterator, fn func(m *record.Message)) {
	t.Helper()
	if err := Read(t, it, fn); err != nil {
		t.Fatal(err)
	}
}

// MessagesByTopic reads every message of r in log time order and returns
// them per topic, each with its own copy of the data.
func MessagesByTopic(t testing.TB, r record.Reader) map[string][]*record.Message {
	t.Helper()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*record.Message{}
	Each(t, it, func(m *record.Message) {
		c := *m
		c.Data = append([]byte(nil), m.Data...)
		out[m.Channel.Topic] = append(out[m.Channel.Topic], &c)
	})
	return out
}
