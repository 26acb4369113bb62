package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"gopkg.in/yaml.v3"
)

// cameraBag writes with Debian's rosbag a sensor_msgs/CameraInfo, a
// visualization_msgs/Marker (of the ROS1 definition given, which genpy
// makes a class of at run time: Debian has no visualization_msgs) and a
// ROS1 shape_msgs/SolidPrimitive (its ROS1 definition, unbounded
// dimensions; made the same way).
const cameraBag = `
import sys, rosbag, rospy, genpy.dynamic
from sensor_msgs.msg import CameraInfo
Marker = genpy.dynamic.generate_dynamic('visualization_msgs/Marker', sys.argv[2])['visualization_msgs/Marker']
Solid = genpy.dynamic.generate_dynamic('shape_msgs/SolidPrimitive',
    'uint8 BOX=1\nuint8 SPHERE=2\nuint8 CYLINDER=3\nuint8 CONE=4\nuint8 type\nfloat64[] dimensions\n')['shape_msgs/SolidPrimitive']
with rosbag.Bag(sys.argv[1], 'w') as b:
    c = CameraInfo(height=480, width=640, distortion_model='plumb_bob', D=[0.1, -0.25, 0.001, 0.0, 0.5],
                   K=[500.5, 0, 320, 0, 501, 240, 0, 0, 1], R=[1, 0, 0, 0, 1, 0, 0, 0, 1],
                   P=[500, 0, 320, 0, 0, 501, 240, 0, 0, 0, 1, 0], binning_x=2)
    c.header.frame_id = 'camera_optical'
    c.header.stamp = rospy.Time(1700000000, 5)
    c.roi.width = 64
    b.write('/camera/camera_info', c, rospy.Time(1700000000, 5))
    m = Marker(ns='arm', id=7, type=Marker.MESH_RESOURCE, text='gripper', mesh_resource='package://arm/grip.dae',
               lifetime=rospy.Duration(2, 500), mesh_use_embedded_materials=True)
    m.pose.position.x = 1.5
    m.pose.orientation.w = 1.0
    m.color.a = 0.5
    b.write('/markers', m, rospy.Time(1700000001))
    b.write('/solid', Solid(type=3, dimensions=[0.5, 0.25, 0.125, 9.0]), rospy.Time(1700000002))
`

// TestConvertToROS2DistroLayouts: with --distro, the ROS1 types that
// distribution defines are written in its definitions, as a recording of
// it holds them. On a bag Debian's rosbag wrote, in both storages and for
// Jazzy and Humble, the npm peers read CameraInfo with d, k, r, p (rosbag's
// D, K, R, P) and Marker with the distribution's added fields empty, all
// of rosbag's values kept; metadata.yaml carries the RIHS01 hashes
// rosidl_generator_c gives these types (the EXPECTED_HASH of packages
// built against Jazzy). ROS1's SolidPrimitive, whose unbounded dimensions
// have no place in ROS 2's (bounded to 3), keeps its ROS1 fields and all
// four values, with a warning that says so. Converted back to a bag, both
// are ROS1's again: rosbag reads the md5sums and values it wrote (D, not
// d). Without --distro CameraInfo keeps D.
func TestConvertToROS2DistroLayouts(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2peers", "rosbag")
	dir := t.TempDir()
	src := filepath.Join(dir, "camera.bag")
	marker, err := msgdef.Default().Lookup("visualization_msgs/Marker")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(testenv.Python, "-c", cameraBag, src, msgdef.FullText(marker)).CombinedOutput(); err != nil {
		t.Fatalf("rosbag: %v\n%s", err, out)
	}
	var want []map[string]any
	dec := json.NewDecoder(strings.NewReader(string(ros1Peer(t, "values", src))))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil || len(want) != 3 {
		t.Fatalf("Debian rosbag read %d messages: %v", len(want), err)
	}
	hashes := map[string]string{
		"/camera/camera_info": "RIHS01_b3dfd68ff46c9d56c80fd3bd4ed22c7a4ddce8c8348f2f59c299e73118e7e275",
		"/markers":            "RIHS01_45b13ccf791f225962bf74e746f9644518855d783a6f42ba0cc14fde2b4f3ce0",
	}
	for _, c := range []struct{ distro, storage string }{{"jazzy", "mcap"}, {"humble", "sqlite3"}} {
		t.Run(c.distro, func(t *testing.T) {
			out := filepath.Join(dir, c.distro)
			_, stderr, code := run(t, "convert", "-q", src, out, "--to", "ros2", "--distro", c.distro, "--storage", c.storage)
			if code != 0 {
				t.Fatalf("convert: exit %d: %s", code, stderr)
			}
			if strings.Count(stderr, "warning:") != 1 || !strings.Contains(stderr, "shape_msgs/SolidPrimitive keeps its ROS1 fields") ||
				!strings.Contains(stderr, "dimensions: another type or shape in ROS 2's shape_msgs/msg/SolidPrimitive") {
				t.Errorf("stderr %q: want one warning, for SolidPrimitive's dimensions", stderr)
			}
			got := ros2Peer(t, out)["messages"].([]any)
			if len(got) != len(want) {
				t.Fatalf("the peers read %d messages, want %d", len(got), len(want))
			}
			for i, g := range got {
				g := g.(map[string]any)
				topic := g["topic"].(string)
				wm := jazzyLayout(want[i]["message"])
				if comparePeer(t, topic, g["message"], wm)+comparePeer(t, topic, wm, g["message"]) > 0 {
					continue
				}
				if topic == "/camera/camera_info" && (g["message"].(map[string]any)["d"] == nil || g["message"].(map[string]any)["D"] != nil) {
					t.Errorf("CameraInfo %v: want d, not D", g["message"])
				}
			}
			var meta struct {
				Info struct {
					Topics []struct {
						Meta struct {
							Name string `yaml:"name"`
							Hash string `yaml:"type_description_hash"`
						} `yaml:"topic_metadata"`
					} `yaml:"topics_with_message_count"`
				} `yaml:"rosbag2_bagfile_information"`
			}
			b, err := os.ReadFile(filepath.Join(out, "metadata.yaml"))
			if err == nil {
				err = yaml.Unmarshal(b, &meta)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, tp := range meta.Info.Topics {
				if h, ok := hashes[tp.Meta.Name]; ok && tp.Meta.Hash != h {
					t.Errorf("%s: hash %s, rosidl's %s", tp.Meta.Name, tp.Meta.Hash, h)
				}
			}
		})
	}
	// The way back: CameraInfo is ROS1's again, D and md5sum, as rosbag
	// reads it from the bag it wrote; Marker too, Jazzy's empty texture
	// fields left out without a warning; SolidPrimitive, kept in its ROS1
	// fields, too.
	back := filepath.Join(dir, "back.bag")
	if _, stderr, code := run(t, "convert", "-q", filepath.Join(dir, "jazzy"), back); code != 0 || stderr != "" {
		t.Fatalf("convert back: exit %d: %s", code, stderr)
	}
	headers, backHeaders := ros1Headers(t, src), ros1Headers(t, back)
	for _, topic := range []string{"/camera/camera_info", "/markers", "/solid"} {
		if h := backHeaders[topic]; h.MD5 != headers[topic].MD5 || h.DefinitionMD5 != h.MD5 {
			t.Errorf("%s back in a bag: md5sum %s (genpy's of its definition %s), rosbag's %s", topic, h.MD5, h.DefinitionMD5, headers[topic].MD5)
		}
	}
	var backValues []map[string]any
	dec = json.NewDecoder(strings.NewReader(string(ros1Peer(t, "values", back))))
	dec.UseNumber()
	if err := dec.Decode(&backValues); err != nil || len(backValues) != len(want) {
		t.Fatalf("rosbag read %d messages back: %v", len(backValues), err)
	}
	for i := range want {
		if !reflect.DeepEqual(backValues[i]["message"], want[i]["message"]) {
			t.Errorf("%s back: %v\nrosbag wrote %v", want[i]["topic"], backValues[i]["message"], want[i]["message"])
		}
	}

	out := filepath.Join(dir, "copy")
	if _, stderr, code := run(t, "convert", "-q", src, out, "--to", "ros2"); code != 0 || stderr != "" {
		t.Fatalf("convert without --distro: exit %d: %s", code, stderr)
	}
	if g := ros2Peer(t, out)["messages"].([]any)[0].(map[string]any)["message"].(map[string]any); g["D"] == nil {
		t.Errorf("CameraInfo without --distro %v: want D, as rosbags-convert keeps it", g)
	}
}

// ros1Header is a bag connection as ros1peer.py headers prints it.
type ros1Header struct {
	Type          string `json:"type"`
	MD5           string `json:"md5sum"`
	DefinitionMD5 string `json:"definition_md5sum"` // genpy's, of the definition stored
}

// ros1Headers reads the connections of a bag with Debian's rosbag.
func ros1Headers(t *testing.T, bag string) map[string]ros1Header {
	t.Helper()
	var h map[string]ros1Header
	if err := json.Unmarshal(ros1Peer(t, "headers", bag), &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestConvertROS2MarkersToBag: Jazzy's Marker, which ROS 2 extended with
// texture fields, goes into a bag as ROS1's visualization_msgs/Marker, the
// md5sum (4048c9de…) a ROS1 subscriber checks and genpy computes of the
// definition stored; Debian's rosbag reads every ROS1 field with the values
// the npm peers wrote (texmarker.cjs), and one warning counts the one
// message whose texture fields held data, left out. With
// --keep-ros2-fields the bag keeps them under a definition of their own,
// without a warning.
func TestConvertROS2MarkersToBag(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2defs", "rosbag")
	dir := t.TempDir()
	src := filepath.Join(dir, "markers.mcap")
	wrote, err := exec.Command("node", "testdata/texmarker.cjs", testenv.NodeDir(t), src).Output()
	if err != nil {
		t.Fatalf("texmarker.cjs: %v", err)
	}
	var written []map[string]any
	if err := json.Unmarshal(wrote, &written); err != nil || len(written) != 2 {
		t.Fatalf("texmarker.cjs wrote %d messages: %v", len(written), err)
	}
	out := filepath.Join(dir, "markers.bag")
	_, stderr, code := run(t, "convert", "-q", src, out)
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	if strings.Count(stderr, "warning:") != 1 || !strings.Contains(stderr, "1 message of visualization_msgs/msg/Marker held data in fields ROS1's visualization_msgs/Marker has no place for (texture_resource, texture, uv_coordinates, mesh_file)") {
		t.Errorf("stderr %q: want one warning, of 1 message", stderr)
	}
	if h := ros1Headers(t, out)["/markers"]; h.Type != "visualization_msgs/Marker" || h.MD5 != "4048c9de2a16f4ae8e0538085ebf1b97" || h.DefinitionMD5 != h.MD5 {
		t.Errorf("/markers: %+v, want visualization_msgs/Marker with md5sum 4048c9de2a16f4ae8e0538085ebf1b97", h)
	}
	var got []map[string]any
	if err := json.Unmarshal(ros1Peer(t, "values", out), &got); err != nil || len(got) != 2 {
		t.Fatalf("rosbag read %d messages: %v", len(got), err)
	}
	for i, w := range written {
		for _, f := range []string{"texture_resource", "texture", "uv_coordinates", "mesh_file"} {
			delete(w, f)
		}
		if g := got[i]["message"]; !reflect.DeepEqual(g, w) {
			t.Errorf("message %d: rosbag reads %v\nthe peers wrote %v", i, g, w)
		}
	}

	kept := filepath.Join(dir, "kept.bag")
	if _, stderr, code := run(t, "convert", "-q", src, kept, "--keep-ros2-fields"); code != 0 || stderr != "" {
		t.Fatalf("convert --keep-ros2-fields: exit %d: %s", code, stderr)
	}
	if h := ros1Headers(t, kept)["/markers"]; h.MD5 == "4048c9de2a16f4ae8e0538085ebf1b97" || h.DefinitionMD5 != h.MD5 {
		t.Errorf("/markers with --keep-ros2-fields: %+v, want a definition of its own", h)
	}
	if err := json.Unmarshal(ros1Peer(t, "values", kept), &got); err != nil || len(got) != 2 {
		t.Fatalf("rosbag read %d messages: %v", len(got), err)
	}
	if g := got[1]["message"].(map[string]any); g["texture_resource"] != "embedded://grip.png" {
		t.Errorf("with --keep-ros2-fields rosbag reads %v", g)
	}
	if _, stderr, code := run(t, "convert", "-q", src, filepath.Join(dir, "x.mcap"), "--keep-ros2-fields"); code != 2 || !strings.Contains(stderr, "--keep-ros2-fields applies to a .bag OUT") {
		t.Errorf("--keep-ros2-fields with .mcap OUT: exit %d: %s", code, stderr)
	}
}
