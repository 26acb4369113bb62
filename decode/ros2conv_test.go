package decode

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestROS2EquivalentHashes: the ROS 2 type a ROS1 common type converts to
// has the RIHS01 hash of the real ROS 2 type (the built-in Jazzy
// definition; rosidl's own hash of builtin_interfaces/msg/Time is checked
// in msgdef): names, field types, byte and the Header without seq all
// agree. (A ROS1 Marker lacks ROS 2's texture and mesh fields: its hash
// differs, rightly.)
func TestROS2EquivalentHashes(t *testing.T) {
	reg := msgdef.Default()
	jazzy := jazzyRegistry(t)
	for _, name := range []string{"std_msgs/Header", "geometry_msgs/PoseStamped", "geometry_msgs/TransformStamped",
		"sensor_msgs/Imu", "sensor_msgs/Image", "sensor_msgs/LaserScan", "sensor_msgs/PointCloud2",
		"diagnostic_msgs/DiagnosticArray", "std_msgs/Empty"} {
		t1, err := reg.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		t2, err := ROS2Equivalent(t1, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		full := strings.Replace(name, "/", "/msg/", 1)
		want, err := jazzy.Lookup(full)
		if err != nil {
			t.Fatal(err)
		}
		if t2.FullName != full {
			t.Errorf("%s: ROS 2 name %s", name, t2.FullName)
		}
		if got, w := msgdef.TypeHash(t2), msgdef.TypeHash(want); got != w {
			t.Errorf("%s: hash %s, ROS 2's %s", name, got, w)
		}
	}
}

// TestMappingRules: ros1_bridge's rule format renames packages, messages
// and fields (selections through nested messages); bad rules are errors
// naming the rule.
func TestMappingRules(t *testing.T) {
	rn, err := ParseMappingRules([]byte(`
-
  ros1_package_name: 'uuid_msgs'
  ros1_message_name: 'UniqueID'
  ros2_package_name: 'unique_identifier_msgs'
  ros2_message_name: 'UUID'
  fields_1_to_2:
    uuid: 'uuid'
-
  ros1_package_name: 'lama_msgs'
  ros2_package_name: 'lama_interfaces'
-
  ros1_package_name: 'x'
  ros1_service_name: 'S'
  ros2_package_name: 'y'
  ros2_service_name: 'S'
`))
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"uuid_msgs/UniqueID": "unique_identifier_msgs/UUID", "lama_msgs/Crossing": "lama_interfaces/Crossing",
		"tf/tfMessage": "tf2_msgs/TFMessage", "geometry_msgs/Pose": "geometry_msgs/Pose"} {
		if got := rn.ros2Name(in); got != want {
			t.Errorf("%s -> %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"- {ros1_package_name: a}", "- {ros1_package_name: a, ros2_package_name: b, ros1_message_name: M}",
		"- {ros1_package_name: a, ros2_package_name: b, fields_1_to_2: {x: y}}", "{not: a list}",
		"- {ros1_package_name: a, ros2_package_name: b, ros1_message_name: M, ros2_message_name: N, fields_1_to_2: {a..b: c}}",
		"- {ros1_package_name: a, ros2_package_name: b, ros1_message_name: M, ros2_message_name: N, fields_1_to_2: {'a[0]': c}}",
		"- {ros1_package_name: a, ros2_package_name: b, ros1_message_name: M, ros2_message_name: N, fields_1_to_2: {a: c, b: c}}"} {
		if _, err := ParseMappingRules([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseMappingRules: any rules text parses or fails with an error,
// never panics.
func FuzzParseMappingRules(f *testing.F) {
	f.Add([]byte("- {ros1_package_name: a, ros2_package_name: b}\n"))
	f.Add([]byte("- {ros1_package_name: a, ros1_message_name: M, ros2_package_name: b, ros2_message_name: N, fields_1_to_2: {x: y}}\n"))
	f.Add([]byte("- {ros1_package_name: a, ros1_message_name: M, ros2_package_name: b, ros2_message_name: N, fields_1_to_2: {header.stamp: stamp, v: data.data}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rn, err := ParseMappingRules(data)
		if err == nil && rn == nil {
			t.Fatal("nil rules without an error")
		}
	})
}

// longRefsByRegexp is longRefs as first written, with the regular
// expression ^(\s*)([A-Za-z]\w*)/([A-Za-z]\w*)([\s\[<]) replaced by
// "$1$2/msg/$3$4" on every line.
func longRefsByRegexp(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = qualifiedRefRegexp.ReplaceAllString(l, "$1$2/msg/$3$4")
	}
	return strings.Join(lines, "\n")
}

var qualifiedRefRegexp = regexp.MustCompile(`^(\s*)([A-Za-z]\w*)/([A-Za-z]\w*)([\s\[<])`)

// TestLongRefs: the field types pkg/Type of a definition text become
// pkg/msg/Type, and nothing else changes, line for line as
// longRefsByRegexp rewrites them, on fixed lines and on 20,000 random
// ones.
func TestLongRefs(t *testing.T) {
	byRegexp := longRefsByRegexp
	fixed := map[string]string{
		"std_msgs/Header header":                "std_msgs/msg/Header header",
		"  geometry_msgs/Pose[] poses":          "  geometry_msgs/msg/Pose[] poses",
		"\tpkg/Type[<=3] x\r":                   "\tpkg/msg/Type[<=3] x\r",
		"pkg/Type<x":                            "pkg/msg/Type<x",
		"pkg/msg/Type x":                        "pkg/msg/Type x",
		"Header header\nstring<=5 name":         "Header header\nstring<=5 name",
		"# pkg/Type x\n1pkg/Type x\npkg/Type":   "# pkg/Type x\n1pkg/Type x\npkg/Type",
		"a/B c\n\nx_1/Y_2 d # e/F g\n\n\n":      "a/msg/B c\n\nx_1/msg/Y_2 d # e/F g",
		"pkg/Type\r\nuint8 A=1\n pkg/T2[4] arr": "pkg/msg/Type\r\nuint8 A=1\n pkg/msg/T2[4] arr",
	}
	for in, want := range fixed {
		if got := longRefs(in); got != want || got != byRegexp(in) {
			t.Errorf("longRefs(%q) = %q, want %q (the regular expression: %q)", in, got, want, byRegexp(in))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ_1/ \t\r\f[<=#\n"
	for range 20000 {
		b := make([]byte, rng.IntN(16))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if got, want := longRefs(string(b)), byRegexp(string(b)); got != want {
			t.Fatalf("longRefs(%q) = %q, the regular expression gives %q", b, got, want)
		}
	}
}

// FuzzLongRefs: longRefs rewrites any text as longRefsByRegexp does.
func FuzzLongRefs(f *testing.F) {
	f.Add("std_msgs/Header header\n  geometry_msgs/Pose[<=3] poses\r\n# a/B c\n")
	f.Add("pkg/msg/Type x\n1pkg/Type x\npkg/Type")
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := longRefs(text), longRefsByRegexp(text); got != want {
			t.Fatalf("longRefs(%q) = %q, the regular expression gives %q", text, got, want)
		}
	})
}

// TestSectionsShared: the ROS 2 definitions, bundles and hashes made with
// one memo of sections shared by every type converted (as a Resolver
// shares it) are those made without it, type by type, under
// rosbags-convert's renames and under rules that rename a field of a type
// many others hold (geometry_msgs/Point), whose section then differs.
func TestSectionsShared(t *testing.T) {
	reg := msgdef.Default()
	renamed, err := ParseMappingRules([]byte(`
-
  ros1_package_name: 'geometry_msgs'
  ros1_message_name: 'Point'
  ros2_package_name: 'geometry_msgs'
  ros2_message_name: 'Point'
  fields_1_to_2:
    x: 'x_renamed'
`))
	if err != nil {
		t.Fatal(err)
	}
	var sec sections
	n, differ := 0, 0
	for _, name := range reg.Names() {
		t1, err := reg.Lookup(name)
		if err != nil || t1.Dialect != msgdef.ROS1 {
			continue
		}
		var bundles []string
		for _, rn := range []*Renames{nil, renamed} {
			want, err := ROS2Equivalent(t1, rn)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := ros2Equivalent(t1, rn, nil, &sec)
			if err != nil {
				t.Fatalf("%s, sections shared: %v", name, err)
			}
			if g, w := ros2Bundle(got, &sec), ROS2Bundle(want); g != w {
				t.Errorf("%s (renames %p): bundle with sections shared differs: %s", name, rn, testenv.FirstDiff(g, w))
			}
			if g, w := msgdef.TypeHash(got), msgdef.TypeHash(want); g != w {
				t.Errorf("%s (renames %p): hash %s with sections shared, %s without", name, rn, g, w)
			}
			bundles = append(bundles, ROS2Bundle(want))
			n++
		}
		if bundles[0] != bundles[1] {
			differ++
		}
	}
	if n < 200 || differ < 10 {
		t.Fatalf("%d conversions, %d types whose bundle the rule changes: want at least 200 and 10", n, differ)
	}
}
