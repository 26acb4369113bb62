package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"testing"
)

// rospyHeader is the connection header rospy 1.15 sends as a publisher of
// std_msgs/String (the fields and order rospy uses, encoded by hand).
func rospyHeader() []byte {
	var b []byte
	for _, f := range []string{"callerid=/talker", "latching=1", "md5sum=992ce8a1687cec8c8bd883ec73ca41d1",
		"message_definition=string data\n", "topic=/chatter", "type=std_msgs/String"} {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func TestHeaderRoundTrip(t *testing.T) {
	h, err := ReadHeader(bytes.NewReader(rospyHeader()))
	if err != nil {
		t.Fatal(err)
	}
	if h.Value("latching") != "1" || h.Value("message_definition") != "string data\n" || len(h) != 6 || h[0].Key != "callerid" {
		t.Fatalf("header %v", h)
	}
	if _, ok := h.Get("error"); ok {
		t.Fatal("absent key found")
	}
	var b bytes.Buffer
	if err := WriteHeader(&b, h); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), rospyHeader()) {
		t.Fatal("re-encoded header differs from the wire bytes")
	}
	// A value may hold '='.
	h2, err := ParseHeader(Header{{Key: "k", Value: "a=b"}}.Encode())
	if err != nil || h2.Value("k") != "a=b" {
		t.Fatalf("%v %v", h2, err)
	}
}

func TestReadFrameBounds(t *testing.T) {
	big := binary.LittleEndian.AppendUint32(nil, 1<<30)
	if _, err := ReadFrame(bytes.NewReader(big), nil, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over limit: %v", err)
	}
	// A frame announced large but cut short costs only what arrived.
	cut := append(binary.LittleEndian.AppendUint32(nil, 100<<20), make([]byte, 10)...)
	if b, err := ReadFrame(bytes.NewReader(cut), nil, 1<<30); err != io.ErrUnexpectedEOF || b != nil {
		t.Fatalf("cut frame: %v", err)
	}
	// Frames larger than the growth step arrive whole; small ones reuse buf.
	payload := bytes.Repeat([]byte("x"), 3*growStep+5)
	var w bytes.Buffer
	WriteFrame(&w, payload)
	WriteFrame(&w, []byte("small"))
	got, err := ReadFrame(&w, nil, 1<<30)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("large frame: %d bytes, %v", len(got), err)
	}
	small, err := ReadFrame(&w, got, 1<<30)
	if err != nil || string(small) != "small" || &small[0] != &got[0] {
		t.Fatalf("small frame %q, %v (buffer reused: %v)", small, err, &small[0] == &got[0])
	}
	if _, err := ReadFrame(&w, nil, 10); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add(rospyHeader()[4:])
	f.Add([]byte{})
	f.Add([]byte{5, 0, 0, 0, 'a', '=', 'b'})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		h2, err := ParseHeader(h.Encode())
		if err != nil || !reflect.DeepEqual(h, h2) {
			t.Fatalf("re-parsed %v, %v; want %v", h2, err, h)
		}
	})
}

func FuzzReadFrame(f *testing.F) {
	f.Add(rospyHeader(), 64)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, 1<<30)
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if limit < 0 {
			limit = -limit
		}
		got, err := ReadFrame(bytes.NewReader(b), nil, limit)
		if err == nil && (len(got) > limit || len(got) > len(b)) {
			t.Fatalf("frame of %d bytes from %d input, limit %d", len(got), len(b), limit)
		}
	})
}

// A service response is the ok byte, then a frame: the response, or the
// error text.
func TestWriteServiceResponse(t *testing.T) {
	for _, tc := range []struct {
		ok   bool
		data string
		want []byte
	}{
		{true, "\x01", []byte{1, 1, 0, 0, 0, 1}},
		{true, "", []byte{1, 0, 0, 0, 0}},
		{false, "no", []byte{0, 2, 0, 0, 0, 'n', 'o'}},
	} {
		var b bytes.Buffer
		if err := WriteServiceResponse(&b, tc.ok, []byte(tc.data)); err != nil || !bytes.Equal(b.Bytes(), tc.want) {
			t.Errorf("ok %v %q: % x, %v; want % x", tc.ok, tc.data, b.Bytes(), err, tc.want)
		}
	}
}

// A frame is read into memory as its bytes arrive: a 1 MiB + 111 B frame
// costs one buffer of exactly its size once its start has arrived, and a
// refused reservation drops the frame but keeps the stream in step.
func TestReadBodyReserve(t *testing.T) {
	n := 1<<20 + 111
	var w bytes.Buffer
	WriteFrame(&w, bytes.Repeat([]byte("y"), n))
	WriteFrame(&w, []byte("next"))
	l, err := ReadLength(&w)
	if err != nil || l != n {
		t.Fatalf("length %d, %v", l, err)
	}
	granted := 0
	body, reserved, err := ReadBody(&w, l, nil, func(k int) bool {
		if granted+k > 1<<20 {
			return false
		}
		granted += k
		return true
	})
	if !errors.Is(err, ErrNoRoom) || body != nil || reserved != granted || reserved == 0 {
		t.Fatalf("refused frame: body %d bytes, reserved %d (granted %d), %v", len(body), reserved, granted, err)
	}
	got, err := ReadFrame(&w, nil, 10)
	if err != nil || string(got) != "next" {
		t.Fatalf("frame after the dropped one: %q, %v", got, err)
	}
	// Reused when large enough, and reservations add up to the frame.
	w.Reset()
	WriteFrame(&w, bytes.Repeat([]byte("z"), n))
	l, _ = ReadLength(&w)
	buf := make([]byte, 0, 2<<20)
	total := 0
	body, reserved, err = ReadBody(&w, l, buf, func(k int) bool { total += k; return true })
	if err != nil || len(body) != n || &body[0] != &buf[:1][0] || reserved != n || total != n {
		t.Fatalf("reused: %d bytes, reserved %d, total %d, %v", len(body), reserved, total, err)
	}
}

func TestReadBodyAllocs(t *testing.T) {
	n := 1<<20 + 111
	var w bytes.Buffer
	frame := bytes.Repeat([]byte("y"), n)
	buf := make([]byte, 0, n)
	allocs := testing.AllocsPerRun(10, func() {
		w.Reset()
		w.Write(frame)
		if _, _, err := ReadBody(&w, n, buf, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per frame into a buffer large enough", allocs)
	}
}

func FuzzReadBody(f *testing.F) {
	f.Add([]byte("abcdef"), 4, 3)
	f.Add([]byte{}, 10, 0)
	f.Fuzz(func(t *testing.T, b []byte, n, room int) {
		n &= 1<<24 - 1
		reserve := func(k int) bool {
			if room < k {
				return false
			}
			room -= k
			return true
		}
		body, _, err := ReadBody(bytes.NewReader(b), n, nil, reserve)
		if err == nil && (len(body) != n || !bytes.Equal(body, b[:n])) {
			t.Fatalf("body of %d bytes for n=%d from %d input", len(body), n, len(b))
		}
		if err == nil && n > len(b) {
			t.Fatal("no error for a cut frame")
		}
	})
}
