package analysis_test

import (
	"fmt"
	"os"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/value"
)

// A map analysis over three lama_msgs/LamaObject messages: two vertices
// and an edge to a vertex never seen.
func ExampleKind() {
	typ, err := msgdef.Default().Lookup("lama_msgs/LamaObject")
	if err != nil {
		panic(err)
	}
	a := analysis.MapKind.New(analysis.Options{})
	objects := []struct {
		id, kind int32
		refs     []int32
	}{{1, 1, []int32{0, 0}}, {2, 1, []int32{0, 0}}, {3, 2, []int32{1, 7}}}
	for i, o := range objects {
		v := value.New(typ)
		_ = v.Set("id", o.id)
		_ = v.Set("type", o.kind)
		_ = v.Set("references", o.refs)
		if err := a.Add(&analysis.Message{Topic: "/lama/objects", LogTime: int64(i) * 1e9, Value: v}); err != nil {
			panic(err)
		}
	}
	r, err := a.Result()
	if err != nil {
		panic(err)
	}
	m := r.(*analysis.MapResult)
	fmt.Println(m.Vertices, "vertices,", m.Edges, "edge,", m.Dangling, "dangling")
	for _, t := range r.Tables() {
		if t.Name == "map_summary" {
			_ = t.WriteText(os.Stdout, false)
		}
	}
	// Output:
	// 2 vertices, 1 edge, 1 dangling
	// map_summary (1 row)
	// vertices  edges  other_objects  components  dangling_edges
	//        2      1              0           2               1
}
