//go:build !baglab_lean

package main

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"

	"github.com/baglab/baglab/media"
	"github.com/spf13/cobra"
)

type mediaOptions struct {
	g       *globalOptions
	files   []string
	read    readFlags
	out     string
	raw     bool
	pcd     string
	cloud   string
	dropNaN bool
	jobs    int
	video   bool
	fps     float64
	force   bool
}

func newMediaCmd(g *globalOptions) *cobra.Command {
	o := &mediaOptions{g: g}
	cmd := &cobra.Command{
		Use:   "media FILE... --out DIR",
		Short: "Write the images and point clouds of recordings as PNG, PCD/PLY and MP4 files",
		Long: `Write every sensor_msgs/Image, CompressedImage and PointCloud2 (ROS 1 and
ROS 2's sensor_msgs/msg/*) of the selected messages as files, whether the
message is the image or cloud itself or holds one in a field at any depth
(rail_pick_and_place_msgs/GraspDemonstration's image and point_cloud):

  DIR/<topic path>[/<field path>]/<log time ns>.<ext>
  (/camera/rgb, field "" -> DIR/camera/rgb/1714564800000000000.png;
   /grasp_demos, field image -> DIR/grasp_demos/image/....png)

Images become lossless PNG files with the right colours: bgr8/bgra8 are
reordered, 16-bit images stay 16-bit, 8UC3/8UC4 are BGR/BGRA as OpenCV
writes them, bayer_* are demosaiced (bilinear, as OpenCV; --raw keeps the
grey mosaic), yuv422 is converted to RGB, and 32FC1 depth in metres becomes
16-bit millimetres (0 where there is no reading); signed and other float
encodings become NumPy .npy arrays, the array cv_bridge gives. Encodings:
` + media.Encodings + `.
Compressed images are written as their own bytes (.jpg, .png ...);
compressedDepth images (PNG or RVL) are decoded to 16-bit PNG. Point clouds become binary
PCD files (--pcd ascii for text, --cloud-format ply for PLY) with every
field, NaN points kept unless --drop-nan.

DIR/index.parquet and DIR/index.csv list every file: topic, field, kind,
log_time, stamp (header), frame_id, encoding, width, height, points, file.

--video also writes DIR/<topic path>[/<field path>].mp4 for each image
stream: H.264 by ffmpeg (found on PATH), each frame shown from its log time
to the next one's (variable frame rate), or every frame for 1/N s with
--fps N.

A frame that cannot be converted (data shorter than step x height, an
unknown encoding, a field past point_step) is an error naming the file,
topic, field and log time (exit 3), or with --skip-bad a note on stderr and
the next frame. Files are written under temporary names; on error or
interrupt the files of the run are removed.`,
		Example: `  baglab media demo/data/study.bag --out media
  baglab media demo/data/study.bag --out demos --topics /rail_pick_and_place/grasp_demonstrations --video
  baglab media demo/data/study.mcap --out clouds --cloud-format ply --drop-nan --jobs 4`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			return runMedia(cmd.Context(), o)
		},
	}
	o.read.addFlags(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "out", "o", "", "output directory (created if missing)")
	fl.BoolVar(&o.raw, "raw", false, "write Bayer images as their raw grey mosaic instead of demosaicing them")
	fl.StringVar(&o.pcd, "pcd", "binary", "PCD data: binary or ascii")
	fl.StringVar(&o.cloud, "cloud-format", "pcd", "point cloud files: pcd or ply")
	fl.BoolVar(&o.dropNaN, "drop-nan", false, "leave out the points with a NaN x, y or z")
	fl.IntVarP(&o.jobs, "jobs", "j", runtime.GOMAXPROCS(0), "frames converted and written at once")
	fl.BoolVar(&o.video, "video", false, "also write one MP4 (H.264, by ffmpeg) per image stream")
	fl.Float64Var(&o.fps, "fps", 0, "with --video: a constant frame rate, every frame for 1/N s (default: the recorded times)")
	fl.BoolVarP(&o.force, "force", "f", false, "write into a DIR that holds files already (files of the same name are replaced)")
	completeValues(cmd, "pcd", "binary", "ascii")
	completeValues(cmd, "cloud-format", "pcd", "ply")
	return cmd
}

// options validates the flags and returns the extraction options.
func (o *mediaOptions) options() (media.Options, error) {
	var mo media.Options
	if o.out == "" {
		return mo, usageErrorf("--out DIR is required")
	}
	cf, err := media.ParseCloudFormat(o.cloud)
	if err != nil {
		return mo, usageErrorf("--cloud-format: %v", err)
	}
	switch o.pcd {
	case "binary":
	case "ascii":
		if cf != media.PCD {
			return mo, usageErrorf("--pcd ascii applies to --cloud-format pcd")
		}
		mo.ASCII = true
	default:
		return mo, usageErrorf("--pcd: %q is neither binary nor ascii", o.pcd)
	}
	if o.jobs < 1 {
		return mo, usageErrorf("--jobs must be >= 1")
	}
	if o.fps < 0 || (o.fps > 0 && !o.video) {
		return mo, usageErrorf("--fps N (N > 0) applies with --video")
	}
	mo.Raw, mo.Cloud, mo.DropNaN, mo.Jobs = o.raw, cf, o.dropNaN, o.jobs
	if o.video {
		mo.Video = &media.VideoOptions{FPS: o.fps}
		if _, err := mo.Video.FindFFmpeg(); err != nil {
			return mo, err
		}
	}
	if err := checkOutDir(o.out, "--out"); err != nil {
		return mo, err
	}
	if ents, err := os.ReadDir(o.out); err == nil && len(ents) > 0 && !o.force {
		return mo, outputError(o.out, errors.New("the directory holds files (use --force to write into it)"))
	}
	return mo, nil
}

func runMedia(ctx context.Context, o *mediaOptions) error {
	mo, err := o.options()
	if err != nil {
		return err
	}
	g := o.g
	reg, err := g.registry()
	if err != nil {
		return err
	}
	// the progress bar counts the messages of the types that hold media
	// (as the registry defines them; a type it lacks is counted)
	want := func(typ string) bool {
		t, err := reg.Lookup(typ)
		return err != nil || media.HasMedia(t)
	}
	in, err := g.open(o.files, &o.read, "media", want)
	if err != nil {
		return err
	}
	defer in.close()
	if err := in.RequireDefinitions(); err != nil {
		return err
	}
	res, err := media.Extract(ctx, in.Inputs, o.out, mo)
	if err != nil {
		var oe *media.OutputError
		if errors.As(err, &oe) {
			return outputError(oe.Path, oe.Err)
		}
		return err
	}
	counts := map[media.Kind]int{}
	for _, e := range res.Entries {
		counts[e.Kind]++
	}
	if len(res.Entries) == 0 {
		g.warn("baglab: no images or point clouds in the selected messages")
		return errProblemsFound
	}
	g.note("baglab: wrote %d image(s), %d compressed image(s), %d point cloud(s) and %d video(s) under %s; index %s",
		counts[media.Image], counts[media.Compressed], counts[media.Cloud], len(res.Videos), o.out, strings.Join(res.Index, ", "))
	return nil
}
