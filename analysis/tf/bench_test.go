package tf

import (
	"math"
	"testing"
)

// benchBuffer is a robot of four dynamic frames at 100 Hz for 60 s and a
// static sensor mount.
func benchBuffer(b *testing.B) *Buffer {
	buf := NewBuffer()
	links := [][2]string{{"map", "odom"}, {"odom", "base_link"}, {"base_link", "arm"}, {"arm", "tool"}}
	for k := 0; k < 6000; k++ {
		for i, l := range links {
			a := float64(k)*0.01 + float64(i)
			s := Stamped{Parent: l[0], Child: l[1], Stamp: int64(k) * 10e6,
				Transform: Transform{Translation: Vec3{math.Cos(a), math.Sin(a), 0}, Rotation: Quat{0, 0, math.Sin(a / 2), math.Cos(a / 2)}}}
			if err := buf.SetTransform(s, false); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := buf.SetTransform(Stamped{Parent: "tool", Child: "camera", Transform: Transform{Rotation: Identity}}, true); err != nil {
		b.Fatal(err)
	}
	return buf
}

// BenchmarkLookup looks the camera up in the map (five links, four
// interpolated) at times between stamps.
func BenchmarkLookup(b *testing.B) {
	buf := benchBuffer(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, _, err := buf.Lookup("map", "camera", int64(i%5990)*10e6+3e6); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSetTransform adds transforms in stamp order, as a recording
// gives them.
func BenchmarkSetTransform(b *testing.B) {
	b.ReportAllocs()
	buf := NewBuffer()
	for i := 0; b.Loop(); i++ {
		s := Stamped{Parent: "odom", Child: "base_link", Stamp: int64(i) * 10e6, Transform: Transform{Rotation: Identity}}
		if err := buf.SetTransform(s, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookupRow is BenchmarkLookup with the row baglab tf prints.
func BenchmarkLookupRow(b *testing.B) {
	buf := benchBuffer(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if r := buf.LookupRow("map", "camera", int64(i%5990)*10e6+3e6); r.Error != "" {
			b.Fatal(r.Error)
		}
	}
}
