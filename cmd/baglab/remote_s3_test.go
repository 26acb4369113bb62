package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/baglab/baglab/internal/testkit/s3test"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestS3Verbs runs the reading and writing verbs against a real S3 server
// (SeaweedFS): inputs read in place, a prefix as a folder, outputs
// published whole, and what baglab wrote read back by the AWS CLI.
func TestS3Verbs(t *testing.T) {
	srv := s3test.Start(t)
	srv.Bucket(t, "lab")
	for _, name := range []string{"study.bag", "study.mcap", "queries.db3"} {
		data, err := os.ReadFile(studyFile(name))
		if err != nil {
			t.Fatal(err)
		}
		srv.Put(t, "lab", "runs/"+name, data)
	}
	ents, _ := os.ReadDir(studyFile("queries_rosbag2"))
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(studyFile("queries_rosbag2"), e.Name()))
		srv.Put(t, "lab", "runs/queries_rosbag2/"+e.Name(), data)
	}
	same := func(t *testing.T, urlArgs, localArgs []string) string {
		t.Helper()
		got, gotErr, code := run(t, urlArgs...)
		want, wantErr, wcode := run(t, localArgs...)
		if code != 0 || wcode != 0 {
			t.Fatalf("exit %d: %s\nlocal exit %d: %s", code, gotErr, wcode, wantErr)
		}
		norm := func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(dropCompressionNote(s), "s3://lab/runs/", "DIR/"), studyDir+"/", "DIR/")
		}
		if norm(got) != norm(want) {
			t.Fatalf("%v differs from %v: %s", urlArgs, localArgs, testenv.FirstDiff(norm(got), norm(want)))
		}
		return gotErr
	}

	t.Run("info reads the tail", func(t *testing.T) {
		stderr := same(t, []string{"info", "--json", "--stats", "s3://lab/runs/study.mcap"}, []string{"info", "--json", studyFile("study.mcap")})
		if !strings.Contains(stderr, "s3://lab/runs/study.mcap: 2 requests") && !strings.Contains(stderr, "s3://lab/runs/study.mcap: 3 requests") {
			t.Errorf("stats: %s", stderr)
		}
	})
	t.Run("info of a large MCAP file or bag", func(t *testing.T) {
		src := bigRecordings(t)
		for _, name := range []string{"big.mcap", "big.bag"} {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			url := "s3://lab/big/" + name
			srv.Put(t, "lab", "big/"+name, data)
			got, stderr, code := run(t, "info", "--json", "--stats", url)
			want, _, _ := run(t, "info", "--json", filepath.Join(src, name))
			got = strings.ReplaceAll(got, "s3://lab/big/", src+"/")
			// A bag's compression is its first chunk's, which a note says.
			if name == "big.bag" && !compressionNote.MatchString(got) {
				t.Errorf("%s: no note of the chunk headers read: %s", name, got)
			}
			if got = dropCompressionNote(got); code != 0 || got != want {
				t.Fatalf("%s: exit %d %s: %s", name, code, stderr, testenv.FirstDiff(got, want))
			}
			requests, fetched, size := statsOf(t, stderr, url)
			if requests > 3 || fetched > 300_000 {
				t.Errorf("%s: %d requests, %d of %d bytes", name, requests, fetched, size)
			}
			t.Logf("%s: %d requests, %d of %d bytes", name, requests, fetched, size)
		}
	})
	t.Run("prefix is a folder", func(t *testing.T) {
		local := t.TempDir()
		for _, name := range []string{"study.bag", "study.mcap", "queries.db3"} {
			data, _ := os.ReadFile(studyFile(name))
			os.WriteFile(filepath.Join(local, name), data, 0o644)
		}
		os.CopyFS(filepath.Join(local, "queries_rosbag2"), os.DirFS(studyFile("queries_rosbag2")))
		got, stderr, code := run(t, "info", "--json", "s3://lab/runs/")
		want, _, _ := run(t, "info", "--json", local)
		// A prefix keeps its slash: s3://lab/runs/queries_rosbag2/.
		got = strings.ReplaceAll(strings.ReplaceAll(dropCompressionNote(got), "s3://lab/runs/", "DIR/"), "queries_rosbag2/\"", "queries_rosbag2\"")
		want = strings.ReplaceAll(want, local+"/", "DIR/")
		if code != 0 || got != want {
			t.Fatalf("exit %d %s: %s", code, stderr, testenv.FirstDiff(got, want))
		}
	})
	t.Run("a rosbag2 prefix of MCAP splits is read in place", func(t *testing.T) {
		// convert --to ros2 writes three splits into the bucket, the
		// objects the AWS CLI downloads are the files of the same
		// conversion to a local folder, and reading the prefix back reads
		// each split through range requests (info fetches only their
		// heads, tails and indexes), copies none, and cat prints what it
		// prints of the local folder.
		testenv.RequirePeer(t, "awscli")
		big := filepath.Join(bigRecordings(t), "big.bag")
		local := filepath.Join(t.TempDir(), "big")
		for _, out := range []string{local, "s3://lab/ros2/big/"} {
			if _, stderr, code := run(t, "convert", big, out, "--to", "ros2", "--split-size", "4000000"); code != 0 {
				t.Fatalf("convert to %s: exit %d: %s", out, code, stderr)
			}
		}
		down := t.TempDir()
		cmd := exec.Command("/usr/bin/aws", "--endpoint-url", srv.Endpoint, "s3", "cp", "--recursive", "--only-show-errors", "s3://lab/ros2/big/", down)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("aws s3 cp: %v\n%s", err, out)
		}
		ents, _ := os.ReadDir(local)
		var splits []string
		for _, e := range ents {
			want, _ := os.ReadFile(filepath.Join(local, e.Name()))
			if got, err := os.ReadFile(filepath.Join(down, e.Name())); err != nil || !bytes.Equal(got, want) {
				t.Errorf("object %s: %v, %d bytes, the local file %d", e.Name(), err, len(got), len(want))
			}
			if strings.HasSuffix(e.Name(), ".mcap") {
				splits = append(splits, e.Name())
			}
		}
		if got := dataFiles(t, down); len(got) != len(ents) {
			t.Errorf("objects %v, local files %d", got, len(ents))
		}
		if len(splits) < 3 {
			t.Fatalf("splits %v, want 3 or more", splits)
		}
		_, stderr, code := run(t, "info", "--stats", "s3://lab/ros2/big/")
		if code != 0 || strings.Contains(stderr, "copied") {
			t.Fatalf("info: exit %d: %s", code, stderr)
		}
		for _, name := range splits {
			if _, fetched, size := statsOf(t, stderr, "s3://lab/ros2/big/"+name); fetched >= size {
				t.Errorf("info fetched %d of the %d bytes of %s", fetched, size, name)
			}
		}
		got, stderr, code := run(t, "cat", "s3://lab/ros2/big/")
		want, _, _ := run(t, "cat", local)
		if code != 0 || strings.Contains(stderr, "copied") {
			t.Fatalf("cat: exit %d: %s", code, stderr)
		}
		if got = strings.ReplaceAll(got, "s3://lab/ros2/big/", local+"/"); got != want || want == "" {
			t.Fatalf("cat of the prefix: %s", testenv.FirstDiff(got, want))
		}
	})
	t.Run("a rosbag2 prefix of db3 splits is copied once", func(t *testing.T) {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		_, stderr, code := run(t, "cat", "--stats", "s3://lab/runs/queries_rosbag2/")
		if n := strings.Count(stderr, "copied to a private temporary folder"); code != 0 || n != 1 {
			t.Fatalf("exit %d, %d notes of a copy: %s", code, n, stderr)
		}
		// Each byte once, but for the head: its 8 KiB come again in the
		// object's last bytes, asked for beside it, when the object is
		// shorter than head and tail together.
		u := "s3://lab/runs/queries_rosbag2/queries_rosbag2_0.db3"
		if _, fetched, size := statsOf(t, stderr, u); fetched < size || fetched > size+8<<10 {
			t.Errorf("%s: fetched %d bytes of %d", u, fetched, size)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Fatalf("left behind: %v", left)
		}
	})
	t.Run("cat with topics", func(t *testing.T) {
		same(t, []string{"cat", "--topics", "/lama/**", "s3://lab/runs/study.bag", "s3://lab/runs/study.mcap"},
			[]string{"cat", "--topics", "/lama/**", studyFile("study.bag"), studyFile("study.mcap")})
	})
	t.Run("export to s3", func(t *testing.T) {
		testenv.RequirePeer(t, "awscli")
		local := t.TempDir()
		if _, stderr, code := run(t, "export", "s3://lab/runs/study.bag", "--partition-by", "source", "--out", "s3://lab/ds/"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, stderr, code := run(t, "export", "s3://lab/runs/study.bag", "--partition-by", "source", "--out", local); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// A second export to the same prefix finds its manifest and skips.
		if _, stderr, code := run(t, "export", "s3://lab/runs/study.bag", "--partition-by", "source", "--out", "s3://lab/ds/"); code != 0 || !strings.Contains(stderr, "skipped") {
			t.Fatalf("again: exit %d: %s", code, stderr)
		}
		down := t.TempDir()
		cmd := exec.Command("/usr/bin/aws", "--endpoint-url", srv.Endpoint, "s3", "cp", "--recursive", "--only-show-errors", "s3://lab/ds/", down)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("aws s3 cp: %v\n%s", err, out)
		}
		want, got := dataFiles(t, local), dataFiles(t, down)
		if strings.Join(got, ",") != strings.Join(want, ",") || len(want) == 0 {
			t.Fatalf("objects %v, local files %v", got, want)
		}
		for _, f := range want {
			a, _ := os.ReadFile(filepath.Join(local, f))
			b, _ := os.ReadFile(filepath.Join(down, f))
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs between the S3 export and the local one", f)
			}
		}
	})
	t.Run("partials on s3", func(t *testing.T) {
		for i, name := range []string{"study.bag", "study.mcap"} {
			out := "s3://lab/parts/" + string(rune('a'+i)) + ".partial.json"
			if _, stderr, code := run(t, "analyze", "grasps", "s3://lab/runs/"+name, "--partial", out); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		}
		merged, stderr, code := run(t, "analyze", "grasps", "--from-partial", "s3://lab/parts/", "--json")
		one, _, _ := run(t, "analyze", "grasps", "s3://lab/runs/study.bag", "s3://lab/runs/study.mcap", "--json")
		if code != 0 || merged != one {
			t.Fatalf("exit %d %s: %s", code, stderr, testenv.FirstDiff(merged, one))
		}
	})
	t.Run("filter and report to s3", func(t *testing.T) {
		testenv.RequirePeer(t, "boto3")
		if _, stderr, code := run(t, "filter", "--topics", "/lama/**", "s3://lab/runs/study.bag", "s3://lab/out/lama.bag"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, stderr, code := run(t, "report", "s3://lab/runs/study.bag", "-o", "s3://lab/out/report.html"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		py := `import boto3,os,sys
s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
for k in sys.argv[1:]:
    b = s3.get_object(Bucket="lab", Key=k)["Body"].read()
    print(k, len(b), b[:13])`
		out, err := exec.Command("/usr/bin/python3", "-c", py, "out/lama.bag", "out/report.html").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "out/lama.bag") || !strings.Contains(string(out), "#ROSBAG V2.0") {
			t.Fatalf("boto3: %v\n%s", err, out)
		}
		cat, _, _ := run(t, "cat", "s3://lab/out/lama.bag")
		want, _, _ := run(t, "cat", "--topics", "/lama/**", studyFile("study.bag"))
		if cat != want {
			t.Fatalf("filtered bag: %s", testenv.FirstDiff(cat, want))
		}
	})
	t.Run("export refuses a prefix that holds objects", func(t *testing.T) {
		srv.Put(t, "lab", "other/readme.txt", []byte("not a dataset\n"))
		for _, part := range []string{"none", "source"} {
			_, stderr, code := run(t, "export", "s3://lab/runs/study.bag", "--partition-by", part, "--out", "s3://lab/other/")
			if code != exitOutput || !strings.Contains(stderr, "s3://lab/other/readme.txt") {
				t.Fatalf("--partition-by %s: exit %d: %s", part, code, stderr)
			}
		}
		if _, stderr, code := run(t, "export", "s3://lab/runs/study.bag", "--force", "--out", "s3://lab/other/"); code != 0 {
			t.Fatalf("--force: exit %d: %s", code, stderr)
		}
		list, err := srv.Client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("lab"), Prefix: aws.String("other/")})
		if err != nil || len(list.Contents) < 2 {
			t.Fatalf("after --force: %v, %d objects", err, len(list.Contents))
		}
	})
	t.Run("a usage error outranks an existing output", func(t *testing.T) {
		// as for local outputs: the flags are checked before the output
		srv.Put(t, "lab", "usage/lama.bag", []byte("keep me"))
		srv.Put(t, "lab", "usage/p.json", []byte("keep me"))
		for _, args := range [][]string{
			{"filter", "--compression", "zip", "s3://lab/runs/study.bag", "s3://lab/usage/lama.bag"},
			{"analyze", "grasps", "s3://lab/runs/study.bag", "--partial", "s3://lab/usage/p.json", "--dpi", "5"},
			{"analyze", "nosuchkind", "s3://lab/runs/study.bag", "--partial", "s3://lab/usage/p.json"},
		} {
			if _, stderr, code := run(t, args...); code != exitUsage {
				t.Errorf("%v: exit %d, want %d: %s", args, code, exitUsage, stderr)
			}
		}
		for _, key := range []string{"usage/lama.bag", "usage/p.json"} {
			if got := srv.Get(t, "lab", key); string(got) != "keep me" {
				t.Errorf("%s changed: %.20q", key, got)
			}
		}
	})
	t.Run("outputs follow the overwrite rule", func(t *testing.T) {
		// an existing object is refused without --force, kept, and replaced with it
		srv.Put(t, "lab", "rule/lama.bag", []byte("keep me"))
		srv.Put(t, "lab", "rule/p.json", []byte("keep me"))
		for _, args := range [][]string{
			{"filter", "--topics", "/lama/**", "s3://lab/runs/study.bag", "s3://lab/rule/lama.bag"},
			{"analyze", "grasps", "s3://lab/runs/study.bag", "--partial", "s3://lab/rule/p.json"},
		} {
			if _, stderr, code := run(t, args...); code != exitOutput || !strings.Contains(stderr, "--force") {
				t.Errorf("%v: exit %d: %s", args, code, stderr)
			}
			key := strings.TrimPrefix(args[len(args)-1], "s3://lab/")
			if got := srv.Get(t, "lab", key); string(got) != "keep me" {
				t.Errorf("%s changed: %.20q", key, got)
			}
			if _, stderr, code := run(t, append(args, "--force")...); code != 0 {
				t.Errorf("%v --force: exit %d: %s", args, code, stderr)
			}
			if got := srv.Get(t, "lab", key); string(got) == "keep me" {
				t.Errorf("%s not replaced with --force", key)
			}
		}
		// a folder output: refused over objects, replaced whole with --force
		srv.Put(t, "lab", "rule/tables/stale.csv", []byte("an earlier run\n"))
		args := []string{"analyze", "grasps", "s3://lab/runs/study.bag", "--out", "s3://lab/rule/tables/"}
		if _, stderr, code := run(t, args...); code != exitOutput || !strings.Contains(stderr, "--force") {
			t.Errorf("--out over objects: exit %d: %s", code, stderr)
		}
		if _, stderr, code := run(t, append(args, "--force")...); code != 0 {
			t.Fatalf("--out --force: exit %d: %s", code, stderr)
		}
		local := t.TempDir()
		if _, stderr, code := run(t, "analyze", "grasps", studyFile("study.bag"), "--out", local, "--force"); code != 0 {
			t.Fatalf("local --out: exit %d: %s", code, stderr)
		}
		var keys []string
		list, err := srv.Client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("lab"), Prefix: aws.String("rule/tables/")})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list.Contents {
			keys = append(keys, strings.TrimPrefix(*o.Key, "rule/tables/"))
		}
		sort.Strings(keys)
		if want := dataFiles(t, local); strings.Join(keys, " ") != strings.Join(want, " ") {
			t.Errorf("objects under the prefix after --force: %v, want the local folder's %v", keys, want)
		}
		// a bucket's root is never replaced whole
		if _, stderr, code := run(t, "analyze", "grasps", "s3://lab/runs/study.bag", "--out", "s3://lab/", "--force"); code != exitOutput || !strings.Contains(stderr, "root") {
			t.Errorf("--out bucket root: exit %d: %s", code, stderr)
		}
	})
	t.Run("baseline on s3", func(t *testing.T) {
		short, _, _ := run(t, "analyze", "grasps", "--json", "--end", "+30s", studyFile("study.bag"))
		srv.Put(t, "lab", "base/grasps.json", []byte(short))
		if out, stderr, code := run(t, "check", "--baseline", "s3://lab/base/grasps.json", "s3://lab/runs/study.bag"); code != exitProblem || !strings.Contains(out, "s3://lab/base/grasps.json") {
			t.Fatalf("drift: exit %d: %s\n%s", code, out, stderr)
		}
		_, stderr, code := run(t, "analyze", "grasps", "s3://lab/runs/study.bag", "--baseline", "s3://lab/base/grasps.json", "--update-baseline")
		if code != 0 || !strings.Contains(stderr, "rewrote baseline s3://lab/base/grasps.json") {
			t.Fatalf("update: exit %d: %s", code, stderr)
		}
		if _, stderr, code := run(t, "check", "--baseline", "s3://lab/base/grasps.json", "s3://lab/runs/study.bag"); code != 0 {
			t.Fatalf("after the update: exit %d: %s", code, stderr)
		}
	})
	t.Run("recover into the bucket", func(t *testing.T) {
		data, _ := os.ReadFile(studyFile("broken/study-crc.mcap"))
		srv.Put(t, "lab", "broken/study-crc.mcap", data)
		out, stderr, code := run(t, "recover", "s3://lab/broken/study-crc.mcap")
		if code != exitProblem || !strings.HasPrefix(out, "s3://lab/broken/study-crc.mcap -> s3://lab/broken/study-crc.recovered.mcap: ") {
			t.Fatalf("exit %d: %s\n%s", code, out, stderr)
		}
		local := filepath.Join(t.TempDir(), "r.mcap")
		run(t, "recover", studyFile("broken/study-crc.mcap"), "-o", local)
		want, _ := os.ReadFile(local)
		obj, err := srv.Client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("lab"), Key: aws.String("broken/study-crc.recovered.mcap")})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(obj.Body)
		obj.Body.Close()
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Fatalf("recovered object %d bytes, local recover %d, not the same", len(got), len(want))
		}
	})
	t.Run("missing key and wrong secret exit 4", func(t *testing.T) {
		_, stderr, code := run(t, "info", "s3://lab/runs/none.bag")
		if code != exitNoInput || !strings.Contains(stderr, "s3://lab/runs/none.bag") {
			t.Fatalf("missing: exit %d: %s", code, stderr)
		}
	})
}

// dataFiles lists the files under dir but the manifest's, relative.
func dataFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.Contains(p, "_baglab") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestDaskFleetS3 runs examples/dask_fleet.py on a Dask LocalCluster of
// two worker processes with no shared file system: the recordings, the
// dataset and the partials are on a real S3 server (SeaweedFS). The
// merged result equals one analyze of the same URLs in one process, and
// the dataset (read back with the AWS CLI) equals one export of them.
func TestDaskFleetS3(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a Dask cluster")
	}
	testenv.RequirePeer(t, "dask", "awscli")
	srv := s3test.Start(t)
	srv.Bucket(t, "fleet")
	// The same recordings as local files, under the objects' names.
	local := t.TempDir()
	var urls, paths []string
	for i, f := range fleetStudies(t, 2) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := string(rune('a'+i)) + "-" + filepath.Base(f)
		srv.Put(t, "fleet", "runs/"+name, data)
		urls = append(urls, "s3://fleet/runs/"+name)
		paths = append(paths, filepath.Join(local, name))
		if err := os.WriteFile(paths[i], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := baglabOnPath(t)
	work := t.TempDir()
	result := filepath.Join(work, "result.json")
	args := []string{"../../examples/dask_fleet.py", "--baglab", bin, "--out", "s3://fleet/ds/", "--partials", "s3://fleet/parts/",
		"--partition-by", "source", "--result", result, "--workers", "2", "--batch", "2", "--local-dir", filepath.Join(work, "scratch")}
	cmd := exec.Command(testenv.Python, append(args, urls...)...)
	cmd.Env = append(os.Environ(), exampleMainEnv+"=1", "HOME="+work, "DASK_TEMPORARY_DIRECTORY="+filepath.Join(work, "scratch"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dask_fleet.py: %v\n%s", err, out)
	}
	// One process over the local files gives the same result...
	want, stderr, code := run(t, append([]string{"analyze", "all", "--json"}, paths...)...)
	if code != 0 {
		t.Fatalf("one analyze: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(result)
	if err != nil || strings.ReplaceAll(string(got), "s3://fleet/runs/", local+"/") != want {
		t.Fatalf("merged partials differ from one analyze of the local files: %v %s",
			err, testenv.FirstDiff(strings.ReplaceAll(string(got), "s3://fleet/runs/", local+"/"), want))
	}
	// ...and the same dataset: the same files (parts named by content),
	// whose rows DuckDB finds equal but for source_file, the path or URL.
	ref := filepath.Join(work, "reference")
	if _, stderr, code := run(t, append([]string{"export", "--out", ref, "--partition-by", "source", "--jobs", "2"}, paths...)...); code != 0 {
		t.Fatalf("one export: exit %d: %s", code, stderr)
	}
	down := filepath.Join(work, "down")
	if out, err := exec.Command("/usr/bin/aws", "--endpoint-url", srv.Endpoint, "--only-show-errors", "s3", "cp", "--recursive", "s3://fleet/ds/", down).CombinedOutput(); err != nil {
		t.Fatalf("aws s3 cp: %v\n%s", err, out)
	}
	files := dataFiles(t, ref)
	if g := dataFiles(t, down); strings.Join(g, ",") != strings.Join(files, ",") || len(files) == 0 {
		t.Fatalf("S3 dataset files %v, local export's %v", g, files)
	}
	testenv.RequirePeer(t, "duckdb")
	var q []string
	for _, f := range files {
		rows := func(dir string) string {
			return fmt.Sprintf("SELECT * EXCLUDE (source_file) FROM read_parquet('%s', hive_partitioning = false)", filepath.Join(dir, f))
		}
		q = append(q, fmt.Sprintf("SELECT '%s' AS file, (SELECT count(*) FROM (%s)) AS n, (SELECT count(*) FROM (%s EXCEPT ALL %s)) + (SELECT count(*) FROM (%s EXCEPT ALL %s)) AS differ",
			f, rows(ref), rows(ref), rows(down), rows(down), rows(ref)))
	}
	total := 0.0
	for _, r := range duckdbQuery(t, strings.Join(q, " UNION ALL ")) {
		n, _ := strconv.ParseFloat(fmt.Sprint(r["n"]), 64)
		d, _ := strconv.ParseFloat(fmt.Sprint(r["differ"]), 64)
		if d != 0 || n == 0 {
			t.Errorf("%s: %v rows, %v differ from the local export's", r["file"], r["n"], r["differ"])
		}
		total += n
	}
	t.Logf("%d files, %.0f rows equal", len(files), total)
}
