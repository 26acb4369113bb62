package media_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/decode/msgdef"
	"github.com/baglab/baglab/internal/testkit/studygen"
	"github.com/baglab/baglab/media"
	"github.com/baglab/baglab/recording"
	"github.com/baglab/baglab/recording/bag"
)

// TestPictures: the demo study's three grasp demonstrations are pictured
// by their images, the three grasp models by their clouds, each with its
// object and the grasp counts the study drew; a byte budget scales the
// pictures down and then leaves the last ones out.
func TestPictures(t *testing.T) {
	s, err := studygen.Generate(msgdef.Default(), studygen.Options{Seed: 1, Sessions: 2, Media: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "study.bag")
	if err := studygen.WriteBag(path, s.ROS1, bag.CompressionNone); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]uint64{}
	for _, g := range s.Truth.Grasps {
		w := want[g.Object]
		want[g.Object] = [2]uint64{w[0] + uint64(g.Successes), w[1] + uint64(g.Attempts)}
	}
	pictures := func(maxBytes int64) ([]media.Picture, int) {
		in, err := recording.OpenInputs([]string{path}, recording.InputOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		pics, left, err := media.Pictures(context.Background(), in, media.PictureOptions{MaxBytes: maxBytes})
		if err != nil {
			t.Fatal(err)
		}
		return pics, left
	}
	pics, left := pictures(0)
	if len(pics) != 6 || left != 0 {
		t.Fatalf("%d pictures, %d left out; want 6 and 0", len(pics), left)
	}
	kinds := map[media.Kind]int{}
	for _, p := range pics {
		kinds[p.Kind]++
		if w := want[p.Object]; p.Successes != w[0] || p.Attempts != w[1] {
			t.Errorf("%s %d (%s): %d of %d, want %d of %d", p.Type, p.ID, p.Object, p.Successes, p.Attempts, w[0], w[1])
		}
		if p.Kind == media.Image && (p.Width != 96 || p.Height != 72) || p.Kind == media.Cloud && (p.Width != 160 || p.Height != 160) {
			t.Errorf("%s %s: %d x %d", p.Type, p.Kind, p.Width, p.Height)
		}
	}
	if kinds[media.Image] != 3 || kinds[media.Cloud] != 3 {
		t.Errorf("kinds %v, want 3 images and 3 clouds", kinds)
	}
	for _, budget := range []int64{8000, 1500} {
		pics, left := pictures(budget)
		total := 0
		for _, p := range pics {
			total += len(p.PNG)
			if p.Width > 80 {
				t.Errorf("budget %d: a picture %d pixels wide", budget, p.Width)
			}
		}
		if total > int(budget) || len(pics)+left != 6 {
			t.Errorf("budget %d: %d bytes in %d pictures, %d left out", budget, total, len(pics), left)
		}
		if budget == 1500 && left == 0 {
			t.Errorf("budget %d: nothing left out", budget)
		}
	}
}
