// Command tfgen writes the recording of the TF benchmark (testdata/bench/tf.sh)
// and of `make demo`'s transforms (studygen.WriteTF): /tf at 100 Hz and
// 10 Hz, /tf_static, /imu, /pose and 1 MB point clouds at 10 Hz. .bag is
// uncompressed, .mcap zstd.
//
//	go run ./testdata/bench/tfgen -o tf-big.bag -seconds 120
//	go run ./testdata/bench/tfgen -o demo/data/tf.bag -seconds 20 -cloud-bytes 12000
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/baglab/baglab/internal/testkit/studygen"
)

func main() {
	out := flag.String("o", "", "output path, .bag or .mcap (required)")
	seconds := flag.Int("seconds", 120, "length of the recording")
	cloudBytes := flag.Int("cloud-bytes", 1<<20, "bytes of data per point cloud")
	flag.Parse()
	if *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := studygen.WriteTF(*out, studygen.TFOptions{Seconds: *seconds, CloudBytes: *cloudBytes}); err != nil {
		fmt.Fprintln(os.Stderr, "tfgen:", err)
		os.Exit(1)
	}
}
