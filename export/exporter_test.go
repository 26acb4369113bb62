package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// typed pairs a ros1 decoder with its type (as decode.Decoder does).
type typed struct {
	t *msgdef.Type
	*ros1.Decoder
}

func (d typed) Type() *msgdef.Type { return d.t }

// sliceIter iterates a slice of messages; err, when set, is returned after
// them instead of io.EOF.
type sliceIter struct {
	msgs   []*record.Message
	err    error
	closed *bool
}

func (it *sliceIter) Next() (*record.Message, error) {
	if len(it.msgs) == 0 {
		if it.err != nil {
			return nil, it.err
		}
		return nil, io.EOF
	}
	m := it.msgs[0]
	it.msgs = it.msgs[1:]
	return m, nil
}

func (it *sliceIter) Close() error {
	if it.closed != nil {
		*it.closed = true
	}
	return nil
}

// corpus is a small multi-topic recording set made with ros1.Encode.
type corpus struct {
	inputs []Input // raw with resolve
	raw    []func() (record.Iterator, error)
	decs   map[*record.Channel]decode.Decoder
	msgs   [][]*record.Message
}

var corpusTopics = []struct{ topic, typ string }{
	{"/robot/pose", "geometry_msgs/PoseStamped"},
	{"/camera/points", "sensor_msgs/PointCloud2"},
	{"/chatter", "std_msgs/String"},
	{"/yes_no/goal", "rail_pick_and_place_msgs/GetYesNoFeedbackActionGoal"},
	{"/grasp/status", "actionlib_msgs/GoalStatusArray"},
	{"/markers", "visualization_msgs/MarkerArray"},
}

// newCorpus makes files inputs of n messages each, round robin over the
// corpus topics, log times one second apart (crossing midnight UTC).
func newCorpus(t testing.TB, files, n int) *corpus {
	reg := msgdef.Default()
	c := &corpus{decs: map[*record.Channel]decode.Decoder{}}
	rng := rand.New(rand.NewSource(7))
	start := int64(1700006400e9) - int64(n/2)*1e9 // midnight in the middle of each file
	for f := 0; f < files; f++ {
		path := fmt.Sprintf("rec/run%d.bag", f)
		var chans []*record.Channel
		for _, tt := range corpusTopics {
			typ, err := reg.Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			d, err := ros1.Compile(typ)
			if err != nil {
				t.Fatal(err)
			}
			ch := &record.Channel{Topic: tt.topic, MessageEncoding: "ros1",
				Schema: &record.Schema{Name: tt.typ, Encoding: "ros1msg", Data: []byte(msgdef.FullText(typ)), MD5: msgdef.MD5(typ)}}
			c.decs[ch] = typed{typ, d}
			chans = append(chans, ch)
		}
		var msgs []*record.Message
		for i := 0; i < n; i++ {
			ch := chans[i%len(chans)]
			data, err := ros1.Encode(randValue(rng, c.decs[ch].Type()))
			if err != nil {
				t.Fatal(err)
			}
			lt := start + int64(i)*1e9
			msgs = append(msgs, &record.Message{Channel: ch, LogTime: lt, PublishTime: lt, Sequence: uint64(i), Source: path, Offset: -1, Data: data})
		}
		c.msgs = append(c.msgs, msgs)
		c.raw = append(c.raw, func() (record.Iterator, error) { return &sliceIter{msgs: msgs}, nil })
	}
	c.inputs = c.with(c.resolve)
	return c
}

func (c *corpus) resolve(ch *record.Channel) (decode.Decoder, error) { return c.decs[ch], nil }

// with is the corpus's inputs, their messages' decoders given by resolve.
func (c *corpus) with(resolve func(*record.Channel) (decode.Decoder, error)) []Input {
	ins := make([]Input, len(c.raw))
	for i, open := range c.raw {
		ins[i] = Input{Path: fmt.Sprintf("rec/run%d.bag", i), Open: decoded(open, resolve)}
	}
	return ins
}

// decoded adapts open and resolve to Input.Open: each message of open's
// iterator with the decoder resolve gives its channel, once per channel
// (a nil decoder leaves the channel out), as recording.Decoded hands them;
// an error of resolve ends the reading.
func decoded(open func() (record.Iterator, error), resolve func(*record.Channel) (decode.Decoder, error)) func() (Messages, error) {
	return func() (Messages, error) {
		it, err := open()
		if err != nil {
			return nil, err
		}
		return &resolving{it: it, resolve: resolve, decs: map[*record.Channel]decode.Decoder{}}, nil
	}
}

// resolving is decoded's iterator.
type resolving struct {
	it      record.Iterator
	resolve func(*record.Channel) (decode.Decoder, error)
	decs    map[*record.Channel]decode.Decoder
}

func (r *resolving) Next() (*record.Message, decode.Decoder, error) {
	m, err := r.it.Next()
	if err != nil {
		return nil, nil, err
	}
	d, ok := r.decs[m.Channel]
	if !ok {
		if d, err = r.resolve(m.Channel); err != nil {
			return nil, nil, err
		}
		r.decs[m.Channel] = d
	}
	return m, d, nil
}

func (r *resolving) Close() error { return r.it.Close() }

// exportDir runs an export of c into a new directory and returns it.
func exportDir(t *testing.T, c *corpus, jobs int, opts ...Option) string {
	t.Helper()
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	e, err := New(dir, append([]Option{WithAllocator(mem), WithVersion("test")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), c.inputs, jobs); err != nil {
		e.Abort()
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tree returns every file under dir with its content.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestExportLayout(t *testing.T) {
	c := newCorpus(t, 2, 60)
	for _, tc := range []struct {
		name string
		opts []Option
		want []string
	}{
		{"none", nil, []string{"camera/points.parquet", "chatter.parquet", "grasp/status.parquet",
			"markers.parquet", "robot/pose.parquet", "yes_no/goal.parquet"}},
		{"csv", []Option{WithFormat(CSV)}, []string{"camera/points.csv", "chatter.csv", "grasp/status.csv",
			"markers.csv", "robot/pose.csv", "yes_no/goal.csv"}},
		{"source", []Option{WithPartitionBy(PartitionSource)}, nil},
		{"date", []Option{WithPartitionBy(PartitionDate)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := tree(t, exportDir(t, c, 1, tc.opts...))
			got := sortedKeys(files)
			if tc.want == nil {
				for _, tt := range corpusTopics {
					for i := 0; i < 2; i++ {
						if tc.name == "source" {
							tc.want = append(tc.want, fmt.Sprintf("topic=%s/source=run%d.bag/part-%d.parquet", hiveValue(tt.topic), i, i))
						} else {
							for _, d := range []string{"2023-11-14", "2023-11-15"} {
								tc.want = append(tc.want, fmt.Sprintf("topic=%s/date=%s/part-%d.parquet", hiveValue(tt.topic), d, i))
							}
						}
					}
				}
				sort.Strings(tc.want)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestDeterministic: two exports of the same inputs give the same bytes,
// whatever the number of jobs.
func TestDeterministic(t *testing.T) {
	c := newCorpus(t, 4, 90)
	for _, opts := range [][]Option{
		nil,
		{WithPartitionBy(PartitionDate)},
		{WithPartitionBy(PartitionSource), WithCompression(Snappy)},
		{WithFormat(CSV)},
		{WithRowGroupSize(7), WithMemoryBudget(4 << 10)},
	} {
		ref := tree(t, exportDir(t, c, 1, opts...))
		for _, jobs := range []int{1, 3, 8} {
			got := tree(t, exportDir(t, c, jobs, opts...))
			if len(got) != len(ref) {
				t.Fatalf("jobs %d: %d files, want %d", jobs, len(got), len(ref))
			}
			for name, b := range ref {
				if !bytes.Equal(got[name], b) {
					t.Fatalf("jobs %d: %s differs", jobs, name)
				}
			}
		}
	}
}

// TestAtomic: an export that fails midway leaves no file and no directory
// it created; temporary files never show under their final names.
func TestAtomic(t *testing.T) {
	c := newCorpus(t, 3, 60)
	broken := append([]*record.Message(nil), c.msgs[1][:30]...)
	c.inputs[1].Open = decoded(func() (record.Iterator, error) {
		return &sliceIter{msgs: broken, err: &record.Error{File: "rec/run1.bag", Offset: 1234, Err: record.ErrTruncated}}, nil
	}, c.resolve)
	for _, jobs := range []int{1, 3} {
		for _, part := range []Partition{PartitionNone, PartitionDate} {
			root := t.TempDir()
			dir := filepath.Join(root, "out", "deeper")
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			e, err := New(dir, WithAllocator(mem), WithPartitionBy(part))
			if err != nil {
				t.Fatal(err)
			}
			err = e.Run(context.Background(), c.inputs, jobs)
			if !errors.Is(err, record.ErrTruncated) {
				t.Fatalf("jobs %d: err %v", jobs, err)
			}
			e.Abort()
			mem.AssertSize(t, 0)
			left, _ := os.ReadDir(root)
			if len(left) != 0 {
				t.Errorf("jobs %d %s: left %v", jobs, part, tree(t, root))
			}
		}
	}
}

// TestBadMessage: a message that does not decode stops the export with a
// record.Error naming file, topic and field, unless WithSkipBad is set.
func TestBadMessage(t *testing.T) {
	c := newCorpus(t, 1, 30)
	c.msgs[0][13].Data = c.msgs[0][13].Data[:5]
	dir := t.TempDir()
	e, _ := New(dir)
	err := e.Run(context.Background(), c.inputs, 1)
	var re *record.Error
	if !errors.As(err, &re) || re.File != "rec/run0.bag" || re.Topic != corpusTopics[1].topic || !errors.Is(err, record.ErrTruncated) {
		t.Fatalf("err %v", err)
	}
	e.Abort()

	var skipped []error
	e, _ = New(dir, WithSkipBad(func(err error) { skipped = append(skipped, err) }))
	if err := e.Run(context.Background(), c.inputs, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 {
		t.Fatalf("skipped %v", skipped)
	}
	res := duckdb(t, "SELECT count(*) AS n FROM read_parquet("+sqlString(filepath.Join(dir, "camera/points.parquet"))+")")
	if n := res[0].Rows[0]["n"]; fmt.Sprint(n) != "4" {
		t.Errorf("rows %v, want 4 of 5", n)
	}
}

func TestRunControl(t *testing.T) {
	c := newCorpus(t, 3, 30)
	t.Run("skip channel", func(t *testing.T) {
		dir := t.TempDir()
		e, _ := New(dir)
		err := e.Run(context.Background(), c.with(func(ch *record.Channel) (decode.Decoder, error) {
			if ch.Topic == "/chatter" {
				return nil, nil
			}
			return c.decs[ch], nil
		}), 2)
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		if _, err := os.Stat(filepath.Join(dir, "chatter.parquet")); !os.IsNotExist(err) {
			t.Errorf("chatter exported: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "robot/pose.parquet")); err != nil {
			t.Error(err)
		}
	})
	t.Run("resolver error", func(t *testing.T) {
		e, _ := New(t.TempDir())
		boom := errors.New("boom")
		err := e.Run(context.Background(), c.with(func(*record.Channel) (decode.Decoder, error) { return nil, boom }), 3)
		if !errors.Is(err, boom) {
			t.Fatalf("err %v", err)
		}
		e.Abort()
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		e, _ := New(t.TempDir())
		if err := e.Run(ctx, c.inputs, 2); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
		e.Abort()
	})
	t.Run("iterators closed", func(t *testing.T) {
		closed := make([]bool, len(c.inputs))
		ins := append([]Input(nil), c.inputs...)
		for i := range ins {
			msgs := c.msgs[i]
			ins[i].Open = decoded(func() (record.Iterator, error) { return &sliceIter{msgs: msgs, closed: &closed[i]}, nil }, c.resolve)
		}
		e, _ := New(t.TempDir())
		if err := e.Run(context.Background(), ins, 2); err != nil {
			t.Fatal(err)
		}
		e.Close()
		for i, ok := range closed {
			if !ok {
				t.Errorf("input %d not closed", i)
			}
		}
	})
}

// TestParquetMetadata checks with DuckDB what the footer says: row groups
// bounded by rows and by bytes, zstd, statistics, dictionary-encoded
// strings, key-value metadata, created_by.
func TestParquetMetadata(t *testing.T) {
	c := newCorpus(t, 2, 600)
	dir := exportDir(t, c, 2, WithRowGroupSize(40), WithRowGroupBytes(20<<10))
	pose := sqlString(filepath.Join(dir, "robot/pose.parquet"))
	points := sqlString(filepath.Join(dir, "camera/points.parquet"))
	res := duckdb(t,
		"SELECT created_by, num_rows, num_row_groups FROM parquet_file_metadata("+pose+")",
		"SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata("+pose+") ORDER BY 1",
		"SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata("+pose+") WHERE decode(key) LIKE 'baglab.%' ORDER BY 1",
		"SELECT path_in_schema AS p, compression AS c, encodings AS e, stats_null_count IS NOT NULL AS has_min FROM parquet_metadata("+pose+") WHERE row_group_id = 0",
		"SELECT max(row_group_bytes) AS b, count(DISTINCT row_group_id) AS n FROM parquet_metadata("+points+")",
	)
	for _, r := range res {
		if r.Error != "" {
			t.Fatal(r.Error)
		}
	}
	fm := res[0].Rows[0]
	if fm["created_by"] != "baglab version test" || fmt.Sprint(fm["num_rows"]) != "200" {
		t.Errorf("file metadata %v", fm)
	}
	// 100 rows per input, 40 rows per group, no group across inputs.
	var groups []string
	for _, r := range res[1].Rows {
		groups = append(groups, fmt.Sprint(r["row_group_num_rows"]))
	}
	if strings.Join(groups, ",") != "40,40,20,40,40,20" {
		t.Errorf("row groups %v", groups)
	}
	kv := map[string]string{}
	for _, r := range res[2].Rows {
		kv[r["k"].(string)] = r["v"].(string)
	}
	reg := msgdef.Default()
	typ, _ := reg.Lookup("geometry_msgs/PoseStamped")
	want := map[string]string{
		"baglab.version": "test", "baglab.topic": "/robot/pose", "baglab.message_type": "geometry_msgs/PoseStamped",
		"baglab.message_encoding": "ros1", "baglab.schema_encoding": "ros1msg", "baglab.md5": "d3812c3cbc69362b77dc0b19b345f8f5",
		"baglab.definition": msgdef.FullText(typ), "baglab.source_files": `["rec/run0.bag","rec/run1.bag"]`,
	}
	for k, v := range want {
		if kv[k] != v {
			t.Errorf("%s = %q, want %q", k, kv[k], v)
		}
	}
	for _, r := range res[3].Rows {
		p, e := r["p"].(string), r["e"].(string)
		if r["c"] != "ZSTD" || r["has_min"] != true {
			t.Errorf("%s: compression %v, stats %v", p, r["c"], r["has_min"])
		}
		isString := p == "source_file" || p == "header, frame_id"
		if isString != strings.Contains(e, "DICTIONARY") {
			t.Errorf("%s: encodings %s", p, e)
		}
	}
	// Point clouds flush by bytes: 20 KiB row groups hold few clouds.
	if n := fmt.Sprint(res[4].Rows[0]["n"]); n == "2" {
		t.Errorf("points: %s row groups, not bounded by bytes", n)
	}
}

func TestCompressions(t *testing.T) {
	c := newCorpus(t, 1, 30)
	var stmts []string
	for _, comp := range []Compression{Zstd, Snappy, LZ4, Uncompressed} {
		dir := exportDir(t, c, 1, WithCompression(comp))
		stmts = append(stmts, "SELECT (SELECT count(*) FROM read_parquet("+sqlString(dir+"/markers.parquet")+")) AS n, "+
			"(SELECT min(compression) FROM parquet_metadata("+sqlString(dir+"/markers.parquet")+")) AS c")
	}
	res := duckdb(t, stmts...)
	for i, want := range []string{"ZSTD", "SNAPPY", "LZ4_RAW", "UNCOMPRESSED"} {
		if res[i].Error != "" {
			t.Fatal(res[i].Error)
		}
		r := res[i].Rows[0]
		if fmt.Sprint(r["n"]) != "5" || r["c"] != want {
			t.Errorf("%s: %v", want, r)
		}
	}
}

func TestSchemaVariants(t *testing.T) {
	// The same topic with two layouts of one type (Grasp with and without
	// grasp_id) goes to two files, in order of appearance.
	withID := ty("rail_manipulation_msgs/Grasp", append(append([]msgdef.Field(nil), tGrasp.Fields...), fld("grasp_id", msgdef.Uint32))...)
	dir := t.TempDir()
	e, _ := New(dir)
	ch1 := &record.Channel{Topic: "/grasps", MessageEncoding: "ros1"}
	ch2 := &record.Channel{Topic: "/grasps", MessageEncoding: "ros1"}
	rng := rand.New(rand.NewSource(3))
	s := e.Source("a.bag")
	for i := 0; i < 6; i++ {
		ch, typ := ch1, tGrasp
		if i%2 == 1 {
			ch, typ = ch2, withID
		}
		if err := s.Write(&record.Message{Channel: ch, Sequence: uint64(i)}, typ, emitter(randValue(rng, typ))); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(sortedKeys(tree(t, dir)), " ")
	if got != "grasps.parquet grasps.v2.parquet" {
		t.Fatalf("files %s", got)
	}
	res := duckdb(t, "SELECT count(*) AS n, min(sequence) AS s FROM read_parquet("+sqlString(dir+"/grasps.v2.parquet")+") WHERE grasp_id IS NOT NULL")
	if r := res[0].Rows[0]; fmt.Sprint(r["n"]) != "3" || fmt.Sprint(r["s"]) != "1" {
		t.Errorf("v2: %v", r)
	}
	_ = value.Struct{}
}

// TestArrowRoundTrip reads an export back with arrow-go's Parquet reader:
// the stored Arrow schema restores durations, UTC timestamps and
// fixed-size lists, and every value comes back.
func TestArrowRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	e, _ := New(dir, WithAllocator(mem), WithRowGroupSize(7))
	s := e.Source("a.bag")
	rng := rand.New(rand.NewSource(5))
	ch := &record.Channel{Topic: "/deep"}
	var want []string
	for i := 0; i < 30; i++ {
		v := randValue(rng, tDeep)
		want = append(want, canonValue(v, nil, false))
		if err := s.Write(&record.Message{Channel: ch, Sequence: uint64(i)}, tDeep, emitter(v)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "deep.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := pqarrow.ReadTable(context.Background(), f, nil, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	sc, _ := Schema(tDeep)
	if tbl.Schema().NumFields() != sc.NumFields() {
		t.Fatalf("%d fields read back, want %d", tbl.Schema().NumFields(), sc.NumFields())
	}
	// arrow-go v18.7 restores timestamp zones and fixed-size lists from
	// ARROW:schema but reads durations as their int64 storage (pyarrow
	// restores them too).
	for i, f := range tbl.Schema().Fields() {
		got := strings.ReplaceAll(f.Type.String(), "element:", "item:")
		want := storageType(sc.Field(i).Type).String()
		if f.Name != sc.Field(i).Name || got != want {
			t.Errorf("field %s: %s, want %s: %s", f.Name, got, sc.Field(i).Name, want)
		}
	}
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	row := 0
	for tr.Next() {
		rec := tr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			if got := canonRow(rec, i); got != want[row] {
				t.Fatalf("row %d:\n got %s\nwant %s", row, got, want[row])
			}
			row++
		}
	}
	if row != 30 {
		t.Fatalf("%d rows", row)
	}
}
