package analysis

import (
	"math"
	"strings"
	"testing"
)

func TestWriteText(t *testing.T) {
	tb := newTable("sample", false, "name", "n:i", "rate:f", "big:f", "mixed:f", "ok:b").brief("name", "n", "rate", "mixed")
	tb.add("cup", 3, 0.25, 1.5e9, 2112.0, true)
	tb.add("tab\there", -12, math.NaN(), 2.0, 0.0001234, false)
	tb.add("杯子", 100000, math.Copysign(0, -1), math.Inf(1), -0.5, true)
	tb.add("tasse 🍵", 0, 0.03125, 0.0, math.Copysign(0, -1), true)
	var b strings.Builder
	if err := tb.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	want := `sample (4 rows)
name            n    rate      mixed
cup             3  0.2500       2112
tab\there     -12     NaN  0.0001234
杯子       100000  0.0000       -0.5
tasse 🍵        0  0.0312          0
`
	if b.String() != want {
		t.Errorf("brief:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := tb.WriteText(&b, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[1] != "name            n    rate      big      mixed     ok" || lines[2] != "cup             3  0.2500  1.5e+09       2112   true" ||
		lines[4] != "杯子       100000  0.0000     +Inf       -0.5   true" {
		t.Errorf("wide:\n%s", b.String())
	}
}
