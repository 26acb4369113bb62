package play

// Topic is what a publisher advertises: the output topic name and the ROS1
// connection header fields of the recording.
type Topic struct {
	Name       string
	Type       string
	MD5        string
	Definition string
	// Latching makes the publisher hand its last message to every new
	// subscriber (connection header latching=1); a SourcePublisher hands
	// over the last message of each latched source instead.
	Latching bool
}

// Publisher sends pre-serialized ROS1 messages on one topic.
type Publisher interface {
	// Publish sends one serialized message to every subscriber. The player
	// does not reuse data after the call.
	Publish(data []byte) error
	// NumSubscribers is the number of connected subscribers.
	NumSubscribers() int
}

// SourcePublisher is a Publisher on which several recorded publishers
// (sources) of the topic share one topic, each latching its own last
// message when it was latched, as a roscpp node's publishers of one topic
// do (rosnode.Publisher.PublishFrom). The player uses it when the
// Publisher has it, so that a late subscriber gets what it would get from
// rosbag play.
type SourcePublisher interface {
	PublishFrom(source string, latch bool, data []byte) error
}

// Advertiser creates publishers on a ROS graph (a node).
type Advertiser interface {
	Advertise(t Topic) (Publisher, error)
}
