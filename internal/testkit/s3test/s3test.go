// Package s3test starts a real S3 server for tests: SeaweedFS's weed
// (`make deps-weed` builds it once into ~/.cache/baglab/weed), on free
// loopback ports with a data folder of its own, with one access key, and
// stops only that process when the test ends.
package s3test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// The access key the server accepts.
const (
	AccessKey = "baglab-test-key"
	SecretKey = "baglab-test-secret"
)

// Server is a running S3 server.
type Server struct {
	// Endpoint is its URL (http://127.0.0.1:PORT), for AWS_ENDPOINT_URL.
	Endpoint string
	// Client is an S3 client of the server with the access key.
	Client *s3.Client
}

// Binary is the weed program: $BAGLAB_WEED, or where `make deps-weed`
// builds it.
func Binary() string {
	if p := os.Getenv("BAGLAB_WEED"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "baglab", "weed", "weed")
}

// Start starts a server for t and points the standard AWS variables of
// the test at it (AWS_ENDPOINT_URL, the key, AWS_REGION), so that s3://
// URLs read and write there. Without weed the test skips, or fails when
// CI is set.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, fmt.Sprintf("SeaweedFS weed not found at %s (run `make deps-weed`)", bin))
	}
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"identities": []any{map[string]any{
		"name":        "baglab",
		"credentials": []any{map[string]string{"accessKey": AccessKey, "secretKey": SecretKey}},
		"actions":     []string{"Admin", "Read", "List", "Tagging", "Write"},
	}}})
	if err := os.WriteFile(filepath.Join(dir, "s3.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 8)
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir="+data,
		fmt.Sprintf("-master.port=%d", ports[0]), fmt.Sprintf("-master.port.grpc=%d", ports[1]),
		fmt.Sprintf("-volume.port=%d", ports[2]), fmt.Sprintf("-volume.port.grpc=%d", ports[3]),
		fmt.Sprintf("-filer.port=%d", ports[4]), fmt.Sprintf("-filer.port.grpc=%d", ports[5]),
		"-filer", "-s3", fmt.Sprintf("-s3.port=%d", ports[6]), fmt.Sprintf("-s3.port.grpc=%d", ports[7]),
		"-s3.config="+filepath.Join(dir, "s3.json"), "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.volumeSizeLimitMB=1024", "-volume.max=0")
	log, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // its own process group, nothing else
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		log.Close()
		// weed leaves Unix sockets named by port in /tmp: remove its own.
		for _, p := range ports {
			socks, _ := filepath.Glob(fmt.Sprintf("/tmp/seaweedfs-*-%d.sock", p))
			for _, s := range socks {
				os.Remove(s)
			}
		}
	})
	s := &Server{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", ports[6])}
	t.Setenv("AWS_ENDPOINT_URL", s.Endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
	s.Client = s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint), Region: "us-east-1", UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
	// Ready when a bucket can be made and listed.
	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
			t.Fatalf("weed exited: %s", tail(b))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := s.Client.ListBuckets(ctx, &s3.ListBucketsInput{})
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
			t.Fatalf("weed S3 not ready after 90 s: %v\n%s", err, tail(b))
		}
		time.Sleep(300 * time.Millisecond)
	}
	return s
}

// Bucket makes a bucket on the server.
func (s *Server) Bucket(t testing.TB, name string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := s.Client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("create bucket %s: %v", name, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Put stores data as the object key of bucket; a volume may take a moment
// to be ready after the server starts, so it tries for a while.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := s.Client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Body: bytes.NewReader(data)})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("put %s/%s: %v", bucket, key, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Get returns the object key of bucket.
func (s *Server) Get(t testing.TB, bucket, key string) []byte {
	t.Helper()
	obj, err := s.Client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get %s/%s: %v", bucket, key, err)
	}
	defer obj.Body.Close()
	data, err := io.ReadAll(obj.Body)
	if err != nil {
		t.Fatalf("get %s/%s: %v", bucket, key, err)
	}
	return data
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// freePorts returns n loopback ports free now.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
