package export_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/export"
	"github.com/baglab/baglab/record"
)

// A Source per input file; Close renames the finished files into place.
func Example() {
	t, err := msgdef.Default().Lookup("geometry_msgs/PointStamped")
	if err != nil {
		log.Fatal(err)
	}
	dec, err := ros1.Compile(t)
	if err != nil {
		log.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "export-example")
	defer os.RemoveAll(dir)

	e, err := export.New(dir, export.WithCompression(export.Zstd))
	if err != nil {
		log.Fatal(err)
	}
	ch := &record.Channel{Topic: "/robot/target", MessageEncoding: "ros1"}
	src := e.Source("run1.bag")
	for i := 0; i < 3; i++ {
		v := value.New(t)
		v.Set("point.x", float64(i))
		data, _ := ros1.Encode(v)
		m := &record.Message{Channel: ch, LogTime: int64(i) * 1e9, Sequence: uint64(i), Source: "run1.bag", Data: data}
		if err := src.Write(m, t, dec); err != nil {
			log.Fatal(err)
		}
	}
	if err := src.Close(); err != nil {
		e.Abort()
		log.Fatal(err)
	}
	if err := e.Close(); err != nil {
		log.Fatal(err)
	}
	for _, f := range e.Files() {
		rel, _ := filepath.Rel(dir, f)
		fmt.Println(rel)
	}
	// Output: robot/target.parquet
}

// The Arrow schema of a message type: meta columns, then the fields.
func ExampleSchema() {
	t, _ := msgdef.Default().Lookup("geometry_msgs/PoseStamped")
	sc, _ := export.Schema(t)
	for _, f := range sc.Fields() {
		fmt.Printf("%s: %s\n", f.Name, f.Type)
	}
	// Output:
	// log_time: timestamp[ns, tz=UTC]
	// publish_time: timestamp[ns, tz=UTC]
	// sequence: uint64
	// source_file: utf8
	// header: struct<seq: uint32, stamp: timestamp[ns, tz=UTC], frame_id: utf8>
	// pose: struct<position: struct<x: float64, y: float64, z: float64>, orientation: struct<x: float64, y: float64, z: float64, w: float64>>
}
