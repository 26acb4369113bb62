package decode

import (
	"errors"
	"math/rand/v2"
	"reflect"
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
		"- {ros1_package_name: a, ros2_package_name: b, ros1_message_name: M, ros2_message_name: N, fields_1_to_2: {a: c, b: c}}",
		"- {ros1_package_name: a, ros2_package_name: 'b c'}", "- {ros1_package_name: a/b, ros2_package_name: c}",
		"- {ros1_package_name: a, ros2_package_name: b, ros1_message_name: M, ros2_message_name: 'msg/N'}",
		"- {ros1_package_name: a, ros2_package_name: b, ros1_message_name: 1M, ros2_message_name: N}"} {
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
	var mk ros2Maker
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
			got, err := mk.equivalent(t1, rn, nil)
			if err != nil {
				t.Fatalf("%s, sections shared: %v", name, err)
			}
			if g, w := string(ros2Bundle(got, &sec)), ROS2Bundle(want); g != w {
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

// TestROS2TypesReadBack: the ROS 2 type ToROS2 converts with is the type
// its bundle reads back as (msgdef.ParseBundle of ros2Bundle), for every
// ROS1 type of the registry: under rosbags-convert's renames, under rules
// that rename a field and a package, and with Native renames against
// Jazzy's definitions (the types of the closure mapped to them, the
// bundle's sections of their names taken from those definitions), all
// made by one ros2Maker, as a Resolver makes them.
func TestROS2TypesReadBack(t *testing.T) {
	jazzy := jazzyRegistry(t)
	rules, err := ParseMappingRules([]byte(`
- {ros1_package_name: lama_msgs, ros1_message_name: Crossing, ros2_package_name: lama_msgs, ros2_message_name: Crossing, fields_1_to_2: {radius: crossing_radius}}
- {ros1_package_name: interactive_world_msgs, ros2_package_name: iw_msgs}
`))
	if err != nil {
		t.Fatal(err)
	}
	var mk ros2Maker
	var sec sections
	n, mapped := 0, 0
	for _, name := range jazzy.Names() {
		t1, err := jazzy.Lookup(name)
		if err != nil || t1.Dialect != msgdef.ROS1 {
			continue
		}
		for _, rn := range []*Renames{nil, rules, (*Renames)(nil).Native(), rules.Native()} {
			m, _, err := rn.mappedTypes(t1, jazzy, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			t2, err := mk.equivalent(t1, rn, m)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if m != nil && m.types[t1.Name] == t2 {
				continue // Jazzy's own definition
			}
			if m != nil {
				mapped++
			}
			back, err := msgdef.ParseBundle(t2.FullName, string(ros2Bundle(t2, &sec)), msgdef.ROS2, nil)
			if err != nil {
				t.Fatalf("%s: its bundle: %v", name, err)
			}
			if !reflect.DeepEqual(back, t2) {
				t.Errorf("%s (renames %p): the bundle reads back as another type", name, rn)
			}
			n++
		}
	}
	if n < 400 || mapped < 50 {
		t.Fatalf("%d types read back, %d with types mapped to Jazzy's: want at least 400 and 50", n, mapped)
	}
}

// TestROS2NameCollision: two ROS1 types that renames make one ROS 2 name
// must make one ROS 2 type: of one layout they do (one definition in the
// bundle), of two they are an error naming both, whether they meet in one
// type's fields, deeper in its closure, or as a type and its own field.
func TestROS2NameCollision(t *testing.T) {
	sep := "\n" + strings.Repeat("=", 80) + "\nMSG: "
	rules, err := ParseMappingRules([]byte(`- {ros1_package_name: collide_b, ros2_package_name: collide_a}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, bundle string
		says         string // "" when it converts
	}{
		{"collide/Same", "collide_a/T a\ncollide_b/T b" + sep + "collide_a/T\nint32 x\n" + sep + "collide_b/T\nint32 x\n", ""},
		{"collide/Fields", "collide_a/T a\ncollide_b/T b" + sep + "collide_a/T\nint32 x\n" + sep + "collide_b/T\nfloat64 y\n", "collide_a/T and collide_b/T both become ROS 2 type collide_a/msg/T"},
		{"collide/Deeper", "collide_a/T a\ncollide/Y y" + sep + "collide_a/T\nint32 x\n" + sep + "collide/Y\ncollide_b/T b\n" + sep + "collide_b/T\nfloat64 y\n", "two types become ROS 2 type collide_a/msg/T, in two layouts"},
		{"collide_b/Own", "collide_a/Own own" + sep + "collide_a/Own\nint32 x\n", "collide_b/Own and collide_a/Own both become ROS 2 type collide_a/msg/Own"},
	} {
		t1, err := msgdef.ParseBundle(c.name, c.bundle, msgdef.ROS1, nil)
		if err != nil {
			t.Fatal(err)
		}
		t2, err := new(ros2Maker).equivalent(t1, rules, nil)
		switch {
		case c.says == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.says == "":
			if a, b := t2.Fields[0].Msg, t2.Fields[1].Msg; a != b || a.FullName != "collide_a/msg/T" {
				t.Errorf("%s: fields of %+v and %+v", c.name, a, b)
			}
		case !errors.Is(err, ErrRules) || !strings.Contains(err.Error(), c.says):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.says)
		}
	}
}

// TestRulesUnfit: rules that do not fit a type are ErrRules naming the
// rule, whether or not the ROS 2 definition is known: a field selection
// naming no field of the ROS1 type, or of its ROS 2 definition, and a
// rename onto another field's name.
func TestRulesUnfit(t *testing.T) {
	jazzy := jazzyRegistry(t)
	for _, c := range []struct{ t1, rule, says string }{
		{"lama_msgs/Crossing", "{radios: r}", "rule for lama_msgs/Crossing: fields_1_to_2 radios: no field radios in lama_msgs/Crossing"},
		{"lama_msgs/Crossing", "{radius: max_range}", "rule for lama_msgs/Crossing: fields_1_to_2: radius and max_range both become field max_range"},
		{"geometry_msgs/Point", "{x: w}", "rule for geometry_msgs/Point: fields_1_to_2 x: w: no field w in geometry_msgs/Point"},
	} {
		pkg, name, _ := strings.Cut(c.t1, "/")
		rn, err := ParseMappingRules([]byte("- {ros1_package_name: " + pkg + ", ros1_message_name: " + name +
			", ros2_package_name: " + pkg + ", ros2_message_name: " + name + ", fields_1_to_2: " + c.rule + "}"))
		if err != nil {
			t.Fatal(err)
		}
		t1, err := jazzy.Lookup(c.t1)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := rn.mappedTypes(t1, jazzy, nil); !errors.Is(err, ErrRules) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %s: %v, want an error saying %q", c.t1, c.rule, err, c.says)
		}
	}
}
