package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/rostest"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/spf13/cobra"
)

// exampleMainEnv makes the test binary act as baglab, so that examples
// run in a shell find "baglab" on PATH (a link to the test binary).
const exampleMainEnv = "BAGLAB_EXAMPLE_MAIN"

func init() {
	if os.Getenv(exampleMainEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// example is one command line of a --help Example (every line but
// comments) or of the README (the baglab lines of its sh blocks).
type example struct {
	where string // "baglab cat --help", "README.md:170"
	line  string
	exit  int  // the exit code a trailing "# exit N" announces (default 0)
	live  bool // a record, play or serve line: runs until interrupted
}

var exitNote = regexp.MustCompile(`#\s*exit (\d+)\s*$`)

func newExample(where, line string) example {
	e := example{where: where, line: line}
	for c := range liveCommands {
		e.live = e.live || strings.HasPrefix(line, c+" ")
	}
	if m := exitNote.FindStringSubmatch(line); m != nil {
		e.exit, _ = strconv.Atoi(m[1])
	}
	return e
}

// helpExamples returns the example lines of every command, by command.
func helpExamples() map[string][]example {
	out := map[string][]example{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				out[c.CommandPath()] = append(out[c.CommandPath()], newExample(c.CommandPath()+" --help", l))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&globalOptions{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, nil))
	return out
}

// readmeExamples returns the baglab lines of the README's sh, bash and
// shell code blocks.
func readmeExamples(t *testing.T) []example {
	data, err := os.ReadFile(filepath.Join(testenv.Root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	inSh := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = !inSh && (line == "```sh" || line == "```bash" || line == "```shell")
		case inSh && strings.HasPrefix(strings.TrimSpace(line), "baglab "):
			out = append(out, newExample(fmt.Sprintf("README.md:%d", n), strings.TrimSpace(line)))
		}
	}
	return out
}

// liveCommands run until interrupted (Ctrl-C, exit 0); record, play and
// serve --ros need a ROS master.
var liveCommands = map[string]bool{"baglab record": true, "baglab play": true, "baglab serve": true}

// TestExamples runs every example of every --help and of the README, as
// pasted into bash in a folder holding `make demo`'s files (demo/data,
// generated exactly as `go run ./testdata/gen -o demo/data` does). Each
// must exit 0 (or the code its "# exit N" note says), and a pipeline into
// jq must print something. Examples of record and play run against a real
// roscore and are interrupted after a few seconds, as a user would.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the examples run the whole CLI")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "baglab")); err != nil {
		t.Fatal(err)
	}
	demo := filepath.Join(root, "demo-template")
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 30})
	if err == nil {
		_, err = studygen.WriteAll(filepath.Join(demo, "demo", "data"), s)
	}
	if err == nil { // make demo's transforms
		err = studygen.WriteTF(filepath.Join(demo, "demo", "data", "tf.bag"), studygen.TFOptions{Seconds: 20, CloudBytes: 12000})
	}
	if err == nil { // the repository's example contract, as in a clone
		var spec []byte
		if spec, err = os.ReadFile(filepath.Join(testenv.Root(t), "examples", "contract.yaml")); err == nil {
			if err = os.MkdirAll(filepath.Join(demo, "examples"), 0o755); err == nil {
				err = os.WriteFile(filepath.Join(demo, "examples", "contract.yaml"), spec, 0o644)
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	_, jqErr := exec.LookPath("jq")
	env := append(os.Environ(), exampleMainEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	groups := helpExamples()
	groups["README.md"] = readmeExamples(t)
	if len(groups["README.md"]) == 0 {
		t.Error("no examples found in the README")
	}
	for name, examples := range groups {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			// Each command's examples run in turn in a fresh copy of the
			// demo, so one example may use the file an earlier one wrote.
			dir := filepath.Join(root, strings.ReplaceAll(name, " ", "_"))
			if err := os.CopyFS(dir, os.DirFS(demo)); err != nil {
				t.Fatal(err)
			}
			runEnv := env
			if slices.ContainsFunc(examples, func(e example) bool { return e.live }) {
				m := rostest.StartMaster(t)
				runEnv = append(m.Env(), exampleMainEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			for _, e := range examples {
				if strings.Contains(e.line, "| jq") && jqErr != nil {
					if testenv.CI() {
						t.Fatalf("%s: jq is not installed (make deps-apt installs it)", e.where)
					}
					t.Logf("skipping %q: jq is not installed (make deps-apt installs it)", e.line)
					continue
				}
				runExample(t, dir, runEnv, e)
			}
		})
	}
}

func runExample(t *testing.T, dir string, env []string, e example) {
	t.Helper()
	limit := 2 * time.Minute
	live := e.live
	if live {
		limit = 3 * time.Second
	}
	cmd := exec.Command("bash", "-o", "pipefail", "-c", e.line)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = exampleProcAttr()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	interrupted := false
	select {
	case err = <-done:
	case <-time.After(limit):
		// Ctrl-C, as a user stops record and play: to this example's
		// process group only.
		interrupted = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			err = <-done
			t.Errorf("%s: %q did not stop within 30 s of Ctrl-C", e.where, e.line)
		}
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	} else if err != nil {
		t.Fatal(err)
	}
	switch {
	case !live && interrupted:
		t.Errorf("%s: %q still running after %v", e.where, e.line, limit)
	case code != e.exit:
		t.Errorf("%s: %q: exit %d, want %d\nstdout: %.2000s\nstderr: %.2000s", e.where, e.line, code, e.exit, stdout.String(), stderr.String())
	case strings.Contains(e.line, "| jq") && strings.TrimSpace(stdout.String()) == "":
		t.Errorf("%s: %q prints nothing\nstderr: %.2000s", e.where, e.line, stderr.String())
	}
}
