package msgdef

import (
	"errors"
	"io/fs"
	"path"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseBundle feeds arbitrary bundles to ParseBundle. It must never
// panic; failures must be *Error values; a successful parse must satisfy
// the tree invariants, its FullText must parse back (without a registry)
// to a type with the same MD5 and full text, and ParseWithTypes must make
// the same type of its own text and the types of its fields.
func FuzzParseBundle(f *testing.F) {
	err := fs.WalkDir(embedded, "defs", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(embedded, p)
		if err != nil {
			return err
		}
		parts := strings.Split(p, "/") // defs/<dialect>/<pkg>/<kind>/<file>
		name := parts[2] + "/" + strings.TrimSuffix(parts[4], path.Ext(p))
		f.Add(name, string(b), parts[1] == "ros2")
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	sep := "\n" + strings.Repeat("=", 80) + "\n"
	f.Add("a/B", "Header h\nC[2] c\nint32 X=1"+sep+"MSG: a/C\nstring S = x # y\ntime[] t", false)
	f.Add("a/msg/B", "string<=3[<=2] s \"a#b\"\nC c"+sep+"MSG: a/msg/C\nwstring w\nint8[2] i [1, -1]", true)
	f.Add("a/B", "a/A x"+sep+"MSG: a/A\na/B b", false)

	reg := Default()
	f.Fuzz(func(t *testing.T, name, text string, ros2 bool) {
		d := ROS1
		if ros2 {
			d = ROS2
		}
		typ, err := ParseBundle(name, text, d, reg)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		checkTree(t, typ, 0)
		full, sum := FullText(typ), MD5(typ)
		back, err := ParseBundle(typ.Name, full, d, nil)
		if err != nil {
			t.Fatalf("FullText does not parse back: %v\n%q", err, full)
		}
		if MD5(back) != sum || FullText(back) != full {
			t.Fatalf("round trip changed the type:\n%q\n%q", full, FullText(back))
		}
		deps := map[string]*Type{}
		for i := range typ.Fields {
			if m := typ.Fields[i].Msg; m != nil {
				deps[m.Name] = m
			}
		}
		with, err := ParseWithTypes(name, typ.Text, d, deps)
		if err != nil || !reflect.DeepEqual(with, typ) {
			t.Fatalf("ParseWithTypes: %v\n%+v\n%+v", err, with, typ)
		}
	})
}

// checkTree checks the invariants of a resolved type.
func checkTree(t *testing.T, typ *Type, depth int) {
	if depth > MaxDepth {
		t.Fatalf("tree deeper than %d", MaxDepth)
	}
	for i := range typ.Fields {
		f := &typ.Fields[i]
		if (f.Kind == Struct) != (f.Msg != nil) || f.Kind == Invalid || f.Kind > Struct {
			t.Fatalf("%s.%s: kind %v with Msg %v", typ.Name, f.Name, f.Kind, f.Msg != nil)
		}
		if f.Len < 0 || (f.Array == Fixed && f.Len > MaxFixedLen) || (f.Array == Scalar && f.Len != 0) {
			t.Fatalf("%s.%s: array %v len %d", typ.Name, f.Name, f.Array, f.Len)
		}
		if f.Msg != nil {
			checkTree(t, f.Msg, depth+1)
		}
	}
}

// FuzzFromSchema feeds arbitrary schemas (including service definitions
// and service-event names) to FromSchema and ParseService: no panics, and
// every failure is an *Error.
func FuzzFromSchema(f *testing.F) {
	sep := "\n" + strings.Repeat("=", 80) + "\n"
	f.Add("example_interfaces/srv/AddTwoInts_Event", "int64 a\nint64 b\n---\nint64 sum\n", uint8(1))
	f.Add("a/srv/S_Event", strings.TrimPrefix(sep, "\n")+"SRV: a/srv/S\nP p\n---\nbool ok"+sep+"MSG: a/msg/P\nint32 x", uint8(1))
	f.Add("a/msg/B", "builtin_interfaces/Time t\n", uint8(1))
	f.Add("std_msgs/Header", "uint32 seq\ntime stamp\nstring frame_id\n", uint8(0))
	f.Add("remap_msgs/srv/Query_Event", "", uint8(1))
	f.Add("geometry_msgs/Point", "", uint8(2))
	encodings := []string{"ros1msg", "ros2msg", "", "ros2idl"}
	reg := Default()
	f.Fuzz(func(t *testing.T, name, text string, enc uint8) {
		for _, err := range []error{
			func() error {
				_, err := FromSchema(name, encodings[int(enc)%len(encodings)], []byte(text), reg)
				return err
			}(),
			func() error { _, _, err := ParseService(name, text, Dialect(1+enc%2), reg); return err }(),
		} {
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
		}
	})
}
