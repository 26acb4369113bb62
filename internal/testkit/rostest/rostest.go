package rostest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/live/rosnode"
)

// Python is the interpreter for rospy peers (Debian's, not the first
// python3 on PATH).
const Python = testenv.Python

// Require skips (or, under CI, fails) t unless every named peer of
// testenv.RequirePeer ("rostopic", "rosbag", "rospy", …) is usable.
func Require(t testing.TB, peers ...string) {
	t.Helper()
	testenv.RequirePeer(t, peers...)
}

// Master is a running roscore.
type Master struct {
	URI  string
	Dir  string // temp dir holding ROS_HOME, ROS_LOG_DIR and peer logs
	Core *Proc  // the roscore process
	env  []string
}

// FreePort returns a free loopback TCP port below the kernel's
// ephemeral range. A port taken from that range (by listening on port 0
// and closing) can be handed to the next process that binds port 0 —
// roscore's own roslaunch server did exactly that in CI, and rosmaster
// then found its port taken — so the port is drawn from below it.
func FreePort(t testing.TB) int {
	t.Helper()
	const low = 10000
	high := ephemeralLow()
	for i := 0; i < 200 && high > low; i++ {
		port := low + rand.IntN(high-low)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			l.Close()
			return port
		}
	}
	t.Fatalf("no free loopback port from %d up to the ephemeral range (from %d)", low, high)
	return 0
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768
// when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	if f := strings.Fields(string(b)); len(f) == 2 {
		if n, err := strconv.Atoi(f[0]); err == nil {
			return n
		}
	}
	return 32768
}

// StartMaster starts `roscore -p PORT` for the test and stops it (its
// process group only) when the test ends.
func StartMaster(t testing.TB) *Master {
	t.Helper()
	Require(t, "roscore", "rospy", "ros-msgs")
	dir := t.TempDir()
	// roslaunch starts rosmaster and rosout in sessions of their own, so
	// stopping roscore's process group can miss them (when roscore is
	// killed before it shut them down): after every peer is stopped, end
	// whatever still runs with this master's ROS_LOG_DIR.
	t.Cleanup(func() { killByEnv("ROS_LOG_DIR=" + filepath.Join(dir, "log")) })
	for _, d := range []string{"home", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A port can still be taken between FreePort and roscore's bind (by
	// another test's server): roscore then exits, and a new port is tried.
	for attempt := 1; ; attempt++ {
		port := FreePort(t)
		m := &Master{URI: fmt.Sprintf("http://127.0.0.1:%d/", port), Dir: dir, env: masterEnv(dir, port)}
		m.Core = m.Start(t, "roscore", "roscore", "-p", strconv.Itoa(port))
		err := m.waitUp()
		if err == nil {
			return m
		}
		if attempt == 3 || !errors.Is(err, errCoreExited) {
			t.Fatalf("roscore on port %d: %v\n%s", port, err, m.Log("roscore"))
		}
		t.Logf("roscore on port %d exited before it was up; trying another port\n%s", port, m.Log("roscore"))
	}
}

var errCoreExited = errors.New("roscore exited")

// Restart stops roscore (SIGINT, as Ctrl-C would) and starts a new one on
// the same port, which comes up with a new pid and /run_id and an empty
// graph; the peers started before keep running.
func (m *Master) Restart(t testing.TB) {
	t.Helper()
	if err := m.Core.Stop(syscall.SIGINT, 15*time.Second); err != nil {
		t.Logf("roscore stopped: %v", err)
	}
	mc := rosnode.NewMaster(m.URI, "/rostest")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := mc.GetURI(ctx)
		cancel()
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the master still answers 15 s after roscore was stopped")
		}
	}
	u, _ := url.Parse(m.URI)
	m.Core = m.Start(t, "roscore-restarted", "roscore", "-p", u.Port())
	if err := m.waitUp(); err != nil {
		t.Fatalf("roscore restarted on %s: %v\n%s", m.URI, err, m.Log("roscore-restarted"))
	}
}

// waitUp waits until this test's master answers, roscore exits or 60 s
// pass. A master on the port counts only when its /run_id names a folder
// in this test's ROS_LOG_DIR (roslaunch logs there under the run id): if
// another test's roscore took the port first, ours exits and theirs must
// not be taken for it.
func (m *Master) waitUp() error {
	deadline := time.Now().Add(60 * time.Second)
	mc := rosnode.NewMaster(m.URI, "/rostest")
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		runID, ok, err := mc.GetParam(ctx, "/run_id")
		cancel()
		if err == nil && ok {
			if id, isString := runID.(string); isString && id != "" && !strings.ContainsAny(id, "/.") {
				if _, serr := os.Stat(filepath.Join(m.Dir, "log", id)); serr == nil {
					return nil
				}
			}
		}
		select {
		case <-m.Core.Done():
			return errCoreExited
		default:
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("the master on the port has no /run_id of this test's roscore")
			}
			return fmt.Errorf("not up after 60 s: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// masterEnv is this process's environment with the ROS variables of a
// master on port, its ROS_HOME and ROS_LOG_DIR under dir.
func masterEnv(dir string, port int) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "ROS_MASTER_URI", "ROS_IP", "ROS_HOSTNAME", "ROS_HOME", "ROS_LOG_DIR", "ROS_NAMESPACE", "PYTHONPATH", "PYTHONHOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, fmt.Sprintf("ROS_MASTER_URI=http://127.0.0.1:%d/", port), "ROS_IP=127.0.0.1",
		"ROS_HOME="+filepath.Join(dir, "home"), "ROS_LOG_DIR="+filepath.Join(dir, "log"), "PYTHONUNBUFFERED=1")
}

// Env is the environment for processes talking to this master.
func (m *Master) Env() []string { return append([]string(nil), m.env...) }

// Setenv points this process's ROS environment at the master for the
// test's duration.
func (m *Master) Setenv(t *testing.T) {
	t.Setenv("ROS_MASTER_URI", m.URI)
	t.Setenv("ROS_IP", "127.0.0.1")
	t.Setenv("ROS_HOSTNAME", "")
	t.Setenv("ROS_NAMESPACE", "")
}

// Log returns what the named peer printed so far.
func (m *Master) Log(name string) string {
	b, _ := os.ReadFile(filepath.Join(m.Dir, name+".log"))
	return string(b)
}

// Proc is a peer process in its own process group.
type Proc struct {
	Cmd  *exec.Cmd
	done chan struct{}
	once sync.Once
	err  error
}

// Start runs a peer with the master's environment, output to
// Dir/NAME.log, in its own process group; the test's cleanup stops it.
func (m *Master) Start(t testing.TB, name string, prog string, args ...string) *Proc {
	t.Helper()
	return m.StartEnv(t, name, nil, prog, args...)
}

// StartEnv is Start with extra environment variables (KEY=VALUE).
func (m *Master) StartEnv(t testing.TB, name string, env []string, prog string, args ...string) *Proc {
	t.Helper()
	f, err := os.Create(filepath.Join(m.Dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, args...)
	cmd.Env = append(m.Env(), env...)
	cmd.Dir = m.Dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	t.Cleanup(func() { p.Stop(syscall.SIGINT, 10*time.Second) })
	return p
}

// Output runs a peer to completion (bounded by timeout) and returns its
// combined output.
func (m *Master) Output(t testing.TB, timeout time.Duration, prog string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = m.Env()
	cmd.Dir = m.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.Stop(syscall.SIGKILL, time.Second)
		return out.String(), fmt.Errorf("%s timed out after %s", prog, timeout)
	}
	return out.String(), p.err
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Wait waits for the process to exit by itself, at most timeout.
func (p *Proc) Wait(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("%s still running after %s", p.Cmd.Path, timeout)
	}
}

// Signal sends sig to the process group.
func (p *Proc) Signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.Cmd.Process.Pid, sig)
}

// Stop sends sig to the process group, waits up to grace, then kills the
// group. It returns the process's exit error.
func (p *Proc) Stop(sig syscall.Signal, grace time.Duration) error {
	p.once.Do(func() {
		select {
		case <-p.done:
			return
		default:
		}
		p.Signal(sig)
		deadline := time.After(grace)
		select {
		case <-p.done:
		case <-deadline:
			p.Signal(syscall.SIGKILL)
			<-p.done
		}
		// Children still in the group (the C++ recorder behind the rosbag
		// script, roscore's children) get the rest of the grace period to
		// finish — a recorder renames its .active file as it closes — and
		// are killed after it.
		for syscall.Kill(-p.Cmd.Process.Pid, 0) == nil {
			select {
			case <-deadline:
				p.Signal(syscall.SIGKILL)
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	<-p.done
	return p.err
}

// killByEnv sends SIGKILL to every process of this user whose environment
// holds the entry kv (a test's own ROS_LOG_DIR, so only its own peers).
func killByEnv(kv string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, e := range bytes.Split(b, []byte{0}) {
			if string(e) == kv {
				if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && pid != os.Getpid() {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
				break
			}
		}
	}
}
