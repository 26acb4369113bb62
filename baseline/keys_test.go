package baseline_test

import (
	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/baseline"
)

// keys are the table keys baglab check compares with: every analysis's
// and the dataset document's.
var keys = append(analysis.TableKeys(), baseline.DatasetKeys...)
