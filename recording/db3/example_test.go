package db3_test

import (
	"fmt"
	"path/filepath"

	"github.com/baglab/baglab/recording/db3"
)

func ExampleReadBag2Metadata() {
	m, err := db3.ReadBag2Metadata(filepath.Join("..", "..", "testdata", "sample", "queries_rosbag2"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.StorageIdentifier, m.RelativeFilePaths, m.MessageCount)
	for _, t := range m.Topics {
		fmt.Println(t.Name, t.Type, t.SerializationFormat, t.MessageCount)
	}
	// Output:
	// sqlite3 [queries_rosbag2_0.db3] 40
	// /remap/query/_service_event remap_msgs/srv/Query_Event cdr 40
}
