package contract_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/analysis/contract"
	"github.com/baglab/baglab/analysis/topics"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// FuzzParse feeds hostile contracts (a spec comes from anyone's
// repository) through Parse and, when one parses, Evaluate on an empty
// and a one-topic result: an error or results, never a panic.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(testenv.Root(f), "examples", "contract.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("topics:\n  /a: {min_rate_hz: 1, max_gap: 0.1s, values: {\"x[0]\": [-1, 1]}}\n"))
	f.Add([]byte("topics:\n  /a:\n  /b: {required: false, max_latency: 5}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := contract.Parse(data)
		if err != nil {
			return
		}
		one := &topics.Result{Topics: []topics.Stat{{Topic: "/a", Count: 1}}}
		for _, r := range []*topics.Result{nil, one} {
			for _, res := range contract.Evaluate(s, r, nil) {
				if res.Topic == "" || res.Rule == "" {
					t.Fatalf("result without a name: %+v", res)
				}
			}
		}
	})
}
