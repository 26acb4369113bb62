package mcapfile

import (
	"path/filepath"
	"testing"
)

// BenchmarkRecover rebuilds the 150 MB benchmark recording (zstd in, zstd
// out); throughput is of its message payloads.
func BenchmarkRecover(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "bench.mcap")
	total := writeBench(b, in, "zstd")
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rep, err := Recover(in, filepath.Join(dir, "out.mcap"))
		if err != nil || len(rep.Skipped) != 0 {
			b.Fatal(err, rep)
		}
	}
}

// BenchmarkCheck checks the 150 MB benchmark recording (zstd).
func BenchmarkCheck(b *testing.B) {
	in := filepath.Join(b.TempDir(), "bench.mcap")
	total := writeBench(b, in, "zstd")
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if probs, err := Check(in); err != nil || len(probs) != 0 {
			b.Fatal(err, probs)
		}
	}
}
