package remote

import (
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// startGCS starts fake-gcs-server (its fakestorage library, in process)
// on a free loopback port holding the objects of bucket, and points
// gs:// URLs at it (STORAGE_EMULATOR_HOST, which gocloud's gcsblob
// follows without credentials).
func startGCS(t *testing.T, bucket string, objects map[string][]byte) *fakestorage.Server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var initial []fakestorage.Object
	for k, v := range objects {
		initial = append(initial, fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: k}, Content: v})
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		InitialObjects: initial, Scheme: "http", Host: "127.0.0.1", Port: uint16(port),
		PublicHost: fmt.Sprintf("127.0.0.1:%d", port), Writer: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	t.Cleanup(srv.Stop)
	t.Setenv("STORAGE_EMULATOR_HOST", fmt.Sprintf("127.0.0.1:%d", port))
	return srv
}

// TestGCS runs testBlobScheme against fake-gcs-server: a replaced
// object's generation (modification time) changes.
func TestGCS(t *testing.T) {
	data := randomBytes(3<<20+5, 21)
	srv := startGCS(t, "gcs-lab", map[string][]byte{"runs/a.mcap": data, "runs/b.bag": []byte("bag"), "runs/r2/metadata.yaml": []byte("x")})
	testBlobScheme(t, blobScheme{
		bucket: "gs://gcs-lab/",
		data:   data,
		get: func(key string) []byte {
			o, err := srv.GetObject("gcs-lab", key)
			if err != nil {
				return nil
			}
			return o.Content
		},
		replace: func(_ *testing.T, key string) {
			srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "gcs-lab", Name: key}, Content: randomBytes(len(data), 22)})
		},
	})
}
