package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// FixturesVar names the environment variable pointing at the public fixtures.
const FixturesVar = "BAGLAB_FIXTURES"

// Python is Debian's interpreter, the one with the ROS1 python packages
// (another python3 may come first on PATH).
const Python = "/usr/bin/python3"

// CI reports whether the CI environment variable is set (not "" or "false"):
// then a missing fixture or peer fails a test instead of skipping it.
func CI() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("CI")))
	return v != "" && v != "false" && v != "0"
}

var rootOnce = sync.OnceValues(findRoot)

// findRoot walks up from the working directory (a package directory under
// `go test`) to the folder holding go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// Root is the module root (the folder holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	root, err := rootOnce()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	return root
}

// NodeDir is testdata/node, where `make deps-npm` installs the npm peers.
func NodeDir(t testing.TB) string {
	return filepath.Join(Root(t), "testdata", "node")
}

// FixturesDir is the public fixtures folder: $BAGLAB_FIXTURES, or
// ../shared/public-fixtures beside the checkout. It may not exist.
func FixturesDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(FixturesVar); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatalf("testenv: %s=%q: %v", FixturesVar, d, err)
		}
		return abs
	}
	return filepath.Join(filepath.Dir(Root(t)), "shared", "public-fixtures")
}

// Fixtures returns the absolute path of rel (joined) inside the public
// fixtures. When it does not exist the test skips with one line naming
// BAGLAB_FIXTURES, or fails when CI is set.
func Fixtures(t testing.TB, rel ...string) string {
	t.Helper()
	p, why := fixture(t, rel)
	if why != "" {
		missing(t, why)
	}
	return p
}

// FixturesIfPresent is Fixtures for an optional extra (fuzz seeds, a second
// check): when rel is absent it logs one line and returns false instead of
// skipping, and still fails the test when CI is set.
func FixturesIfPresent(t testing.TB, rel ...string) (string, bool) {
	t.Helper()
	p, why := fixture(t, rel)
	if why != "" {
		failInCI(t, why)
		t.Logf("%s: left out", why)
		return "", false
	}
	return p, true
}

// fixture is the path of rel in the public fixtures, and why it is not
// usable ("" when it exists).
func fixture(t testing.TB, rel []string) (path, why string) {
	t.Helper()
	p := filepath.Join(append([]string{FixturesDir(t)}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		return p, fmt.Sprintf("public fixture %s not found (set %s to the public-fixtures folder)", p, FixturesVar)
	}
	return p, ""
}

// Shared returns the absolute path of rel inside the shared folder the
// fixtures sit in (the parent of FixturesDir, e.g. shared/msgs), by the same
// rule as Fixtures.
func Shared(t testing.TB, rel ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{filepath.Dir(FixturesDir(t))}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		missing(t, fmt.Sprintf("shared file %s not found (set %s to the public-fixtures folder; this one sits beside it)", p, FixturesVar))
	}
	return p
}

// missing skips t with why, or fails it when CI is set.
func missing(t testing.TB, why string) {
	t.Helper()
	failInCI(t, why)
	t.Skip(why)
}

// Missing skips t with why (a peer or a tool that is not there), or fails
// it when CI is set.
func Missing(t testing.TB, why string) {
	t.Helper()
	missing(t, why)
}

// failInCI fails t with why when CI is set.
func failInCI(t testing.TB, why string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s; CI is set, so this is a failure", why)
	}
}

// A peer is one independent implementation the tests compare against.
type peer struct {
	what  string   // how to install it, for the skip line
	npm   []string // npm packages that must load from NodeDir (needs node)
	py    []string // python modules that must import with Python
	files []string // files that must exist
	progs []string // programs that must be on PATH
}

var peers = map[string]peer{
	"node":    {what: "node (Debian nodejs)", progs: []string{"node"}},
	"duckdb":  {what: "npm @duckdb/node-api in testdata/node (make deps-npm)", npm: []string{"@duckdb/node-api"}},
	"polars":  {what: "npm nodejs-polars in testdata/node (make deps-npm)", npm: []string{"nodejs-polars"}},
	"mcap":    {what: "npm @mcap/core in testdata/node (make deps-npm)", npm: []string{"@mcap/core", "@foxglove/wasm-lz4", "@foxglove/wasm-zstd"}},
	"rosmsg2": {what: "npm @foxglove/rosmsg2-serialization in testdata/node (make deps-npm)", npm: []string{"@foxglove/rosmsg2-serialization", "@foxglove/rosmsg"}},
	"cdr":     {what: "npm @foxglove/cdr in testdata/node (make deps-npm)", npm: []string{"@foxglove/cdr"}},
	"ws-protocol": {what: "npm @foxglove/ws-protocol, ws and @foxglove/rosmsg-serialization in testdata/node (make deps-npm)",
		npm: []string{"@foxglove/ws-protocol", "ws", "@foxglove/rosmsg", "@foxglove/rosmsg-serialization", "@foxglove/rosmsg2-serialization"}},
	"ros2defs":    {what: "npm @foxglove/rosmsg-msgs-common in testdata/node (make deps-npm)", npm: []string{"@foxglove/rosmsg-msgs-common"}},
	"ros2peers":   {what: "npm js-yaml, @foxglove/sql.js in testdata/node (make deps-npm)", npm: []string{"js-yaml", "@foxglove/sql.js/dist/sql-asm.js"}},
	"websockets":  {what: "Debian python3-websockets (make deps-apt)", py: []string{"websockets"}},
	"genmsg":      {what: "Debian python3-genmsg (make deps-apt)", py: []string{"genmsg"}},
	"genaction":   {what: "Debian libactionlib-msgs-dev (make deps-apt)", files: []string{"/usr/lib/actionlib_msgs/genaction.py"}},
	"genpy":       {what: "Debian python3-genpy (make deps-apt)", py: []string{"genpy"}},
	"rosbag":      {what: "Debian python3-rosbag (make deps-apt)", py: []string{"rosbag", "genpy"}, files: []string{"/usr/bin/rosbag"}},
	"rostopic":    {what: "Debian python3-rostopic (make deps-apt)", py: []string{"rostopic"}},
	"rospy":       {what: "Debian python3-rospy (make deps-apt)", py: []string{"rospy"}},
	"services":    {what: "Debian python3-rosservice and python3-std-srvs (make deps-apt)", py: []string{"rosservice", "std_srvs.srv"}, files: []string{"/usr/bin/rosservice"}},
	"tf2":         {what: "Debian python3-tf2 and python3-tf2-msgs (make deps-apt)", py: []string{"tf2_py", "tf2_msgs.msg", "rosbag"}},
	"tf2geometry": {what: "Debian python3-tf2-geometry-msgs (make deps-apt)", py: []string{"tf2_geometry_msgs", "tf2_py"}},
	"msgfilters":  {what: "Debian python3-message-filters (make deps-apt)", py: []string{"message_filters", "rosbag"}},
	"numpy":       {what: "Debian python3-numpy (make deps-apt)", py: []string{"numpy"}},
	"pandas":      {what: "Debian python3-pandas (make deps-apt)", py: []string{"pandas"}},
	"ros-msgs":    {what: "Debian python3-{std,geometry,sensor}-msgs (make deps-apt)", py: []string{"std_msgs.msg", "geometry_msgs.msg", "sensor_msgs.msg"}},
	"dask":        {what: "Debian python3-distributed (make deps-apt)", py: []string{"distributed"}},
	"boto3":       {what: "Debian python3-boto3 (make deps-apt)", py: []string{"boto3"}},
	"awscli":      {what: "Debian awscli (make deps-apt)", progs: []string{"aws"}},
	"sqlite3":     {what: "Debian python3 (make deps-apt)", py: []string{"sqlite3"}},
	"zstd":        {what: "Debian zstd (make deps-apt)", progs: []string{"zstd"}},
	"chromium":    {what: "Debian chromium (make deps-apt)", files: []string{"/usr/bin/chromium"}},
	"java":        {what: "a JDK, Debian default-jdk-headless (make deps-apt)", progs: []string{"java", "javac"}},
	"weka":        {what: "Debian weka and default-jdk-headless (make deps-apt)", files: []string{"/usr/share/java/weka.jar"}, progs: []string{"java"}},
	"roscore":     {what: "Debian ros-core (make deps-apt)", progs: []string{"roscore"}, py: []string{"rosmaster"}},
	"sha256sum":   {what: "Debian coreutils", progs: []string{"sha256sum"}},
	"df":          {what: "Debian coreutils", progs: []string{"df"}},
	"devfull":     {what: "a Linux /dev/full device", files: []string{"/dev/full"}},
}

// Peers lists the names RequirePeer accepts.
func Peers() []string {
	names := make([]string, 0, len(peers))
	for n := range peers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var (
	checkMu sync.Mutex
	checked = map[string]error{} // peer name -> why it is unusable (nil: usable)
)

// RequirePeer makes sure each named peer is installed and usable (npm
// packages load with node from NodeDir, python modules import with Python,
// programs are on PATH). When one is not, the test skips with one line
// naming it and how to install it, or fails when CI is set. An unknown name
// fails the test. Results are cached per test binary.
func RequirePeer(t testing.TB, names ...string) {
	t.Helper()
	for _, name := range names {
		p, ok := peers[name]
		if !ok {
			t.Fatalf("testenv: unknown peer %q (known: %s)", name, strings.Join(Peers(), ", "))
		}
		checkMu.Lock()
		err, done := checked[name]
		if !done {
			err = p.check(NodeDir(t))
			checked[name] = err
		}
		checkMu.Unlock()
		if err != nil {
			missing(t, fmt.Sprintf("peer %s not usable: %v (install %s, or run `make test`)", name, err, p.what))
		}
	}
}

func (p peer) check(nodeDir string) error {
	for _, prog := range p.progs {
		if _, err := exec.LookPath(prog); err != nil {
			return fmt.Errorf("%s not on PATH", prog)
		}
	}
	for _, f := range p.files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%s missing", f)
		}
	}
	if len(p.py) > 0 {
		if _, err := os.Stat(Python); err != nil {
			return fmt.Errorf("%s missing", Python)
		}
		script := "import " + strings.Join(p.py, ", ")
		if out, err := exec.Command(Python, "-c", script).CombinedOutput(); err != nil {
			return fmt.Errorf("%s -c %q: %v: %s", Python, script, err, lastLine(out))
		}
	}
	if len(p.npm) > 0 {
		if _, err := exec.LookPath("node"); err != nil {
			return fmt.Errorf("node not on PATH")
		}
		var js strings.Builder
		for _, m := range p.npm {
			fmt.Fprintf(&js, "require(%q);", m)
		}
		cmd := exec.Command("node", "-e", js.String())
		cmd.Dir = nodeDir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("node cannot load %s from %s: %s", strings.Join(p.npm, ", "), nodeDir, firstLine(out, err))
		}
	}
	return nil
}

func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

func firstLine(out []byte, err error) string {
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "Error") {
			return strings.TrimSpace(l)
		}
	}
	return err.Error()
}
