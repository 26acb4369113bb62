package studygen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/decode/value"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/bag"
	"github.com/baglab/baglab/recording/mcapfile"
)

const tfText = `geometry_msgs/TransformStamped[] transforms
================================================================================
MSG: geometry_msgs/TransformStamped
std_msgs/Header header
string child_frame_id
geometry_msgs/Transform transform
================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id
================================================================================
MSG: geometry_msgs/Transform
geometry_msgs/Vector3 translation
geometry_msgs/Quaternion rotation
================================================================================
MSG: geometry_msgs/Vector3
float64 x
float64 y
float64 z
================================================================================
MSG: geometry_msgs/Quaternion
float64 x
float64 y
float64 z
float64 w
`

// tfStart is the first log time of WriteTF, 2024-01-01T00:00:00Z.
const tfStart = int64(1704067200) * 1e9

type tfWriter struct {
	w   record.Writer
	ids map[string]uint32
	seq uint64
}

func (w *tfWriter) put(topic string, t int64, v *value.Struct, text string) error {
	id, ok := w.ids[topic]
	if !ok {
		ch := &record.Channel{Topic: topic, MessageEncoding: "ros1",
			Schema:   &record.Schema{Name: v.Type.Name, Encoding: "ros1msg", Data: []byte(text), MD5: msgdef.MD5(v.Type)},
			Metadata: map[string]string{"callerid": "/tfgen"}}
		var err error
		if id, err = w.w.AddChannel(ch); err != nil {
			return err
		}
		w.ids[topic] = id
	}
	data, err := ros1.Encode(v)
	if err != nil {
		return err
	}
	w.seq++
	return w.w.WriteMessage(id, &record.Message{LogTime: t, PublishTime: t, Sequence: w.seq, Data: data})
}

// TFOptions size WriteTF's recording.
type TFOptions struct {
	// Seconds is its length (default 20).
	Seconds int
	// CloudBytes is the size of each point cloud's data (default 1 MiB).
	CloudBytes int
}

// WriteTF writes a recording of transforms for `baglab tf`, its demo and
// benchmark: /tf at 100 Hz (odom -> base_link -> arm -> tool in one
// TFMessage) and 10 Hz (map -> odom), /tf_static once (tool -> camera,
// base_link -> imu_link), /imu (sensor_msgs/Imu at 100 Hz in imu_link,
// stamps jittered by ±2 ms), /pose (geometry_msgs/PoseStamped at 20 Hz in
// base_link) and, for the bulk of the bytes, sensor_msgs/PointCloud2 at
// 10 Hz on /camera/points. The format follows the extension (.bag
// uncompressed, .mcap zstd); the same options give the same bytes.
func WriteTF(path string, o TFOptions) error {
	seconds, cloudBytes := o.Seconds, o.CloudBytes
	if seconds <= 0 {
		seconds = 20
	}
	if cloudBytes <= 0 {
		cloudBytes = 1 << 20
	}
	var w record.Writer
	var abort func()
	switch {
	case strings.HasSuffix(path, ".bag"):
		bw, err := bag.Create(path)
		if err != nil {
			return err
		}
		w, abort = bw, func() { _ = bw.Abort() }
	case strings.HasSuffix(path, ".mcap"):
		mw, err := mcapfile.Create(path, mcapfile.WithProfile("ros1"))
		if err != nil {
			return err
		}
		w, abort = mw, mw.Abort
	default:
		return fmt.Errorf("%s: want .bag or .mcap", path)
	}
	if err := fillTF(w, seconds, cloudBytes); err != nil {
		abort()
		return err
	}
	return w.Close()
}

func fillTF(w record.Writer, seconds, cloudBytes int) error {
	tfType, err := msgdef.FromSchema("tf2_msgs/TFMessage", "ros1msg", []byte(tfText), nil)
	if err != nil {
		return err
	}
	cloudType, err := msgdef.Default().Lookup("sensor_msgs/PointCloud2")
	if err != nil {
		return err
	}
	cloud := value.New(cloudType)
	_ = cloud.Set("header.frame_id", "camera")
	_ = cloud.Set("width", uint32(cloudBytes/12))
	_ = cloud.Set("height", uint32(1))
	_ = cloud.Set("point_step", uint32(12))
	_ = cloud.Set("row_step", uint32(cloudBytes/12*12))
	// points that do not compress away: the MCAP copy is as large as the bag
	data := make([]byte, cloudBytes/12*12)
	rng := rand.New(rand.NewPCG(27, 1))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	_ = cloud.Set("data", data)
	cloudText := msgdef.FullText(cloudType)
	ww := &tfWriter{w: w, ids: map[string]uint32{}}
	elem := tfType.Fields[0].Msg
	tfs := func(t int64, links [][2]string, k int) *value.Struct {
		m := value.New(tfType)
		var list []*value.Struct
		for i, l := range links {
			x := value.New(elem)
			a := float64(k)*0.01 + float64(i)
			_ = x.Set("header.stamp", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
			_ = x.Set("header.frame_id", l[0])
			_ = x.Set("child_frame_id", l[1])
			_ = x.Set("transform.translation.x", math.Cos(a))
			_ = x.Set("transform.translation.y", math.Sin(a))
			_ = x.Set("transform.translation.z", 0.1*float64(i))
			_ = x.Set("transform.rotation.z", math.Sin(a/2))
			_ = x.Set("transform.rotation.w", math.Cos(a/2))
			list = append(list, x)
		}
		_ = m.Set("transforms", list)
		return m
	}
	if err := ww.put("/tf_static", tfStart, tfs(tfStart, [][2]string{{"tool", "camera"}, {"base_link", "imu_link"}}, 0), tfText); err != nil {
		return err
	}
	imuType, err := msgdef.Default().Lookup("sensor_msgs/Imu")
	if err != nil {
		return err
	}
	poseType, err := msgdef.Default().Lookup("geometry_msgs/PoseStamped")
	if err != nil {
		return err
	}
	imu, pose := value.New(imuType), value.New(poseType)
	_ = imu.Set("header.frame_id", "imu_link")
	_ = imu.Set("orientation.w", 1.0)
	_ = pose.Set("header.frame_id", "base_link")
	_ = pose.Set("pose.orientation.w", 1.0)
	imuText, poseText := msgdef.FullText(imuType), msgdef.FullText(poseType)
	jitter := rand.New(rand.NewPCG(27, 2))
	for k := 0; k < seconds*100; k++ {
		t := tfStart + int64(k)*10e6 + 1e6
		if err := ww.put("/tf", t, tfs(t, [][2]string{{"odom", "base_link"}, {"base_link", "arm"}, {"arm", "tool"}}, k), tfText); err != nil {
			return err
		}
		st := t + jitter.Int64N(4e6) - 2e6
		_ = imu.Set("header.stamp", value.Time{Sec: st / 1e9, Nsec: st % 1e9})
		_ = imu.Set("linear_acceleration.x", math.Sin(float64(k)/50))
		if err := ww.put("/imu", t+3e6, imu, imuText); err != nil {
			return err
		}
		if k%5 == 0 {
			_ = pose.Set("header.stamp", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
			_ = pose.Set("pose.position.x", 1+0.5*math.Sin(float64(k)/100))
			_ = pose.Set("pose.position.y", 0.2)
			if err := ww.put("/pose", t+4e6, pose, poseText); err != nil {
				return err
			}
		}
		if k%10 == 0 {
			if err := ww.put("/tf", t+2e6, tfs(t, [][2]string{{"map", "odom"}}, k), tfText); err != nil {
				return err
			}
			_ = cloud.Set("header.stamp", value.Time{Sec: t / 1e9, Nsec: t % 1e9})
			if err := ww.put("/camera/points", t+5e6, cloud, cloudText); err != nil {
				return err
			}
		}
	}
	return nil
}
