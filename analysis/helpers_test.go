package analysis

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"sort"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

var registry = msgdef.Default()

func lookupType(t testing.TB, name string) *msgdef.Type {
	t.Helper()
	ty, err := registry.Lookup(name)
	if err != nil {
		t.Fatalf("lookup %s: %v", name, err)
	}
	return ty
}

// mk builds a message of type typ (a name or a *msgdef.Type) with the
// given path values, set in path order.
func mk(t testing.TB, typ any, sets map[string]any) *value.Struct {
	t.Helper()
	var ty *msgdef.Type
	switch x := typ.(type) {
	case string:
		ty = lookupType(t, x)
	case *msgdef.Type:
		ty = x
	}
	s := value.New(ty)
	keys := make([]string, 0, len(sets))
	for k := range sets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := s.Set(k, sets[k]); err != nil {
			t.Fatalf("set %s.%s: %v", ty.Name, k, err)
		}
	}
	return s
}

func msgOf(topic string, ns int64, v *value.Struct) *Message {
	return &Message{Topic: topic, LogTime: ns, Value: v, Type: v.Type.Name}
}

// runPython runs a numpy script with input as JSON on stdin and decodes its
// JSON output into out.
func runPython(t *testing.T, script string, input, out any) {
	t.Helper()
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequirePeer(t, "numpy")
	cmd := exec.Command(testenv.Python, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("python output %s: %v", b, err)
	}
}

// resultJSON runs Result and marshals it.
func resultJSON(t testing.TB, a Analyzer) []byte {
	t.Helper()
	r, err := a.Result()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	d := got - want
	if d < 0 {
		d = -d
	}
	scale := 1.0
	if w := want; w > 1 || w < -1 {
		if w < 0 {
			w = -w
		}
		scale = w
	}
	if !(d <= tol*scale) {
		t.Errorf("%s: got %.17g, want %.17g", what, got, want)
	}
}

// builtins are the analyses of this package (the registry, package
// analysis/kinds, adds those of their own packages).
var builtins = []Kind{PlacementsKind, GraspsKind, FactsKind, MapKind, QueriesKind}
