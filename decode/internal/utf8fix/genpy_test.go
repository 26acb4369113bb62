package utf8fix

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// TestGenpy compares Valid with genpy's reading of a string field
// (bytes.decode("utf-8", "rosmsg"), the error handler genpy registers) on
// 20,000 random byte strings over the bytes where UTF-8's rules change.
func TestGenpy(t *testing.T) {
	testenv.RequirePeer(t, "genpy")
	r := rand.New(rand.NewSource(1))
	edges := []byte{'A', 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1,
		0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	var ins [][]byte
	var lines strings.Builder
	for range 20000 {
		b := make([]byte, r.Intn(9))
		for j := range b {
			b[j] = edges[r.Intn(len(edges))]
		}
		ins = append(ins, b)
		lines.WriteString(hex.EncodeToString(b) + "\n")
	}
	cmd := exec.Command(testenv.Python, "-c", `
import sys, logging
logging.disable(logging.CRITICAL)
import genpy.message  # registers the "rosmsg" error handler
for line in sys.stdin:
    print(bytes.fromhex(line.strip()).decode("utf-8", "rosmsg").encode("utf-8").hex())
`)
	cmd.Stdin = strings.NewReader(lines.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("genpy: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(want) != len(ins) {
		t.Fatalf("genpy printed %d lines for %d inputs", len(want), len(ins))
	}
	differ := 0
	for i, in := range ins {
		got, _ := Valid(in)
		if w, _ := hex.DecodeString(want[i]); !bytes.Equal(got, w) {
			if differ++; differ <= 5 {
				t.Errorf("Valid(%x) = %x, genpy %x", in, got, w)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d differ from genpy", differ, len(ins))
	}
}
