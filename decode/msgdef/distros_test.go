package msgdef

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/record"
)

// TestDistroDefinitions: every built-in definition of every distribution
// parses and resolves within its distribution, and each holds the common
// interfaces issue 26 names.
func TestDistroDefinitions(t *testing.T) {
	for _, d := range Distros() {
		msgs := layerFor(d).loaded()
		if len(msgs) < 140 {
			t.Errorf("%s: %d types, want the common interfaces (>= 140)", d, len(msgs))
		}
		reg := Default()
		if err := reg.SetDistro(d); err != nil {
			t.Fatal(err)
		}
		if reg.Distro() != d {
			t.Errorf("Distro() = %q, want %q", reg.Distro(), d)
		}
		for name, src := range msgs {
			typ, err := reg.Lookup(src.fullName)
			if err != nil {
				t.Errorf("%s: %s: %v", d, name, err)
				continue
			}
			if typ.Dialect != ROS2 || typ.Distro != d && !strings.HasPrefix(name, "builtin_interfaces/") { // those are Default's own
				t.Errorf("%s: %s: dialect %v distro %q", d, name, typ.Dialect, typ.Distro)
			}
		}
		for _, name := range []string{"builtin_interfaces/msg/Time", "std_msgs/msg/Header", "geometry_msgs/msg/PoseStamped",
			"sensor_msgs/msg/Imu", "sensor_msgs/msg/LaserScan", "sensor_msgs/msg/Image", "nav_msgs/msg/Odometry",
			"tf2_msgs/msg/TFMessage", "visualization_msgs/msg/MarkerArray", "diagnostic_msgs/msg/DiagnosticArray",
			"action_msgs/msg/GoalStatusArray", "rcl_interfaces/msg/Log", "rcl_interfaces/msg/ParameterEvent"} {
			if _, err := reg.Lookup(name); err != nil {
				t.Errorf("%s: %v", d, err)
			}
		}
	}
}

// TestDistroLayouts: a type whose fields differ between distributions
// (sensor_msgs/Range gained variance in Iron) needs a distribution, and
// each gives its own layout; a type they define alike resolves without
// one; Marker's constants follow the distribution (ARROW_STRIP is Jazzy's);
// nav_msgs/msg/Goals is Kilted's alone.
func TestDistroLayouts(t *testing.T) {
	reg := Default()
	_, err := reg.Lookup("sensor_msgs/msg/Range")
	if !errors.Is(err, record.ErrUnknownType) || !strings.Contains(err.Error(), "--distro") || !strings.Contains(err.Error(), "differ") {
		t.Errorf("Range without a distribution: %v", err)
	}
	if _, err := reg.Lookup("geometry_msgs/msg/VelocityStamped"); err == nil || !strings.Contains(err.Error(), "only in ROS 2 jazzy, kilted") {
		t.Errorf("VelocityStamped without a distribution: %v", err)
	}
	if _, err := reg.Lookup("nav_msgs/msg/Goals"); err == nil || !strings.Contains(err.Error(), "only in ROS 2 kilted") {
		t.Errorf("Goals without a distribution: %v", err)
	}
	imu, err := reg.Lookup("sensor_msgs/msg/Imu")
	if err != nil || imu.Distro != "humble, iron, jazzy, kilted" {
		t.Fatalf("Imu without a distribution: %v %+v", err, imu)
	}
	want := map[string]struct {
		rangeVariance, arrowStrip bool
	}{"humble": {false, false}, "iron": {true, false}, "jazzy": {true, true}, "kilted": {true, true}}
	for d, w := range want {
		r := Default()
		if err := r.SetDistro(d); err != nil {
			t.Fatal(err)
		}
		rng, err := r.Lookup("sensor_msgs/msg/Range")
		if err != nil {
			t.Fatal(err)
		}
		if got := rng.Field("variance") != nil; got != w.rangeVariance {
			t.Errorf("%s: Range has variance %v", d, got)
		}
		m, err := r.Lookup("visualization_msgs/msg/Marker")
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, c := range m.Constants {
			got = got || c.Name == "ARROW_STRIP"
		}
		if got != w.arrowStrip || m.Field("mesh_file") == nil || m.Distro != d {
			t.Errorf("%s: Marker ARROW_STRIP %v, mesh_file %v, distro %q", d, got, m.Field("mesh_file") != nil, m.Distro)
		}
		// nav_msgs/Goals is Kilted's (rosbags' ros2_kilted typestore)
		goals, err := r.Lookup("nav_msgs/msg/Goals")
		if d != "kilted" {
			if err == nil {
				t.Errorf("%s: Goals resolves", d)
			}
		} else if err != nil || len(goals.Fields) != 2 || goals.Fields[1].Msg == nil || goals.Fields[1].Msg.FullName != "geometry_msgs/msg/PoseStamped" || goals.Fields[1].Array != Sequence {
			t.Errorf("kilted: Goals %v %+v", err, goals)
		}
	}
	if err := reg.SetDistro("rolling"); !errors.Is(err, record.ErrUnsupported) {
		t.Errorf("SetDistro(rolling): %v", err)
	}
}

// TestDistroOwnWins: a definition of the registry's own (--msg-path)
// wins over the built-in distribution's.
func TestDistroOwnWins(t *testing.T) {
	reg := Default()
	if err := reg.SetDistro("humble"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir+"/sensor_msgs/package.xml", "<package><buildtool_depend>ament_cmake</buildtool_depend></package>")
	writeFile(t, dir+"/sensor_msgs/msg/Range.msg", "float32 only\n")
	if err := reg.AddDir(dir); err != nil {
		t.Fatal(err)
	}
	rng, err := reg.Lookup("sensor_msgs/msg/Range")
	if err != nil || len(rng.Fields) != 1 || rng.Distro != "" {
		t.Fatalf("%v %+v", err, rng)
	}
}

// TestDistroFiles: each distribution's file is the one gendistros wrote
// (its sha256 in distros/PROVENANCE.md) and reads into as many types as
// it wrote .msg files into it: no section is lost or merged when split.
func TestDistroFiles(t *testing.T) {
	prov, err := os.ReadFile("distros/PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, line := range strings.Split(string(prov), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 || !IsDistro(cells[0]) {
			continue
		}
		listed++
		d, files, sum := cells[0], cells[1], cells[2]
		b, err := ros2Common.ReadFile("distros/" + d + ".msgs")
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != sum {
			t.Errorf("%s: sha256 %s, PROVENANCE.md says %s (run gendistros, do not edit by hand)", d, got, sum)
		}
		if n := len(unpackDistro(d)); strconv.Itoa(n) != files {
			t.Errorf("%s: %d types read, PROVENANCE.md says %s .msg files", d, n, files)
		}
	}
	if listed != len(Distros()) {
		t.Errorf("PROVENANCE.md lists %d of the %d distributions", listed, len(Distros()))
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkUnpackDistro reads jazzy's bundle: what a run with
// --distro jazzy spends before its first ROS 2 lookup.
func BenchmarkUnpackDistro(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if n := len(unpackDistro("jazzy")); n != 151 {
			b.Fatalf("%d types", n)
		}
	}
}
