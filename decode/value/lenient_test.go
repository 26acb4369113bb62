package value_test

import (
	"math"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// TestLenient: the lenient readers find what the strict ones find, convert
// what the strict ones refuse, as documented, and never fail.
func TestLenient(t *testing.T) {
	typ := ty("test/L", fld("f", msgdef.Float64), fld("b", msgdef.Bool), fld("u", msgdef.Uint64),
		fld("s", msgdef.String), sub("p", tPoint), seq(fld("n", msgdef.Uint32)), fld("t", msgdef.Time))
	v := &value.Struct{Type: typ, Fields: []any{2.75, true, uint64(math.MaxUint64), "x",
		&value.Struct{Type: tPoint, Fields: []any{1.0, 2.0, 3.0}}, []any{uint64(65), uint64(66)}, value.Time{Sec: 2, Nsec: 5}}}
	if n, ok := v.LookupInt("f"); !ok || n != 2 {
		t.Errorf("LookupInt of a float: %d %v (truncated)", n, ok)
	}
	if _, err := v.Int("f"); err == nil {
		t.Error("Int of a float: strict reader accepts it")
	}
	if n, ok := v.LookupInt("b"); !ok || n != 1 {
		t.Errorf("LookupInt of a bool: %d %v", n, ok)
	}
	if n, ok := v.LookupInt("u"); !ok || n != math.MaxInt64 {
		t.Errorf("LookupInt of MaxUint64: %d %v (clamped)", n, ok)
	}
	if f, ok := v.LookupFloat("p.y"); !ok || f != 2 {
		t.Errorf("LookupFloat(p.y) = %v %v", f, ok)
	}
	if f, ok := v.LookupFloat("nope"); ok || !math.IsNaN(f) {
		t.Errorf("LookupFloat of a missing field: %v %v", f, ok)
	}
	if b := v.LookupBytes("n"); string(b) != "AB" {
		t.Errorf("LookupBytes of an integer array: %q", b)
	}
	if x, ok := v.LookupFloat("n[1]"); !ok || x != 66 {
		t.Errorf("LookupFloat(n[1]) = %v %v", x, ok)
	}
	if ns, ok := v.LookupTimeNs("t"); !ok || ns != 2_000_000_005 {
		t.Errorf("LookupTimeNs = %d %v", ns, ok)
	}
	if v.LookupString("s") != "x" || v.LookupString("f") != "" || v.LookupStruct("p") == nil || v.LookupList("n") == nil {
		t.Error("LookupString/LookupStruct/LookupList")
	}
	var none *value.Struct
	if _, ok := none.Lookup("a.b"); ok || none.LookupString("a") != "" || none.LookupStruct("p") != nil {
		t.Error("a nil struct holds something")
	}
}
