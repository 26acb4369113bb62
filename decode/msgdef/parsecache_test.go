package msgdef

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestParsedDefsKeptAndCopied: a definition parsed from a bundle is kept
// for the next bundle that repeats it, which then resolves to the same
// type; what is kept is a copy, holding nothing of the bundle's text; a
// definition that fails to parse is not kept and fails again.
func TestParsedDefsKeptAndCopied(t *testing.T) {
	dep := "float64 x\nfloat64 y # a comment unique to this test: 7f3a\n"
	bundle := func(top string) string {
		return top + "\n" + strings.Repeat("=", 80) + "\nMSG: cachetest/Point\n" + dep
	}
	textA := bundle("cachetest/Point p\nint32 n")
	a, err := ParseBundle("cachetest/A", textA, ROS1, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := defKey{"cachetest/Point", "cachetest/Point", dep, ROS1}
	parsedDefs.Lock()
	kept := parsedDefs.defs[key]
	var keptKey defKey // the key as stored, with its own strings
	for k := range parsedDefs.defs {
		if k == key {
			keptKey = k
		}
	}
	parsedDefs.Unlock()
	if kept == nil {
		t.Fatal("the dependency's definition was not kept")
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(textA)))
	for _, s := range []string{keptKey.text, kept.text, kept.fields[0].Name} {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p >= start && p < start+uintptr(len(textA)) {
			t.Errorf("the kept definition points into the bundle's text (%q)", s)
		}
	}
	b, err := ParseBundle("cachetest/B", bundle("cachetest/Point[] ps"), ROS1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pa, pb := a.Fields[0].Msg, b.Fields[0].Msg; pa == nil || pb == nil || !reflect.DeepEqual(pa, pb) {
		t.Errorf("the dependency resolved to %+v in A and %+v in B", pa, pb)
	}
	if b.Fields[0].Msg.Fields[1].Name != "y" || b.Fields[0].Msg.Text != dep {
		t.Errorf("B's dependency: %+v", b.Fields[0].Msg)
	}
	bad := "float64 x\nnot a field line at all 7f3a\n"
	for range 2 {
		if _, err := ParseBundle("cachetest/Bad", bad, ROS1, nil); err == nil {
			t.Fatal("a bad definition parsed")
		}
	}
	parsedDefs.Lock()
	_, badKept := parsedDefs.defs[defKey{"cachetest/Bad", "cachetest/Bad", bad, ROS1}]
	parsedDefs.Unlock()
	if badKept {
		t.Error("a definition that failed to parse was kept")
	}
}

// TestParsedDefsBounded: the kept definitions stop at maxCachedBytes, by
// defCost; past it a definition parses as before and is not kept.
func TestParsedDefsBounded(t *testing.T) {
	freshParsedDefs(t)
	text := func(i int) string { return "float64 x\nint32 n" + strconv.Itoa(i) + "\n" }
	n := 0
	for ; n < 100000; n++ {
		if _, err := ParseBundle("boundtest/T", text(n), ROS1, nil); err != nil {
			t.Fatal(err)
		}
		parsedDefs.Lock()
		_, kept := parsedDefs.defs[defKey{"boundtest/T", "boundtest/T", text(n), ROS1}]
		over := parsedDefs.bytes > maxCachedBytes
		parsedDefs.Unlock()
		if over {
			t.Fatalf("after %d definitions the kept ones take %d bytes, over %d", n+1, parsedDefs.bytes, maxCachedBytes)
		}
		if !kept {
			break
		}
	}
	if n < 1000 || n == 100000 {
		t.Fatalf("%d definitions kept before the bound", n)
	}
	ty, err := ParseBundle("boundtest/T", text(n+1), ROS1, nil)
	if err != nil || ty.Fields[1].Name != "n"+strconv.Itoa(n+1) {
		t.Errorf("past the bound: %v, %v", ty, err)
	}
}

// freshParsedDefs empties parsedDefs for t, and gives back what it held
// when t ends.
func freshParsedDefs(t *testing.T) {
	parsedDefs.Lock()
	saved, savedBytes := parsedDefs.defs, parsedDefs.bytes
	parsedDefs.defs, parsedDefs.bytes = nil, 0
	parsedDefs.Unlock()
	t.Cleanup(func() {
		parsedDefs.Lock()
		parsedDefs.defs, parsedDefs.bytes = saved, savedBytes
		parsedDefs.Unlock()
	})
}
