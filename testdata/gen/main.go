// Command gen writes baglab's sample study: deterministic, realistic
// experiment recordings that use every message type of the native packages,
// in every format and compression, plus damaged variants and the ground
// truth they were drawn from (truth.json).
//
//	go run ./testdata/gen -o DIR [-seed N] [-sessions N]
//	go run ./testdata/gen -big FILE.bag|FILE.mcap [-size BYTES] [-scans]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
)

func main() {
	out := flag.String("o", "", "output directory (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	sessions := flag.Int("sessions", 30, "crowdsourcing sessions in the placement study")
	withMedia := flag.Bool("media", false, "give the grasp demonstrations pictures and the demonstrations and models clouds of their objects (make demo; the pinned samples have blank ones)")
	big := flag.String("big", "", "instead of the study, write one large benchmark recording at this path (.bag or .mcap)")
	size := flag.Int64("size", 2<<30, "with -big: bytes of messages to write")
	scans := flag.Bool("scans", false, "with -big: each point cloud a new lidar-like scan (noisy float32 x, y, z), not the same random bytes")
	flag.Parse()
	if *big != "" {
		n, err := studygen.WriteBig(*big, msgdef.Default(), studygen.BigOptions{Size: *size, Seed: *seed, Scans: *scans})
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d bytes of messages\n", *big, n)
		return
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: go run ./testdata/gen -o DIR [-seed N] [-sessions N]")
		os.Exit(2)
	}
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: *seed, Sessions: *sessions, Media: *withMedia})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	files, err := studygen.WriteAll(*out, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println(f.Name)
	}
}
