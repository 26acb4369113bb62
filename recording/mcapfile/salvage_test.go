package mcapfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
	"github.com/baglab/baglab/record"
	"github.com/pierrec/lz4/v4"
)

// lz4Frame compresses data as the MCAP writer does (one frame, 4 MiB
// blocks, independent, content checksum) or with small linked blocks.
func lz4Frame(t testing.TB, data []byte, small bool) []byte {
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	if small {
		if err := w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(true), lz4.SizeOption(uint64(len(data)))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sampleRecords is compressible data with long repeats and literals.
func sampleRecords(n int) []byte {
	out := make([]byte, 0, n)
	for i := 0; len(out) < n; i++ {
		out = append(out, "topic /grasp seq "...)
		out = append(out, byte(i), byte(i>>3), byte(i*7))
		if i%5 == 0 {
			out = append(out, bytes.Repeat([]byte{byte(i)}, i%300)...)
		}
	}
	return out[:n]
}

// TestLZ4FramePrefix cuts lz4 frames everywhere: what decodes is always a
// prefix of the original, all of it for the whole frame, and it grows with
// the cut.
func TestLZ4FramePrefix(t *testing.T) {
	data := sampleRecords(200_000)
	for _, small := range []bool{false, true} {
		frame := lz4Frame(t, data, small)
		if got := lz4FramePrefix(frame, uint64(len(data))); !bytes.Equal(got, data) {
			t.Fatalf("small %v: whole frame decodes to %d bytes, want %d", small, len(got), len(data))
		}
		step := 97
		if testing.Short() {
			step = 997
		}
		last := 0
		for cut := 0; cut < len(frame); cut += step {
			got := lz4FramePrefix(frame[:cut], uint64(len(data)))
			if !bytes.HasPrefix(data, got) || len(got) < last {
				t.Fatalf("small %v, cut %d: %d bytes, not a growing prefix", small, cut, len(got))
			}
			last = len(got)
		}
		// Most of what the cut keeps decodes: a cut at 60% yields over half.
		if got := lz4FramePrefix(frame[:len(frame)*6/10], uint64(len(data))); len(got) < len(data)/2 {
			t.Errorf("small %v: a cut at 60%% yields %d of %d bytes", small, len(got), len(data))
		}
		if got := lz4FramePrefix(frame, 1000); len(got) > 1000 {
			t.Errorf("limit 1000 exceeded: %d", len(got))
		}
	}
}

// FuzzLZ4FramePrefix: for a frame of the fuzzed data cut anywhere the
// result is a prefix of the data; for fuzzed bytes as a frame nothing
// panics and the limit holds.
func FuzzLZ4FramePrefix(f *testing.F) {
	f.Add(sampleRecords(3000), uint16(1000), false)
	f.Add(lz4Frame(f, sampleRecords(3000), true), uint16(0), true)
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, raw bool) {
		if raw {
			if got := lz4FramePrefix(data, uint64(cut)); len(got) > int(cut) {
				t.Fatalf("%d bytes past the limit %d", len(got), cut)
			}
			return
		}
		frame := lz4Frame(t, data, cut%2 == 0)
		got := lz4FramePrefix(frame[:int(cut)%(len(frame)+1)], uint64(len(data)))
		if !bytes.HasPrefix(data, got) {
			t.Fatal("not a prefix")
		}
	})
}

// recoverBytes runs Recover over data and checks the result: an error only
// for input that is not MCAP at all, and an output that Check passes.
func recoverBytes(t *testing.T, dir string, data []byte) *RecoverReport {
	t.Helper()
	in := filepath.Join(dir, "in.mcap")
	out := filepath.Join(dir, "out.mcap")
	os.Remove(out)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Recover(in, out)
	if err != nil {
		var re *record.Error
		if !errors.As(err, &re) || re.Field != "magic" {
			t.Fatalf("Recover: %v", err)
		}
		return nil
	}
	if probs, err := Check(out); err != nil || len(withoutUnverifiedMark(probs)) != 0 {
		t.Fatalf("Check of the recovered file: %v %v", probs, err)
	}
	return rep
}

// TestRecoverEverywhere cuts and damages two small files with every
// feature at every 11th byte (every 61st with -short): Recover never fails
// on them and always writes a sound file holding no more messages than the
// input.
func TestRecoverEverywhere(t *testing.T) {
	step := 11
	if testing.Short() {
		step = 61
	}
	inputs := truncationInputs(t)
	for _, path := range []string{inputs[0], inputs[2]} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := recoverBytes(t, t.TempDir(), data).Messages
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			for n := 0; n < len(data); n += step {
				if rep := recoverBytes(t, dir, data[:n]); rep != nil && rep.Messages > want {
					t.Fatalf("cut at %d: %d messages from a file of %d", n, rep.Messages, want)
				}
				bad := bytes.Clone(data)
				bad[n] ^= 0xa5
				if rep := recoverBytes(t, dir, bad); rep != nil && rep.Messages > want {
					t.Fatalf("byte %d damaged: %d messages from a file of %d", n, rep.Messages, want)
				}
			}
		})
	}
}

// FuzzRecover: Recover on arbitrary bytes writes a file that Check passes.
func FuzzRecover(f *testing.F) {
	var files []string
	if dir, ok := testenv.FixturesIfPresent(f, "mcap-conformance"); ok {
		files, _ = filepath.Glob(filepath.Join(dir, "data", "*", "*.mcap"))
	}
	for i, p := range files {
		if b, err := os.ReadFile(p); err == nil && i%13 == 0 {
			f.Add(b)
		}
	}
	for _, b := range straySeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recoverBytes(t, t.TempDir(), data)
	})
}
