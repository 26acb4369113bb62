package msgdef

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestInternedTypesShared: bundles that repeat a dependency with the same
// text, and the same types below it, resolve it to one *Type, as do the
// registry's lookups of one name; a dependency whose own text or whose
// nested type differs is a type of its own; and what is shared is the
// type each bundle alone resolves to.
func TestInternedTypesShared(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\n"
	point := "MSG: interntest/Point\nfloat64 x\nfloat64 y\n"
	header := "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n"
	pose := "MSG: interntest/Pose\nHeader header\ninterntest/Point p\n"
	parse := func(name, text string) *Type {
		t.Helper()
		ty, err := ParseBundle(name, text, ROS1, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return ty
	}
	a := parse("interntest/A", "interntest/Pose pose\nint32 n"+sep+pose+sep+header+sep+point)
	b := parse("interntest/B", "interntest/Pose[] poses"+sep+point+sep+pose+sep+header)
	if a.Fields[0].Msg != b.Fields[0].Msg {
		t.Error("one Pose, over the same Header and Point, resolved to two types")
	}
	if pa := a.Fields[0].Msg.Fields[1].Msg; pa == nil || pa.Fields[1].Name != "y" {
		t.Errorf("A's Pose's Point: %+v", pa)
	}
	// Pose's own text alike, its Point not: two Poses.
	c := parse("interntest/C", "interntest/Pose pose"+sep+pose+sep+header+sep+"MSG: interntest/Point\nfloat32 x\nfloat32 y\n")
	if c.Fields[0].Msg == a.Fields[0].Msg || c.Fields[0].Msg.Fields[0].Msg != a.Fields[0].Msg.Fields[0].Msg {
		t.Error("C's Pose (another Point) is A's, or its Header is not A's")
	}
	if c.Fields[0].Msg.Fields[1].Msg.Fields[0].Kind != Float32 {
		t.Errorf("C's Point: %+v", c.Fields[0].Msg.Fields[1].Msg)
	}
	// Alone, each type is what it was in the bundles.
	alone := parse("interntest/Pose", strings.TrimPrefix(pose, "MSG: interntest/Pose\n")+sep+header+sep+point)
	if alone != a.Fields[0].Msg || !reflect.DeepEqual(*alone, *a.Fields[0].Msg) {
		t.Errorf("Pose alone: %+v, in A: %+v", alone, a.Fields[0].Msg)
	}
	reg := Default()
	l1, err1 := reg.Lookup("geometry_msgs/PoseStamped")
	l2, err2 := reg.Clone().Lookup("geometry_msgs/PoseStamped")
	if err1 != nil || err2 != nil || l1 != l2 {
		t.Errorf("two registries' PoseStamped: %p %v, %p %v", l1, err1, l2, err2)
	}
}

// TestInternedTypesBounded: the kept types stop at maxInternedBytes, by
// typeCost; past it a type resolves as before and is not kept, while the
// types kept before stay shared. (The bound is lowered for the test,
// which keeps the definitions of its own.)
func TestInternedTypesBounded(t *testing.T) {
	internedTypes.Lock()
	saved, savedMax := internedTypes.types, maxInternedBytes
	savedIDs, savedDescs, savedBytes := internedTypes.ids, internedTypes.descs, internedTypes.bytes
	internedTypes.types, internedTypes.ids, internedTypes.descs, internedTypes.bytes = nil, nil, nil, 0
	maxInternedBytes = 256 << 10
	internedTypes.Unlock()
	t.Cleanup(func() {
		internedTypes.Lock()
		internedTypes.types, internedTypes.ids, internedTypes.descs, internedTypes.bytes = saved, savedIDs, savedDescs, savedBytes
		maxInternedBytes = savedMax
		internedTypes.Unlock()
	})
	freshParsedDefs(t)
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: boundtest/In\n"
	text := func(i int) string { return "boundtest/In in\nint32 n" + strconv.Itoa(i) + sep + "float64 x\n" }
	n := 0
	var in *Type
	for ; n < 100000; n++ {
		ty, err := ParseBundle("boundtest/Top", text(n), ROS1, nil)
		if err != nil {
			t.Fatal(err)
		}
		internedTypes.Lock()
		_, kept := internedTypes.ids[ty]
		over := internedTypes.bytes > maxInternedBytes
		internedTypes.Unlock()
		if over {
			t.Fatalf("after %d types the kept ones take %d bytes, over %d", n+1, internedTypes.bytes, maxInternedBytes)
		}
		if in == nil {
			in = ty.Fields[0].Msg
		} else if ty.Fields[0].Msg != in {
			t.Fatalf("type %d: its nested type, kept, is not shared", n)
		}
		if !kept {
			break
		}
	}
	if n < 100 || n == 100000 {
		t.Fatalf("%d types kept before the bound", n)
	}
	ty, err := ParseBundle("boundtest/Top", text(n+1), ROS1, nil)
	if err != nil || ty.Fields[1].Name != "n"+strconv.Itoa(n+1) || ty.Fields[0].Msg != in {
		t.Errorf("past the bound: %+v, %v", ty, err)
	}
}
