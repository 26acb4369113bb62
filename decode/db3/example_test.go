package db3_test

import (
	"fmt"
	"path/filepath"

	"github.com/baglab/baglab/decode/db3"
)

func ExampleReadBag2Metadata() {
	m, err := db3.ReadBag2Metadata(filepath.Join("..", "..", "..", "shared", "public-fixtures", "rosbag2", "rosbag2_py", "talker"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.StorageIdentifier, m.RelativeFilePaths, m.MessageCount)
	for _, t := range m.Topics {
		fmt.Println(t.Name, t.Type, t.SerializationFormat, t.MessageCount)
	}
	// Output:
	// mcap [talker.mcap] 20
	// /topic std_msgs/msg/String cdr 10
	// /rosout rcl_interfaces/msg/Log cdr 10
	// /parameter_events rcl_interfaces/msg/ParameterEvent cdr 0
}
