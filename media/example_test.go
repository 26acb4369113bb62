package media_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/media"
	"github.com/baglab/baglab/recording"
)

// Extract writes the sample study's grasp demonstration images and the
// clouds of its demonstrations and models, with their index.
func ExampleExtract() {
	in, err := recording.OpenInputs([]string{"../testdata/sample/study.bag"}, recording.InputOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	dir, _ := os.MkdirTemp("", "media")
	defer os.RemoveAll(dir)
	res, err := media.Extract(context.Background(), in, dir, media.Options{Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range res.Entries[:3] {
		fmt.Println(e.Kind, e.Field, e.Width, e.Height, e.Points, e.Path)
	}
	for _, p := range res.Index {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// image image 4 4 0 rail_pick_and_place/grasp_demonstrations/image/1714564802500000000.png
	// point_cloud point_cloud 32 1 32 rail_pick_and_place/grasp_demonstrations/point_cloud/1714564802500000000.pcd
	// point_cloud point_cloud 64 1 64 rail_pick_and_place/grasp_models/point_cloud/1714564803000000000.pcd
	// index.parquet
	// index.csv
}
