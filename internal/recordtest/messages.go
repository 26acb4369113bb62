package recordtest

import (
	"errors"
	"io"
	"testing"

	"github.com/baglab/baglab/decode/record"
)

// MessagesByTopic reads every message of r in log time order and returns
// them per topic, each with its own copy of the data.
func MessagesByTopic(t testing.TB, r record.Reader) map[string][]*record.Message {
	t.Helper()
	it, err := r.Messages(record.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := map[string][]*record.Message{}
	for {
		m, err := it.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		c := *m
		c.Data = append([]byte(nil), m.Data...)
		out[m.Channel.Topic] = append(out[m.Channel.Topic], &c)
	}
}
