package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// nodeLines runs testdata/SCRIPT with node (script is a path under
// testdata), one input per stdin line and args after the script, and decodes
// its stdout, one JSON value (numbers kept exact) per input, into T.
func nodeLines[T any](t *testing.T, what, script string, inputs []string, args ...string) []T {
	t.Helper()
	cmd := exec.Command("node", append([]string{filepath.Join(testenv.Root(t), "testdata", script)}, args...)...)
	cmd.Stdin = strings.NewReader(strings.Join(inputs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, stderr.String())
	}
	var res []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var r T
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&r); err != nil {
			t.Fatalf("%s output: %v", what, err)
		}
		res = append(res, r)
	}
	if len(res) != len(inputs) {
		t.Fatalf("%s: %d results for %d inputs\n%s", what, len(res), len(inputs), stderr.String())
	}
	return res
}
