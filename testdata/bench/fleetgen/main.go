// Command fleetgen writes the recordings of the per-file overhead benchmark
// (testdata/bench/fleet.sh): N small study recordings (ROS1 bags, lz4
// chunks, about 100 KB each with the default sessions), each from its own
// seed so that every file has its own content, and all.bag holding the
// messages of all of them in one recording (the same bytes of messages
// without the per-file cost).
//
//	go run ./testdata/bench/fleetgen -o DIR [-n 1000] [-sessions 10]
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/recording/bag"
)

func main() {
	out := flag.String("o", "", "output directory (required)")
	n := flag.Int("n", 1000, "recordings to write")
	sessions := flag.Int("sessions", 10, "crowdsourcing sessions per recording")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: go run ./testdata/bench/fleetgen -o DIR [-n N] [-sessions N]")
		os.Exit(2)
	}
	if err := run(*out, *n, *sessions); err != nil {
		fmt.Fprintln(os.Stderr, "fleetgen:", err)
		os.Exit(1)
	}
}

func run(dir string, n, sessions int) error {
	if err := os.MkdirAll(filepath.Join(dir, "recs"), 0o755); err != nil {
		return err
	}
	var all []studygen.Event
	for i := range n {
		s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: uint64(i + 1), Sessions: sessions})
		if err != nil {
			return err
		}
		if err := studygen.WriteBag(filepath.Join(dir, "recs", fmt.Sprintf("rec%05d.bag", i)), s.ROS1, bag.CompressionLZ4); err != nil {
			return err
		}
		all = append(all, s.ROS1...)
	}
	slices.SortStableFunc(all, func(a, b studygen.Event) int { return cmp.Compare(a.LogTime, b.LogTime) })
	return studygen.WriteBag(filepath.Join(dir, "all.bag"), all, bag.CompressionLZ4)
}
