package studygen

import (
	"encoding/binary"
	"math"

	"github.com/baglab/baglab/decode/value"
)

// objectLook is how an object of the grasp study looks: its colour and
// shape (a cup is a cylinder, a bowl a half sphere, a spoon a flat
// ellipse with a handle).
var objectLook = map[string]struct {
	r, g, b uint8
}{"cup": {200, 40, 40}, "bowl": {40, 90, 200}, "spoon": {170, 170, 180}}

// media replaces the grasp demonstrations' images and the demonstrations'
// and models' clouds with a picture and a cloud of their object
// (Options.Media). It draws no random numbers, so the rest of the study
// is the same with and without it.
func (b *builder) media() {
	for _, e := range b.study.ROS1 {
		name := e.Value.LookupString("object_name")
		switch e.Topic {
		case "/rail_pick_and_place/grasp_demonstrations":
			b.objectImage(e.Value, name, e.LogTime)
			b.objectCloud(e.Value, "point_cloud.", name, 300, e.LogTime)
		case "/rail_pick_and_place/grasp_models":
			b.objectCloud(e.Value, "point_cloud.", name, 900, e.LogTime)
		}
	}
}

// objectImage draws the object on a wooden table: a 96x72 rgb8 image seen
// from above and in front.
func (b *builder) objectImage(v *value.Struct, name string, t int64) {
	const w, h = 96, 72
	look := objectLook[name]
	data := make([]byte, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := data[(y*w+x)*3:]
			// the table: wood with a grain
			grain := int(12 * math.Sin(float64(x)/3+float64(y)/11))
			p[0], p[1], p[2] = byte(150+grain), byte(105+grain), byte(60+grain/2)
			dx, dy := float64(x-w/2), float64(y-h/2)
			var inside bool
			var shade float64
			switch name {
			case "cup":
				inside = math.Abs(dx) < 16 && dy > -22 && dy < 18 || (dx*dx)/256+(dy+22)*(dy+22)/36 < 1
				shade = 0.6 + 0.4*(1-math.Abs(dx)/16)
			case "bowl":
				inside = (dx*dx)/900+(dy*dy)/400 < 1 && dy > -6 || (dx*dx)/900+(dy+6)*(dy+6)/64 < 1
				shade = 0.55 + 0.45*(1-(dx*dx)/900)
			default: // a spoon: a bowl and a handle
				inside = (dx+18)*(dx+18)/144+(dy*dy)/49 < 1 || (dx > -8 && dx < 34 && math.Abs(dy-dx/10) < 2.5)
				shade = 0.7 + 0.3*(1-math.Abs(dy)/8)
			}
			if inside {
				shade = math.Max(0, math.Min(1, shade))
				p[0], p[1], p[2] = uint8(float64(look.r)*shade), uint8(float64(look.g)*shade), uint8(float64(look.b)*shade)
			}
		}
	}
	b.header(v, "image.header", 0, t, "camera_rgb_optical_frame")
	b.set(v, "image.height", h)
	b.set(v, "image.width", w)
	b.set(v, "image.encoding", "rgb8")
	b.set(v, "image.step", 3*w)
	b.set(v, "image.data", data)
}

// objectCloud sets the cloud at path (ending in ".") to n points on the
// object's surface, x, y, z and a packed rgb, in base_link around the
// table position the grasps aim at.
func (b *builder) objectCloud(v *value.Struct, path, name string, n int, t int64) {
	look := objectLook[name]
	rgb := math.Float32frombits(uint32(look.r)<<16 | uint32(look.g)<<8 | uint32(look.b))
	data := make([]byte, 16*n)
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := 0; i < n; i++ {
		f := (float64(i) + 0.5) / float64(n)
		a := golden * float64(i)
		var x, y, z float64
		switch name {
		case "cup": // a cylinder of radius 4 cm and height 10 cm
			x, y, z = 0.04*math.Cos(a), 0.04*math.Sin(a), 0.1*f
		case "bowl": // a half sphere of radius 7 cm, open at the top
			el := math.Asin(f)
			x, y, z = 0.07*math.Cos(el)*math.Cos(a), 0.07*math.Cos(el)*math.Sin(a), 0.07-0.07*math.Cos(math.Pi/2-el)
		default: // a spoon: a flat ellipse and a handle along x
			if i%3 == 0 {
				x, y, z = -0.05+0.14*f, 0.004*math.Sin(a), 0.01
			} else {
				r := math.Sqrt(f)
				x, y, z = -0.08+0.03*r*math.Cos(a), 0.02*r*math.Sin(a), 0.005*(1-r)
			}
		}
		p := data[16*i:]
		binary.LittleEndian.PutUint32(p[0:], math.Float32bits(float32(0.55+x)))
		binary.LittleEndian.PutUint32(p[4:], math.Float32bits(float32(y)))
		binary.LittleEndian.PutUint32(p[8:], math.Float32bits(float32(0.8+z)))
		binary.LittleEndian.PutUint32(p[12:], math.Float32bits(rgb))
	}
	b.header(v, path+"header", 0, t, "base_link")
	b.set(v, path+"height", 1)
	b.set(v, path+"width", n)
	var fields []*value.Struct
	for i, fname := range []string{"x", "y", "z", "rgb"} {
		fv := b.newValue("sensor_msgs/PointField")
		b.set(fv, "name", fname)
		b.set(fv, "offset", 4*i)
		b.set(fv, "datatype", 7) // FLOAT32, rgb packed as PCL does
		b.set(fv, "count", 1)
		fields = append(fields, fv)
	}
	b.set(v, path+"fields", fields)
	b.set(v, path+"point_step", 16)
	b.set(v, path+"row_step", 16*n)
	b.set(v, path+"data", data)
	b.set(v, path+"is_dense", true)
}
