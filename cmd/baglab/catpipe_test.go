package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// runStdin is run with stdin.
func runStdin(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, bytes.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// TestCatStdin: `cat -` reads a bag or an MCAP file from stdin and prints
// what cat FILE prints (with "-" as the source).
func TestCatStdin(t *testing.T) {
	for _, name := range []string{"study.bag", "study-bz2.bag", "study.mcap", "broken/study.bag.active"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(studyFile(name))
			if err != nil {
				t.Fatal(err)
			}
			want, stderr, code := run(t, "cat", studyFile(name), "--fields", "publish_time,sequence")
			if code != 0 {
				t.Fatal(stderr)
			}
			got, stderr, code := runStdin(t, raw, "cat", "-", "--fields", "publish_time,sequence")
			if code != 0 || got != want || got == "" {
				t.Errorf("cat - exit %d (%s): %d bytes, cat FILE %d bytes", code, stderr, len(got), len(want))
			}
		})
	}
	first := strings.SplitN(mustRun(t, "cat", studyFile("study.bag"), "--fields", "publish_time,sequence,source", "--limit", "1"), "\n", 2)[0]
	var line map[string]json.RawMessage
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"topic", "type", "log_time_ns", "publish_time_ns", "sequence", "source", "message"} {
		if _, ok := line[k]; !ok {
			t.Errorf("line lacks %q: %s", k, first)
		}
	}
	if string(line["sequence"]) != "0" || string(line["publish_time_ns"]) != string(line["log_time_ns"]) {
		t.Errorf("first message of a bag: sequence %s, publish time %s (log time %s)", line["sequence"], line["publish_time_ns"], line["log_time_ns"])
	}
	// A db3 database or garbage on stdin is refused with a clear line.
	db3, _ := os.ReadFile(studyFile("queries.db3"))
	if _, stderr, code := runStdin(t, db3, "cat", "-"); code != exitBadInput || !strings.Contains(stderr, "give its path") {
		t.Errorf("db3 on stdin: exit %d %s", code, stderr)
	}
	if _, stderr, code := runStdin(t, []byte("not a bag"), "cat", "-"); code != exitBadInput || !strings.Contains(stderr, "-: ") {
		t.Errorf("garbage on stdin: exit %d %s", code, stderr)
	}
	for _, bad := range [][]string{{"--shape", "ros"}, {"--fields", "offset"}, {"--shape", "mcap", "--fields", "sequence"}} {
		if _, stderr, code := run(t, append([]string{"cat", studyFile("study.bag")}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d %s", bad, code, stderr)
		}
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return out
}

// TestCatShapeMCAP: --shape mcap gives the lines of `mcap cat --json`,
// checked against npm @mcap/core's reading of the same file: every
// message's topic, sequence and log and publish times (as decimal seconds,
// made here from the peer's integer nanoseconds by string surgery).
func TestCatShapeMCAP(t *testing.T) {
	testenv.RequirePeer(t, "mcap")
	path := studyFile("study.mcap")
	cmd := exec.Command("node", filepath.Join(testenv.Root(t), "recording", "mcapfile", "testdata", "mcapdump.cjs"), testenv.NodeDir(t), path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("@mcap/core: %v\n%s", err, stderr.String())
	}
	var dump struct {
		Channels []struct {
			ID    int    `json:"id"`
			Topic string `json:"topic"`
		} `json:"channels"`
		Messages []struct {
			ChannelID   int    `json:"channelId"`
			Sequence    uint64 `json:"sequence"`
			LogTime     string `json:"logTime"`
			PublishTime string `json:"publishTime"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &dump); err != nil {
		t.Fatal(err)
	}
	topics := map[int]string{}
	for _, c := range dump.Channels {
		topics[c.ID] = c.Topic
	}
	decimal := func(ns string) string {
		ns = strings.Repeat("0", max(0, 10-len(ns))) + ns
		return strings.TrimLeft(ns[:len(ns)-9], "0") + "." + ns[len(ns)-9:]
	}
	var want []string
	for _, m := range dump.Messages {
		want = append(want, fmt.Sprintf("%s %d %s %s", topics[m.ChannelID], m.Sequence, decimal(m.LogTime), decimal(m.PublishTime)))
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, "cat", path, "--shape", "mcap")), "\n") {
		var m struct {
			Topic       string          `json:"topic"`
			Sequence    uint64          `json:"sequence"`
			LogTime     json.Number     `json:"log_time"`
			PublishTime json.Number     `json:"publish_time"`
			Data        json.RawMessage `json:"data"`
		}
		d := json.NewDecoder(strings.NewReader(l))
		d.UseNumber()
		d.DisallowUnknownFields()
		if err := d.Decode(&m); err != nil || len(m.Data) == 0 {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, fmt.Sprintf("%s %d %s %s", m.Topic, m.Sequence, m.LogTime, m.PublishTime))
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d lines, @mcap/core %d messages; first: %q vs %q", len(got), len(want), got[:min(1, len(got))], want[:min(1, len(want))])
	}
}
