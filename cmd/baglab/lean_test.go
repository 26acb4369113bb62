package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// leanPair holds, once per test run, the two binaries make build
// installs: the lean baglab and baglab-full beside it (TestMain removes
// its folder).
var leanPair = struct {
	once sync.Once
	dir  string
	err  error
}{}

func buildLeanPair(t *testing.T) (lean, full string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds two binaries (-short)")
	}
	leanPair.once.Do(func() {
		dir, err := os.MkdirTemp("", "baglab-lean")
		if err != nil {
			leanPair.err = err
			return
		}
		leanPair.dir = dir
		for _, b := range []struct{ out, tags string }{{"baglab", "baglab_lean"}, {"baglab-full", ""}} {
			cmd := exec.Command("go", "build", "-trimpath", "-tags="+b.tags, "-ldflags=-s -w -X main.version=lean-test", "-o", filepath.Join(dir, b.out), ".")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				leanPair.err = errors.New(string(out))
				return
			}
		}
	})
	if leanPair.err != nil {
		t.Fatalf("go build: %v", leanPair.err)
	}
	return filepath.Join(leanPair.dir, "baglab"), filepath.Join(leanPair.dir, "baglab-full")
}

// runBinary runs a built baglab and returns stdout, stderr and the exit code.
func runBinary(t *testing.T, env []string, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// TestLeanLinksNoHeavyPackage: the lean build initialises none of Arrow,
// the plotting library, gocloud, gRPC or the cloud SDKs (their inits took
// 15 ms of every start), and runs its own verbs as baglab-full does.
func TestLeanLinksNoHeavyPackage(t *testing.T) {
	lean, full := buildLeanPair(t)
	_, trace, code := runBinary(t, []string{"GODEBUG=inittrace=1"}, lean, "version")
	if code != 0 {
		t.Fatalf("lean version: exit %d\n%s", code, trace)
	}
	inits := strings.Count(trace, "init ")
	for _, heavy := range []string{"arrow-go", "gonum.org/v1/plot", "gocloud.dev", "google.golang.org/grpc", "aws-sdk-go", "azure-sdk", "cloud.google.com"} {
		if strings.Contains(trace, heavy) {
			t.Errorf("the lean build initialises %s", heavy)
		}
	}
	_, fullTrace, _ := runBinary(t, []string{"GODEBUG=inittrace=1"}, full, "version")
	if fullInits := strings.Count(fullTrace, "init "); inits*2 > fullInits {
		t.Errorf("lean runs %d package inits, full %d: expected well under half", inits, fullInits)
	}
	base, _ := httpDir(t, studyDir) // http(s) inputs are the lean build's own
	for _, args := range [][]string{
		{"version"},
		{"info", studyFile("study.bag")},
		{"info", base + "study.bag"},
		{"cat", studyFile("study.bag"), "--limit", "5"},
		{"cat", "--help"},
	} {
		lo, le, lc := runBinary(t, nil, lean, args...)
		fo, fe, fc := runBinary(t, nil, full, args...)
		if lo != fo || le != fe || lc != fc {
			t.Errorf("%v: lean and full differ:\nlean (exit %d): %s%s\nfull (exit %d): %s%s", args, lc, lo, le, fc, fo, fe)
		}
	}
}

// TestLeanHandsOff: what the lean build has no verb for, and any object
// storage URL, runs in baglab-full with the same arguments, output and
// exit code; without baglab-full beside it, the lean build says so.
func TestLeanHandsOff(t *testing.T) {
	lean, full := buildLeanPair(t)
	out := filepath.Join(t.TempDir(), "tables")
	if _, stderr, code := runBinary(t, nil, lean, "export", studyFile("study.bag"), "--out", out, "-q"); code != 0 {
		t.Fatalf("lean export: exit %d\n%s", code, stderr)
	}
	if parts, _ := filepath.Glob(filepath.Join(out, "*", "*.parquet")); len(parts) == 0 {
		t.Errorf("lean export wrote no Parquet into %s", out)
	}
	for _, args := range [][]string{
		{},                                  // the help
		{"--help"},                          // the help, every verb listed
		{"exprot", studyFile("study.bag")},  // did you mean export
		{"analyze", "placements", "--json"}, // no input: a usage error from baglab-full
		{"check", filepath.Join(t.TempDir(), "missing.bag")},
	} {
		lo, le, lc := runBinary(t, nil, lean, args...)
		fo, fe, fc := runBinary(t, nil, full, args...)
		if lo != fo || le != fe || lc != fc {
			t.Errorf("%v: lean and full differ:\nlean (exit %d): %s%s\nfull (exit %d): %s%s", args, lc, lo, le, fc, fo, fe)
		}
	}
	if help, _, _ := runBinary(t, nil, lean, "--help"); !strings.Contains(help, "export") || !strings.Contains(help, "analyze") {
		t.Errorf("lean --help lacks the full verbs:\n%s", help)
	}

	// An s3:// input goes to baglab-full even for a lean verb: the server
	// refuses it, and the error is the S3 one (exit 4), naming the URL.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>no</Message></Error>`))
	}))
	defer srv.Close()
	env := []string{"AWS_ENDPOINT_URL=" + srv.URL, "AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s", "AWS_REGION=us-east-1"}
	_, stderr, code := runBinary(t, env, lean, "cat", "s3://bucket/run.bag")
	if code != exitNoInput || !strings.Contains(stderr, "s3://bucket/run.bag") || strings.Contains(stderr, "lean") {
		t.Errorf("lean cat s3://: exit %d, want %d from baglab-full naming the URL\n%s", code, exitNoInput, stderr)
	}

	// The lean build alone, as if only it were installed.
	alone := filepath.Join(t.TempDir(), "baglab")
	data, err := os.ReadFile(lean)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runBinary(t, nil, alone, "export", studyFile("study.bag"), "--out", out); code != 1 || !strings.Contains(stderr, "baglab-full") {
		t.Errorf("lean export without baglab-full: exit %d, want 1 naming baglab-full\n%s", code, stderr)
	}
	if o, _, code := runBinary(t, nil, alone, "info", studyFile("study.bag")); code != 0 || !strings.Contains(o, "topics:") {
		t.Errorf("lean info without baglab-full: exit %d\n%s", code, o)
	}
}
