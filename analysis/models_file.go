package analysis

import (
	"errors"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/record"
)

// ErrNoModels is returned by WriteModels when no result learns models.
var ErrNoModels = errors.New("analysis: no result with models (placements)")

// WriteModels writes the models of the first of results that has them (a
// ModelWriter, see PlacementsResult.WriteModels) into w on topic at log
// time at, or now when at <= 0 (no message was read), and returns how many
// it wrote.
func WriteModels(w record.Writer, results []Result, reg *msgdef.Registry, topic string, at int64) (int, error) {
	for _, r := range results {
		if mw, ok := r.(ModelWriter); ok {
			if at <= 0 {
				at = time.Now().UnixNano()
			}
			return mw.WriteModels(w, reg, topic, at)
		}
	}
	return 0, ErrNoModels
}
