package decode_test

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode"
	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/recording/bag"
)

// BenchmarkToROS2AllTypes: what convert --to ros2 spends on the output
// channels of a bag of every seed and common type (the demo's
// all_types.bag: 196 connections, each with its own copy of the
// definitions it uses) before the first message, with a new registry and
// Resolver each time, as each run of baglab has: by default, and with
// --distro jazzy (each type paired with jazzy's definitions; its bundle
// is read once per process, so not here: BenchmarkUnpackDistro). The
// definitions msgdef parses and the types it interns are kept for the
// process: after the first iteration they are warm, where each run of
// the command starts cold.
func BenchmarkToROS2AllTypes(b *testing.B) {
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 7, Sessions: 1})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "all_types.bag")
	if err := studygen.WriteBag(path, s.AllROS1, bag.CompressionLZ4); err != nil {
		b.Fatal(err)
	}
	r, err := bag.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	chans, err := r.Channels()
	if err != nil {
		b.Fatal(err)
	}
	for _, distro := range []string{"", "jazzy"} {
		name := "default"
		if distro != "" {
			name = distro
		}
		b.Run(name, func(b *testing.B) {
			b.ReportMetric(float64(len(chans)), "channels")
			var rn *decode.Renames
			if distro != "" {
				rn = rn.Native()
			}
			for b.Loop() {
				reg := msgdef.Default() // a clone of its own
				if err := reg.SetDistro(distro); err != nil {
					b.Fatal(err)
				}
				res := decode.NewResolver(reg)
				for _, ch := range chans {
					if _, err := res.For(ch); err != nil {
						b.Fatal(err)
					}
				}
				for _, ch := range chans {
					if _, _, _, err := res.ToROS2(ch, rn); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
