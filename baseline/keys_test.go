package baseline_test

import (
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/baseline"
)

// keys are the table keys baglab check compares with: every analysis's
// and the dataset document's.
var keys = append(kinds.TableKeys(), baseline.DatasetKeys...)
