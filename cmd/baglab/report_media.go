//go:build !baglab_lean

package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/baglab/baglab/analysis/report"
	"github.com/baglab/baglab/internal/english"
	"github.com/baglab/baglab/media"
)

// pictures adds to pg the pictures of the grasp demonstrations' images and
// the grasp models' clouds of the recordings (not of --from-partial
// files, which hold none), within --max-media-bytes.
func (o *reportOptions) pictures(ctx context.Context, pg *report.Page) error {
	if o.maxMediaBytes <= 0 || len(o.files) == 0 || len(o.flags.fromPartial) > 0 {
		return nil
	}
	want := func(typ string) bool {
		for _, t := range media.GraspTypes {
			if strings.Replace(typ, "/msg/", "/", 1) == t {
				return true
			}
		}
		return false
	}
	in, err := o.g.open(o.files, &o.flags.read, "pictures", want)
	if err != nil {
		return err
	}
	defer in.close()
	var unpictured int
	var first error
	pics, left, err := media.Pictures(ctx, in.Inputs, media.PictureOptions{MaxBytes: o.maxMediaBytes, Unpictured: func(err error) {
		if unpictured++; first == nil {
			first = err
		}
	}})
	if err != nil {
		return err
	}
	if unpictured > 0 {
		o.g.warn("baglab: report: no thumbnail for %s (an encoding with no picture), the first: %v", english.Count(unpictured, "image"), first)
	}
	for _, p := range pics {
		pg.Pictures = append(pg.Pictures, report.Picture{Caption: pictureCaption(p), PNG: p.PNG, Width: p.Width, Height: p.Height})
	}
	pg.PicturesLeftOut = left
	return nil
}

// pictureCaption says what a picture shows: the object and its grasp
// success rate for the grasp types, else the topic, field and time.
func pictureCaption(p media.Picture) string {
	rate := ""
	if p.Attempts > 0 {
		rate = fmt.Sprintf("; grasps succeeded %d of %d times (%.2f)", p.Successes, p.Attempts, float64(p.Successes)/float64(p.Attempts))
	}
	at := time.Unix(0, p.LogTime).UTC().Format(time.RFC3339)
	switch {
	case p.Type == "rail_pick_and_place_msgs/GraspDemonstration":
		return fmt.Sprintf("Grasp demonstration %d: %s%s (the grasp models of the %s), %s", p.ID, p.Object, rate, p.Object, at)
	case p.Type == "rail_pick_and_place_msgs/GraspModel":
		return fmt.Sprintf("Grasp model %d: the %s's cloud seen from above%s, %s", p.ID, p.Object, rate, at)
	}
	what := p.Topic
	if p.Field != "" {
		what += " " + p.Field
	}
	return fmt.Sprintf("%s (%s), %s", what, p.Kind, at)
}
