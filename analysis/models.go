package analysis

import (
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/record"
)

// WriteModels implements ModelWriter: the learned models as one latched
// interactive_world_msgs/TaskModels message, ROS1-encoded, on topic.
func (r *PlacementsResult) WriteModels(w record.Writer, reg *msgdef.Registry, topic string, at int64) (int, error) {
	t, err := reg.Lookup("interactive_world_msgs/TaskModels")
	if err != nil {
		return 0, err
	}
	tm, err := r.TaskModels(t)
	if err != nil {
		return 0, err
	}
	data, err := ros1.Encode(tm)
	if err != nil {
		return 0, err
	}
	id, err := w.AddChannel(&record.Channel{
		Topic:           topic,
		MessageEncoding: "ros1",
		Schema:          &record.Schema{Name: t.Name, Encoding: "ros1msg", Data: []byte(msgdef.FullText(t)), MD5: msgdef.MD5(t)},
		Metadata:        map[string]string{"callerid": "/baglab", "latching": "1"},
	})
	if err != nil {
		return 0, err
	}
	if err := w.WriteMessage(id, &record.Message{LogTime: at, PublishTime: at, Data: data}); err != nil {
		return 0, err
	}
	return tm.Len("models")
}
