package ros1

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/sink"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestGenpy is a small independent check against Debian's genpy:
// testdata/genpy_check.py serializes known messages (std_msgs/Header,
// geometry_msgs/PoseStamped, sensor_msgs/PointCloud2, sensor_msgs/CameraInfo
// and a dynamic type with time[], duration[2], char, byte, 64-bit extremes);
// we parse genpy's full text, decode its bytes to the JSON below (written
// from the script's values, not from our output) and encode them back to
// genpy's bytes.
func TestGenpy(t *testing.T) {
	if testing.Short() {
		t.Skip("needs /usr/bin/python3 with genpy")
	}
	testenv.RequirePeer(t, "genpy", "ros-msgs")
	const h = `{"seq":7,"stamp":{"sec":1700000000,"nsec":123456789},"frame_id":"base_link"}`
	want := map[string]string{
		"header": h,
		"pose_stamped": `{"header":` + h + `,"pose":{"position":{"x":1.5,"y":-2.25,"z":0.00003},` +
			`"orientation":{"x":0,"y":0,"z":0.7071067811865476,"w":0.7071067811865476}}}`,
		"point_cloud2": `{"header":` + h + `,"height":1,"width":2,"fields":[{"name":"x","offset":0,"datatype":7,"count":1},` +
			`{"name":"y","offset":4,"datatype":7,"count":1}],"is_bigendian":false,"point_step":8,"row_step":16,` +
			`"data":"AAECAwQFBgcICQoLDA0ODw==","is_dense":true}`,
		"camera_info": `{"header":` + h + `,"height":480,"width":640,"distortion_model":"plumb_bob",` +
			`"D":[0.1,-0.2,0,0,0],"K":[500,0,320,0,500,240,0,0,1],"R":[1,0,0,0,1,0,0,0,1],` +
			`"P":[500,0,320,0,0,500,240,0,0,0,1,0],"binning_x":2,"binning_y":0,` +
			`"roi":{"x_offset":10,"y_offset":0,"height":0,"width":100,"do_rectify":true}}`,
		"custom": `{"stamps":[{"sec":1,"nsec":2},{"sec":4294967295,"nsec":999999999}],"d":{"sec":-1,"nsec":500},` +
			`"ds":[{"sec":3,"nsec":0},{"sec":-2147483648,"nsec":1}],"fixed":[-1,0,2147483647],"id":"AAH+/w==",` +
			`"names":["héllo","tab\there \"q\""],"f":0.1,"small":[-128,127],"c":65,"b":-5,` +
			`"big":18446744073709551615,"neg":-9223372036854775808,"flag":true}`,
	}
	out, err := exec.Command(testenv.Python, "testdata/genpy_check.py").Output()
	if err != nil {
		t.Fatalf("genpy_check.py: %v", err)
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct{ Name, Type, MD5, Definition, Hex string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		seen++
		t.Run(m.Name, func(t *testing.T) {
			data, err := hex.DecodeString(m.Hex)
			if err != nil {
				t.Fatal(err)
			}
			mt, err := msgdef.ParseBundle(m.Type, m.Definition, msgdef.ROS1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := msgdef.MD5(mt); got != m.MD5 {
				t.Errorf("md5 %s, genpy %s", got, m.MD5)
			}
			d, err := Compile(mt)
			if err != nil {
				t.Fatal(err)
			}
			w := sink.NewJSONWriter()
			if err := d.Decode(data, w); err != nil {
				t.Fatal(err)
			}
			if got := string(w.JSON()); got != want[m.Name] {
				t.Errorf("JSON\n got %s\nwant %s", got, want[m.Name])
			}
			v, err := d.DecodeValue(data)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := Encode(v)
			if err != nil || !bytes.Equal(enc, data) {
				t.Errorf("re-encoded % x (%v)\n  genpy % x", enc, err, data)
			}
		})
	}
	if seen != len(want) {
		t.Errorf("genpy printed %d messages, want %d", seen, len(want))
	}
}
