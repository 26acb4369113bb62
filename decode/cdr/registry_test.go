package cdr

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
)

var remapServices = []string{"Query", "AddPlugin", "RemovePlugin", "RemoveQuery"}

// TestRegistryRoundTrip: decode(encode(v)) == v for random values of every
// ROS 2 type in msgdef.Default() and the remap service events.
func TestRegistryRoundTrip(t *testing.T) {
	reg := msgdef.Default()
	names := []string{}
	for _, n := range reg.Names() {
		typ, err := reg.Lookup(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if typ.Dialect == msgdef.ROS2 {
			names = append(names, n)
		}
	}
	for _, s := range remapServices {
		names = append(names, "remap_msgs/srv/"+s+"_Event")
	}
	if len(names) < 15 {
		t.Fatalf("only %d ROS 2 types: %v", len(names), names)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range names {
		typ, err := reg.Lookup(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		roundTrip(t, typ, r)
	}
}

// TestRegistryGolden decodes the peer's bytes of the registry's own types
// (remap_msgs, builtin_interfaces, service_msgs and the remap events) with
// the definitions msgdef.Default() holds, not the bundles in the fixtures.
func TestRegistryGolden(t *testing.T) {
	reg := msgdef.Default()
	n := 0
	for _, c := range loadGolden(t) {
		pkg, base, _ := strings.Cut(c.Type, "/")
		var name string
		switch {
		case pkg == "remap_msgs":
			name = pkg + "/srv/" + base
		case pkg == "builtin_interfaces" || pkg == "service_msgs":
			name = pkg + "/msg/" + base
		default:
			continue
		}
		typ, err := reg.Lookup(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var s treeSink
		if err := mustCompile(t, typ).Decode(c.data, &s); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !reflect.DeepEqual(any(s.root), c.want) {
			t.Fatalf("%s:\n got %s\nwant %s", c.Name, js(s.root), js(c.want))
		}
		n++
	}
	if n < 40 {
		t.Fatalf("only %d registry cases", n)
	}
}
