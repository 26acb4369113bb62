package decode

import (
	"bytes"
	"cmp"
	"reflect"
	"strings"
	"testing"

	"github.com/baglab/baglab/decode/cdr"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
)

// rosidlHashes are RIHS01 hashes as rosidl_generator_c writes them into the
// *__description.c of packages built against ROS 2 Jazzy (the
// EXPECTED_HASH of each referenced type; the same bytes in every build
// found): the hashes a real recording of these types stores.
var rosidlHashes = map[string]string{
	"sensor_msgs/msg/CameraInfo":    "RIHS01_b3dfd68ff46c9d56c80fd3bd4ed22c7a4ddce8c8348f2f59c299e73118e7e275",
	"visualization_msgs/msg/Marker": "RIHS01_45b13ccf791f225962bf74e746f9644518855d783a6f42ba0cc14fde2b4f3ce0",
}

// jazzyRegistry is the default registry with Jazzy's built-in interfaces.
func jazzyRegistry(tb testing.TB) *msgdef.Registry {
	tb.Helper()
	reg := msgdef.Default()
	if err := reg.SetDistro("jazzy"); err != nil {
		tb.Fatal(err)
	}
	return reg
}

// nativeChannel is a ros1 channel of the built-in ROS1 type name.
func nativeChannel(t *testing.T, reg *msgdef.Registry, name string) *record.Channel {
	t.Helper()
	t1, err := reg.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return ros1Channel(t1)
}

// ros1Channel is a ros1 channel of ROS1 type t1, its schema as a bag
// stores it.
func ros1Channel(t1 *msgdef.Type) *record.Channel {
	_, s, _ := ROS1Equivalent(t1) // a ROS1 type is its own, without error
	return &record.Channel{Topic: "/" + t1.Name, MessageEncoding: "ros1", Schema: s}
}

// TestNativeMapping: with Native renames and a distribution, a ROS1 type
// the distribution defines is written in its definition, with the hash
// rosidl gives it: CameraInfo (D, K, R, P become d, k, r, p) by the
// direct transcoding, the same bytes; Marker, to which ROS 2 adds fields,
// through values, the added fields zero and every ROS1 field kept. A type
// with a field that has no place in the ROS 2 definition keeps its ROS1
// fields, and the note says which.
func TestNativeMapping(t *testing.T) {
	reg := jazzyRegistry(t)
	res, native := NewResolver(reg), (*Renames)(nil).Native()

	ch := nativeChannel(t, reg, "sensor_msgs/CameraInfo")
	conv, out, note, err := res.ToROS2(ch, native)
	if err != nil || note != "" {
		t.Fatalf("CameraInfo: %v %q", err, note)
	}
	if got := out.Metadata["type_description_hash"]; got != rosidlHashes["sensor_msgs/msg/CameraInfo"] {
		t.Errorf("CameraInfo hash %s, rosidl's %s", got, rosidlHashes["sensor_msgs/msg/CameraInfo"])
	}
	if !strings.Contains(string(out.Schema.Data), "float64[9]  k") || strings.Contains(string(out.Schema.Data), " K\n") {
		t.Errorf("CameraInfo schema is not Jazzy's:\n%s", out.Schema.Data)
	}
	tgt, err := res.ros2Target(ch, mustFor(t, res, ch), native)
	if err != nil || tgt.mapped != nil {
		t.Errorf("CameraInfo: %v, mapping %v: want the direct transcoding", err, tgt.mapped)
	}
	dec := mustFor(t, res, ch)
	v := value.New(dec.Type())
	for path, x := range map[string]any{"header.frame_id": "cam", "distortion_model": "plumb_bob", "D": []float64{0.1, -0.2, 0, 0, 0.5},
		"K": []float64{500, 0, 320, 0, 501, 240, 0, 0, 1}, "binning_x": 2, "roi.width": 64} {
		if err := v.Set(path, x); err != nil {
			t.Fatal(path, err)
		}
	}
	data, err := ros1.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeCDR(t, conv, data, tgt.t2)
	for path, want := range map[string]any{"d": []any{0.1, -0.2, 0.0, 0.0, 0.5}, "k": []any{500.0, 0.0, 320.0, 0.0, 501.0, 240.0, 0.0, 0.0, 1.0},
		"binning_x": uint64(2), "roi.width": uint64(64), "header.frame_id": "cam", "distortion_model": "plumb_bob"} {
		if x, _ := got.Lookup(path); !reflect.DeepEqual(x, want) {
			t.Errorf("CameraInfo %s = %v, want %v", path, x, want)
		}
	}
	// The rules' way through values gives the same bytes.
	m, _, err := native.mappedTypes(dec.Type(), reg, nil)
	if err != nil || m == nil || !m.positional {
		t.Fatalf("CameraInfo mapping %v, %v", m, err)
	}
	direct, err := conv(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	byValue, err := mappedConversion(dec, native, m, tgt.t2)(nil, data)
	if err != nil || !bytes.Equal(direct, byValue) {
		t.Errorf("direct and by-value bytes differ (%v):\n%x\n%x", err, direct, byValue)
	}

	ch = nativeChannel(t, reg, "visualization_msgs/Marker")
	conv, out, note, err = res.ToROS2(ch, native)
	if err != nil || note != "" {
		t.Fatalf("Marker: %v %q", err, note)
	}
	if got := out.Metadata["type_description_hash"]; got != rosidlHashes["visualization_msgs/msg/Marker"] {
		t.Errorf("Marker hash %s, rosidl's %s", got, rosidlHashes["visualization_msgs/msg/Marker"])
	}
	dec = mustFor(t, res, ch)
	v = value.New(dec.Type())
	for path, x := range map[string]any{"ns": "arm", "id": -7, "lifetime": value.Duration{Sec: 2, Nsec: 5}, "text": "hi", "mesh_resource": "package://m.dae",
		"pose.position.x": 1.5, "color.a": float32(0.5), "mesh_use_embedded_materials": true} {
		if err := v.Set(path, x); err != nil {
			t.Fatal(path, err)
		}
	}
	if data, err = ros1.Encode(v); err != nil {
		t.Fatal(err)
	}
	tgt, _ = res.ros2Target(ch, dec, native)
	got = decodeCDR(t, conv, data, tgt.t2)
	for path, want := range map[string]any{"ns": "arm", "id": int64(-7), "lifetime.sec": int64(2), "lifetime.nanosec": uint64(5), "text": "hi",
		"mesh_resource": "package://m.dae", "pose.position.x": 1.5, "mesh_use_embedded_materials": true,
		"texture_resource": "", "texture.format": "", "mesh_file.filename": ""} {
		if x, _ := got.Lookup(path); !reflect.DeepEqual(x, want) {
			t.Errorf("Marker %s = %v (%T), want %v", path, x, x, want)
		}
	}

	// ROS1's SolidPrimitive: ROS 2 bounds dimensions to 3 (and adds a
	// polygon), so its values need not fit.
	solid, err := msgdef.ParseBundle("shape_msgs/SolidPrimitive", "uint8 BOX=1\nuint8 type\nfloat64[] dimensions\n", msgdef.ROS1, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, out, note, err = res.ToROS2(ros1Channel(solid), native)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, "shape_msgs/SolidPrimitive") || !strings.Contains(note, "dimensions") {
		t.Errorf("SolidPrimitive note %q: want the field that does not fit", note)
	}
	if !strings.Contains(string(out.Schema.Data), "float64[] dimensions") {
		t.Errorf("SolidPrimitive schema is not its ROS1 fields':\n%s", out.Schema.Data)
	}
}

func mustFor(t *testing.T, res *Resolver, ch *record.Channel) Decoder {
	t.Helper()
	dec, err := res.For(ch)
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

// decodeCDR converts ROS1 data with conv and decodes the CDR as t2.
func decodeCDR(t *testing.T, conv Conversion, data []byte, t2 *msgdef.Type) *value.Struct {
	t.Helper()
	b, err := conv(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cdr.Compile(t2)
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.DecodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// FuzzNativeMapping: any ROS1 definition, named as a type ROS 2 Jazzy
// defines, converts with Native renames without panicking: ToROS2 maps
// it, or keeps its ROS1 fields with a note, or fails with an error; a
// conversion it gives turns the type's zero message into CDR that decodes
// as the type it declares, and its direct bytes, when it keeps the direct
// transcoding for a mapping, are those of the conversion through values.
func FuzzNativeMapping(f *testing.F) {
	jazzy := jazzyRegistry(f)
	res, native := NewResolver(jazzy), (*Renames)(nil).Native()
	names := []string{"sensor_msgs/CameraInfo", "visualization_msgs/Marker", "geometry_msgs/Pose", "shape_msgs/SolidPrimitive",
		"sensor_msgs/RegionOfInterest", "std_msgs/ColorRGBA", "geometry_msgs/Point"}
	for i, text := range []string{
		"Header header\nuint32 height\nuint32 width\nstring distortion_model\nfloat64[] D\nfloat64[9] K\nfloat64[9] R\nfloat64[12] P\nuint32 binning_x\nuint32 binning_y\nRegionOfInterest roi\n" +
			"================================================================================\nMSG: sensor_msgs/RegionOfInterest\nuint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify\n",
		"float64 x\nfloat64 y\nfloat64 z\n",
		"uint8 type\nfloat64[] dimensions\n",
		"float32 r\nfloat32 g\nfloat32 b\nfloat32 a\nduration d\n",
		"geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n" +
			"================================================================================\nMSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n" +
			"================================================================================\nMSG: geometry_msgs/Quaternion\nfloat32 x\nfloat64 y\nfloat64 z\nfloat64 w\n",
	} {
		f.Add(uint8(i), text)
	}
	f.Fuzz(func(t *testing.T, which uint8, text string) {
		name := names[int(which)%len(names)]
		t1, err := msgdef.ParseBundle(name, text, msgdef.ROS1, nil)
		if err != nil {
			return
		}
		ch := ros1Channel(t1)
		dec, err := res.For(ch)
		if err != nil {
			return
		}
		conv, _, _, err := res.ToROS2(ch, native)
		if err != nil {
			return
		}
		tgt, err := res.ros2Target(ch, dec, native)
		if err != nil {
			t.Fatalf("ToROS2 passed, ros2Target: %v", err)
		}
		zero, err := ros1.Encode(value.New(dec.Type()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := conv(nil, zero)
		if err != nil {
			t.Fatalf("the zero %s: %v", name, err)
		}
		d, err := cdr.Compile(tgt.t2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.DecodeValue(out); err != nil {
			t.Fatalf("the zero %s as %s: %v", name, tgt.t2.FullName, err)
		}
		if m, _, err := native.mappedTypes(dec.Type(), jazzy, nil); err == nil && m != nil && tgt.mapped == nil {
			byValue, err := mappedConversion(dec, native, m, tgt.t2)(nil, zero)
			if err != nil || !bytes.Equal(out, byValue) {
				t.Fatalf("direct %x, by value %x (%v)", out, byValue, err)
			}
		}
	})
}

// TestROS1Known: a ROS 2 type whose built-in ROS1 definition has its
// fields in order, names alike but for case and shapes alike, goes into
// a bag under that definition, even when ToROS1 keeps ROS 2 fields:
// Jazzy's CameraInfo with the md5sum of ROS1's (c9a58c1b…, as genpy gives
// sensor_msgs/CameraInfo), Jazzy's DiagnosticStatus (byte level) with
// ROS1's; Jazzy's Marker, which adds fields, then keeps them under a
// definition of its own (TestROS1Paired: by default it does not).
func TestROS1Known(t *testing.T) {
	jazzy := jazzyRegistry(t)
	res := NewResolver(jazzy)
	for _, c := range []struct {
		name, md5 string
		fits      bool
	}{
		{"sensor_msgs/CameraInfo", "c9a58c1b0b154e0e6da7578cb991d214", true},
		{"diagnostic_msgs/DiagnosticStatus", "", true},
		{"visualization_msgs/Marker", "", false},
	} {
		t2, err := jazzy.Lookup(strings.Replace(c.name, "/", "/msg/", 1))
		if err != nil {
			t.Fatal(err)
		}
		ch := &record.Channel{Topic: "/t", MessageEncoding: "cdr",
			Schema: &record.Schema{Name: t2.FullName, Encoding: "ros2msg", Data: []byte(ROS2Bundle(t2))}}
		_, out, _, err := res.ToROS1(ch, true)
		if err != nil {
			t.Fatal(err)
		}
		t1, err := jazzy.Lookup(c.name)
		if err != nil || t1.Dialect != msgdef.ROS1 {
			t.Fatalf("%s: built-in ROS1 definition: %v", c.name, err)
		}
		want := cmp.Or(c.md5, msgdef.MD5(t1))
		if got := out.Schema.MD5; (got == want) != c.fits || (c.md5 != "" && msgdef.MD5(t1) != c.md5) {
			t.Errorf("%s: md5sum %s, ROS1's %s: want them equal %v", c.name, got, want, c.fits)
		}
	}
}

// TestROS1Paired: by default a ROS 2 type whose built-in ROS1 definition
// can take its values by ros1_bridge's pairing goes into a bag under it,
// with ROS1's md5sum, although ROS 2 added fields: Jazzy's Marker as
// ROS1's (md5sum 4048c9de…, as genpy gives visualization_msgs/Marker),
// every ROS1 field kept (times as ROS1 times, Header's seq 0), the
// texture fields left out and counted only when they held data; a
// MarkerArray so too, the fields named inside markers[]. A definition
// with a ROS1 field it lacks keeps its own fields.
func TestROS1Paired(t *testing.T) {
	jazzy := jazzyRegistry(t)
	res := NewResolver(jazzy)
	marker, err := jazzy.Lookup("visualization_msgs/msg/Marker")
	if err != nil {
		t.Fatal(err)
	}
	ch := &record.Channel{Topic: "/m", MessageEncoding: "cdr",
		Schema: &record.Schema{Name: marker.FullName, Encoding: "ros2msg", Data: []byte(ROS2Bundle(marker))}}
	conv, out, left, err := res.ToROS1(ch, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Schema.Name != "visualization_msgs/Marker" || out.Schema.MD5 != "4048c9de2a16f4ae8e0538085ebf1b97" {
		t.Fatalf("Marker goes in as %s, md5sum %s", out.Schema.Name, out.Schema.MD5)
	}
	if left == nil || !reflect.DeepEqual(left.Fields, []string{"texture_resource", "texture", "uv_coordinates", "mesh_file"}) {
		t.Fatalf("left out: %+v", left)
	}
	v := value.New(marker)
	for path, x := range map[string]any{"header.stamp.sec": int64(1714564800), "header.stamp.nanosec": uint64(250),
		"header.frame_id": "map", "ns": "grasp", "id": int64(-3), "type": int64(11), "pose.position.x": 1.5,
		"pose.orientation.w": 1.0, "scale.z": 0.25, "color.a": 0.5, "lifetime.sec": int64(2), "lifetime.nanosec": uint64(5e8),
		"frame_locked": true, "text": "cup", "mesh_resource": "package://m.dae", "mesh_use_embedded_materials": true} {
		if err := v.Set(path, x); err != nil {
			t.Fatal(path, err)
		}
	}
	pt := value.New(marker.Field("points").Msg)
	if err := pt.Set("y", -2.0); err != nil {
		t.Fatal(err)
	}
	if err := v.Set("points", []any{pt, value.New(pt.Type)}); err != nil {
		t.Fatal(err)
	}
	src, err := cdr.AppendEncode(nil, v, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := conv(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	dec1, err := NewResolver(nil).For(out)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := dec1.DecodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{"header.seq": uint64(0), "header.stamp": value.Time{Sec: 1714564800, Nsec: 250},
		"header.frame_id": "map", "ns": "grasp", "id": int64(-3), "type": int64(11), "pose.position.x": 1.5,
		"pose.orientation.w": 1.0, "scale.z": 0.25, "color.a": 0.5, "lifetime": value.Duration{Sec: 2, Nsec: 5e8},
		"frame_locked": true, "points[0].y": -2.0, "points[1].y": 0.0, "text": "cup", "mesh_resource": "package://m.dae",
		"mesh_use_embedded_materials": true} {
		if got, err := v1.Get(path); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v (%v), want %#v", path, got, err, want)
		}
	}
	if left.Held() != 0 {
		t.Errorf("%d messages held texture data, want 0", left.Held())
	}
	if err := v.Set("texture_resource", "file:///t.png"); err != nil {
		t.Fatal(err)
	}
	if src, err = cdr.AppendEncode(nil, v, false); err != nil {
		t.Fatal(err)
	}
	if b2, err := conv(nil, src); err != nil || !bytes.Equal(b2, b) || left.Held() != 1 {
		t.Errorf("with a texture: %v, the same bytes %v, held %d (want 1)", err, bytes.Equal(b2, b), left.Held())
	}

	array, err := jazzy.Lookup("visualization_msgs/msg/MarkerArray")
	if err != nil {
		t.Fatal(err)
	}
	ch.Schema = &record.Schema{Name: array.FullName, Encoding: "ros2msg", Data: []byte(ROS2Bundle(array))}
	if _, out, left, err = res.ToROS1(ch, false); err != nil || out.Schema.MD5 != msgdef.MD5(mustLookup(t, jazzy, "visualization_msgs/MarkerArray")) ||
		left == nil || left.Fields[0] != "markers[].texture_resource" {
		t.Errorf("MarkerArray: %v, md5sum %s, left out %+v", err, out.Schema.MD5, left)
	}

	// Without a ROS1 field (text), no pairing: the type keeps its fields.
	ch.Schema = &record.Schema{Name: marker.FullName, Encoding: "ros2msg",
		Data: []byte(strings.Replace(ROS2Bundle(marker), "\nstring text\n", "\n", 1))}
	if _, out, left, err = res.ToROS1(ch, false); err != nil || out.Schema.MD5 == "4048c9de2a16f4ae8e0538085ebf1b97" || left != nil {
		t.Errorf("Marker without text: %v, md5sum %s, left out %+v", err, out.Schema.MD5, left)
	}
}

func mustLookup(t *testing.T, reg *msgdef.Registry, name string) *msgdef.Type {
	t.Helper()
	typ, err := reg.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

// FuzzROS1Pairing: any ROS 2 definition, named as a type ROS1 defines,
// goes into a bag without panicking: ToROS1 writes it under ROS1's
// definition, leaving out fields that it names, or under one of its own
// fields, or fails with an error; the conversion it gives turns the
// type's zero message into bytes that decode as the definition it
// declares, and counts no data left out of it.
func FuzzROS1Pairing(f *testing.F) {
	jazzy := jazzyRegistry(f)
	res := NewResolver(jazzy)
	names := []string{"visualization_msgs/msg/Marker", "sensor_msgs/msg/CameraInfo", "std_msgs/msg/Header", "geometry_msgs/msg/Pose",
		"sensor_msgs/msg/Range", "visualization_msgs/msg/MarkerArray"}
	for i, name := range names {
		t2, err := jazzy.Lookup(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), ROS2Bundle(t2))
	}
	f.Add(uint8(3), "geometry_msgs/Point position\nstring extra\ngeometry_msgs/Quaternion orientation\n")
	f.Fuzz(func(t *testing.T, which uint8, text string) {
		name := names[int(which)%len(names)]
		ch := &record.Channel{Topic: "/t", MessageEncoding: "cdr", Schema: &record.Schema{Name: name, Encoding: "ros2msg", Data: []byte(text)}}
		dec, err := res.For(ch)
		if err != nil || zeroElems(dec.Type(), 0) > 1e5 {
			return // a zero message too big to build here
		}
		conv, out, left, err := res.ToROS1(ch, false)
		if err != nil {
			return
		}
		zero, err := cdr.Encode(value.New(dec.Type()), false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := conv(nil, zero)
		if err != nil {
			t.Fatalf("the zero %s: %v", name, err)
		}
		d1, err := NewResolver(nil).For(out)
		if err != nil {
			t.Fatalf("%s written as %s: %v", name, out.Schema.Name, err)
		}
		if _, err := d1.DecodeValue(b); err != nil {
			t.Fatalf("the zero %s as %s: %v", name, out.Schema.Name, err)
		}
		if left != nil && (len(left.Fields) == 0 || left.Held() != 0) {
			t.Fatalf("left out %+v of the zero message", left)
		}
	})
}

// zeroElems is the number of values in t's zero message (fixed arrays
// multiplying their element's), saturating past 1e9; depth bounds the
// nesting walked.
func zeroElems(t *msgdef.Type, depth int) int {
	if depth > 64 {
		return 1e9
	}
	n := 0
	for i := range t.Fields {
		f := &t.Fields[i]
		e := 1
		if f.Msg != nil {
			e = zeroElems(f.Msg, depth+1)
		}
		if f.Array == msgdef.Fixed {
			e = min(e*max(f.Len, 1), 1e9)
		}
		n = min(n+e, 1e9)
	}
	return max(n, 1)
}
