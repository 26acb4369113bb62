package msgdef_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
)

// poseDir makes a definition directory holding the package my_pkg with
// one message, Pose, whose definition is text.
func poseDir(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "my_pkg", "msg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "my_pkg", "msg", "Pose.msg"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWithDirs: no dirs gives the default types; a dir adds its types to a
// copy (std_msgs/String's definition under another name keeps ROS's MD5
// 992ce8a1687cec8c8bd883ec73ca41d1), the default stays as it was; a
// missing dir is a *DirError naming it.
func TestWithDirs(t *testing.T) {
	if reg, err := msgdef.WithDirs(nil); err != nil || !slices.Equal(reg.Names(), msgdef.Default().Names()) {
		t.Errorf("WithDirs(nil): %v, or names other than Default's", err)
	}
	dir := poseDir(t, "string data\n")
	reg, err := msgdef.WithDirs([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	typ, err := reg.Lookup("my_pkg/Pose")
	if err != nil {
		t.Fatal(err)
	}
	if got := msgdef.MD5(typ); got != "992ce8a1687cec8c8bd883ec73ca41d1" {
		t.Errorf("MD5(my_pkg/Pose) = %s, want std_msgs/String's 992ce8a1687cec8c8bd883ec73ca41d1", got)
	}
	if _, err := msgdef.Default().Lookup("my_pkg/Pose"); err == nil {
		t.Error("the default registry gained my_pkg/Pose")
	}
	missing := filepath.Join(dir, "missing")
	_, err = msgdef.WithDirs([]string{dir, missing})
	var de *msgdef.DirError
	if !errors.As(err, &de) || de.Dir != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: %v, want a DirError for %s wrapping ErrNotExist", err, missing)
	}
}

// TestSimilar: the types whose base name is the given one's, ignoring case
// and package, in Names order; none for an unknown base name.
func TestSimilar(t *testing.T) {
	reg, err := msgdef.WithDirs([]string{poseDir(t, "float64 x\n")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		reg  *msgdef.Registry
		name string
		want []string
	}{
		{msgdef.Default(), "placement", []string{"interactive_world_msgs/Placement"}},
		{msgdef.Default(), "wrong_pkg/GoalStatus", []string{"action_msgs/msg/GoalStatus", "actionlib_msgs/GoalStatus", "actionlib_msgs/msg/GoalStatus"}},
		{msgdef.Default(), "nothing/Zzz", nil},
		{reg, "POSE", []string{"geometry_msgs/Pose", "geometry_msgs/msg/Pose", "my_pkg/Pose"}},
	} {
		if got := c.reg.Similar(c.name); !slices.Equal(got, c.want) {
			t.Errorf("Similar(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
