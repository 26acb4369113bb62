package msgdef

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// fieldSig renders a field compactly for comparison.
func fieldSig(f *Field) string {
	s := fmt.Sprintf("%s %s/%s %s", f.Name, f.Kind, f.Prim, f.TypeName)
	switch f.Array {
	case Fixed:
		s += fmt.Sprintf(" [%d]", f.Len)
	case Sequence:
		s += fmt.Sprintf(" [<=%d]", f.Len)
	}
	if f.StringBound != 0 {
		s += fmt.Sprintf(" str<=%d", f.StringBound)
	}
	if f.Msg != nil {
		s += " -> " + f.Msg.Name
	}
	if f.Default != "" {
		s += " = " + f.Default
	}
	return s
}

func constSig(c Constant) string { return fmt.Sprintf("%s %s/%s=%s", c.Name, c.Kind, c.Prim, c.Value) }

func TestParse(t *testing.T) {
	tests := []struct {
		name, typ, text string
		d               Dialect
		fields, consts  []string
	}{
		{
			name: "ros1 primitives", typ: "p/All", d: ROS1,
			text: "bool a\nbyte b\nchar c\nint8 d\nuint8 e\nint16 f\nuint16 g\nint32 h\nuint32 i\nint64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\ntime o\nduration p\n",
			fields: []string{"a bool/bool bool", "b int8/byte byte", "c uint8/char char", "d int8/int8 int8", "e uint8/uint8 uint8",
				"f int16/int16 int16", "g uint16/uint16 uint16", "h int32/int32 int32", "i uint32/uint32 uint32", "j int64/int64 int64",
				"k uint64/uint64 uint64", "l float32/float32 float32", "m float64/float64 float64", "n string/string string",
				"o time/time time", "p duration/duration duration"},
		},
		{
			name: "ros1 arrays, comments, blanks and tabs", typ: "p/A", d: ROS1,
			text: "# header comment\n\n  uint8[] data   # trailing\nfloat64[36]\tcovariance\ntime[] stamps\r\nstring[2] names\nint32[0] none\n",
			fields: []string{"data uint8/uint8 uint8 [<=0]", "covariance float64/float64 float64 [36]", "stamps time/time time [<=0]",
				"names string/string string [2]", "none int32/int32 int32 [0]"},
		},
		{
			name: "ros1 constants as genmsg reads them", typ: "p/C", d: ROS1,
			text: "int32 X=1\nint32 Y = -2 # comment\nuint8 Z= 255\nstring S = hello # not a comment\nstring T=a=b\nstring EMPTY=\n" +
				"float64 PI=3.14159\nbool B=True\nchar CH=200\nbyte BY=-5\nint64 BIG=-9223372036854775808\nuint64 UBIG=18446744073709551615\n",
			consts: []string{"X int32/int32=1", "Y int32/int32=-2", "Z uint8/uint8=255", "S string/string=hello # not a comment",
				"T string/string=a=b", "EMPTY string/string=", "PI float64/float64=3.14159", "B bool/bool=True",
				"CH uint8/char=200", "BY int8/byte=-5", "BIG int64/int64=-9223372036854775808", "UBIG uint64/uint64=18446744073709551615"},
		},
		{
			name: "ros1 name resolution", typ: "p/R", d: ROS1,
			text: "Header header\nstd_msgs/Header h2\nLocal l\nLocal[] ls\nq/Other[3] o\n",
			fields: []string{"header struct/ Header -> std_msgs/Header", "h2 struct/ std_msgs/Header -> std_msgs/Header",
				"l struct/ Local -> p/Local", "ls struct/ Local [<=0] -> p/Local", "o struct/ q/Other [3] -> q/Other"},
		},
		{
			name: "ros2 primitives, bounds and defaults", typ: "p/msg/B", d: ROS2,
			text: "byte b\nchar c\nwstring w\nstring<=5 s5\nwstring<=3 w3\nint32[<=4] up\nstring<=2[<=3] bb\nint32 x 5\n" +
				"string s \"a # b\" # comment\nfloat64[2] f [1.5, -2]\nbool t true\nuint8 h 0x1f\nstring[] l [\"a, b\", 'c']\n",
			fields: []string{"b uint8/byte byte", "c uint8/char char", "w wstring/wstring wstring", "s5 string/string string<=5 str<=5",
				"w3 wstring/wstring wstring<=3 str<=3", "up int32/int32 int32 [<=4]", "bb string/string string<=2 [<=3] str<=2",
				"x int32/int32 int32 = 5", "s string/string string = \"a # b\"", "f float64/float64 float64 [2] = [1.5, -2]",
				"t bool/bool bool = true", "h uint8/uint8 uint8 = 0x1f", "l string/string string [<=0] = [\"a, b\", 'c']"},
		},
		{
			name: "ros2 constants", typ: "p/K", d: ROS2,
			text: "uint8 REQUEST_SENT = 0\nstring STRING_CONST=\"Hello world!\"\nstring HASH='#x' # c\nint8 NEG=-50\nbool B=true\n",
			consts: []string{"REQUEST_SENT uint8/uint8=0", "STRING_CONST string/string=\"Hello world!\"", "HASH string/string='#x'",
				"NEG int8/int8=-50", "B bool/bool=true"},
		},
		{
			name: "ros2 name resolution", typ: "p/msg/R", d: ROS2,
			text: "builtin_interfaces/Time stamp\nbuiltin_interfaces/msg/Duration d\nLocal l\n",
			fields: []string{"stamp struct/ builtin_interfaces/Time -> builtin_interfaces/Time",
				"d struct/ builtin_interfaces/msg/Duration -> builtin_interfaces/Duration", "l struct/ Local -> p/Local"},
		},
	}
	reg := Default()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			local := "\n================================================================================\nMSG: p/Local\nint32 v\n" +
				"================================================================================\nMSG: q/Other\nint32 v\n"
			if tc.d == ROS2 {
				local = strings.Replace(local, "MSG: p/Local", "MSG: p/msg/Local", 1)
			}
			typ, err := ParseBundle(tc.typ, tc.text+local, tc.d, reg)
			if err != nil {
				t.Fatal(err)
			}
			var fields, consts []string
			for i := range typ.Fields {
				fields = append(fields, fieldSig(&typ.Fields[i]))
			}
			for _, c := range typ.Constants {
				consts = append(consts, constSig(c))
			}
			if !reflect.DeepEqual(fields, tc.fields) {
				t.Errorf("fields:\n got %q\nwant %q", fields, tc.fields)
			}
			if !reflect.DeepEqual(consts, tc.consts) {
				t.Errorf("constants:\n got %q\nwant %q", consts, tc.consts)
			}
			if want, _ := canonical(tc.typ); typ.Name != want || typ.FullName != tc.typ || typ.Dialect != tc.d {
				t.Errorf("names %q %q %v", typ.Name, typ.FullName, typ.Dialect)
			}
			if typ.Text != tc.text {
				t.Errorf("Text = %q, want %q", typ.Text, tc.text)
			}
		})
	}
}

func TestIsBlob(t *testing.T) {
	tests := []struct {
		text string
		d    Dialect
		want []bool
	}{
		{"uint8[] a\nchar[] b\nbyte[] c\nint8[] d\nuint8[4] e\nuint8 f\nuint16[] g\n", ROS1, []bool{true, true, true, false, true, false, false}},
		{"uint8[] a\nchar[] b\nbyte[] c\nint8[] d\nbyte[4] e\nbyte f\nuint8[<=3] g\n", ROS2, []bool{true, true, true, false, true, false, true}},
	}
	for _, tc := range tests {
		typ, err := ParseBundle("p/T", tc.text, tc.d, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range typ.Fields {
			if got := typ.Fields[i].IsBlob(); got != tc.want[i] {
				t.Errorf("%v %s: IsBlob = %v", tc.d, fieldSig(&typ.Fields[i]), got)
			}
		}
	}
}

// TestBundleSplit checks that section texts are exact and names in both
// dialect forms resolve.
func TestBundleSplit(t *testing.T) {
	sep := strings.Repeat("=", 80)
	tests := []struct {
		name, text string
		d          Dialect
		texts      []string // main, then nested types in field order
	}{
		{"ros1", "a/B b\n" + sep + "\nMSG: a/B\nint32 x\n\n" + sep + "\nMSG: a/C\nint8 y", ROS1, []string{"a/B b", "int32 x\n"}},
		{"no trailing", "a/B b\n" + sep + "\nMSG: a/B\nint32 x", ROS1, []string{"a/B b", "int32 x"}},
		{"ros2 names", "B b\nC c\n" + sep + "\nMSG: a/msg/B\nint32 x\n" + sep + "\nMSG: a/C\nC2 y\n" + sep + "\nMSG: a/msg/C2\n", ROS2, []string{"B b\nC c", "int32 x", "C2 y"}},
		{"leading header", sep + "\nMSG: a/M\nB b\n" + sep + "\nMSG: a/B\nint32 x", ROS1, []string{"B b", "int32 x"}},
		{"crlf", "a/B b\r\n" + sep + "\r\nMSG: a/B\r\nint32 x\r\n", ROS1, []string{"a/B b\r", "int32 x\r\n"}},
		{"empty main", "", ROS1, []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ, err := ParseBundle("a/M", tc.text, tc.d, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{typ.Text}
			for i := range typ.Fields {
				if m := typ.Fields[i].Msg; m != nil {
					got = append(got, m.Text)
				}
			}
			if !reflect.DeepEqual(got, tc.texts) {
				t.Errorf("texts %q, want %q", got, tc.texts)
			}
		})
	}
}

// TestParseErrors checks that bad definitions fail with an *Error naming
// the type, the line and the problem, unwrapping to the right sentinel.
func TestParseErrors(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\n"
	tests := []struct {
		name, text string
		d          Dialect
		sentinel   error
		want       string // substring of the message
	}{
		{"one token", "int32", ROS1, record.ErrFormat, "p/T line 1: invalid declaration"},
		{"three tokens ros1", "int32 x 5", ROS1, record.ErrFormat, "line 1: invalid declaration"},
		{"bad field name", "int32 x\nint32 2x", ROS1, record.ErrFormat, "line 2: invalid field name"},
		{"duplicate field", "int32 x\nfloat32 x", ROS1, record.ErrFormat, "line 2: duplicate field name"},
		{"bad type", "in-t32 x", ROS1, record.ErrFormat, "invalid type"},
		{"two dims", "int32[2][3] x", ROS1, record.ErrFormat, "invalid array type"},
		{"open bracket", "int32[2 x", ROS1, record.ErrFormat, "invalid array type"},
		{"huge fixed array", "int32[99999999999] x", ROS1, record.ErrFormat, "exceeds the limit"},
		{"huge fixed array 2", "uint8[18446744073709551616] x", ROS2, record.ErrFormat, "exceeds the limit"},
		{"bound in ros1", "int32[<=3] x", ROS1, record.ErrFormat, `"int32[<=3]" is not a constant type`},
		{"letters in length", "int32[a] x", ROS1, record.ErrFormat, "invalid array length"},
		{"zero bound", "int32[<=0] x", ROS2, record.ErrFormat, "invalid array bound"},
		{"bad string bound", "string<=x s", ROS2, record.ErrFormat, "invalid string bound"},
		{"bounded non-string", "int32<=3 s", ROS2, record.ErrFormat, "invalid type"},
		{"time in ros2", "time t", ROS2, record.ErrUnknownType, "p/time"},
		{"const out of range", "uint8 X=256", ROS1, record.ErrFormat, "constant X"},
		{"const bad int", "int32 X=1.5", ROS1, record.ErrFormat, "constant X"},
		{"const time", "time X=1", ROS1, record.ErrFormat, "not a constant type"},
		{"const two =", "int32 X=1=2", ROS1, record.ErrFormat, "invalid constant"},
		{"const bad name", "string =x", ROS1, record.ErrFormat, "invalid constant name"},
		{"const no value ros2", "int32 X=", ROS2, record.ErrFormat, "has no value"},
		{"bad default", "int32 x abc", ROS2, record.ErrFormat, "default abc"},
		{"default count", "int32[2] x [1, 2, 3]", ROS2, record.ErrFormat, "do not fit"},
		{"struct default", "builtin_interfaces/Time t 5", ROS2, record.ErrFormat, "cannot have defaults"},
		{"four-part name", "a/b/c/D x", ROS2, record.ErrFormat, "invalid type"},
		{"ros1 namespaced", "a/msg/D x", ROS1, record.ErrFormat, "invalid type"},
		{"missing types", "a/Missing m\nOther o\nstd_msgs/Header h", ROS2, record.ErrUnknownType, "no definition for a/Missing (used in p/T line 1), p/Other (used in p/T line 2), std_msgs/Header"},
		{"separator at end", "int32 x" + sep[:81], ROS1, record.ErrFormat, "separator without a MSG: line"},
		{"separator without MSG", "int32 x" + sep + "int32 y", ROS1, record.ErrFormat, "not followed by a MSG: line"},
		{"bad MSG name", "int32 x" + sep + "MSG: ???\n", ROS1, record.ErrFormat, "invalid type name"},
		{"IDL section", "int32 x" + sep + "IDL: a/msg/B\n", ROS2, record.ErrUnsupported, "IDL"},
		{"error in section", "a/B b" + sep + "MSG: a/B\nint32 ok\nfloat32 bad bad", ROS1, record.ErrFormat, "a/B line 2"},
		{"cycle", "a/A a" + sep + "MSG: a/A\na/B b" + sep + "MSG: a/B\na/A a", ROS1, record.ErrFormat, "recursive type: a/A -> a/B -> a/A"},
		{"self cycle", "p/T t", ROS1, record.ErrFormat, "recursive type: p/T -> p/T"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ, err := ParseBundle("p/T", tc.text, tc.d, nil)
			if err == nil {
				t.Fatalf("no error; fields %v", typ.Fields)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%T is not *Error: %v", err, err)
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("%v does not unwrap to %v", err, tc.sentinel)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestBadNames(t *testing.T) {
	for _, name := range []string{"", "T", "a/b/c/D", "a/foo/B", "1a/B", "a/B c", "a/"} {
		if _, err := ParseBundle(name, "int32 x", ROS1, nil); !errors.Is(err, record.ErrFormat) {
			t.Errorf("ParseBundle(%q): %v", name, err)
		}
	}
	if _, err := ParseBundle("a/B", "int32 x", Dialect(9), nil); !errors.Is(err, record.ErrUnsupported) {
		t.Errorf("bad dialect: %v", err)
	}
}

// TestLimits checks the bounds that protect against hostile definitions.
func TestLimits(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\n"
	// A chain one deeper than MaxDepth.
	var b strings.Builder
	b.WriteString("a/T0 x")
	for i := 0; i <= MaxDepth; i++ {
		fmt.Fprintf(&b, "%sMSG: a/T%d\na/T%d x", sep, i, i+1)
	}
	fmt.Fprintf(&b, "%sMSG: a/T%d\nint32 x", sep, MaxDepth+1)
	if _, err := ParseBundle("a/Top", b.String(), ROS1, nil); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep chain: %v", err)
	}
	// A chain of 40 types that each use the next twice: 2^40 fields as a tree.
	b.Reset()
	b.WriteString("a/T0 x\na/T0 y")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%sMSG: a/T%d\na/T%d x\na/T%d y", sep, i, i+1, i+1)
	}
	fmt.Fprintf(&b, "%sMSG: a/T40\nint32 x", sep)
	if _, err := ParseBundle("a/Top", b.String(), ROS1, nil); err == nil || !strings.Contains(err.Error(), "expands to more than") {
		t.Errorf("exponential tree: %v", err)
	}
	// The same with 10 levels is fine, and MD5/FullText stay linear.
	b.Reset()
	b.WriteString("a/T0 x\na/T0 y")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "%sMSG: a/T%d\na/T%d x\na/T%d y", sep, i, i+1, i+1)
	}
	fmt.Fprintf(&b, "%sMSG: a/T10\nint32 x", sep)
	typ, err := ParseBundle("a/Top", b.String(), ROS1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(FullText(typ), "MSG: "); got != 11 {
		t.Errorf("FullText has %d sections, want 11", got)
	}
	if MD5(typ) == "" {
		t.Error("empty MD5")
	}
	if _, err := ParseBundle("a/B", fmt.Sprintf("uint8[%d] x", MaxFixedLen), ROS1, nil); err != nil {
		t.Errorf("MaxFixedLen rejected: %v", err)
	}
}

// TestBundleWins checks that a definition in the bundle replaces the
// registry's, at every depth.
func TestBundleWins(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\n"
	text := "geometry_msgs/PoseStamped p" + sep + "MSG: geometry_msgs/Point\nfloat32 x\n"
	typ, err := ParseBundle("a/B", text, ROS1, Default())
	if err != nil {
		t.Fatal(err)
	}
	pt := typ.Fields[0].Msg.Field("pose").Msg.Field("position").Msg
	if got := fieldSig(&pt.Fields[0]); got != "x float32/float32 float32" || len(pt.Fields) != 1 {
		t.Errorf("Point from the bundle: %s (%d fields)", got, len(pt.Fields))
	}
	h := typ.Fields[0].Msg.Field("header").Msg
	if h == nil || h.Name != "std_msgs/Header" || MD5(h) != "2176decaecbce78abc3b96ef049fabed" {
		t.Errorf("Header from the registry: %+v", h)
	}
}
