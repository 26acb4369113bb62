package remote

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/baglab/baglab/internal/testkit/testenv"
)

// azuriteBlob is Azurite's blob server, installed by `make deps-azurite`.
const azuriteBlob = "../../testdata/azurite/node_modules/.bin/azurite-blob"

// Azurite's well-known development account.
const (
	azuriteAccount = "devstoreaccount1"
	azuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// startAzurite starts Azurite's blob server on a free loopback port with a
// folder of its own, makes container, points azblob:// URLs at it
// (AZURE_STORAGE_CONNECTION_STRING, which gocloud's azureblob follows)
// and stops that process alone when the test ends.
func startAzurite(t *testing.T, container string) *azblob.Client {
	t.Helper()
	if _, err := os.Stat(azuriteBlob); err != nil {
		testenv.Missing(t, "Azurite not found at testdata/azurite (run `make deps-azurite`)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(azuriteBlob, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port), "--location", dir,
		"--silent", "--skipApiVersionCheck", "--loose", "--disableTelemetry")
	log, err := os.Create(filepath.Join(dir, "azurite.log"))
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
	})
	endpoint := fmt.Sprintf("http://127.0.0.1:%d/%s", port, azuriteAccount)
	cs := fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;", azuriteAccount, azuriteKey, endpoint)
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", cs)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(endpoint + "?comp=list")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "azurite.log"))
			t.Fatalf("azurite exited: %s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("azurite not ready after 60 s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	client, err := azblob.NewClientFromConnectionString(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateContainer(context.Background(), container, nil); err != nil {
		t.Fatal(err)
	}
	return client
}

// TestAzureBlob runs testBlobScheme against Azurite: a replaced blob's
// ETag, asked for with If-Match, changes.
func TestAzureBlob(t *testing.T) {
	ctx := context.Background()
	client := startAzurite(t, "lab")
	data := randomBytes(3<<20+5, 31)
	for k, v := range map[string][]byte{"runs/a.mcap": data, "runs/b.bag": []byte("bag"), "runs/r2/metadata.yaml": []byte("x")} {
		if _, err := client.UploadBuffer(ctx, "lab", k, v, nil); err != nil {
			t.Fatal(err)
		}
	}
	testBlobScheme(t, blobScheme{
		bucket: "azblob://lab/",
		data:   data,
		get: func(key string) []byte {
			resp, err := client.DownloadStream(ctx, "lab", key, nil)
			if err != nil {
				return nil
			}
			defer resp.Body.Close()
			var got bytes.Buffer
			got.ReadFrom(resp.Body)
			return got.Bytes()
		},
		replace: func(t *testing.T, key string) {
			if _, err := client.UploadBuffer(ctx, "lab", key, randomBytes(len(data), 32), nil); err != nil {
				t.Fatal(err)
			}
		},
	})
}
