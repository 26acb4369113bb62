package play

import (
	"context"
	"encoding/binary"
	"sync/atomic"

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

// RosoutLogger is an Advertiser whose node logs on /rosout: Run
// advertises it with the topics, and the player's log lines go there too.
type RosoutLogger interface {
	AdvertiseRosout() error
	Log(level rosnode.Level, msg string)
}

// AdvertiseRosout advertises the node's /rosout (rosnode.Node.AdvertiseRosout).
func (a NodeAdvertiser) AdvertiseRosout() error { return a.Node.AdvertiseRosout() }

// Log publishes a log line on the node's /rosout.
func (a NodeAdvertiser) Log(level rosnode.Level, msg string) { a.Node.Log(level, msg) }

// dropCounter is a publisher that counts the messages it dropped for slow
// subscribers.
type dropCounter interface {
	Drops() int64
}

// flusher is a publisher that can wait until what it published is sent.
type flusher interface {
	Flush(ctx context.Context) error
}

// RateControl subscribes on n to topic, whose messages begin with a
// std_msgs/Header, and returns an Options.RateControl that reports the
// last header stamp received (rosbag play --rate-control-topic reads the
// same bytes: the stamp after the uint32 seq).
func RateControl(n *rosnode.Node, topic string) (func() (int64, bool), error) {
	var last atomic.Int64
	last.Store(-1)
	// Only the stamp is kept: the rest of each message is discarded as it
	// arrives, so a publisher's large messages cost no memory.
	_, err := n.Subscribe(topic, rosnode.SubscribeOptions{Prefix: 12, OnMessage: func(m *rosnode.Message) {
		if len(m.Data) >= 12 {
			sec, nsec := binary.LittleEndian.Uint32(m.Data[4:]), binary.LittleEndian.Uint32(m.Data[8:])
			last.Store(int64(sec)*1e9 + int64(nsec))
		}
		m.Release()
	}})
	if err != nil {
		return nil, err
	}
	return func() (int64, bool) {
		v := last.Load()
		return v, v >= 0
	}, nil
}
