package analysis

import (
	"cmp"
	"math"
	"strconv"
)

// Num is a float64 that survives JSON: finite values are numbers, NaN and
// infinities are the strings "NaN", "+Inf" and "-Inf" (a decision value of
// a group without a model is +Inf).
type Num float64

// MarshalJSON implements json.Marshaler.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Num) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*n = Num(math.NaN())
		return nil
	case `"+Inf"`, `"Inf"`:
		*n = Num(math.Inf(1))
		return nil
	case `"-Inf"`:
		*n = Num(math.Inf(-1))
		return nil
	case "null":
		*n = Num(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// compareFloats is a total order of float64 values: cmp.Compare (NaN
// first), then the bits, which tell -0 from +0 and NaNs apart, so that
// only identical values tie.
func compareFloats(a, b float64) int {
	return cmp.Or(cmp.Compare(a, b), cmp.Compare(math.Float64bits(a), math.Float64bits(b)))
}
