package msgdef

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/baglab/baglab/record"
)

func TestDefaultNames(t *testing.T) {
	reg := Default()
	names := reg.Names()
	if !sort.StringsAreSorted(names) {
		t.Error("Names not sorted")
	}
	// 145 .msg + 63 action types + 2*49 srv halves (ROS1), 3 .msg + 2*4 srv
	// halves (ROS2), and the 145 ROS 2 common interfaces every built-in
	// distribution defines alike (2 of them builtin_interfaces).
	if want := 145 + 63 + 98 + 3 + 8 + 143; len(names) != want {
		t.Errorf("%d names, want %d", len(names), want)
	}
	for _, want := range []string{"std_msgs/Header", "lama_msgs/LamaObject", "interactive_world_msgs/DriveAndSearchActionGoal",
		"toaster_msgs/AddEntityRequest", "builtin_interfaces/msg/Time", "service_msgs/msg/ServiceEventInfo", "remap_msgs/srv/Query_Response"} {
		if i := sort.SearchStrings(names, want); i == len(names) || names[i] != want {
			t.Errorf("Names lacks %s", want)
		}
	}
	for _, n := range names {
		if _, err := reg.Lookup(n); err != nil {
			t.Errorf("Lookup(%s): %v", n, err)
		}
	}
}

func TestLookup(t *testing.T) {
	reg := Default()
	tests := []struct {
		name, wantName, wantFull string
		d                        Dialect
	}{
		{"std_msgs/Header", "std_msgs/Header", "std_msgs/Header", ROS1},
		{"builtin_interfaces/Time", "builtin_interfaces/Time", "builtin_interfaces/msg/Time", ROS2},
		{"builtin_interfaces/msg/Duration", "builtin_interfaces/Duration", "builtin_interfaces/msg/Duration", ROS2},
		{"remap_msgs/srv/Query_Request", "remap_msgs/Query_Request", "remap_msgs/srv/Query_Request", ROS2},
		{"remap_msgs/Query_Response", "remap_msgs/Query_Response", "remap_msgs/srv/Query_Response", ROS2},
		{"remap_msgs/srv/Query_Event", "remap_msgs/Query_Event", "remap_msgs/srv/Query_Event", ROS2},
		{"toaster_msgs/AddEntityRequest", "toaster_msgs/AddEntityRequest", "toaster_msgs/AddEntityRequest", ROS1},
		{"rail_pick_and_place_msgs/GraspAndStoreActionFeedback", "rail_pick_and_place_msgs/GraspAndStoreActionFeedback", "rail_pick_and_place_msgs/GraspAndStoreActionFeedback", ROS1},
	}
	for _, tc := range tests {
		typ, err := reg.Lookup(tc.name)
		if err != nil {
			t.Errorf("Lookup(%s): %v", tc.name, err)
			continue
		}
		if typ.Name != tc.wantName || typ.FullName != tc.wantFull || typ.Dialect != tc.d {
			t.Errorf("Lookup(%s) = %s %s %v", tc.name, typ.Name, typ.FullName, typ.Dialect)
		}
		again, _ := reg.Lookup(tc.name)
		if again != typ {
			t.Errorf("Lookup(%s) not cached", tc.name)
		}
	}
	ev, _ := reg.Lookup("remap_msgs/srv/RemoveQuery_Event")
	if d := ev.Fields[2].Msg.Field("exec_left"); d == nil || d.Msg.FullName != "builtin_interfaces/msg/Duration" {
		t.Errorf("RemoveQuery_Event response: %+v", ev.Fields[2].Msg)
	}
	for _, name := range []string{"nope/Nothing", "std_msgs/msg/Nope", "bad name", "remap_msgs/srv/Nothing_Event"} {
		if _, err := reg.Lookup(name); !errors.Is(err, record.ErrUnknownType) {
			t.Errorf("Lookup(%q): %v", name, err)
		}
	}
	var nilReg *Registry
	if _, err := nilReg.Lookup("std_msgs/Header"); !errors.Is(err, record.ErrUnknownType) {
		t.Errorf("nil registry: %v", err)
	}
}

func TestText(t *testing.T) {
	reg := Default()
	read := func(p string) string {
		b, err := fs.ReadFile(embedded, path.Join("defs", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct{ name, want string }{
		{"std_msgs/Header", read("ros1/std_msgs/msg/Header.msg")},
		{"lama_msgs/DescriptorLink", read("ros1/lama_msgs/msg/DescriptorLink.msg")},
		{"lama_msgs/GetPlaceProfile", read("ros1/lama_msgs/srv/GetPlaceProfile.srv")},
		{"remap_msgs/srv/Query", read("ros2/remap_msgs/srv/Query.srv")},
		{"remap_msgs/srv/AddPlugin_Response", "bool success"},
		{"diagnostic_msgs/SelfTestRequest", ""}, // SelfTest.srv starts with its --- line
		{"builtin_interfaces/msg/Time", read("ros2/builtin_interfaces/msg/Time.msg")},
	}
	for _, tc := range tests {
		got, err := reg.Text(tc.name)
		if err != nil || got != tc.want {
			t.Errorf("Text(%s) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := reg.Text("no/Such"); !errors.Is(err, record.ErrUnknownType) {
		t.Errorf("Text(no/Such): %v", err)
	}
}

func TestExpandAction(t *testing.T) {
	sums := genmsgTables(t).action
	dir := t.TempDir()
	if err := writeEmbeddedROS1(filepath.Join(dir, "ros1")); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "ros1", "*", "action", "*.action"))
	if len(files)*7 != len(sums) {
		t.Fatalf("%d actions for %d sums", len(files), len(sums))
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Base(filepath.Dir(filepath.Dir(file)))
		texts, err := ExpandAction(pkg, strings.TrimSuffix(filepath.Base(file), ".action"), string(b))
		if err != nil {
			t.Fatal(err)
		}
		if len(texts) != 7 {
			t.Errorf("%s: %d types", file, len(texts))
		}
		// Parse each generated text as a bundle with the other six; the
		// registry supplies the rest (its copies of the six never win).
		reg := NewRegistry()
		for _, n := range []string{"std_msgs", "actionlib_msgs", "geometry_msgs", "sensor_msgs", "rail_manipulation_msgs", "visualization_msgs", pkg} {
			if err := reg.AddDir(filepath.Join(dir, "ros1", n)); err != nil {
				t.Fatal(err)
			}
		}
		for name, text := range texts {
			sep := strings.Repeat("=", 80)
			bundle := text
			for dep, dtext := range texts {
				if dep != name {
					bundle += "\n" + sep + "\nMSG: " + dep + "\n" + dtext
				}
			}
			typ, err := ParseBundle(name, bundle, ROS1, reg)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := MD5(typ); got != sums[name] {
				t.Errorf("MD5(%s) = %s, genmsg %s", name, got, sums[name])
			}
		}
	}
	for _, text := range []string{"int32 a\n---\nint32 b\n", "a\n---\nb\n---\nc\n---\nd"} {
		if _, err := ExpandAction("p", "A", text); !errors.Is(err, record.ErrFormat) {
			t.Errorf("ExpandAction(%q): %v", text, err)
		}
	}
}

// writeTree writes files (slash paths relative to root).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAddDir(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		// ROS1 by package.xml (catkin), overriding an embedded type.
		"src/one/package.xml":         "<package><buildtool_depend>catkin</buildtool_depend></package>",
		"src/one/msg/Thing.msg":       "Header header\nbyte b\n",
		"src/one/srv/Ask.srv":         "string q\n---\nstring a\n",
		"src/one/action/Do.action":    "int32 goal\n---\nint32 result\n---\nint32 feedback\n",
		"src/std_msgs/msg/Header.msg": "uint32 seq\ntime stamp\nstring frame_id\nint32 extra\n",
		// ROS2 by package.xml.
		"src/two/package.xml":      "<package format=\"3\"><buildtool_depend>ament_cmake</buildtool_depend><member_of_group>rosidl_interface_packages</member_of_group></package>",
		"src/two/msg/Thing.msg":    "byte b\nbuiltin_interfaces/Time t\n",
		"src/two/srv/Ask.srv":      "string q\n---\nstring a\n",
		"src/two/action/Do.action": "int32 goal\n---\nint32 result\n---\nint32 feedback\n",
		// ROS2 by syntax (no package.xml).
		"three/msg/Bounded.msg": "string<=5 s\n",
		"three/msg/Plain.msg":   "int32 x\n",
		// ROS1 by default (no package.xml, nothing ROS2-only).
		"four/msg/Plain.msg": "int32\n", // invalid -> reported
		"four/msg/Ok.msg":    "int32 x\n",
		// Ignored: not in a msg/srv/action dir, hidden dirs.
		"five/Thing.msg":         "garbage",
		".hidden/msg/Hidden.msg": "int32 x\n",
	})
	reg := Default()
	err := reg.AddDir(root)
	if err == nil || !strings.Contains(err.Error(), "four/msg/Plain.msg") || strings.Count(err.Error(), "\n") != 0 {
		t.Errorf("AddDir error = %v, want one error naming four/msg/Plain.msg", err)
	}
	tests := []struct {
		name string
		d    Dialect
		sig  string // signature of the first field
	}{
		{"one/Thing", ROS1, "header struct/ Header -> std_msgs/Header"},
		{"one/AskRequest", ROS1, "q string/string string"},
		{"one/DoActionGoal", ROS1, "header struct/ Header -> std_msgs/Header"},
		{"one/DoGoal", ROS1, "goal int32/int32 int32"},
		{"two/msg/Thing", ROS2, "b uint8/byte byte"},
		{"two/srv/Ask_Response", ROS2, "a string/string string"},
		{"two/srv/Ask_Event", ROS2, "info struct/ service_msgs/msg/ServiceEventInfo -> service_msgs/ServiceEventInfo"},
		{"two/action/Do_Goal", ROS2, "goal int32/int32 int32"},
		{"two/action/Do_GetResult_Response", ROS2, "status int8/int8 int8"},
		{"three/msg/Bounded", ROS2, "s string/string string<=5 str<=5"},
		{"three/msg/Plain", ROS2, "x int32/int32 int32"},
		{"four/Ok", ROS1, "x int32/int32 int32"},
	}
	for _, tc := range tests {
		typ, err := reg.Lookup(tc.name)
		if err != nil {
			t.Errorf("Lookup(%s): %v", tc.name, err)
			continue
		}
		if typ.Dialect != tc.d || fieldSig(&typ.Fields[0]) != tc.sig {
			t.Errorf("Lookup(%s) = %v %s", tc.name, typ.Dialect, fieldSig(&typ.Fields[0]))
		}
	}
	// The user's std_msgs/Header replaced the embedded one, in this registry only.
	h, _ := reg.Lookup("std_msgs/Header")
	if len(h.Fields) != 4 {
		t.Errorf("user Header not used: %d fields", len(h.Fields))
	}
	if h, _ := Default().Lookup("std_msgs/Header"); len(h.Fields) != 3 {
		t.Errorf("Default() changed by AddDir: %d fields", len(h.Fields))
	}
	for _, name := range []string{"five/Thing", "Hidden/Hidden", "four/Plain"} {
		if _, err := reg.Lookup(name); err == nil {
			t.Errorf("Lookup(%s) succeeded", name)
		}
	}
	// A package directory itself can be added.
	pkgReg := NewRegistry()
	if err := pkgReg.AddDir(filepath.Join(root, "three")); err != nil {
		t.Fatal(err)
	}
	if _, err := pkgReg.Lookup("three/msg/Bounded"); err != nil {
		t.Error(err)
	}
	if err := pkgReg.AddDir(filepath.Join(root, "missing")); err == nil {
		t.Error("AddDir of a missing dir succeeded")
	}
}

func TestClone(t *testing.T) {
	a := NewRegistry()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"p/msg/A.msg": "int32 x\n"})
	if err := a.AddDir(root); err != nil {
		t.Fatal(err)
	}
	ta, _ := a.Lookup("p/A")
	b := a.Clone()
	writeTree(t, root, map[string]string{"p/msg/A.msg": "int64 x\n", "p/msg/B.msg": "A a\n"})
	if err := b.AddDir(root); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Lookup("p/A"); got != ta || got.Fields[0].Kind != Int32 {
		t.Errorf("original changed by its clone: %v", got.Fields[0].Kind)
	}
	if _, err := a.Lookup("p/B"); err == nil {
		t.Error("original sees the clone's addition")
	}
	if got, _ := b.Lookup("p/B"); got == nil || got.Fields[0].Msg.Fields[0].Kind != Int64 {
		t.Errorf("clone B: %+v", got)
	}
	var nilReg *Registry
	if c := nilReg.Clone(); c == nil || len(c.Names()) != 0 {
		t.Error("Clone of nil")
	}
}

// TestConcurrentLookup exercises the cache and lazy parsing from many
// goroutines (meaningful under -race).
func TestConcurrentLookup(t *testing.T) {
	reg := Default()
	names := reg.Names()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i, n := range names {
				if (i+g)%3 == 0 {
					continue
				}
				typ, err := reg.Lookup(n)
				if err != nil {
					t.Error(err)
					return
				}
				MD5(typ)
			}
			if g == 0 {
				_ = reg.Clone().AddDir(t.TempDir())
			}
		}(g)
	}
	wg.Wait()
}
