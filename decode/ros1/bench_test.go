package ros1

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
)

// must panics on a setup error in benchmarks and test helpers.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

func setAll(s *value.Struct, kv ...any) *value.Struct {
	for i := 0; i < len(kv); i += 2 {
		must(s.Set(kv[i].(string), kv[i+1]))
	}
	return s
}

// benchPointCloud2 is a 1 MB cloud of x, y, z, intensity float32 points.
func benchPointCloud2(tb testing.TB) *value.Struct {
	mt := lookup(tb, "sensor_msgs/PointCloud2")
	pf := mt.Field("fields").Msg
	var fields []*value.Struct
	for i, name := range []string{"x", "y", "z", "intensity"} {
		fields = append(fields, setAll(value.New(pf), "name", name, "offset", 4*i, "datatype", 7, "count", 1))
	}
	const points = 1 << 16
	data := make([]byte, points*16)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	return setAll(value.New(mt), "header.seq", 1, "header.stamp", value.Time{Sec: 1700000000, Nsec: 5},
		"header.frame_id", "velodyne", "height", 1, "width", points, "fields", fields,
		"point_step", 16, "row_step", points*16, "data", data, "is_dense", true)
}

func pose(tb testing.TB, s *value.Struct, path string, r *rand.Rand) {
	setAll(s, path+".position.x", r.Float64(), path+".position.y", r.Float64(), path+".position.z", r.Float64(),
		path+".orientation.z", r.Float64(), path+".orientation.w", r.Float64())
}

// benchTaskTrainingData has 10 placement sets of 100 placements, each with
// its item, a room with two surfaces and a surface with two POIs.
func benchTaskTrainingData(tb testing.TB) *value.Struct {
	mt := lookup(tb, "interactive_world_msgs/TaskTrainingData")
	tSet := mt.Field("data").Msg
	tPlacement := tSet.Field("placements").Msg
	tRoom := tPlacement.Field("room").Msg
	tSurface := tRoom.Field("surfaces").Msg
	tPOI := tSurface.Field("pois").Msg
	r := rand.New(rand.NewPCG(2, 2))
	surface := func(name string) *value.Struct {
		s := setAll(value.New(tSurface), "name", name, "width", r.Float64(), "height", r.Float64())
		pose(tb, s, "pose", r)
		var pois []*value.Struct
		for _, n := range []string{"left", "right"} {
			p := setAll(value.New(tPOI), "name", n, "width", 0.2, "height", 0.1)
			pose(tb, p, "pose", r)
			pois = append(pois, p)
		}
		return setAll(s, "pois", pois)
	}
	var sets []*value.Struct
	for i := range 10 {
		var ps []*value.Struct
		for j := range 100 {
			p := value.New(tPlacement)
			setAll(p, "item.name", fmt.Sprintf("item_%d", j%7), "item.width", 0.1, "item.height", 0.05,
				"room.name", "kitchen", "room.width", 5.0, "room.height", 4.0,
				"room.surfaces", []*value.Struct{surface("counter"), surface("table")},
				"surface", surface("table"), "reference_frame_id", "table",
				"position.x", r.Float64(), "position.y", r.Float64(), "position.z", r.Float64(),
				"rotation", r.Float64()*6.28)
			pose(tb, p, "room.pose", r)
			ps = append(ps, p)
		}
		sets = append(sets, setAll(value.New(tSet), "reference_frame_id", fmt.Sprintf("frame_%d", i), "placements", ps))
	}
	return setAll(value.New(mt), "data", sets)
}

// benchFactList has 200 toaster facts.
func benchFactList(tb testing.TB) *value.Struct {
	mt := lookup(tb, "toaster_msgs/FactList")
	tFact := mt.Field("factList").Msg
	r := rand.New(rand.NewPCG(3, 3))
	var facts []*value.Struct
	for i := range 200 {
		facts = append(facts, setAll(value.New(tFact), "property", "IsLookingAt", "propertyType", "attention",
			"subProperty", "agent", "subjectId", fmt.Sprintf("HUMAN%d", i%3), "targetId", fmt.Sprintf("OBJECT_%d", i),
			"subjectOwnerId", "", "targetOwnerId", "PR2_ROBOT", "valueType", i%2 == 0, "factObservability", 1.0,
			"doubleValue", r.Float64(), "stringValue", "true", "confidence", r.Float64(),
			"time", uint64(1700000000000000000+i), "timeStart", uint64(1700000000000000000), "timeEnd", uint64(0)))
	}
	return setAll(value.New(mt), "factList", facts)
}

func benchDecode(b *testing.B, msg func(testing.TB) *value.Struct) {
	v := msg(b)
	data, err := Encode(v)
	must(err)
	d, err := Compile(v.Type)
	must(err)
	run := func(b *testing.B, s sink.Sink, reset func()) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			reset()
			if err := d.Decode(data, s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("noop", func(b *testing.B) { run(b, sink.Discard, func() {}) })
	w := sink.NewJSONWriter()
	b.Run("json", func(b *testing.B) { run(b, w, w.Reset) })
	b.Run("value", func(b *testing.B) { run(b, value.NewBuilder(), func() {}) })
	b.Run("cdr", func(b *testing.B) {
		var e cdr.Encoder
		e.Start(make([]byte, 0, 2*len(data)))
		run(b, &e, func() { e.Start(e.Out()[:0]) })
	})
	b.Run("tocdr", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		t := d.ToCDR()
		buf := make([]byte, 0, 2*len(data))
		for b.Loop() {
			var ok bool
			if buf, ok = t.Append(buf[:0], data); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		buf := make([]byte, 0, len(data))
		for b.Loop() {
			if buf, err = AppendEncode(buf[:0], v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkPointCloud2(b *testing.B)      { benchDecode(b, benchPointCloud2) }
func BenchmarkTaskTrainingData(b *testing.B) { benchDecode(b, benchTaskTrainingData) }
func BenchmarkFactList(b *testing.B)         { benchDecode(b, benchFactList) }

// TestBenchMessages checks the benchmark inputs are what they claim.
func TestBenchMessages(t *testing.T) {
	pc := benchPointCloud2(t)
	if n, _ := pc.Len("data"); n != 1<<20 {
		t.Errorf("cloud of %d bytes", n)
	}
	td := benchTaskTrainingData(t)
	total := 0
	must(td.Each("data", func(_ int, v any) error {
		n, err := v.(*value.Struct).Len("placements")
		total += n
		return err
	}))
	if total != 1000 {
		t.Errorf("%d placements", total)
	}
	if n, _ := benchFactList(t).Len("factList"); n != 200 {
		t.Errorf("%d facts", n)
	}
}

// TestNoopSinkNoAllocs: decoding into a sink that keeps nothing allocates
// nothing, and neither does the JSON writer once its buffer has grown.
func TestNoopSinkNoAllocs(t *testing.T) {
	v := benchFactList(t)
	data, err := Encode(v)
	must(err)
	d, err := Compile(v.Type)
	must(err)
	w := sink.NewJSONWriter()
	for name, s := range map[string]sink.Sink{"noop": sink.Discard, "json": w} {
		allocs := testing.AllocsPerRun(20, func() {
			w.Reset()
			if err := d.Decode(data, s); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per message", name, allocs)
		}
	}
}
