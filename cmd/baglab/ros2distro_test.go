package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// peerHumble encodes ROS 2 messages with npm @foxglove/rosmsg2-serialization
// from the Humble definitions of npm @foxglove/rosmsg-msgs-common (an
// encoder and a set of definitions independent of baglab's) and prints, per
// recording to write, each message's topic, type, time, CDR (hex) and
// values in the shape of baglab cat (uint8[] as base64):
//
//   - humble: the six types issue 26 names, Humble layout;
//   - range: a Humble sensor_msgs/msg/Range (Iron added a field);
//   - early: a Marker as Humble wrote it before its texture and mesh_file
//     fields came (visualization_msgs 4.2.2): it fits no built-in layout;
//   - goals: Kilted's nav_msgs/msg/Goals, from Jazzy's definitions and
//     Goals' fields (ros2/common_interfaces) parsed by npm @foxglove/rosmsg.
const peerHumble = `
const path = require("path");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[1]), "package.json"));
const { MessageWriter } = req("@foxglove/rosmsg2-serialization");
const { ros2humble, ros2jazzy } = req("@foxglove/rosmsg-msgs-common");
const { parse } = req("@foxglove/rosmsg");

const defs = Object.values(ros2humble);
const writerFor = (type, drop = []) => {
  const root = ros2humble[type];
  if (!root) throw new Error("no humble definition of " + type);
  const r = { ...root, definitions: root.definitions.filter((f) => !drop.includes(f.name)) };
  return new MessageWriter([r, ...defs.filter((d) => d.name !== type)]);
};
const cat = (v) => {
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  if (Array.isArray(v)) return v.map(cat);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cat(x)]));
  return v;
};
let t = 1700000000000000000n;
const header = (frame, k) => ({ stamp: { sec: 1700000000 + k, nanosec: 1000 * k + 5 }, frame_id: frame });
const out = { humble: [], range: [], early: [], goals: [] };
const add = (set, topic, type, msg, drop) => {
  t += 10000000n;
  const data = writerFor(type, drop).writeMessage(msg);
  out[set].push({ topic, type: type.replace("/", "/msg/"), timestamp: Number(t), data: Buffer.from(data).toString("hex"), message: cat(msg) });
};
const vec = (x, y, z) => ({ x, y, z });
const quat = (x, y, z, w) => ({ x, y, z, w });
const pose = (k) => ({ position: { x: k, y: -k, z: 0.5 }, orientation: quat(0, 0, 0.5, 0.75) });
const cov = (k) => Array.from({ length: 9 }, (_, i) => 0.25 * i + k);
for (let k = 0; k < 3; k++) {
  add("humble", "/imu", "sensor_msgs/Imu", { header: header("imu", k), orientation: quat(0, 0, 0.5, 0.75 + k),
    orientation_covariance: cov(k), angular_velocity: vec(1.5, -2, 0.125 * k), angular_velocity_covariance: cov(1),
    linear_acceleration: vec(0, 9.75, -k), linear_acceleration_covariance: cov(2) });
  add("humble", "/tf", "tf2_msgs/TFMessage", { transforms: Array.from({ length: k + 1 }, (_, i) => ({
    header: header("map", i), child_frame_id: "link_" + i,
    transform: { translation: vec(i, 2 * i, -0.5), rotation: quat(0, 0, 0, 1) } })) });
  add("humble", "/marker", "visualization_msgs/Marker", { header: header("map", k), ns: "shapes", id: 7 + k, type: 2,
    action: 0, pose: pose(k), scale: vec(1, 0.5, 0.25), color: { r: 1, g: 0.5, b: 0.25, a: 1 },
    lifetime: { sec: 1, nanosec: 500 }, frame_locked: k === 1, points: [vec(1, 2, 3), vec(-1, -2, -3)],
    colors: [{ r: 0, g: 0, b: 1, a: 0.5 }], texture_resource: "embedded://tex",
    texture: { header: header("cam", k), format: "png", data: new Uint8Array([1, 2, 3, k]) },
    uv_coordinates: [{ u: 0.5, v: 0.25 }], text: "hello " + k, mesh_resource: "",
    mesh_file: { filename: "m.stl", data: new Uint8Array([4, 5]) }, mesh_use_embedded_materials: false });
  add("humble", "/goal", "geometry_msgs/PoseStamped", { header: header("odom", k), pose: pose(k) });
  add("humble", "/scan", "sensor_msgs/LaserScan", { header: header("laser", k), angle_min: -1.5, angle_max: 1.5,
    angle_increment: 0.5, time_increment: 0.25, scan_time: 0.125, range_min: 0.0625, range_max: 10,
    ranges: [1, 2, 3.5, 4.25 + k, 8, 9.5, 0.5], intensities: [100, 200, 50, 25, 0, 1, 2] });
  add("humble", "/camera/image", "sensor_msgs/Image", { header: header("cam", k), height: 2, width: 3,
    encoding: "mono8", is_bigendian: 0, step: 3, data: new Uint8Array([0, 1, 2, 250, 251, 252 - k]) });
  add("range", "/range", "sensor_msgs/Range", { header: header("sonar", k), radiation_type: 0, field_of_view: 0.5,
    min_range: 0.25, max_range: 4, range: 1.5 + k });
}
add("early", "/marker", "visualization_msgs/Marker", { header: header("map", 0), ns: "old", id: 1, type: 1,
  action: 0, pose: pose(1), scale: vec(1, 1, 1), color: { r: 1, g: 1, b: 1, a: 1 }, lifetime: { sec: 0, nanosec: 0 },
  frame_locked: false, points: [], colors: [], text: "", mesh_resource: "", mesh_use_embedded_materials: false },
  ["texture_resource", "texture", "uv_coordinates", "mesh_file"]);
const [goalsDef] = parse("std_msgs/Header header\ngeometry_msgs/PoseStamped[] goals\n", { ros2: true, skipTypeFixup: true });
const goalsWriter = new MessageWriter([{ ...goalsDef, name: "nav_msgs/Goals" }, ...Object.values(ros2jazzy)]);
for (let k = 0; k < 3; k++) {
  t += 10000000n;
  const msg = { header: header("map", k), goals: Array.from({ length: k + 1 }, (_, i) => ({ header: header("odom", i), pose: pose(i + k) })) };
  out.goals.push({ topic: "/goals", type: "nav_msgs/msg/Goals", timestamp: Number(t),
    data: Buffer.from(goalsWriter.writeMessage(msg)).toString("hex"), message: cat(msg) });
}
process.stdout.write(JSON.stringify(out));
`

type humblePayload struct {
	Topic     string          `json:"topic"`
	Type      string          `json:"type"`
	Timestamp int64           `json:"timestamp"`
	Data      string          `json:"data"`
	Message   json.RawMessage `json:"message"`
}

// humbleFolders writes the peer's messages as Humble rosbag2 folders
// without definitions (testdata/humble_db3.py, Python's sqlite3): humble,
// early, range and goals with no ros_distro, range-named whose
// metadata.yaml says ros_distro: humble, goals-named ros_distro: kilted.
func humbleFolders(t *testing.T) (string, map[string][]humblePayload) {
	testenv.RequirePeer(t, "node", "rosmsg2", "ros2defs", "sqlite3")
	dir := t.TempDir()
	cmd := exec.Command("node", "-e", peerHumble, testenv.NodeDir(t))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("peer: %v\n%s", err, stderr.String())
	}
	var sets map[string][]humblePayload
	if err := json.Unmarshal(out, &sets); err != nil {
		t.Fatal(err)
	}
	for name, distro := range map[string]string{"humble": "", "early": "", "range": "", "range-named": "humble", "goals": "", "goals-named": "kilted"} {
		set := strings.TrimSuffix(name, "-named")
		js := filepath.Join(dir, set+".json")
		b, _ := json.Marshal(sets[set])
		if err := os.WriteFile(js, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"testdata/humble_db3.py", js, filepath.Join(dir, name)}
		if distro != "" {
			args = append(args, distro)
		}
		if out, err := exec.Command(testenv.Python, args...).CombinedOutput(); err != nil {
			t.Fatalf("humble_db3.py: %v\n%s", err, out)
		}
	}
	return dir, sets
}

// TestHumbleWithoutDefinitions (issue 26 point 4): a Humble rosbag2 folder
// that stores no definitions decodes with --distro humble — and, as these
// six types are alike in every built-in distribution, without it — to the
// values the npm encoder wrote; a type whose fields differ between
// distributions (Range) takes the recording's ros_distro, asks for
// --distro when the recording names none, and a payload that does not fit
// the chosen layout is an error naming the type, the distribution and the
// offset, never garbage. Kilted's nav_msgs/msg/Goals (in no other built-in
// distribution) decodes by the recording's ros_distro or --distro kilted.
func TestHumbleWithoutDefinitions(t *testing.T) {
	dir, sets := humbleFolders(t)
	if d := os.Getenv("BAGLAB_KEEP_HUMBLE"); d != "" {
		exec.Command("cp", "-r", dir, d).Run()
	}
	check := func(what, folder string, want []humblePayload, args ...string) {
		t.Helper()
		out, stderr, code := run(t, append([]string{"cat", filepath.Join(dir, folder)}, args...)...)
		lines := parseCat(t, out)
		if code != 0 || len(lines) != len(want) {
			t.Fatalf("%s: exit %d, %d of %d messages: %s", what, code, len(lines), len(want), stderr)
		}
		types := map[string]bool{}
		for i, l := range lines {
			w := want[i]
			types[w.Type] = true
			var got, exp any
			json.Unmarshal(l.Message, &got)
			json.Unmarshal(w.Message, &exp)
			if l.Topic != w.Topic || l.Type != w.Type || l.LogTimeNs != w.Timestamp || !reflect.DeepEqual(got, exp) {
				t.Errorf("%s: message %d: %s %s %d\n got %s\nwant %s", what, i, l.Topic, l.Type, l.LogTimeNs, l.Message, w.Message)
			}
		}
		if !strings.Contains(stderr, "stores no definition") || !strings.Contains(stderr, "built-in definition of ROS 2") {
			t.Errorf("%s: no note of the built-in definitions: %s", what, stderr)
		}
		if len(types) != len(want)/3 {
			t.Errorf("%s: %d types", what, len(types))
		}
	}
	check("--distro humble", "humble", sets["humble"], "--distro", "humble")
	check("no --distro", "humble", sets["humble"])
	check("ros_distro: humble", "range-named", sets["range"])
	check("--distro humble", "range", sets["range"], "--distro", "humble")
	check("ros_distro: kilted", "goals-named", sets["goals"])
	check("--distro kilted", "goals", sets["goals"], "--distro", "kilted")

	for _, c := range []struct {
		what, folder string
		args, want   []string
	}{
		{"Range, no distribution named", "range", nil, []string{"sensor_msgs/msg/Range", "--distro"}},
		{"Humble Range read as Jazzy", "range-named", []string{"--distro", "jazzy"}, []string{"sensor_msgs/msg/Range", "ROS 2 jazzy", "byte 40", "--distro"}},
		{"early Humble Marker", "early", []string{"--distro", "humble"}, []string{"visualization_msgs/msg/Marker", "ROS 2 humble", "byte 172", "--distro"}},
		{"Kilted's Goals, no distribution named", "goals", nil, []string{"nav_msgs/msg/Goals", "only in ROS 2 kilted", "--distro"}},
	} {
		out, stderr, code := run(t, append([]string{"cat", filepath.Join(dir, c.folder)}, c.args...)...)
		if code != exitBadInput || out != "" {
			t.Errorf("%s: exit %d, stdout %q: %s", c.what, code, out, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: %q lacks %q", c.what, stderr, w)
			}
		}
	}
}

// TestDoctorReadsAsCat: doctor resolves definitions as cat does — a
// recording whose metadata names ros_distro: humble decodes with Humble's
// built-in Range in both (doctor reported "no built-in definition without
// --distro" before, while cat decoded every message), and --distro and a
// recording naming none give both the same verdict.
func TestDoctorReadsAsCat(t *testing.T) {
	dir, _ := humbleFolders(t)
	for _, c := range []struct {
		what, folder string
		args         []string
		ok           bool
		want         string
	}{
		{"ros_distro: humble", "range-named", nil, true, ""},
		{"Range, no distribution named", "range", nil, false, "--distro"},
		{"Humble Range read as Jazzy", "range-named", []string{"--distro", "jazzy"}, false, "byte 40"},
	} {
		path := filepath.Join(dir, c.folder)
		_, catErr, catCode := run(t, append([]string{"cat", path}, c.args...)...)
		out, stderr, code := run(t, append([]string{"doctor", path}, c.args...)...)
		if (catCode == exitOK) != c.ok || (code == exitOK) != c.ok {
			t.Errorf("%s: cat exit %d, doctor exit %d, want both ok=%v:\ncat: %s\ndoctor: %s%s", c.what, catCode, code, c.ok, catErr, out, stderr)
			continue
		}
		if c.ok && out != path+": ok\n" {
			t.Errorf("%s: doctor says %q", c.what, out)
		}
		if !c.ok && (!strings.Contains(out, c.want) || !strings.Contains(catErr, c.want)) {
			t.Errorf("%s: want %q in both:\ncat: %s\ndoctor: %s", c.what, c.want, catErr, out)
		}
	}
}

// peerServiceEvents writes an MCAP as rosbag2 records the events of
// services that use no other types (remap_msgs AddPlugin and RemovePlugin):
// schema encoding "unknown" and the bare .srv text; npm @mcap/core writes
// the file, @foxglove/rosmsg2-serialization the CDR of each event. It prints
// the events in the shape of baglab cat.
const peerServiceEvents = `
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[1]), "package.json"));
const { McapWriter } = req("@mcap/core");
const { parse } = req("@foxglove/rosmsg");
const { MessageWriter } = req("@foxglove/rosmsg2-serialization");

const SEP = "================================================================================\n";
const INFO = SEP + "MSG: service_msgs/ServiceEventInfo\nuint8 event_type\nbuiltin_interfaces/Time stamp\nuint8[16] client_gid\nint64 sequence_number\n" +
  SEP + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n";
const services = [
  { name: "AddPlugin", topic: "/remap/plugin_manager/add_plugin/_service_event", req: "string plugin_name\nbool threaded\n", resp: "bool success\n",
    request: (k) => ({ plugin_name: "regions_" + k, threaded: k % 2 === 0 }) },
  { name: "RemovePlugin", topic: "/remap/plugin_manager/remove_plugin/_service_event", req: "string plugin_name\n", resp: "bool success\n",
    request: (k) => ({ plugin_name: "regions_" + k }) },
];
(async () => {
  const fh = await fs.promises.open(process.argv[2], "w");
  let pos = 0;
  const w = new McapWriter({ writable: { position: () => BigInt(pos), write: async (b) => { await fh.write(b); pos += b.length; } } });
  await w.start({ profile: "ros2", library: "rosbag2" });
  const out = [];
  let t = 1714564800000000000n;
  for (const s of services) {
    const ev = "service_msgs/ServiceEventInfo info\nremap_msgs/" + s.name + "_Request[<=1] request\nremap_msgs/" + s.name + "_Response[<=1] response\n" +
      INFO + SEP + "MSG: remap_msgs/" + s.name + "_Request\n" + s.req + SEP + "MSG: remap_msgs/" + s.name + "_Response\n" + s.resp;
    const writer = new MessageWriter(parse(ev, { ros2: true }));
    const schemaId = await w.registerSchema({ name: "remap_msgs/srv/" + s.name + "_Event", encoding: "unknown",
      data: new TextEncoder().encode(s.req + "---\n" + s.resp) });
    const channelId = await w.registerChannel({ topic: s.topic, schemaId, messageEncoding: "cdr",
      metadata: new Map([["offered_qos_profiles", ""]]) });
    for (let k = 0; k < 4; k++) {
      t += 1000000n;
      const gid = Array.from({ length: 16 }, (_, i) => (i * 7 + k) & 0xff);
      const msg = { info: { event_type: k, stamp: { sec: 1714564800, nanosec: k * 1000 }, client_gid: new Uint8Array(gid), sequence_number: BigInt(k + 1) },
        request: k < 2 ? [s.request(k)] : [], response: k >= 2 ? [{ success: k === 2 }] : [] };
      await w.addMessage({ channelId, sequence: k, logTime: t, publishTime: t, data: writer.writeMessage(msg) });
      out.push({ topic: s.topic, type: "remap_msgs/srv/" + s.name + "_Event", log_time_ns: Number(t),
        message: { info: { event_type: k, stamp: msg.info.stamp, client_gid: Buffer.from(gid).toString("base64"), sequence_number: k + 1 },
          request: msg.request, response: msg.response } });
    }
  }
  await w.end();
  await fh.close();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestServiceEventUnknownEncoding (issue 31 point 11): rosbag2 stores the
// event type of a service that uses no other types with schema encoding
// "unknown" and the .srv text; every such event of a service resolves
// (ServiceEventInfo + request[<=1] + response[<=1]) and decodes to what the
// npm encoder wrote.
func TestServiceEventUnknownEncoding(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2")
	path := filepath.Join(t.TempDir(), "services.mcap")
	cmd := exec.Command("node", "-e", peerServiceEvents, testenv.NodeDir(t), path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	peer, err := cmd.Output()
	if err != nil {
		t.Fatalf("peer: %v\n%s", err, stderr.String())
	}
	var want []map[string]any
	if err := json.Unmarshal(peer, &want); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "cat", path)
	lines := parseCat(t, out)
	if code != 0 || len(lines) != len(want) || len(want) != 8 {
		t.Fatalf("exit %d, %d of %d messages: %s", code, len(lines), len(want), errOut)
	}
	for i, l := range lines {
		var got any
		json.Unmarshal(l.Message, &got)
		if l.Topic != want[i]["topic"] || l.Type != want[i]["type"] || float64(l.LogTimeNs) != want[i]["log_time_ns"] || !reflect.DeepEqual(got, want[i]["message"]) {
			t.Errorf("message %d: %s %s %d %s\nwant %v", i, l.Topic, l.Type, l.LogTimeNs, l.Message, want[i])
		}
	}
}

// TestReconvertROS2: a Humble recording that stores no definitions,
// converted to rosbag2 (both storages), reads back through the peers
// (@mcap/core or sql.js, @foxglove/rosmsg, rosmsg2-serialization) with
// the values the npm encoder wrote: rosmsg parses the definitions the
// conversion stores (it refused them before, a field of type
// std_msgs/Header not matching the section MSG: std_msgs/msg/Header),
// Marker's fields of its own package's types included, and Range takes
// its Humble layout. The new metadata.yaml (js-yaml) names the
// distribution the input was recorded with: the one it names, or
// --distro's; inputs that name none, or name different ones, give none.
// Before, the ros_distro written was --distro's alone, "" without it.
func TestReconvertROS2(t *testing.T) {
	testenv.RequirePeer(t, "mcap", "ros2peers")
	dir, sets := humbleFolders(t)
	bag := studyFile("all_types.bag")
	for _, c := range []struct {
		what, set string
		inputs    []string
		args      []string
		want      string
	}{
		{"six types, --distro humble", "humble", []string{"humble"}, []string{"--distro", "humble"}, "humble"},
		{"named humble", "range", []string{"range-named"}, nil, "humble"},
		{"named humble, sqlite3", "range", []string{"range-named"}, []string{"--storage", "sqlite3"}, "humble"},
		{"--distro humble", "range", []string{"range"}, []string{"--distro", "humble"}, "humble"},
		{"named humble and a bag", "range", []string{"range-named", bag}, nil, ""},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"convert"}
		for _, in := range c.inputs {
			if !filepath.IsAbs(in) {
				in = filepath.Join(dir, in)
			}
			args = append(args, in)
		}
		args = append(append(args, out, "--to", "ros2"), c.args...)
		if _, stderr, code := run(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.what, code, stderr)
		}
		peer := ros2Peer(t, out)
		info := peer["metadata"].(map[string]any)["rosbag2_bagfile_information"].(map[string]any)
		if info["ros_distro"] != c.want {
			t.Errorf("%s: ros_distro %q, want %q", c.what, info["ros_distro"], c.want)
		}
		want := sets[c.set]
		topics := map[string]bool{}
		for _, w := range want {
			topics[w.Topic] = true
		}
		var got []map[string]any
		for _, m := range peer["messages"].([]any) {
			if m := m.(map[string]any); topics[m["topic"].(string)] {
				got = append(got, m)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: the peers read %d messages of %s, want %d", c.what, len(got), c.set, len(want))
		}
		for i, w := range want {
			var exp any
			dec := json.NewDecoder(strings.NewReader(string(w.Message)))
			dec.UseNumber()
			if err := dec.Decode(&exp); err != nil {
				t.Fatal(err)
			}
			if got[i]["type"] != w.Type || comparePeer(t, w.Topic, got[i]["message"], exp) > 0 {
				t.Errorf("%s: message %d (%s %s) differs", c.what, i, got[i]["topic"], got[i]["type"])
			}
		}
	}
}
