package testenv

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// The peers of the TF tests beside the python ones in the table: tf2 from
// C++, compiled by the test against Debian's headers (the python binding
// passes stamps through a double), and nav_msgs for the Path of
// export --tf-frame.
func init() {
	peers["nav-msgs"] = peer{what: "Debian python3-nav-msgs (make deps-apt)", py: []string{"nav_msgs.msg"}}
	peers["tf2cpp"] = peer{what: "Debian libtf2-dev and g++ (make deps-apt)",
		files: []string{"/usr/include/tf2/buffer_core.h", "/usr/include/geometry_msgs/TransformStamped.h"}, progs: []string{"g++"}}
}

// TF2Core compiles analysis/tf/testdata/tf2core.cpp — tf2's BufferCore
// asked from C++ with exact stamps — against Debian's libtf2-dev into a
// temporary folder of t and returns the program. Without g++ or the
// headers t skips (fails under CI), as RequirePeer(t, "tf2cpp").
func TF2Core(t testing.TB) string {
	t.Helper()
	RequirePeer(t, "tf2cpp")
	bin := filepath.Join(t.TempDir(), "tf2core")
	src := filepath.Join(Root(t), "analysis", "tf", "testdata", "tf2core.cpp")
	if out, err := exec.Command("g++", "-O1", "-o", bin, src, "-ltf2", "-lrostime").CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", src, err, out)
	}
	return bin
}
