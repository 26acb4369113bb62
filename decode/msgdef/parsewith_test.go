package msgdef

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// TestParseWithTypes: every type of the built-in Jazzy interfaces, read
// from a bundle of its closure, is what ParseWithTypes makes of its own
// text and the bundle's types of its nested fields (the same *Type,
// interned); and ParseWithTypes fails as a bundle fails: a nested type
// it is not given, a text that names itself, nesting past MaxDepth, a
// bad name.
func TestParseWithTypes(t *testing.T) {
	reg := Default()
	if err := reg.SetDistro("jazzy"); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range reg.Names() {
		lt, err := reg.Lookup(name)
		if err != nil || lt.Dialect != ROS2 || strings.Contains(name, "/srv/") || strings.Contains(name, "/action/") {
			continue
		}
		bundle := lt.Text
		seen := map[*Type]bool{}
		var walk func(*Type)
		walk = func(t *Type) {
			for i := range t.Fields {
				if m := t.Fields[i].Msg; m != nil && !seen[m] {
					seen[m] = true
					bundle += "\n" + strings.Repeat("=", 80) + "\nMSG: " + m.FullName + "\n" + m.Text
					walk(m)
				}
			}
		}
		walk(lt)
		want, err := ParseBundle(name, bundle, ROS2, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		deps := map[string]*Type{}
		for i := range want.Fields {
			if m := want.Fields[i].Msg; m != nil {
				deps[m.Name] = m
			}
		}
		got, err := ParseWithTypes(name, want.Text, ROS2, deps)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want || !reflect.DeepEqual(*got, *want) {
			t.Errorf("%s: %+v, from the bundle %+v", name, got, want)
		}
		n++
	}
	if n < 140 {
		t.Fatalf("%d types compared, want every message of Jazzy's", n)
	}

	point, err := ParseBundle("withtest/Point", "float64 x\nfloat64 y\n", ROS2, nil)
	if err != nil {
		t.Fatal(err)
	}
	deep := point // a chain of MaxDepth levels
	for i := 1; i < MaxDepth; i++ {
		if deep, err = ParseWithTypes("withtest/L"+strconv.Itoa(i), deep.Name+" in\n", ROS2, map[string]*Type{deep.Name: deep}); err != nil {
			t.Fatalf("level %d: %v", i+1, err)
		}
	}
	for _, c := range []struct {
		name, text string
		deps       map[string]*Type
		want       error
		says       string
	}{
		{"withtest/A", "withtest/Point p\nwithtest/Other o\n", map[string]*Type{"withtest/Point": point}, record.ErrUnknownType, "withtest/Other"},
		{"withtest/Self", "withtest/Self again\n", map[string]*Type{"withtest/Self": point}, record.ErrFormat, "recursive"},
		{"withtest/Deep", deep.Name + " in\n", map[string]*Type{deep.Name: deep}, record.ErrFormat, "nested deeper than 64"},
		{"not a name", "int32 x\n", nil, record.ErrFormat, "invalid type name"},
		{"withtest/Bad", "int32 x y z w\n", nil, record.ErrFormat, "withtest/Bad"},
	} {
		_, err := ParseWithTypes(c.name, c.text, ROS2, c.deps)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.says)
		}
	}
}
