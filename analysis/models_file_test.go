package analysis

import (
	"errors"
	"testing"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/record"
)

// memWriter keeps what is written.
type memWriter struct {
	chans []*record.Channel
	msgs  []*record.Message
}

func (w *memWriter) AddChannel(c *record.Channel) (uint32, error) {
	w.chans = append(w.chans, c)
	return uint32(len(w.chans) - 1), nil
}

func (w *memWriter) WriteMessage(id uint32, m *record.Message) error {
	w.msgs = append(w.msgs, m)
	return nil
}

func (w *memWriter) Close() error { return nil }

// TestWriteModels: the placements result among others writes one latched
// TaskModels message whose models decode back; without a log time it is
// stamped now; without a placements result nothing is written.
func TestWriteModels(t *testing.T) {
	r := placementsResult(t, LearnOptions{}, placementStudy(t, 3))
	var w memWriter
	n, err := WriteModels(&w, []Result{&GraspsResult{}, r}, msgdef.Default(), "/models", 1714564800e9)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.chans) != 1 || len(w.msgs) != 1 || w.chans[0].Topic != "/models" || w.chans[0].Metadata["latching"] != "1" ||
		w.chans[0].Schema.MD5 != msgdef.MD5(lookupType(t, "interactive_world_msgs/TaskModels")) || w.msgs[0].LogTime != 1714564800e9 {
		t.Fatalf("wrote %+v, %+v", w.chans, w.msgs)
	}
	dec, err := ros1.Compile(lookupType(t, "interactive_world_msgs/TaskModels"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := dec.DecodeValue(w.msgs[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := back.Len("models"); m != n || n == 0 {
		t.Errorf("%d models decoded, %d reported", m, n)
	}

	var now memWriter
	before := time.Now().UnixNano()
	if _, err := WriteModels(&now, []Result{r}, msgdef.Default(), "/models", 0); err != nil || len(now.msgs) != 1 || now.msgs[0].LogTime < before {
		t.Errorf("no log time: %v, %+v", err, now.msgs)
	}
	var none memWriter
	if _, err := WriteModels(&none, []Result{&GraspsResult{}}, msgdef.Default(), "/models", 1); !errors.Is(err, ErrNoModels) || len(none.chans) != 0 {
		t.Errorf("without placements: %v, %d channels", err, len(none.chans))
	}
}
