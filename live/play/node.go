package play

import (
	"context"

	"github.com/baglab/baglab/live/rosnode"
)

// NodeAdvertiser advertises on a live ROS1 node.
type NodeAdvertiser struct {
	Node *rosnode.Node
}

// Advertise registers a publisher of t with the node's master.
func (a NodeAdvertiser) Advertise(t Topic) (Publisher, error) {
	return a.Node.Advertise(t.Name, rosnode.TopicInfo{Type: t.Type, MD5: t.MD5, Definition: t.Definition, Latching: t.Latching})
}

// flusher is a publisher that can wait until what it published is sent.
type flusher interface {
	Flush(ctx context.Context) error
}
