package value_test

import (
	"fmt"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// Build a message field by field, read it back by path and render it.
func ExampleStruct_Set() {
	point := &msgdef.Type{Name: "geometry_msgs/Point", Fields: []msgdef.Field{
		{Name: "x", Kind: msgdef.Float64}, {Name: "y", Kind: msgdef.Float64}, {Name: "z", Kind: msgdef.Float64}}}
	path := &msgdef.Type{Name: "test/Path", Fields: []msgdef.Field{
		{Name: "frame", Kind: msgdef.String},
		{Name: "points", Kind: msgdef.Struct, Msg: point, Array: msgdef.Sequence}}}

	p := value.New(path)
	_ = p.Set("frame", "map")
	_ = p.Set("points", []*value.Struct{value.New(point), value.New(point)})
	_ = p.Set("points[1].x", 2.5)

	x, _ := p.Float("points[1].x")
	n, _ := p.Len("points")
	fmt.Println(x, n, p.Has("points[1].w"))
	js, _ := p.MarshalJSON()
	fmt.Println(string(js))
	// Output:
	// 2.5 2 false
	// {"frame":"map","points":[{"x":0,"y":0,"z":0},{"x":2.5,"y":0,"z":0}]}
}
