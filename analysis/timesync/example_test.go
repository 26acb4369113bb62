package timesync_test

import (
	"fmt"

	"github.com/baglab/baglab/analysis/timesync"
)

// Match a camera and a lidar whose stamps differ by a few milliseconds,
// as message_filters.ApproximateTimeSynchronizer(queue_size=10, slop=0.01)
// would when fed the messages in this order.
func ExampleSync() {
	s := timesync.New[string](2, timesync.Options{Slop: 10e6})
	feed := []struct {
		input int
		stamp int64
		name  string
	}{{0, 100e6, "cam1"}, {1, 104e6, "lidar1"}, {0, 200e6, "cam2"}, {1, 230e6, "lidar2"}, {0, 233e6, "cam3"}}
	for _, f := range feed {
		for _, set := range s.Add(f.input, f.stamp, f.name) {
			fmt.Println(set)
		}
	}
	// Output:
	// [cam1 lidar1]
	// [cam3 lidar2]
}
