package media

// Kind is the kind of media a message field holds.
type Kind uint8

// The kinds of media.
const (
	// Image is a sensor_msgs/Image.
	Image Kind = iota + 1
	// Compressed is a sensor_msgs/CompressedImage.
	Compressed
	// Cloud is a sensor_msgs/PointCloud2.
	Cloud
)

func (k Kind) String() string {
	switch k {
	case Image:
		return "image"
	case Compressed:
		return "compressed_image"
	case Cloud:
		return "point_cloud"
	}
	return "unknown"
}

// kindOf is the media kind of a canonical type name ("pkg/Type"; ROS 2's
// sensor_msgs/msg/Image is canonically sensor_msgs/Image), 0 for others.
func kindOf(typeName string) Kind {
	switch typeName {
	case "sensor_msgs/Image":
		return Image
	case "sensor_msgs/CompressedImage":
		return Compressed
	case "sensor_msgs/PointCloud2":
		return Cloud
	}
	return 0
}

// Frame is one image or point cloud found in a message.
type Frame struct {
	Kind Kind
	// Topic, LogTime and Source place the message: its topic, log time (ns
	// since the epoch), file and byte offset.
	Topic   string
	LogTime int64
	Source  string
	Offset  int64
	// Field is the path of the media field in the message: "" for a
	// message that is itself the image or cloud, "image" for
	// GraspDemonstration's, "views[2].image" in an array.
	Field string
	// Stamp is header.stamp in ns since the epoch; FrameID header.frame_id.
	Stamp   int64
	FrameID string
	// Height and Width are the image's, or the cloud's (points = both
	// multiplied).
	Height, Width uint32
	// Encoding is the Image's encoding or the CompressedImage's format.
	Encoding  string
	BigEndian bool
	// Step is the Image's row length in bytes, or the cloud's row_step.
	Step uint32
	// PointStep and Fields describe a cloud's points.
	PointStep uint32
	Fields    []PointField
	IsDense   bool
	// Data is the image's or cloud's data, the frame's own copy.
	Data []byte

	publish int64
	seq     uint64
}

// PointField is one field of a PointCloud2's points
// (sensor_msgs/PointField).
type PointField struct {
	Name     string
	Offset   uint32
	Datatype uint8
	Count    uint32
}

// PointField datatypes (sensor_msgs/PointField constants).
const (
	pfInt8    = 1
	pfUint8   = 2
	pfInt16   = 3
	pfUint16  = 4
	pfInt32   = 5
	pfUint32  = 6
	pfFloat32 = 7
	pfFloat64 = 8
)

// pfSize is the size in bytes of one element of a PointField datatype, 0
// for an unknown one.
func pfSize(dt uint8) int {
	switch dt {
	case pfInt8, pfUint8:
		return 1
	case pfInt16, pfUint16:
		return 2
	case pfInt32, pfUint32, pfFloat32:
		return 4
	case pfFloat64:
		return 8
	}
	return 0
}
