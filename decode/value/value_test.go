package value_test

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

func ty(name string, fields ...msgdef.Field) *msgdef.Type {
	return &msgdef.Type{Name: name, Dialect: msgdef.ROS1, Fields: fields}
}

func fld(name string, k msgdef.Kind) msgdef.Field {
	return msgdef.Field{Name: name, Kind: k, Prim: k.String(), TypeName: k.String()}
}

func seq(f msgdef.Field) msgdef.Field { f.Array = msgdef.Sequence; return f }

func fixed(f msgdef.Field, n int) msgdef.Field { f.Array, f.Len = msgdef.Fixed, n; return f }

func sub(name string, t *msgdef.Type) msgdef.Field {
	return msgdef.Field{Name: name, Kind: msgdef.Struct, Msg: t, TypeName: t.Name}
}

var (
	tPoint     = ty("geometry_msgs/Point", fld("x", msgdef.Float64), fld("y", msgdef.Float64), fld("z", msgdef.Float64))
	tHeader    = ty("std_msgs/Header", fld("seq", msgdef.Uint32), fld("stamp", msgdef.Time), fld("frame_id", msgdef.String))
	tPlacement = ty("interactive_world_msgs/Placement", fld("name", msgdef.String), sub("position", tPoint), fld("rotation", msgdef.Float32))
	tAll       = ty("test/All",
		sub("header", tHeader),
		fld("b", msgdef.Bool), fld("i8", msgdef.Int8), fld("u16", msgdef.Uint16), fld("i64", msgdef.Int64),
		fld("u64", msgdef.Uint64), fld("f32", msgdef.Float32), fld("d", msgdef.Duration),
		seq(fld("data", msgdef.Uint8)), fixed(fld("id", msgdef.Uint8), 4),
		seq(msgdef.Field{Name: "raw", Kind: msgdef.Int8, Prim: "byte", TypeName: "byte"}),
		fixed(fld("cov", msgdef.Float64), 3), seq(fld("names", msgdef.String)),
		seq(sub("placements", tPlacement)), fixed(sub("corners", tPoint), 2), seq(fld("stamps", msgdef.Time)),
		msgdef.Field{Name: "bounded", Kind: msgdef.Int32, Prim: "int32", TypeName: "int32", Array: msgdef.Sequence, Len: 2},
	)
)

func TestNew(t *testing.T) {
	s := value.New(tAll)
	checks := map[string]any{
		"header.seq": uint64(0), "header.stamp": value.Time{}, "header.frame_id": "", "b": false, "i8": int64(0),
		"u64": uint64(0), "f32": float64(0), "d": value.Duration{}, "data": []byte{}, "id": []byte{0, 0, 0, 0},
		"raw": []byte{}, "cov": []any{0.0, 0.0, 0.0}, "names": []any{}, "placements": []any{},
		"corners[1].z": 0.0, "stamps": []any{},
	}
	for path, want := range checks {
		got, err := s.Get(path)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, %v; want %#v", path, got, err, want)
		}
	}
	// Every field of the zero value is valid: it emits without error.
	if _, err := s.MarshalJSON(); err != nil {
		t.Fatal(err)
	}
}

func filled(t *testing.T) *value.Struct {
	t.Helper()
	s := value.New(tAll)
	p := value.New(tPlacement)
	for path, v := range map[string]any{"name": "cup", "position.x": 1.5, "position.y": -2, "rotation": float32(0.1)} {
		if err := p.Set(path, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, set := range []struct {
		path string
		v    any
	}{
		{"header.seq", 7}, {"header.stamp", value.Time{Sec: 10, Nsec: 20}}, {"header.frame_id", "map"},
		{"b", true}, {"i8", int8(-5)}, {"u16", uint16(65535)}, {"i64", int64(math.MinInt64)},
		{"u64", uint64(math.MaxUint64)}, {"f32", 0.25}, {"d", value.Duration{Sec: -1, Nsec: 5}},
		{"data", []byte{1, 2, 3}}, {"id[2]", 9}, {"raw", []byte{0xff}}, {"cov", []float64{1, 2, 3}},
		{"names", []string{"a", "日本"}}, {"placements", []*value.Struct{p, value.New(tPlacement)}},
		{"corners[1].z", 4}, {"stamps", []value.Time{{Sec: 1}}}, {"bounded", []int32{1, 2}},
		{"placements[1].name", "plate"},
	} {
		if err := s.Set(set.path, set.v); err != nil {
			t.Fatalf("Set(%s): %v", set.path, err)
		}
	}
	return s
}

func TestGet(t *testing.T) {
	s := filled(t)
	for _, tc := range []struct {
		path string
		want any
	}{
		{"header.seq", uint64(7)},
		{"header.stamp", value.Time{Sec: 10, Nsec: 20}},
		{"i8", int64(-5)},
		{"u64", uint64(math.MaxUint64)},
		{"data", []byte{1, 2, 3}},
		{"data[1]", uint64(2)},
		{"raw[0]", int64(-1)},
		{"id", []byte{0, 0, 9, 0}},
		{"cov[2]", 3.0},
		{"names[1]", "日本"},
		{"placements[0].position.y", -2.0},
		{"placements[0].rotation", float64(float32(0.1))},
		{"placements[1].name", "plate"},
		{"corners[1].z", 4.0},
		{"stamps[0]", value.Time{Sec: 1}},
	} {
		got, err := s.Get(tc.path)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Get(%s) = %#v, %v; want %#v", tc.path, got, err, tc.want)
		}
	}
	if got, _ := s.Get(""); got != s {
		t.Error("Get(\"\") is not the struct itself")
	}
}

func TestPathErrors(t *testing.T) {
	s := filled(t)
	for _, tc := range []struct {
		path string
		want error
	}{
		{"nope", value.ErrNoField},
		{"header.nope", value.ErrNoField},
		{"b.x", value.ErrNoField},
		{"names[2]", value.ErrIndex},
		{"data[3]", value.ErrIndex},
		{"b[0]", value.ErrType},
		{"a..b", value.ErrPath},
		{"a.", value.ErrPath},
		{".a", value.ErrPath},
		{"a[", value.ErrPath},
		{"a[x]", value.ErrPath},
		{"a[1]b", value.ErrPath},
		{"names[99999999999999999999]", value.ErrPath},
	} {
		_, err := s.Get(tc.path)
		var pe *value.PathError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) {
			t.Errorf("Get(%q): %v, want %v", tc.path, err, tc.want)
		}
		if s.Has(tc.path) {
			t.Errorf("Has(%q)", tc.path)
		}
	}
	_, err := s.Get("placements[0].position.w")
	var pe *value.PathError
	if !errors.As(err, &pe) || pe.Path != "placements[0].position.w" {
		t.Errorf("error path: %v", err)
	}
}

func TestTypedAccessors(t *testing.T) {
	s := filled(t)
	if v, err := s.Float("header.seq"); err != nil || v != 7 {
		t.Errorf("Float(uint) = %v, %v", v, err)
	}
	if v, err := s.Float("i8"); err != nil || v != -5 {
		t.Errorf("Float(int) = %v, %v", v, err)
	}
	if _, err := s.Float("names[0]"); !errors.Is(err, value.ErrType) {
		t.Errorf("Float(string): %v", err)
	}
	if v, err := s.Int("u16"); err != nil || v != 65535 {
		t.Errorf("Int = %v, %v", v, err)
	}
	if _, err := s.Int("u64"); !errors.Is(err, value.ErrRange) {
		t.Errorf("Int(MaxUint64): %v", err)
	}
	if _, err := s.Int("f32"); !errors.Is(err, value.ErrType) {
		t.Errorf("Int(float): %v", err)
	}
	if v, err := s.Uint("header.seq"); err != nil || v != 7 {
		t.Errorf("Uint = %v, %v", v, err)
	}
	if _, err := s.Uint("i8"); !errors.Is(err, value.ErrRange) {
		t.Errorf("Uint(-5): %v", err)
	}
	if v, err := s.Text("header.frame_id"); err != nil || v != "map" {
		t.Errorf("String = %v, %v", v, err)
	}
	if v, err := s.Bool("b"); err != nil || !v {
		t.Errorf("Bool = %v, %v", v, err)
	}
	if v, err := s.Len("placements"); err != nil || v != 2 {
		t.Errorf("Len = %v, %v", v, err)
	}
	if v, err := s.Len("data"); err != nil || v != 3 {
		t.Errorf("Len(blob) = %v, %v", v, err)
	}
	if _, err := s.Len("b"); !errors.Is(err, value.ErrType) {
		t.Errorf("Len(bool): %v", err)
	}
	if p, err := s.Struct("placements[0]"); err != nil || p.Type != tPlacement {
		t.Errorf("Struct = %v, %v", p, err)
	}
	if v, err := s.TimeNs("header.stamp"); err != nil || v != 10_000_000_020 {
		t.Errorf("TimeNs = %v, %v", v, err)
	}
	if v, err := s.TimeNs("d"); err != nil || v != -999_999_995 {
		t.Errorf("TimeNs(duration) = %v, %v", v, err)
	}
	if b, err := s.Bytes("data"); err != nil || string(b) != "\x01\x02\x03" {
		t.Errorf("Bytes = %v, %v", b, err)
	}
	var names []string
	err := s.Each("placements", func(i int, v any) error {
		name, err := v.(*value.Struct).Text("name")
		names = append(names, name)
		return err
	})
	if err != nil || strings.Join(names, ",") != "cup,plate" {
		t.Errorf("Each = %v, %v", names, err)
	}
	var sum uint64
	if err := s.Each("data", func(i int, v any) error { sum += v.(uint64); return nil }); err != nil || sum != 6 {
		t.Errorf("Each(blob) = %v, %v", sum, err)
	}
	stop := errors.New("stop")
	calls := 0
	if err := s.Each("cov", func(int, any) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("Each stop: %v after %d calls", err, calls)
	}
}

// TestTimeNsROS2: builtin_interfaces/Time is an ordinary message.
func TestTimeNsROS2(t *testing.T) {
	tTime := ty("builtin_interfaces/Time", fld("sec", msgdef.Int32), fld("nanosec", msgdef.Uint32))
	s := value.New(ty("test/R2", sub("stamp", tTime)))
	if err := s.Set("stamp.sec", 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("stamp.nanosec", 4); err != nil {
		t.Fatal(err)
	}
	if v, err := s.TimeNs("stamp"); err != nil || v != 3_000_000_004 {
		t.Errorf("TimeNs = %v, %v", v, err)
	}
}

// TestHasLayouts: one type name, two recorded layouts.
func TestHasLayouts(t *testing.T) {
	old := value.New(ty("rail_manipulation_msgs/Grasp", fld("eef_frame_id", msgdef.String)))
	newer := value.New(ty("rail_manipulation_msgs/Grasp", fld("eef_frame_id", msgdef.String), fld("grasp_id", msgdef.Uint32)))
	if old.Has("grasp_id") || !newer.Has("grasp_id") || !old.Has("eef_frame_id") {
		t.Error("Has does not follow the layout")
	}
}

func TestSetErrors(t *testing.T) {
	for _, tc := range []struct {
		path string
		v    any
		want error
		at   string
	}{
		{"i8", 128, value.ErrRange, "i8"},
		{"i8", -129, value.ErrRange, "i8"},
		{"u16", -1, value.ErrRange, "u16"},
		{"u16", 70000, value.ErrRange, "u16"},
		{"i64", uint64(math.MaxUint64), value.ErrRange, "i64"},
		{"i8", 1.5, value.ErrType, "i8"},
		{"b", 1, value.ErrType, "b"},
		{"header.frame_id", []byte("x"), value.ErrType, "header.frame_id"},
		{"header.frame_id", "\xff", record.ErrBadUTF8, "header.frame_id"},
		{"header.stamp", value.Time{Sec: -1}, value.ErrRange, "header.stamp"},
		{"d", value.Duration{Sec: 1 << 40}, value.ErrRange, "d"},
		{"header", value.New(tPoint), value.ErrType, "header"},
		{"id", []byte{1}, value.ErrLength, "id"},
		{"cov", []float64{1}, value.ErrLength, "cov"},
		{"bounded", []int32{1, 2, 3}, value.ErrLength, "bounded"},
		{"names", []string{"a", "\xfe"}, record.ErrBadUTF8, "names[1]"},
		{"cov", []string{"a"}, value.ErrType, "cov[0]"},
		{"id[1]", 256, value.ErrRange, "id[1]"},
		{"raw[0]", 128, value.ErrRange, "raw[0]"},
		{"names[0]", "x", value.ErrIndex, "names[0]"},
		{"nope", 1, value.ErrNoField, "nope"},
		{"", 1, value.ErrPath, ""},
	} {
		s := value.New(tAll)
		if err := s.Set("raw", []byte{0}); err != nil {
			t.Fatal(err)
		}
		err := s.Set(tc.path, tc.v)
		var pe *value.PathError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Path != tc.at {
			t.Errorf("Set(%q, %#v): %v, want %v at %q", tc.path, tc.v, err, tc.want, tc.at)
		}
	}
}

// TestEmitBuilderRoundTrip: replaying a tree into a Builder rebuilds it.
func TestEmitBuilderRoundTrip(t *testing.T) {
	s := filled(t)
	b := value.NewBuilder()
	if err := s.Emit(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.Result(), s) {
		t.Errorf("rebuilt tree differs")
	}
	// The builder copies blobs: changing the source does not change the copy.
	data, _ := s.Bytes("data")
	data[0] = 42
	if v, _ := b.Result().Get("data[0]"); v != uint64(1) {
		t.Errorf("builder kept a view of the input blob")
	}
}

func TestEmitErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(s *value.Struct)
		want   error
		at     string
	}{
		{"wrong Go type", func(s *value.Struct) { s.Fields[2] = 3 }, value.ErrType, "i8"},
		{"out of range", func(s *value.Struct) { s.Fields[2] = int64(1000) }, value.ErrRange, "i8"},
		{"deep", func(s *value.Struct) {
			p, _ := s.Struct("placements[1]")
			pos, _ := p.Struct("position")
			pos.Fields[1] = "y"
		}, value.ErrType, "placements[1].position.y"},
		{"fixed length", func(s *value.Struct) { s.Fields[11] = []any{1.0} }, value.ErrLength, "cov"},
		{"missing fields", func(s *value.Struct) { s.Fields = s.Fields[:3] }, value.ErrLength, ""},
		{"bad utf-8", func(s *value.Struct) { s.Fields[12] = []any{"ok", "\xc3("} }, record.ErrBadUTF8, "names[1]"},
		{"nil struct", func(s *value.Struct) { s.Fields[0] = (*value.Struct)(nil) }, value.ErrType, "header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := filled(t)
			tc.mutate(s)
			err := s.Emit(value.NewBuilder())
			var pe *value.PathError
			if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Path != tc.at {
				t.Errorf("got %v, want %v at %q", err, tc.want, tc.at)
			}
			if _, err := s.MarshalJSON(); err == nil {
				t.Error("MarshalJSON accepted an invalid tree")
			}
		})
	}
}

func TestMarshalJSON(t *testing.T) {
	s := filled(t)
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"header":{"seq":7,"stamp":{"sec":10,"nsec":20},"frame_id":"map"},"b":true,"i8":-5,"u16":65535,` +
		`"i64":-9223372036854775808,"u64":18446744073709551615,"f32":0.25,"d":{"sec":-1,"nsec":5},"data":"AQID",` +
		`"id":"AAAJAA==","raw":"/w==","cov":[1,2,3],"names":["a","日本"],"placements":[{"name":"cup",` +
		`"position":{"x":1.5,"y":-2,"z":0},"rotation":0.1},{"name":"plate","position":{"x":0,"y":0,"z":0},` +
		`"rotation":0}],"corners":[{"x":0,"y":0,"z":0},{"x":0,"y":0,"z":4}],"stamps":[{"sec":1,"nsec":0}],"bounded":[1,2]}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// The same bytes as the JSON writer fed the same events.
	w := sink.NewJSONWriter()
	if err := s.Emit(w); err != nil {
		t.Fatal(err)
	}
	if string(w.JSON()) != want {
		t.Errorf("JSONWriter: %s", w.JSON())
	}
}

// TestSetConversions: every accepted Go type lands as the canonical one.
func TestSetConversions(t *testing.T) {
	tt := ty("test/C", fld("i16", msgdef.Int16), fld("u32", msgdef.Uint32), fld("f64", msgdef.Float64),
		seq(fld("i32s", msgdef.Int32)), seq(fld("u64s", msgdef.Uint64)), seq(fld("f32s", msgdef.Float32)),
		seq(fld("bs", msgdef.Bool)), seq(fld("ds", msgdef.Duration)), seq(fld("ss", msgdef.String)))
	for _, tc := range []struct {
		path string
		v    any
		want any
	}{
		{"i16", int8(-3), int64(-3)}, {"i16", uint8(200), int64(200)}, {"i16", int16(-32768), int64(-32768)},
		{"i16", uint(7), int64(7)}, {"i16", int32(9), int64(9)}, {"i16", uint16(1), int64(1)},
		{"u32", uint32(math.MaxUint32), uint64(math.MaxUint32)}, {"u32", int64(5), uint64(5)},
		{"f64", float32(0.5), 0.5}, {"f64", 3, 3.0}, {"f64", uint64(math.MaxUint64), float64(math.MaxUint64)},
		{"i32s", []int{1, -2}, []any{int64(1), int64(-2)}}, {"i32s", []int8{1}, []any{int64(1)}},
		{"i32s", []int16{2}, []any{int64(2)}}, {"i32s", []int64{3}, []any{int64(3)}},
		{"i32s", []uint16{4}, []any{int64(4)}}, {"i32s", []uint32{5}, []any{int64(5)}},
		{"u64s", []uint64{math.MaxUint64}, []any{uint64(math.MaxUint64)}},
		{"f32s", []float32{0.25}, []any{0.25}}, {"f32s", []any{1, 2.5}, []any{1.0, 2.5}},
		{"bs", []bool{true}, []any{true}}, {"ds", []value.Duration{{Sec: -1}}, []any{value.Duration{Sec: -1}}},
		{"ss", []any{"x"}, []any{"x"}},
	} {
		s := value.New(tt)
		if err := s.Set(tc.path, tc.v); err != nil {
			t.Errorf("Set(%s, %#v): %v", tc.path, tc.v, err)
			continue
		}
		if got, _ := s.Get(tc.path); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Set(%s, %#v) stored %#v, want %#v", tc.path, tc.v, got, tc.want)
		}
	}
	s := value.New(tt)
	for _, bad := range []struct {
		path string
		v    any
	}{{"i32s", 3}, {"i32s", []uint64{1 << 40}}, {"bs", []int{1}}, {"u32", uint64(1 << 40)}, {"f64", "1"},
		{"ds", []value.Duration{{Nsec: 1 << 40}}}, {"ss", []any{1}}, {"i16[0]", 1}, {"i16.x", 1}} {
		if err := s.Set(bad.path, bad.v); err == nil {
			t.Errorf("Set(%s, %#v) accepted", bad.path, bad.v)
		}
	}
}

// TestBuilderLarge: long strings and arrays bypass the slabs; trees built
// one after another stay independent.
func TestBuilderLarge(t *testing.T) {
	tt := ty("test/L", seq(fld("names", msgdef.String)), seq(fld("v", msgdef.Float64)))
	long := strings.Repeat("x", 5000)
	names := []string{long, "short", ""}
	vals := make([]float64, 3000)
	for i := range vals {
		vals[i] = float64(i)
	}
	b := value.NewBuilder()
	var trees []*value.Struct
	for i := range 3 {
		s := value.New(tt)
		if err := s.Set("names", append([]string{strings.Repeat("a", i)}, names...)); err != nil {
			t.Fatal(err)
		}
		if err := s.Set("v", vals); err != nil {
			t.Fatal(err)
		}
		if err := s.Emit(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(b.Result(), s) {
			t.Fatalf("tree %d differs", i)
		}
		trees = append(trees, b.Result())
	}
	for i, tr := range trees {
		if v, _ := tr.Text("names[0]"); v != strings.Repeat("a", i) {
			t.Errorf("tree %d: names[0] = %q", i, v)
		}
	}
	if value.NewBuilder().Result() != nil {
		t.Error("Result before any message")
	}
}

func TestAccessorErrors(t *testing.T) {
	s := filled(t)
	if _, err := s.Uint("nope"); !errors.Is(err, value.ErrNoField) {
		t.Error(err)
	}
	for name, f := range map[string]func(string) error{
		"Float":  func(p string) error { _, err := s.Float(p); return err },
		"Int":    func(p string) error { _, err := s.Int(p); return err },
		"Text":   func(p string) error { _, err := s.Text(p); return err },
		"Bool":   func(p string) error { _, err := s.Bool(p); return err },
		"Struct": func(p string) error { _, err := s.Struct(p); return err },
		"Bytes":  func(p string) error { _, err := s.Bytes(p); return err },
		"TimeNs": func(p string) error { _, err := s.TimeNs(p); return err },
		"Len":    func(p string) error { _, err := s.Len(p); return err },
		"Each":   func(p string) error { return s.Each(p, func(int, any) error { return nil }) },
	} {
		if err := f("nope"); !errors.Is(err, value.ErrNoField) {
			t.Errorf("%s(nope): %v", name, err)
		}
		if err := f("a..b"); !errors.Is(err, value.ErrPath) {
			t.Errorf("%s(a..b): %v", name, err)
		}
	}
	for name, f := range map[string]func() error{
		"Uint":   func() error { _, err := s.Uint("names"); return err },
		"Text":   func() error { _, err := s.Text("b"); return err },
		"Bool":   func() error { _, err := s.Bool("i8"); return err },
		"Struct": func() error { _, err := s.Struct("b"); return err },
		"Bytes":  func() error { _, err := s.Bytes("cov"); return err },
		"TimeNs": func() error { _, err := s.TimeNs("header"); return err },
		"Each":   func() error { return s.Each("b", func(int, any) error { return nil }) },
	} {
		err := f()
		if !errors.Is(err, value.ErrType) {
			t.Errorf("%s on the wrong kind: %v", name, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "value: ") {
			t.Errorf("%s: message %q", name, err)
		}
	}
	if got := (&value.PathError{Err: value.ErrIndex}).Error(); got != "value: index out of range" {
		t.Errorf("Error() = %q", got)
	}
}
