package xmlrpc

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Documents written by Python's xmlrpc.client (rospy's) decode to the
// values Python encoded.
func TestDecodePythonDocuments(t *testing.T) {
	f, err := os.Open("testdata/python_call.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	method, params, err := DecodeCall(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"/caller", "/topic", []any{[]any{"TCPROS"}}, 42, -7, 2.5, true,
		map[string]any{"a": []any{1, "b"}, "c & d": "<e>"}, []byte{0, 1, 0xff}}
	if method != "requestTopic" || !reflect.DeepEqual(params, want) {
		t.Fatalf("got %s %#v\nwant %#v", method, params, want)
	}
	b, _ := os.ReadFile("testdata/python_response.xml")
	v, err := DecodeResponse(bytes.NewReader(b))
	if err != nil || !reflect.DeepEqual(v, []any{1, "ready", []any{"TCPROS", "127.0.0.1", 45123}}) {
		t.Fatalf("response %#v, %v", v, err)
	}
	b, _ = os.ReadFile("testdata/python_fault.xml")
	_, err = DecodeResponse(bytes.NewReader(b))
	var fault *Fault
	if !errors.As(err, &fault) || fault.Code != 3 || fault.String != "no such topic" {
		t.Fatalf("fault: %v", err)
	}
}

// What we encode decodes to the same values.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want any
	}{
		{"string", "a<b>&c", "a<b>&c"},
		{"empty string", "", ""},
		{"int", -2147483648, -2147483648},
		{"bool", false, false},
		{"double", 1e-300, 1e-300},
		{"bytes", []byte("raw\x00"), []byte("raw\x00")},
		{"nil", nil, nil},
		{"strings", []string{"a", "b"}, []any{"a", "b"}},
		{"pairs", [][]string{{"/t", "std_msgs/String"}}, []any{[]any{"/t", "std_msgs/String"}}},
		{"struct", map[string]any{"k": []any{1, true}}, map[string]any{"k": []any{1, true}}},
		{"empty array", []any{}, []any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := EncodeResponse(&b, tc.in); err != nil {
				t.Fatal(err)
			}
			got, err := DecodeResponse(&b)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
	var b bytes.Buffer
	if err := EncodeResponse(&b, int64(1)<<40); err == nil {
		t.Fatal("an integer over i4 encoded")
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, doc := range []string{
		"",
		"<methodCall>",
		"<methodCall><methodName>m</methodName><params><param><value><int>1.5</int></value></param></params></methodCall>",
		"<methodCall><methodName>m</methodName><params><param><value><boolean>2</boolean></value></param></params></methodCall>",
		"<methodCall><methodName>m</methodName><params><param><value><foo/></value></param></params></methodCall>",
		"<methodCall><methodName>m</methodName><params><param><value>" + strings.Repeat("<array><data><value>", MaxDepth+2) + "1",
	} {
		if _, _, err := DecodeCall(strings.NewReader(doc)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%.60q: err %v, want ErrMalformed", doc, err)
		}
	}
}

func FuzzDecodeCall(f *testing.F) {
	for _, name := range []string{"testdata/python_call.xml", "testdata/python_response.xml", "testdata/python_fault.xml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		method, params, err := DecodeCall(bytes.NewReader(b))
		if err == nil {
			// What decodes re-encodes, and that decodes and encodes to
			// the same bytes.
			var out bytes.Buffer
			if err := EncodeCall(&out, method, params...); err != nil {
				return // e.g. an i8 beyond i4
			}
			first := out.String()
			m2, p2, err := DecodeCall(&out)
			if err != nil {
				t.Fatalf("our own encoding %q does not decode: %v", first, err)
			}
			var again bytes.Buffer
			if err := EncodeCall(&again, m2, p2...); err != nil || again.String() != first {
				t.Fatalf("re-encoded\n%q\nwant\n%q (%v)", again.String(), first, err)
			}
		}
		_, _ = DecodeResponse(bytes.NewReader(b))
	})
}
