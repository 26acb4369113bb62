package tf

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzLookup drives a Buffer with transforms and lookups drawn from the
// input: nothing panics or hangs, and where a lookup of B in A succeeds,
// that of A in B at the same time succeeds too and undoes it.
func FuzzLookup(f *testing.F) {
	f.Add([]byte("\x00\x01\x10\x20\x30\x40\x01\x02\x11\x21\x31\x41\x02\x00\x12\x22\x32\x42"))
	f.Add([]byte("\x00\x01\x10\x20\x30\x40\x00\x01\x90\x20\x30\x40\x03\x01\x50\x20\x30\x40\x80\x00\x01\x50"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// a parent comes before its child in frames, so that the tree has
		// no loop (tf2's answers on a loop are not inverses)
		frames := []string{"a", "b", "c", "d", "e"}
		b := NewBuffer()
		for len(data) >= 6 {
			op := data[0]
			pi, ci := int(data[1]>>4)%len(frames), int(data[1]&15)%len(frames)
			p, c := frames[pi], frames[ci]
			if op&0x80 == 0 {
				p, c = frames[min(pi, ci)], frames[max(pi, ci)]
				switch op & 6 {
				case 2:
					p = "/" + p
				case 4:
					c = ""
				}
			}
			stamp := int64(binary.LittleEndian.Uint16(data[2:4])) * 1e6
			yaw := float64(data[4]) / 40
			x := float64(int8(data[5]))
			data = data[6:]
			if op&0x80 != 0 {
				if op&0x40 != 0 {
					stamp = 0
				}
				tr, at, err := b.Lookup(p, c, stamp)
				if err != nil {
					continue
				}
				back, at2, err := b.Lookup(c, p, at)
				if err != nil {
					t.Fatalf("%s in %s at %d: %v, but the other way found %v", p, c, at, err, tr)
				}
				if at2 != at {
					t.Fatalf("stamps %d and %d", at, at2)
				}
				id := tr.Compose(back)
				if math.Abs(id.Translation.X)+math.Abs(id.Translation.Y)+math.Abs(id.Translation.Z) > 1e-6 ||
					math.Abs(math.Abs(id.Rotation.W)-1) > 1e-9 {
					t.Fatalf("%s/%s at %d: %v then %v is %v", p, c, at, tr, back, id)
				}
				continue
			}
			q := Quat{0, 0, math.Sin(yaw / 2), math.Cos(yaw / 2)}
			_ = b.SetTransform(Stamped{Parent: p, Child: c, Stamp: stamp, Transform: Transform{Translation: Vec3{x, 1, 0}, Rotation: q}}, op&1 != 0)
		}
		_ = b.AllFramesAsString()
	})
}
