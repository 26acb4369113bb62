package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baglab/baglab/analysis/tf"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// tfTestBag writes analysis/tf's test recording with Debian's rosbag, at a
// simulator's time (T0 = 1000 s) where tf2's python binding keeps every
// nanosecond, or at T0 when given.
func tfTestBag(t *testing.T, t0 ...string) string {
	t.Helper()
	testenv.RequirePeer(t, "rosbag", "tf2", "ros-msgs", "nav-msgs")
	path := filepath.Join(t.TempDir(), "tf.bag")
	script := filepath.Join(testenv.Root(t), "analysis", "tf", "testdata", "tfbag.py")
	start := "1000"
	if len(t0) > 0 {
		start = t0[0]
	}
	if out, err := exec.Command(testenv.Python, script, path, "20", start).CombinedOutput(); err != nil {
		t.Fatalf("tfbag.py: %v\n%s", err, out)
	}
	return path
}

type tfJSONRow struct {
	TimeNs      int64               `json:"time_ns"`
	StampNs     int64               `json:"stamp_ns"`
	Translation *map[string]float64 `json:"translation"`
	Rotation    *map[string]float64 `json:"rotation"`
	Roll        *float64            `json:"roll"`
	Pitch       *float64            `json:"pitch"`
	Yaw         *float64            `json:"yaw"`
	Error       string              `json:"error"`
	ErrorKind   string              `json:"error_kind"`
}

// TestTFCommandMatchesTF2 runs baglab tf on a bag Debian's rosbag wrote:
// the tree names every frame with its parent, kind and publisher (the
// callerid of three /tf connections and the /tf_static one), and the
// lookups at every /pose header stamp agree with Debian's tf2 BufferCore
// within 1e-9, errors word for word; the CSV written through export holds
// the same numbers.
func TestTFCommandMatchesTF2(t *testing.T) {
	bag := tfTestBag(t)
	out, errs, code := run(t, "tf", bag, "--tree", "--json")
	if code != 0 {
		t.Fatalf("tf --tree: exit %d: %s", code, errs)
	}
	type frame struct {
		Frame, Parent string
		Static        bool
		Publishers    []string
		Count, Gaps   int
	}
	got := map[string]frame{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var f frame
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatal(err)
		}
		got[f.Frame] = f
	}
	for name, want := range map[string]frame{
		"odom":      {Parent: "map", Publishers: []string{"/amcl"}, Gaps: 1},
		"base_link": {Parent: "odom", Publishers: []string{"/robot_state"}, Count: 1000},
		"arm":       {Parent: "base_link", Publishers: []string{"/robot_state"}, Count: 2000},
		"gripper":   {Parent: "arm", Static: true, Publishers: []string{"/static_pub"}, Count: 1},
		"laser":     {Parent: "base_link", Static: true, Publishers: []string{"/static_pub"}, Count: 1},
		"island":    {Parent: "world2", Publishers: []string{"/other"}, Count: 20},
	} {
		g := got[name]
		if g.Parent != want.Parent || g.Static != want.Static || fmt.Sprint(g.Publishers) != fmt.Sprint(want.Publishers) ||
			(want.Count > 0 && g.Count != want.Count) || g.Gaps != want.Gaps {
			t.Errorf("frame %s: got %+v, want %+v", name, g, want)
		}
	}

	out, errs, code = run(t, "tf", bag, "--target", "map", "--source", "gripper", "--at-topic", "/pose", "--json")
	if code != 0 {
		t.Fatalf("tf --at-topic: exit %d: %s", code, errs)
	}
	var rows []tfJSONRow
	var queries bytes.Buffer
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r tfJSONRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		// the header stamps tfbag.py gave /pose: 11 ms after T0, every 50 ms
		if want := int64(1000e9 + 11e6 + int64(len(rows))*50e6); r.TimeNs != want {
			t.Fatalf("row %d at %d, want the header stamp %d", len(rows), r.TimeNs, want)
		}
		rows = append(rows, r)
		fmt.Fprintf(&queries, "map\tgripper\t%d\n", r.TimeNs)
	}
	if len(rows) != 400 {
		t.Fatalf("%d rows, want one per /pose message (400)", len(rows))
	}
	peer := exec.Command(testenv.Python, filepath.Join(testenv.Root(t), "analysis", "tf", "testdata", "tf2peer.py"), bag)
	peer.Stdin = &queries
	pout, err := peer.Output()
	if err != nil {
		t.Fatalf("tf2peer.py: %v", err)
	}
	var ok, failed, rpyChecked int
	for i, l := range strings.Split(strings.TrimSpace(string(pout)), "\n") {
		var w struct {
			Stamp      int64
			T          [3]float64
			Q          [4]float64
			RPY        []float64
			Error, Msg string
		}
		if err := json.Unmarshal([]byte(l), &w); err != nil {
			t.Fatal(err)
		}
		r := rows[i]
		if w.Error != "" {
			if r.ErrorKind != w.Error || r.Error != w.Msg {
				t.Fatalf("row %d: got %s %q, tf2 %s %q", i, r.ErrorKind, r.Error, w.Error, w.Msg)
			}
			failed++
			continue
		}
		if r.Translation == nil {
			t.Fatalf("row %d: %s; tf2 gives %v", i, r.Error, w.T)
		}
		tr, q := *r.Translation, *r.Rotation
		gotV := []float64{tr["x"], tr["y"], tr["z"], q["x"], q["y"], q["z"], q["w"]}
		wantV := append(w.T[:], w.Q[:]...)
		if w.RPY != nil { // roll, pitch and yaw as PyKDL's GetRPY gives them
			gotV = append(gotV, *r.Roll, *r.Pitch, *r.Yaw)
			wantV = append(wantV, w.RPY...)
			rpyChecked++
		}
		for k := range gotV {
			if math.Abs(gotV[k]-wantV[k]) > 1e-9 {
				t.Fatalf("row %d: got %v, tf2 %v", i, gotV, wantV)
			}
		}
		ok++
	}
	if ok < 390 || failed == 0 {
		t.Errorf("%d lookups agree, %d errors agree: want both kinds", ok, failed)
	}
	if rpyChecked == 0 && testenv.CI() {
		t.Errorf("roll, pitch and yaw unchecked: PyKDL (python3-pykdl, with python3-tf2-geometry-msgs) is missing")
	}

	dir := filepath.Join(t.TempDir(), "out")
	if _, errs, code := run(t, "tf", bag, "--target", "map", "--source", "gripper", "--at-topic", "/pose", "--out", dir, "--format", "csv"); code != 0 {
		t.Fatalf("tf --out: exit %d: %s", code, errs)
	}
	f, err := os.Open(filepath.Join(dir, "tf", "map", "gripper.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if len(recs) != len(rows)+1 {
		t.Fatalf("CSV has %d rows, want %d", len(recs)-1, len(rows))
	}
	for i, rec := range recs[1:] {
		r := rows[i]
		if rec[col["time_ns"]] != strconv.FormatInt(r.TimeNs, 10) {
			t.Fatalf("CSV row %d time %s, JSON %d", i, rec[col["time_ns"]], r.TimeNs)
		}
		x, _ := strconv.ParseFloat(rec[col["translation.x"]], 64)
		if r.Translation == nil {
			if !math.IsNaN(x) || rec[col["error"]] != r.Error {
				t.Fatalf("CSV row %d: x %v error %q, JSON error %q", i, x, rec[col["error"]], r.Error)
			}
			continue
		}
		if x != (*r.Translation)["x"] {
			t.Fatalf("CSV row %d: x %v, JSON %v", i, x, (*r.Translation)["x"])
		}
	}
}

// TestTFCommandAtEpochMatchesTF2 runs baglab tf on a bag stamped at epoch
// times (T0 = 1.7e9 s, where a double is 238 ns coarse) at every /pose
// header stamp and at --at times given to the nanosecond, and compares
// each row with tf2's BufferCore asked from C++ with the same exact
// stamps (testenv.TF2Core, fed the transforms Debian's rosbag reads):
// the same stamp, the same transform within 1e-9, the same error text.
func TestTFCommandAtEpochMatchesTF2(t *testing.T) {
	bag := tfTestBag(t, "1700000000")
	core := testenv.TF2Core(t)
	dump := filepath.Join(t.TempDir(), "transforms.tsv")
	script := filepath.Join(testenv.Root(t), "analysis", "tf", "testdata", "tf2peer.py")
	tsv, err := exec.Command(testenv.Python, script, "--dump", bag).Output()
	if err != nil {
		t.Fatalf("tf2peer.py --dump: %v", err)
	}
	if err := os.WriteFile(dump, tsv, 0o644); err != nil {
		t.Fatal(err)
	}
	ats := []string{"1700000000.000000001", "1700000003.123456789", "1700000007.000000001", "1700000012.987654321", "1700000019.999999999", "1700000030"}
	for _, args := range [][]string{{"--at-topic", "/pose"}, {"--at", strings.Join(ats, ",")}} {
		out, errs, code := run(t, append([]string{"tf", bag, "--target", "map", "--source", "gripper", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("tf %v: exit %d: %s", args, code, errs)
		}
		var rows []tfJSONRow
		var queries bytes.Buffer
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var r tfJSONRow
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
			fmt.Fprintf(&queries, "map\tgripper\t%d\n", r.TimeNs)
		}
		if args[0] == "--at" && (len(rows) != len(ats) || rows[1].TimeNs != 1700000003123456789) {
			t.Fatalf("--at: %d rows, the second at %d", len(rows), rows[1].TimeNs)
		}
		peer := exec.Command(core, dump)
		peer.Stdin = &queries
		pout, err := peer.Output()
		if err != nil {
			t.Fatalf("tf2core: %v", err)
		}
		var ok, failed int
		for i, l := range strings.Split(strings.TrimSpace(string(pout)), "\n") {
			var w struct {
				Stamp      int64
				T          [3]float64
				Q          [4]float64
				Error, Msg string
			}
			if err := json.Unmarshal([]byte(l), &w); err != nil {
				t.Fatal(err)
			}
			r := rows[i]
			if w.Error != "" {
				if r.ErrorKind != w.Error || r.Error != w.Msg {
					t.Fatalf("%v row %d: got %s %q, tf2 %s %q", args, i, r.ErrorKind, r.Error, w.Error, w.Msg)
				}
				failed++
				continue
			}
			if r.Translation == nil || r.StampNs != w.Stamp {
				t.Fatalf("%v row %d: %s at %d; tf2 gives %v at %d", args, i, r.Error, r.StampNs, w.T, w.Stamp)
			}
			tr, q := *r.Translation, *r.Rotation
			got := []float64{tr["x"], tr["y"], tr["z"], q["x"], q["y"], q["z"], q["w"]}
			want := append(w.T[:], w.Q[:]...)
			for k := range got {
				if math.Abs(got[k]-want[k]) > 1e-9 {
					t.Fatalf("%v row %d: got %v, tf2 %v", args, i, got, want)
				}
			}
			ok++
		}
		t.Logf("%v: %d lookups and %d errors agree with tf2", args, ok, failed)
		if ok < len(rows)/2 || failed == 0 {
			t.Errorf("%v: %d lookups agree, %d errors agree: want both kinds", args, ok, failed)
		}
	}
}

func TestTFUsage(t *testing.T) {
	for _, args := range [][]string{
		{"tf", "x.bag"},
		{"tf", "x.bag", "--target", "a"},
		{"tf", "x.bag", "--target", "a", "--source", "b"},
		{"tf", "x.bag", "--target", "a", "--source", "b", "--at", "1", "--every", "1s"},
		{"tf", "x.bag", "--tree", "--target", "a"},
		{"tf", "x.bag", "--target", "a", "--source", "b", "--at", "yesterday"},
		{"tf", "x.bag", "--target", "a", "--source", "b", "--every", "-1s"},
	} {
		if _, errs, code := run(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errs)
		}
	}
}

// TestExportTFFrameMatchesTF2 exports, with --tf-frame map, /pose
// (PoseStamped in base_link), /point (PointStamped in arm), /posecov
// (PoseWithCovarianceStamped in laser, its pose one level down), /vector
// (Vector3Stamped in arm), /wrench (WrenchStamped in laser), /poses
// (PoseArray in base_link: each pose in the message's frame) and /path
// (nav_msgs/Path: each PoseStamped in its own frame and stamp, some with
// no transform, some with no frame) as CSV and as Parquet, and compares
// the in_map values with Debian's tf2 BufferCore lookup and
// tf2_geometry_msgs' do_transform_pose, _point, _vector3 and _wrench of
// each message, or of each element: within 1e-9, and null exactly where
// tf2 raises an exception (an empty CSV cell or a JSON null in an array's
// cell; a Parquet null as DuckDB reads it), never NaN.
func TestExportTFFrameMatchesTF2(t *testing.T) {
	bag := tfTestBag(t)
	testenv.RequirePeer(t, "tf2geometry")
	dir := filepath.Join(t.TempDir(), "out")
	pqDir := filepath.Join(t.TempDir(), "pq")
	topics := "/pose,/point,/posecov,/vector,/wrench,/poses,/path"
	if _, errs, code := run(t, "export", bag, "--topics", topics, "--tf-frame", "map", "--out", dir, "--format", "csv"); code != 0 {
		t.Fatalf("export --tf-frame: exit %d: %s", code, errs)
	}
	if _, errs, code := run(t, "export", bag, "--topics", topics, "--tf-frame", "map", "--out", pqDir); code != 0 {
		t.Fatalf("export --tf-frame (parquet): exit %d: %s", code, errs)
	}
	for _, c := range tfFrameCases {
		t.Run(c.topic, func(t *testing.T) {
			want := tf2Frame(t, bag, c.topic, c.array != "")
			recs := readCSV(t, filepath.Join(dir, c.file+".csv"))
			col := map[string]int{}
			for i, h := range recs[0] {
				col[h] = i
			}
			if len(recs)-1 != len(want) || len(want) != c.rows {
				t.Fatalf("%d rows, tf2 %d, want %d", len(recs)-1, len(want), c.rows)
			}
			var got [][][]*float64
			for _, rec := range recs[1:] {
				got = append(got, tfFrameCSV(t, rec, col, c.prefix, c.array, c.cols))
			}
			found, missing := compareTF2(t, c.cols, got, want)
			t.Logf("CSV: %d values in map, %d where tf2 raises", found, missing)
			if found < c.rows*9/10 || missing == 0 {
				t.Errorf("%d values in map, %d without a transform: want both", found, missing)
			}

			rows := duckdbQuery(t, "SELECT in_map FROM read_parquet('"+filepath.Join(pqDir, c.file+".parquet")+"', file_row_number = true) ORDER BY file_row_number")
			if len(rows) != len(want) {
				t.Fatalf("Parquet: %d rows, tf2 %d", len(rows), len(want))
			}
			got = got[:0]
			for _, r := range rows {
				in := r["in_map"]
				if c.array == "" {
					got = append(got, [][]*float64{tfFrameJSON(t, in, strings.TrimPrefix(c.prefix, "in_map."), c.cols)})
					continue
				}
				els, _ := in.(map[string]any)[strings.TrimPrefix(c.array, "in_map.")].([]any)
				var row [][]*float64
				for _, e := range els {
					row = append(row, tfFrameJSON(t, e, c.prefix, c.cols))
				}
				got = append(got, row)
			}
			pf, pm := compareTF2(t, c.cols, got, want)
			t.Logf("Parquet via DuckDB: %d values in map, %d nulls", pf, pm)
			if pf != found || pm != missing {
				t.Errorf("Parquet: %d values, %d nulls; CSV %d, %d", pf, pm, found, missing)
			}
		})
	}
}

// TestExportTFFrameExplodeMatchesTF2: with --arrays explode:poses the
// in_map.poses of a PoseArray and of a nav_msgs/Path explode in step with
// poses, one pose and the same pose in map on each row, as tf2 transforms
// each (an empty cell where it raises), instead of a JSON cell on every
// row.
func TestExportTFFrameExplodeMatchesTF2(t *testing.T) {
	bag := tfTestBag(t)
	testenv.RequirePeer(t, "tf2geometry")
	dir := filepath.Join(t.TempDir(), "out")
	if _, errs, code := run(t, "export", bag, "--topics", "/poses,/path", "--tf-frame", "map", "--out", dir, "--format", "csv", "--arrays", "explode:poses"); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	for _, c := range tfFrameCases {
		if c.array == "" {
			continue
		}
		t.Run(c.topic, func(t *testing.T) {
			want := tf2Frame(t, bag, c.topic, true)
			recs := readCSV(t, filepath.Join(dir, c.file+".csv"))
			col := map[string]int{}
			for i, h := range recs[0] {
				col[h] = i
			}
			if _, ok := col["in_map.poses"]; ok {
				t.Fatalf("in_map.poses is one JSON cell: %v", recs[0])
			}
			// got[i][j]: element j of message i, each row one element
			var got [][][]*float64
			last := ""
			for _, rec := range recs[1:] {
				if seq := rec[col["sequence"]]; seq != last {
					got = append(got, nil)
					last = seq
				}
				if rec[col["poses._index"]] == "" { // an empty array
					continue
				}
				if idx, _ := strconv.Atoi(rec[col["poses._index"]]); idx != len(got[len(got)-1]) {
					t.Fatalf("poses._index %d after %d elements", idx, len(got[len(got)-1]))
				}
				v := tfFrameCSV(t, rec, col, c.array+"."+c.prefix, "", c.cols)
				got[len(got)-1] = append(got[len(got)-1], v[0])
			}
			if len(got) != len(want) || len(got) != c.rows {
				t.Fatalf("%d messages, tf2 %d, want %d", len(got), len(want), c.rows)
			}
			found, missing := compareTF2(t, c.cols, got, want)
			t.Logf("%d values in map, %d where tf2 raises", found, missing)
			if found < c.rows || missing == 0 {
				t.Errorf("%d values in map, %d without a transform: want both", found, missing)
			}
		})
	}
}

var tfPoseCols = []string{"position.x", "position.y", "position.z", "orientation.x", "orientation.y", "orientation.z", "orientation.w"}

// tfFrameCases are the topics of tfbag.py that --tf-frame map expresses.
var tfFrameCases = []struct {
	topic, file string
	prefix      string // of the columns, or of the paths in each element of array
	array       string // the column of an array
	cols        []string
	rows        int
}{
	{"/pose", "pose", "in_map.pose.", "", tfPoseCols, 400},
	{"/point", "point", "in_map.point.", "", []string{"x", "y", "z"}, 400},
	{"/posecov", "posecov", "in_map.pose.pose.", "", tfPoseCols, 200},
	{"/vector", "vector", "in_map.vector.", "", []string{"x", "y", "z"}, 200},
	{"/wrench", "wrench", "in_map.wrench.", "", []string{"force.x", "force.y", "force.z", "torque.x", "torque.y", "torque.z"}, 200},
	{"/poses", "poses", "", "in_map.poses", tfPoseCols, 200},
	{"/path", "path", "pose.", "in_map.poses", tfPoseCols, 200},
}

// tf2Frame runs tfframe.py: want[i][j] is element j of message i (one
// element outside arrays), nil where tf2 raises.
func tf2Frame(t *testing.T, bag, topic string, array bool) [][][]float64 {
	t.Helper()
	out, err := exec.Command(testenv.Python, filepath.Join(testenv.Root(t), "analysis", "tf", "testdata", "tfframe.py"), bag, topic, "map").Output()
	if err != nil {
		t.Fatalf("tfframe.py: %v", err)
	}
	var want [][][]float64
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var v [][]float64
		if !array {
			v = [][]float64{nil}
			err = json.Unmarshal([]byte(l), &v[0])
		} else {
			err = json.Unmarshal([]byte(l), &v)
		}
		if err != nil {
			t.Fatalf("tfframe.py: %q: %v", l, err)
		}
		want = append(want, v)
	}
	return want
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// compareTF2 checks got (nil for a null) against tf2's want: within 1e-9,
// null exactly where tf2 raises. It returns the elements found and those
// tf2 finds no transform for.
func compareTF2(t *testing.T, cols []string, got [][][]*float64, want [][][]float64) (found, missing int) {
	t.Helper()
	for i := range got {
		if want[i] == nil { // a PoseArray whose frame tf2 cannot transform
			want[i] = make([][]float64, len(got[i]))
		}
		if len(got[i]) != len(want[i]) {
			t.Fatalf("row %d: %d elements, tf2 %d", i, len(got[i]), len(want[i]))
		}
		for j, w := range want[i] {
			g := got[i][j]
			if w == nil {
				for k, x := range g {
					if x != nil {
						t.Fatalf("row %d element %d: %s = %v where tf2 finds no transform, want null", i, j, cols[k], *x)
					}
				}
				missing++
				continue
			}
			// PyKDL returns the quaternion of a rotation matrix, whose
			// sign is its own choice: q and -q are the same rotation
			sign := 1.0
			if len(cols) == 7 && g[6] != nil && *g[6]*w[6] < 0 {
				sign = -1
			}
			for k, x := range g {
				if x == nil {
					t.Fatalf("row %d element %d: %s null, tf2 %v", i, j, cols[k], w[k])
				}
				v := *x
				if k >= 3 && len(cols) == 7 {
					v *= sign
				}
				if math.Abs(v-w[k]) > 1e-9 {
					t.Fatalf("row %d element %d: %s = %v, tf2 %v", i, j, cols[k], v, w[k])
				}
			}
			found++
		}
	}
	return found, missing
}

// tfFrameCSV returns the values of cols (under prefix) of one CSV row, nil
// for an empty cell: one element for columns of their own, or each
// element of the JSON array in column array.
func tfFrameCSV(t *testing.T, rec []string, col map[string]int, prefix, array string, cols []string) [][]*float64 {
	t.Helper()
	if array == "" {
		v := make([]*float64, len(cols))
		for k, n := range cols {
			ci, ok := col[prefix+n]
			if !ok {
				t.Fatalf("no column %s%s", prefix, n)
			}
			if rec[ci] == "" {
				continue
			}
			x, err := strconv.ParseFloat(rec[ci], 64)
			if err != nil {
				t.Fatalf("%s%s: %v", prefix, n, err)
			}
			v[k] = &x
		}
		return [][]*float64{v}
	}
	ci, ok := col[array]
	if !ok {
		t.Fatalf("no column %s", array)
	}
	var els []any
	if err := json.Unmarshal([]byte(rec[ci]), &els); err != nil {
		t.Fatalf("%s: %v", array, err)
	}
	var out [][]*float64
	for _, e := range els {
		out = append(out, tfFrameJSON(t, e, prefix, cols))
	}
	return out
}

// tfFrameJSON returns the values of cols (under prefix) in a JSON object
// (a CSV cell's, or DuckDB's struct), nil for a null; NaN and infinities
// are strings.
func tfFrameJSON(t *testing.T, obj any, prefix string, cols []string) []*float64 {
	t.Helper()
	v := make([]*float64, len(cols))
	for k, n := range cols {
		x := obj
		for _, part := range strings.Split(prefix+n, ".") {
			m, ok := x.(map[string]any)
			if !ok {
				t.Fatalf("no %s%s in %v", prefix, n, obj)
			}
			if x, ok = m[part]; !ok {
				t.Fatalf("no %s%s in %v", prefix, n, obj)
			}
		}
		switch x := x.(type) {
		case nil:
		case float64:
			v[k] = &x
		case string: // NaN, Inf
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				t.Fatalf("%s%s = %q", prefix, n, x)
			}
			v[k] = &f
		default:
			t.Fatalf("%s%s = %v (%T)", prefix, n, x, x)
		}
	}
	return v
}

// BenchmarkAppendRow formats one line of tf's table: no allocation.
func BenchmarkAppendRow(b *testing.B) {
	roll, pitch, yaw := 0.1, -0.2, 3.1
	r := tf.Row{TimeNs: 1700000000123456789, StampNs: 1700000000123456789, Translation: &tf.Vec3{X: 1.5, Y: -2.25, Z: 1e-7},
		Rotation: &tf.Quat{X: 0.1, Y: 0.2, Z: 0.3, W: 0.927}, Roll: &roll, Pitch: &pitch, Yaw: &yaw}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendRow(buf[:0], r)
	}
	if want := "1700000000.123456789    1.500000   -2.250000    0.000000   0.100000   0.200000   0.300000   0.927000   0.100000  -0.200000   3.100000\n"; string(buf) != want {
		b.Fatalf("%q, want %q", buf, want)
	}
}

// TestAppendFixed6 holds tf's table formatting to strconv's 'f' with 6
// decimals over values of every magnitude, near halves and at the edges.
func TestAppendFixed6(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 27))
	vals := []float64{0, math.Copysign(0, -1), 1e-7, -1e-7, 5e-7, -5e-7, 0.0000005, 1.0000005, 2.5e-6, 0.1234565, 1 << 40, -(1 << 40) / 1e6,
		1099511.627775, 1099511.6277755, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64}
	for i := 0; i < 200000; i++ {
		e := rng.IntN(24) - 12
		v := (rng.Float64()*2 - 1) * math.Pow(10, float64(e))
		vals = append(vals, v, math.Round(v*1e6)/1e6+0.5e-6, float64(rng.Int64N(1<<40))/1e6+0.5e-6)
	}
	for _, v := range vals {
		if got, want := string(appendFixed6(nil, v)), strconv.FormatFloat(v, 'f', 6, 64); got != want {
			t.Fatalf("%v (%b): %s, strconv %s", v, v, got, want)
		}
	}
}
