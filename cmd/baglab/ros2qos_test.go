package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// rmwNames are the names metadata.yaml version 9 gives the values of each
// QoS policy, by their rmw enum value (rmw/types.h; rosbags.interfaces
// lists the same).
var rmwNames = map[string][]string{
	"history":     {"system_default", "keep_last", "keep_all", "unknown"},
	"reliability": {"system_default", "reliable", "best_effort", "unknown", "best_available"},
	"durability":  {"system_default", "transient_local", "volatile", "unknown", "best_available"},
	"liveliness":  {"system_default", "automatic", "manual_by_node", "manual_by_topic", "unknown", "best_available"},
}

// qosByName is a list of offered QoS profiles as the peers parsed it
// (null for none), each policy value given as its rmw name.
func qosByName(t *testing.T, profiles any) []any {
	t.Helper()
	out := []any{}
	if profiles == nil {
		return out
	}
	list, ok := profiles.([]any)
	if !ok {
		t.Fatalf("offered_qos_profiles %v: not a list", profiles)
	}
	for _, p := range list {
		named := map[string]any{}
		for k, v := range p.(map[string]any) {
			if names, ok := rmwNames[k]; ok {
				if n, err := v.(json.Number).Int64(); err == nil && n < int64(len(names)) {
					v = names[n]
				}
			}
			named[k] = v
		}
		out = append(out, named)
	}
	return out
}

// TestConvertROS2KeepsQoS: a ROS 2 recording converted to rosbag2 again
// (to the other storage, or a selection of its topics) keeps what each
// publisher offered, as rosbags-convert does. Three recordings real
// rosbag2 wrote give the profiles as rmw's numbers, with the durations of
// three releases (0, INT64_MAX ns, INT32_MAX s), keep-last depths and
// /rosout's 10 s lifespan; the npm peers (js-yaml on
// metadata.yaml and on each split's profiles, @mcap/core, sql.js) read
// them back from both storages in version 9's form, each value by its
// name. Before, every topic came out with no profile, or with rosbags'
// latched one when transient-local.
func TestConvertROS2KeepsQoS(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2peers")
	dir := t.TempDir()
	for _, in := range []string{
		testenv.Fixtures(t, "rosbag2", "rosbag2_py", "talker"),
		testenv.Fixtures(t, "rosbag2", "rosbag2_py", "convert_b"),
		testenv.Fixtures(t, "rosbag2", "rosbag2_tests", "cdr_test"),
	} {
		want := map[string][]any{} // topic → profiles, as the peers read the input
		for _, f := range ros2Peer(t, in)["files"].(map[string]any) {
			for topic, tp := range f.(map[string]any)["topics"].(map[string]any) {
				want[topic] = qosByName(t, tp.(map[string]any)["qos"])
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: the peers read no topic", in)
		}
		for _, storage := range []string{"mcap", "sqlite3"} {
			out := filepath.Join(dir, filepath.Base(in)+"-"+storage)
			if _, stderr, code := run(t, "convert", in, out, "--to", "ros2", "--storage", storage); code != 0 {
				t.Fatalf("convert %s: exit %d: %s", in, code, stderr)
			}
			peer := ros2Peer(t, out)
			check := func(where, topic string, got any) {
				t.Helper()
				if got == nil { // "" in a split: none
					got = []any{}
				}
				if profiles, ok := got.([]any); !ok || !reflect.DeepEqual(profiles, want[topic]) {
					t.Errorf("%s, %s: %s: offered_qos_profiles\n got %v\nwant %v", filepath.Base(in), where, topic, got, want[topic])
				}
			}
			info := peer["metadata"].(map[string]any)["rosbag2_bagfile_information"].(map[string]any)
			for _, tp := range info["topics_with_message_count"].([]any) {
				m := tp.(map[string]any)["topic_metadata"].(map[string]any)
				check(storage+" metadata.yaml", m["name"].(string), m["offered_qos_profiles"])
			}
			for name, f := range peer["files"].(map[string]any) {
				for topic, tp := range f.(map[string]any)["topics"].(map[string]any) {
					check(fmt.Sprintf("%s %s", storage, name), topic, tp.(map[string]any)["qos"])
				}
			}
		}
	}
}

// TestConvertKeepsCustomData: the custom_data of a ROS 2 recording
// (ros2 bag record --custom-data) reaches the rosbag2 folder convert
// writes, in both storages, as npm js-yaml reads it from the input's and
// the output's metadata.yaml and from the metadata each split stores: the
// "rosbag2" record of an MCAP split (@mcap/core), the metadata table of a
// sqlite3 split (sql.js), the last split's the same as metadata.yaml. A
// one-file .db3 or .mcap output converted again keeps it too (the .db3
// lost it before its metadata table was read). Two recordings merged give
// every key, the first one's value where they differ, and a warning
// naming the key. Before, custom_data was always written as none.
func TestConvertKeepsCustomData(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2peers")
	dir := t.TempDir()
	a := withCustomData(t, filepath.Join(dir, "a"), "experiment: grasp 12", `operator: "rl: 2"`)
	b := withCustomData(t, filepath.Join(dir, "b"), "experiment: grasp 13", "site: lab 3")
	want := peerMetadataYAML(t, a)["custom_data"].(map[string]any)
	for _, storage := range []string{"mcap", "sqlite3"} {
		out := filepath.Join(dir, "out-"+storage)
		if _, stderr, code := run(t, "convert", a, out, "--to", "ros2", "--storage", storage); code != 0 {
			t.Fatalf("convert: exit %d: %s", code, stderr)
		}
		peer := ros2Peer(t, out)
		info := peer["metadata"].(map[string]any)["rosbag2_bagfile_information"].(map[string]any)
		if !reflect.DeepEqual(info["custom_data"], any(want)) {
			t.Errorf("%s: custom_data %v, the input's %v", storage, info["custom_data"], want)
		}
		paths := info["relative_file_paths"].([]any)
		last := paths[len(paths)-1].(string)
		for name, f := range peer["files"].(map[string]any) {
			rec := f.(map[string]any)["records"].(map[string]any)["rosbag2"].(map[string]any)
			stored := rec["serialized_metadata"].(map[string]any)
			if got := stored["custom_data"]; !reflect.DeepEqual(got, any(want)) {
				t.Errorf("%s: stored metadata's custom_data %v, the input's %v", name, got, want)
			}
			// The last split stores the whole recording's metadata, as
			// rosbag2 updates each split's when it closes it.
			if name == last && !reflect.DeepEqual(stored, any(info)) {
				t.Errorf("%s: stored metadata\n%v\nmetadata.yaml's\n%v", name, stored, info)
			}
			if v, ok := rec["metadata_version"]; ok && fmt.Sprint(v) != "9" {
				t.Errorf("%s: metadata table version %v, want 9", name, v)
			}
		}
	}
	// A storage file alone keeps them too, converted again.
	for _, name := range []string{"one.db3", "one.mcap"} {
		one, again := filepath.Join(dir, name), filepath.Join(dir, name+"-again")
		for _, args := range [][]string{{a, one}, {one, again}} {
			if _, stderr, code := run(t, append([]string{"convert", "-q"}, append(args, "--to", "ros2")...)...); code != 0 {
				t.Fatalf("convert %v: exit %d: %s", args, code, stderr)
			}
		}
		if got := peerMetadataYAML(t, again)["custom_data"]; !reflect.DeepEqual(got, any(want)) {
			t.Errorf("%s converted again: custom_data %v, the input's %v", name, got, want)
		}
	}
	out := filepath.Join(dir, "merged")
	_, stderr, code := run(t, "convert", a, b, out, "--to", "ros2")
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	got := peerMetadataYAML(t, out)["custom_data"]
	merged := map[string]any{"experiment": "grasp 12", "operator": "rl: 2", "site": "lab 3"}
	if !reflect.DeepEqual(got, any(merged)) {
		t.Errorf("merged: custom_data %v, want %v", got, merged)
	}
	if !strings.Contains(stderr, "custom_data experiment") || !strings.Contains(stderr, `"grasp 13"`) {
		t.Errorf("merged: no warning of the two experiments: %s", stderr)
	}
}

// twoBags writes, with Debian's rosbag, first.bag: /x latched (a
// std_msgs/String "first") and /t a my_pkg/Thing {int32 a}; and
// second.bag: /x not latched ("second"), and /t and /u a my_pkg/Thing
// defined otherwise {float64 b, int32 a}.
const twoBags = `
import sys, os, rosbag, rospy, genpy.dynamic
from std_msgs.msg import String
def thing(defn):
    return genpy.dynamic.generate_dynamic('my_pkg/Thing', defn)['my_pkg/Thing']
def header(latch):
    return {'type': 'std_msgs/String', 'md5sum': String._md5sum, 'message_definition': String._full_text,
            'topic': '/x', 'callerid': '/talker', 'latching': latch}
with rosbag.Bag(os.path.join(sys.argv[1], 'first.bag'), 'w') as b:
    b.write('/x', String(data='first'), rospy.Time(1), connection_header=header('1'))
    b.write('/t', thing('int32 a\n')(a=7), rospy.Time(1))
with rosbag.Bag(os.path.join(sys.argv[1], 'second.bag'), 'w') as b:
    b.write('/x', String(data='second'), rospy.Time(2), connection_header=header('0'))
    b.write('/t', thing('float64 b\nint32 a\n')(a=9, b=2.5), rospy.Time(2))
    b.write('/u', thing('float64 b\nint32 a\n')(a=10, b=3.5), rospy.Time(3))
`

// TestConvertKeepsOneTopicAndDefinition: a ROS 2 recording holds one entry
// per topic and one definition per type, as rosbag2 keeps them. Merging
// two bags whose /x differs only in latching writes one /x, with both
// messages and the first bag's offered QoS (TRANSIENT_LOCAL); a type the
// second bag defines otherwise (my_pkg/Thing) is refused, naming it, and
// with --skip-bad its topics are left out and every message written
// decodes; the QoS profiles dropped are warned of. The peer (js-yaml,
// @mcap/core or sql.js, rosmsg2-serialization) reads both storages.
// Before, metadata.yaml listed /x twice, and the sqlite3 split stored one
// definition of my_pkg/msg/Thing for messages of both layouts: the
// second's did not decode.
func TestConvertKeepsOneTopicAndDefinition(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "ros-msgs", "genpy", "node", "mcap", "rosmsg2", "ros2peers")
	dir := t.TempDir()
	if out, err := exec.Command(testenv.Python, "-c", twoBags, dir).CombinedOutput(); err != nil {
		t.Fatalf("rosbag: %v\n%s", err, out)
	}
	first, second := filepath.Join(dir, "first.bag"), filepath.Join(dir, "second.bag")
	for _, storage := range []string{"mcap", "sqlite3"} {
		out := filepath.Join(dir, "out-"+storage)
		_, stderr, code := run(t, "convert", "-q", first, second, out, "--to", "ros2", "--storage", storage)
		if code != exitBadInput || !strings.Contains(stderr, "topic /t: its type my_pkg/msg/Thing is defined unlike on topic /t") {
			t.Errorf("%s: exit %d, want %d and the type named: %s", storage, code, exitBadInput, stderr)
		}
		_, stderr, code = run(t, "convert", "-q", first, second, out, "--to", "ros2", "--storage", storage, "--skip-bad")
		if code != exitOK || !strings.Contains(stderr, "topic /u: its type my_pkg/msg/Thing is defined unlike on topic /t") {
			t.Fatalf("%s, --skip-bad: exit %d, want the topics left out named: %s", storage, code, stderr)
		}
		if want := second + ": topic /x: a connection offers other QoS profiles than the first one did"; !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr does not warn %q: %s", storage, want, stderr)
		}
		peer := ros2Peer(t, out)
		var got []string
		for _, m := range peer["messages"].([]any) {
			m := m.(map[string]any)
			got = append(got, fmt.Sprintf("%s %v", m["topic"], m["message"]))
		}
		if want := []string{"/x map[data:first]", "/t map[a:7]", "/x map[data:second]"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the peer reads %q, want %q", storage, got, want)
		}
		var topics []string
		for _, e := range peerMetadataYAML(t, out)["topics_with_message_count"].([]any) {
			e := e.(map[string]any)
			md := e["topic_metadata"].(map[string]any)
			durability := "none"
			if qos, _ := md["offered_qos_profiles"].([]any); len(qos) == 1 {
				durability = fmt.Sprint(qos[0].(map[string]any)["durability"])
			}
			topics = append(topics, fmt.Sprintf("%s %v %s", md["name"], e["message_count"], durability))
		}
		if want := []string{"/x 2 transient_local", "/t 1 none"}; !reflect.DeepEqual(topics, want) {
			t.Errorf("%s: metadata.yaml lists %q, want %q", storage, topics, want)
		}
	}
}

// TestConvertRepeatsLatched: with --repeat-latched, each split after the
// first starts with the last message of every latched topic, at that
// split's starting time, so that a split read alone keeps its /tf_static.
// rosbag.js's example.bag (a turtlesim recording with a latched
// /tf_static and /rosout) split every 5 s: the peer (js-yaml, @mcap/core
// or sql.js, rosmsg2-serialization) reads in every split one /tf_static,
// the original's content (also with each message compressed), and
// metadata.yaml counts the repeats. Without
// the flag only the first split has it; without a split option the flag
// is a usage error.
func TestConvertRepeatsLatched(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2peers")
	in := testenv.Fixtures(t, "rosbag-js", "example.bag")
	dir := t.TempDir()
	if _, stderr, code := run(t, "convert", in, filepath.Join(dir, "x"), "--to", "ros2", "--repeat-latched"); code != exitUsage || !strings.Contains(stderr, "--repeat-latched applies with --split-size or --split-duration") {
		t.Errorf("without a split: exit %d: %s", code, stderr)
	}
	for _, c := range []struct{ storage, mode string }{{"mcap", "none"}, {"sqlite3", "none"}, {"mcap", "message"}} {
		storage := c.storage + "/" + c.mode
		for _, repeat := range []bool{false, true} {
			out := filepath.Join(dir, fmt.Sprintf("%s-%s-%v", c.storage, c.mode, repeat))
			args := []string{"convert", "-q", in, out, "--to", "ros2", "--storage", c.storage, "--compression-mode", c.mode, "--split-duration", "5s"}
			if repeat {
				args = append(args, "--repeat-latched")
			}
			if _, stderr, code := run(t, args...); code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			peer := ros2Peer(t, out)
			info := peer["metadata"].(map[string]any)["rosbag2_bagfile_information"].(map[string]any)
			files := info["files"].([]any)
			var starts []string
			for _, f := range files {
				starts = append(starts, fmt.Sprint(f.(map[string]any)["starting_time"].(map[string]any)["nanoseconds_since_epoch"]))
			}
			var stamps []string
			var first any
			for _, m := range peer["messages"].([]any) {
				m := m.(map[string]any)
				if m["topic"] != "/tf_static" {
					continue
				}
				stamps = append(stamps, fmt.Sprint(m["log_time_ns"]))
				if first == nil {
					first = m["message"]
				} else if !reflect.DeepEqual(m["message"], first) {
					t.Errorf("%s: a repeated /tf_static reads %v, the first %v", storage, m["message"], first)
				}
			}
			want := starts
			if !repeat {
				want = starts[:1]
			}
			// The recording's one /tf_static comes 0.2 s after it starts;
			// js-yaml reads the starting times as doubles, within 256 ns.
			near := func(a, b string) bool {
				x, _ := strconv.ParseInt(a, 10, 64)
				y, _ := strconv.ParseFloat(b, 64)
				return math.Abs(float64(x)-y) <= 512
			}
			if len(files) != 5 || len(stamps) != len(want) || !slices.EqualFunc(stamps[1:], want[1:], near) {
				t.Errorf("%s, --repeat-latched %v: /tf_static at %v, splits start at %v", storage, repeat, stamps, starts)
			}
			for _, e := range info["topics_with_message_count"].([]any) {
				e := e.(map[string]any)
				if name := e["topic_metadata"].(map[string]any)["name"]; name == "/tf_static" && fmt.Sprint(e["message_count"]) != strconv.Itoa(len(want)) {
					t.Errorf("%s, --repeat-latched %v: metadata.yaml counts %v of /tf_static, want %d", storage, repeat, e["message_count"], len(want))
				}
			}
		}
	}
}

// TestConvertToOneFile: --to ros2 with OUT ending in .mcap or .db3 writes
// the recording as that one storage file, which stores its metadata and
// which rosbag2 opens alone; nothing else is left beside it. The peer
// (@mcap/core or sql.js, rosmsg2-serialization, js-yaml on the stored
// metadata) reads from rosbag.js's example.bag, also with each message
// compressed, every message the folder conversion holds, and the stored
// metadata names the file. A split option, file compression or a
// --storage the extension contradicts is a usage error.
func TestConvertToOneFile(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2peers")
	in := testenv.Fixtures(t, "rosbag-js", "example.bag")
	dir := t.TempDir()
	folder := filepath.Join(dir, "folder")
	if _, stderr, code := run(t, "convert", "-q", in, folder, "--to", "ros2"); code != exitOK {
		t.Fatalf("folder: exit %d: %s", code, stderr)
	}
	want := ros2Peer(t, folder)["messages"].([]any)
	for _, c := range []struct{ name, mode string }{{"one.mcap", "none"}, {"one.db3", "none"}, {"msg.mcap", "message"}} {
		sub := filepath.Join(dir, c.name+"-dir")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(sub, c.name)
		if _, stderr, code := run(t, "convert", "-q", in, out, "--to", "ros2", "--compression-mode", c.mode); code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		if ents, _ := os.ReadDir(sub); len(ents) != 1 || ents[0].Name() != c.name || !ents[0].Type().IsRegular() {
			t.Errorf("%s: the folder holds %v, want the file alone", c.name, ents)
		}
		peer := ros2Peer(t, out)
		if got := peer["messages"].([]any); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the peer reads %d messages unlike the folder's %d", c.name, len(got), len(want))
		}
		info := peer["metadata"].(map[string]any)["rosbag2_bagfile_information"].(map[string]any)
		if paths := fmt.Sprint(info["relative_file_paths"]); paths != "["+c.name+"]" || fmt.Sprint(info["message_count"]) != "8647" {
			t.Errorf("%s: stored metadata names %s and %v messages", c.name, paths, info["message_count"])
		}
	}
	for _, args := range [][]string{
		{"--split-duration", "5s"}, {"--compression-mode", "file"}, {"--storage", "sqlite3"},
	} {
		out := filepath.Join(dir, "bad.mcap")
		if _, stderr, code := run(t, append([]string{"convert", in, out, "--to", "ros2"}, args...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}
