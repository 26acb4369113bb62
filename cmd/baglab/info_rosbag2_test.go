package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// peerMetadataYAML is a rosbag2 folder's rosbag2_bagfile_information as
// the peers read it (ros2Peer: js-yaml).
func peerMetadataYAML(t *testing.T, dir string) map[string]any {
	t.Helper()
	return ros2Peer(t, dir)["metadata"].(map[string]any)["rosbag2_bagfile_information"].(map[string]any)
}

// withCustomData copies rosbag2's cdr_test recording (metadata.yaml
// version 8, custom_data: ~) to dir with these custom_data lines.
func withCustomData(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(testenv.Fixtures(t, "rosbag2", "rosbag2_tests", "cdr_test"))); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	md = []byte(strings.Replace(string(md), "custom_data: ~", "custom_data:\n    "+strings.Join(lines, "\n    "), 1))
	if err := os.WriteFile(filepath.Join(dir, "metadata.yaml"), md, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInfoROSBag2Folder: info describes a rosbag2 folder as its
// metadata.yaml does, as npm js-yaml reads it — the metadata version, the
// storage, the files, the compression, the ROS distribution and the
// custom data — in the text ("rosbag2:" and "custom_data:" lines) and in
// --json ("rosbag2"). The folders: two real rosbag2 recordings (5 MCAP
// files of version 4; one of version 8 with custom_data added), and
// rosbag2 folders convert writes (sqlite3 files compressed whole, named
// ros_distro); and the one with custom_data converted to one .mcap and
// one .db3 file, described from the metadata each stores (the peer reads
// the MCAP rosbag2 record and the .db3 metadata table). Before, a file
// alone had no rosbag2 description.
func TestInfoROSBag2Folder(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2", "ros2peers")
	dir := t.TempDir()
	custom := withCustomData(t, filepath.Join(dir, "custom"), "experiment: grasp 12", `operator: "rl: 2"`)
	compressed := filepath.Join(dir, "compressed")
	if _, stderr, code := run(t, "convert", studyFile("study.bag"), compressed, "--to", "ros2", "--storage", "sqlite3",
		"--compression-mode", "file", "--split-size", "20K", "--distro", "jazzy"); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	folders := []string{testenv.Fixtures(t, "rosbag2", "rosbag2_py", "wbag"), custom, compressed}
	for _, name := range []string{"one.mcap", "one.db3"} {
		out := filepath.Join(dir, name)
		if _, stderr, code := run(t, "convert", "-q", custom, out, "--to", "ros2", "--distro", "humble"); code != 0 {
			t.Fatalf("convert to %s: exit %d: %s", name, code, stderr)
		}
		folders = append(folders, out)
	}
	for _, folder := range folders {
		want := peerMetadataYAML(t, folder)
		out, stderr, code := run(t, "info", "--json", folder)
		if code != 0 {
			t.Fatalf("info %s: exit %d: %s", folder, code, stderr)
		}
		got, ok := decodeNumbers(t, []byte(out))["rosbag2"].(map[string]any)
		if !ok {
			t.Fatalf("%s: info --json has no rosbag2 object:\n%s", filepath.Base(folder), out)
		}
		for _, k := range []string{"version", "storage_identifier", "relative_file_paths", "compression_format", "compression_mode", "ros_distro", "custom_data"} {
			w := want[k]
			if w == nil && k != "custom_data" {
				w = "" // version 4 has no ros_distro
			}
			if !reflect.DeepEqual(got[k], w) {
				t.Errorf("%s: rosbag2.%s = %v, js-yaml reads %v", filepath.Base(folder), k, got[k], w)
			}
		}
		text, _, _ := run(t, "info", folder)
		line := fmt.Sprintf("rosbag2:     metadata version %s, %s, %d file", want["version"], want["storage_identifier"], len(want["relative_file_paths"].([]any)))
		if !strings.Contains(text, line) {
			t.Errorf("%s: info lacks %q:\n%s", filepath.Base(folder), line, text)
		}
		if cd, _ := want["custom_data"].(map[string]any); len(cd) > 0 {
			for k, v := range cd {
				if !strings.Contains(text, fmt.Sprintf("custom_data: %s: %s\n", k, v)) {
					t.Errorf("%s: info lacks custom_data %s: %s:\n%s", filepath.Base(folder), k, v, text)
				}
			}
		}
	}
}
