package recorder

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/live/rosnode"
)

// The services of snapshot mode, under the recorder's node.
const (
	triggerService = "trigger_snapshot"
	enableService  = "enable_snapshot"
)

// The service types, as their packages define them (std_srvs 1.11,
// rosbag_snapshot_msgs 1.0).
const (
	triggerType = "std_srvs/Trigger"
	triggerSrv  = "---\nbool success\nstring message\n"

	setBoolType = "std_srvs/SetBool"
	setBoolSrv  = "bool data\n---\nbool success\nstring message\n"

	triggerSnapshotType = "rosbag_snapshot_msgs/TriggerSnapshot"
	triggerSnapshotSrv  = "string filename\nstring[] topics\ntime start_time\ntime stop_time\n---\n" +
		"bool success\nstring NO_DATA=no messages buffered on selected topics\nstring message\n"
)

// serviceInfo parses a service definition into what the node announces.
func serviceInfo(typ, srv string) (rosnode.ServiceInfo, error) {
	req, resp, err := msgdef.ParseService(typ, srv, msgdef.ROS1, nil)
	if err != nil {
		return rosnode.ServiceInfo{}, err
	}
	return rosnode.ServiceInfo{Type: typ, MD5: msgdef.ServiceMD5(req, resp)}, nil
}

// serveSnapshot advertises ~trigger_snapshot and ~enable_snapshot.
func (r *Recorder) serveSnapshot() error {
	n := r.node
	typ, srv, parse := triggerType, triggerSrv, parseTrigger
	if r.o.Snapshot.Service == "rosbag_snapshot" {
		typ, srv, parse = triggerSnapshotType, triggerSnapshotSrv, ParseTriggerSnapshot
	}
	info, err := serviceInfo(typ, srv)
	if err != nil {
		return err
	}
	if _, err := n.AdvertiseService(n.Name()+"/"+triggerService, info, func(_ context.Context, b []byte) ([]byte, error) {
		req, err := parse(b)
		if err != nil {
			return nil, err
		}
		path, err := r.Snapshot(req)
		if err != nil {
			if errors.Is(err, ErrNoData) {
				return successMessage(false, ErrNoData.Error()), nil
			}
			return successMessage(false, err.Error()), nil
		}
		return successMessage(true, path), nil
	}); err != nil {
		return err
	}
	info, err = serviceInfo(setBoolType, setBoolSrv)
	if err != nil {
		return err
	}
	_, err = n.AdvertiseService(n.Name()+"/"+enableService, info, func(_ context.Context, b []byte) ([]byte, error) {
		if len(b) != 1 {
			return nil, fmt.Errorf("%s request of %d bytes, want 1", setBoolType, len(b))
		}
		enable := b[0] != 0
		changed := r.ring.setPaused(!enable)
		msg := "buffering resumed"
		if !enable {
			msg = "buffering paused"
		}
		if !changed {
			msg = "already " + map[bool]string{true: "buffering", false: "paused"}[enable]
		}
		r.logf(rosnode.LevelInfo, "%s: %s", enableService, msg)
		return successMessage(true, msg), nil
	})
	return err
}

// parseTrigger parses a std_srvs/Trigger request, which is empty.
func parseTrigger(b []byte) (SnapshotRequest, error) {
	if len(b) != 0 {
		return SnapshotRequest{}, fmt.Errorf("%s request of %d bytes, want 0", triggerType, len(b))
	}
	return SnapshotRequest{}, nil
}

// ParseTriggerSnapshot parses a serialized rosbag_snapshot_msgs/
// TriggerSnapshot request: filename, topics, start_time, stop_time (a
// zero time means no bound). Every length is checked against the bytes
// that remain.
func ParseTriggerSnapshot(b []byte) (SnapshotRequest, error) {
	var req SnapshotRequest
	d := decoder{b: b}
	req.Filename = d.str("filename")
	n := d.u32("topics")
	if d.err == nil && uint64(n)*4 > uint64(len(d.b)) {
		d.fail("topics", fmt.Sprintf("%d topics in %d bytes", n, len(d.b)))
	}
	for i := 0; d.err == nil && i < int(n); i++ {
		req.Topics = append(req.Topics, d.str(fmt.Sprintf("topics[%d]", i)))
	}
	req.Start = d.time("start_time")
	req.Stop = d.time("stop_time")
	if d.err == nil && len(d.b) != 0 {
		d.fail("stop_time", fmt.Sprintf("%d bytes after the request", len(d.b)))
	}
	if d.err != nil {
		return SnapshotRequest{}, fmt.Errorf("%s request: %w", triggerSnapshotType, d.err)
	}
	return req, nil
}

// decoder reads ROS1 serialized fields, remembering the first error.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(field, what string) {
	if d.err == nil {
		d.err = fmt.Errorf("field %s at byte %d: %s: %w", field, d.off, what, io.ErrUnexpectedEOF)
	}
}

func (d *decoder) u32(field string) uint32 {
	if d.err != nil {
		return 0
	}
	if len(d.b) < 4 {
		d.fail(field, "cut short")
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b, d.off = d.b[4:], d.off+4
	return v
}

func (d *decoder) str(field string) string {
	n := d.u32(field)
	if d.err != nil {
		return ""
	}
	if uint64(n) > uint64(len(d.b)) {
		d.fail(field, fmt.Sprintf("string of %d bytes, %d remain", n, len(d.b)))
		return ""
	}
	s := string(d.b[:n])
	d.b, d.off = d.b[n:], d.off+int(n)
	return s
}

func (d *decoder) time(field string) time.Time {
	sec, nsec := d.u32(field), d.u32(field)
	if d.err != nil || (sec == 0 && nsec == 0) {
		return time.Time{}
	}
	return time.Unix(int64(sec), int64(nsec))
}

// successMessage serializes a response of bool success and string
// message (std_srvs/Trigger, SetBool, rosbag_snapshot's TriggerSnapshot).
func successMessage(success bool, message string) []byte {
	b := make([]byte, 1, 5+len(message))
	if success {
		b[0] = 1
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(message)))
	return append(b, message...)
}
