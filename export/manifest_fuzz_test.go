package export

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzManifestRow reads damaged and hostile manifest row files (a dataset
// directory may hold files any process or machine wrote): readManifestFile
// returns a row or an error naming the file, and never panics. The seeds
// are a valid row and its truncations.
func FuzzManifestRow(f *testing.F) {
	dir := f.TempDir()
	sha := "1315926aa37e007be06da144a50af33d86468fc9b69046dddf4bd152c7be2fbc"
	row := &ManifestRow{Path: "run.bag", Size: 11, SHA256: sha, Format: "bag", StartNs: 1, EndNs: 2, MessageCount: 3,
		BaglabVersion: "fuzz", PartitionBy: "date", OutputFormat: "parquet",
		Parts:  []string{"topic=%2Fchatter/date=1970-01-01/part-1315926aa37e007b.parquet"},
		Topics: []ManifestTopic{{Topic: "/chatter", Type: "std_msgs/String", MessageCount: 3, StartNs: 1, EndNs: 2}}}
	if err := WriteManifestRow(dir, row); err != nil {
		f.Fatal(err)
	}
	valid, err := os.ReadFile(manifestPath(dir, sha))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(valid[len(valid)-64:])
	path := filepath.Join(f.TempDir(), "row.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := readManifestFile(path)
		if err == nil && r == nil {
			t.Fatal("no row and no error")
		}
	})
}
