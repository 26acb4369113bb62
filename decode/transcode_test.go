package decode_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/decode/ros1"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/record"
)

// TestToCDRCopiesEveryType checks that the copying of ros1.ToCDR takes
// random messages of every ROS1 type of the registry (seed and common
// types), and writes what one pass of the decoder into a CDR encoder
// writes.
func TestToCDRCopiesEveryType(t *testing.T) {
	reg := msgdef.Default()
	rng := rand.New(rand.NewPCG(26, 1))
	// Every layout the copy has a step for, padding after an empty
	// message's byte and after a bool among them.
	every, err := msgdef.ParseBundle("my_pkg/Every", `bool b
float64 after_bool
std_msgs/Empty empty
float64 after_empty
bool[3] bools
bool[] more_bools
int8[] int8s
uint16 u16
time[2] times
duration[] durations
char c
uint8[3] blob
byte[] bytes
float32[] floats
string[2] names
string[] more_names
std_msgs/Header[] headers
my_pkg/Part[2] parts
my_pkg/Part[] more_parts
================================================================================
MSG: my_pkg/Part
std_msgs/Header header
uint8 u8
float64 x
================================================================================
MSG: std_msgs/Empty
================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id
`, msgdef.ROS1, nil)
	if err != nil {
		t.Fatal(err)
	}
	types := 0
	for _, name := range append(reg.Names(), "") {
		t1, err := reg.Lookup(name)
		if name == "" {
			t1, err = every, nil
		}
		if err != nil || t1.Dialect != msgdef.ROS1 {
			continue
		}
		dec, err := ros1.Compile(t1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		types++
		fast, slow := dec.ToCDR(), decode.DecodeROS1(dec)
		for range 20 {
			data, err := ros1.Encode(studygen.Random(t1, rng, 1.7e18))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, ok := fast.Append([]byte("kept"), data)
			if !ok {
				t.Fatalf("%s: declined %x", name, data)
			}
			want, err := slow([]byte("kept"), data)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: copied %x\ndecoded %x", name, got, want)
			}
		}
	}
	if types < 100 {
		t.Errorf("%d ROS1 types in the registry", types)
	}
}

// TestTranscodeROS1Declined checks what the copying leaves to the decoder:
// a string that is not UTF-8 is repaired and counted, a cut message fails
// naming its field, and the buffer given is kept.
func TestTranscodeROS1Declined(t *testing.T) {
	t1, err := msgdef.ParseBundle("my_pkg/Thing", "std_msgs/Header header\nstring name\nfloat32 x\n"+
		"================================================================================\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n",
		msgdef.ROS1, nil)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := ros1.Compile(t1)
	if err != nil {
		t.Fatal(err)
	}
	conv := decode.TranscodeROS1(dec)
	le := binary.LittleEndian
	msg := func(name string) []byte {
		b := le.AppendUint32(nil, 7)                    // seq
		b = le.AppendUint32(le.AppendUint32(b, 100), 5) // stamp
		b = append(le.AppendUint32(b, 3), "map"...)
		b = append(le.AppendUint32(b, uint32(len(name))), name...)
		return le.AppendUint32(b, 0x7f800001) // a signalling NaN
	}
	cdrOf := func(name string) []byte {
		b := []byte{0, 1, 0, 0}
		b = le.AppendUint32(le.AppendUint32(b, 100), 5)
		b = append(le.AppendUint32(b, 4), "map\x00"...)
		b = append(le.AppendUint32(b, uint32(len(name)+1)), name+"\x00"...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return le.AppendUint32(b, 0x7f800001) // its bits kept, as rosbags copies them
	}
	got, err := conv(nil, msg("cup"))
	if err != nil || !bytes.Equal(got, cdrOf("cup")) {
		t.Errorf("valid: %x, %v; want %x", got, err, cdrOf("cup"))
	}
	got, err = conv(nil, msg("c\xffp"))
	if want := cdrOf("c\uFFFDp"); err != nil || !bytes.Equal(got[:len(got)-4], want[:len(want)-4]) {
		t.Errorf("not UTF-8: %x, %v; want %x", got, err, want)
	}
	if n := dec.InvalidUTF8(); n != 1 {
		t.Errorf("InvalidUTF8 = %d, want 1", n)
	}
	cut := msg("cup")
	got, err = conv([]byte("kept"), cut[:len(cut)-2])
	var re *record.Error
	if !errors.As(err, &re) || re.Field != "x" || !errors.Is(err, record.ErrTruncated) || string(got) != "kept" {
		t.Errorf("cut: %q, %v", got, err)
	}
}
