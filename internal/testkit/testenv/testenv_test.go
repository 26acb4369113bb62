package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRule runs this package's probe test in a child process under each
// environment and checks it skips (one line naming the variable) without CI
// and fails with CI set.
func TestRule(t *testing.T) {
	if os.Getenv("TESTENV_PROBE") != "" {
		return // the child runs only TestProbe
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	missingDir := filepath.Join(t.TempDir(), "nothing")
	for _, c := range []struct {
		name, probe, ci string
		fail            bool
		want            string
	}{
		{"fixture absent", "fixture", "", false, FixturesVar},
		{"fixture absent in CI", "fixture", "true", true, "CI is set"},
		{"fixture absent, CI=false", "fixture", "false", false, FixturesVar},
		{"peer absent", "peer", "", false, "peer weka not usable"},
		{"peer absent in CI", "peer", "1", true, "CI is set"},
		{"optional absent in CI", "optional", "true", true, "CI is set"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(exe, "-test.run", "^TestProbe$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTENV_PROBE="+c.probe, "CI="+c.ci, FixturesVar+"="+missingDir, "PATH="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.fail {
				t.Fatalf("failed=%v, want %v\n%s", failed, c.fail, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, out)
			}
			if !c.fail && !strings.Contains(string(out), "--- SKIP: TestProbe") {
				t.Errorf("probe did not skip:\n%s", out)
			}
		})
	}
}

// TestProbe is the child of TestRule.
func TestProbe(t *testing.T) {
	switch os.Getenv("TESTENV_PROBE") {
	case "":
		return // runs only as TestRule's child
	case "fixture":
		Fixtures(t, "rosbag-js", "example.bag")
	case "peer":
		RequirePeer(t, "weka") // PATH is empty: no java
	case "optional":
		if _, ok := FixturesIfPresent(t, "nothing"); !ok {
			return // absent without CI: reported, not failed
		}
	}
	t.Fatal("not reached: the helper should have stopped the test")
}

// TestFixturesFound: an existing fixture path is returned absolute.
func TestFixturesFound(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(FixturesVar, dir)
	if got := Fixtures(t, "a"); got != filepath.Join(dir, "a") {
		t.Errorf("Fixtures = %q", got)
	}
	if got := FixturesDir(t); got != dir {
		t.Errorf("FixturesDir = %q", got)
	}
}

// TestDefault: without BAGLAB_FIXTURES the fixtures are looked for beside
// the checkout.
func TestDefault(t *testing.T) {
	t.Setenv(FixturesVar, "")
	want := filepath.Join(filepath.Dir(Root(t)), "shared", "public-fixtures")
	if got := FixturesDir(t); got != want {
		t.Errorf("FixturesDir = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(Root(t), "go.mod")); err != nil {
		t.Errorf("Root %q has no go.mod", Root(t))
	}
}

// TestPeerNames: every peer has an install hint.
func TestPeerNames(t *testing.T) {
	for _, n := range Peers() {
		if peers[n].what == "" {
			t.Errorf("peer %s: no install hint", n)
		}
	}
}

// TestFixturesIfPresent: an absent optional fixture is reported, not skipped
// (CI set fails: see TestRule's probes).
func TestFixturesIfPresent(t *testing.T) {
	if CI() {
		t.Setenv("CI", "")
	}
	t.Setenv(FixturesVar, t.TempDir())
	if p, ok := FixturesIfPresent(t, "nope"); ok || p != "" {
		t.Errorf("FixturesIfPresent(nope) = %q, %v", p, ok)
	}
	if p, ok := FixturesIfPresent(t); !ok || p != FixturesDir(t) {
		t.Errorf("FixturesIfPresent() = %q, %v", p, ok)
	}
}
