package tf_test

import (
	"fmt"
	"math"

	"github.com/baglab/baglab/analysis/tf"
)

// Look up where a sensor was in the map, half way between two stamps of
// the robot's odometry, through a static mount.
func ExampleBuffer_Lookup() {
	b := tf.NewBuffer()
	yaw := func(a float64) tf.Quat { return tf.Quat{Z: math.Sin(a / 2), W: math.Cos(a / 2)} }
	_ = b.SetTransform(tf.Stamped{Parent: "map", Child: "base_link", Stamp: 1e9,
		Transform: tf.Transform{Translation: tf.Vec3{X: 0}, Rotation: yaw(0)}}, false)
	_ = b.SetTransform(tf.Stamped{Parent: "map", Child: "base_link", Stamp: 2e9,
		Transform: tf.Transform{Translation: tf.Vec3{X: 2}, Rotation: yaw(math.Pi / 2)}}, false)
	_ = b.SetTransform(tf.Stamped{Parent: "base_link", Child: "laser", Stamp: 0,
		Transform: tf.Transform{Translation: tf.Vec3{X: 0.5}, Rotation: tf.Identity}}, true)

	tr, _, err := b.Lookup("map", "laser", 1.5e9)
	fmt.Printf("%.3f %.3f %v\n", tr.Translation.X, tr.Translation.Y, err)
	_, _, err = b.Lookup("map", "laser", 3e9)
	fmt.Println(err)
	// Output:
	// 1.354 0.354 <nil>
	// Lookup would require extrapolation 1.000000000s into the future.  Requested time 3.000000000 but the latest data is at time 2.000000000, when looking up transform from frame [laser] to frame [map]
}
