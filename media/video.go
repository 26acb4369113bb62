package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/internal/parallel"
)

// VideoOptions configure the MP4 files of Extract.
type VideoOptions struct {
	// FPS, when above 0, gives every frame 1/FPS seconds (a constant
	// rate); otherwise each frame lasts until the next one's log time
	// (variable frame rate, the recorded timing).
	FPS float64
	// FFmpeg is the ffmpeg program; "" looks up "ffmpeg" on PATH.
	FFmpeg string
}

// ErrNoFFmpeg is the cause when the ffmpeg program cannot be found.
var ErrNoFFmpeg = errors.New("--video needs the program ffmpeg on PATH (Debian: apt-get install ffmpeg)")

// FindFFmpeg returns the path of the ffmpeg program o names (or of
// "ffmpeg" on PATH), or an error wrapping ErrNoFFmpeg naming it.
func (o VideoOptions) FindFFmpeg() (string, error) {
	name := o.FFmpeg
	if name == "" {
		name = "ffmpeg"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoFFmpeg, err)
	}
	return p, nil
}

// VideoPath is the MP4 of a stream, relative to the output directory:
// <topic path>[/<field path>].mp4, beside the stream's frame folder.
func VideoPath(topic, field string) (string, error) {
	p, err := FramePath(topic, field, 0, "")
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, "/0") + ".mp4", nil
}

// stream is the image frames of one topic and field, in log time order.
type stream struct {
	topic, field string
	frames       []*Entry
}

// writeVideos encodes one H.264 MP4 per image stream of entries (in log
// time order) with ffmpeg, reading the frames written under dir through
// ffmpeg's concat demuxer, whose per-file durations carry the timing.
func writeVideos(ctx context.Context, dir string, entries []Entry, o VideoOptions, jobs int, done func(path string)) ([]string, error) {
	ffmpeg, err := o.FindFFmpeg()
	if err != nil {
		return nil, err
	}
	var streams []*stream
	byKey := map[string]*stream{}
	for i := range entries {
		e := &entries[i]
		if e.Kind == Cloud || !strings.HasSuffix(e.Path, ".png") && !strings.HasSuffix(e.Path, ".jpg") {
			continue
		}
		k := e.Topic + "\x00" + e.Field
		s := byKey[k]
		if s == nil {
			s = &stream{topic: e.Topic, field: e.Field}
			byKey[k] = s
			streams = append(streams, s)
		}
		s.frames = append(s.frames, e)
	}
	paths := make([]string, len(streams))
	err = parallel.For(ctx, len(streams), jobs, func(ctx context.Context, i int) error {
		rel, err := VideoPath(streams[i].topic, streams[i].field)
		if err != nil {
			return err
		}
		paths[i] = filepath.Join(dir, filepath.FromSlash(rel))
		if err := encode(ctx, ffmpeg, dir, paths[i], streams[i], o.FPS); err != nil {
			return err
		}
		done(paths[i])
		return nil
	})
	return paths, err
}

// encode runs ffmpeg for one stream.
func encode(ctx context.Context, ffmpeg, dir, path string, s *stream, fps float64) error {
	list, err := os.CreateTemp(dir, ".frames-*.ffconcat")
	if err != nil {
		return &OutputError{Path: dir, Err: err}
	}
	defer os.Remove(list.Name())
	_, err = list.WriteString(concatList(dir, s.frames, fps))
	if cerr := list.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &OutputError{Path: list.Name(), Err: err}
	}
	out, err := atomicfile.Create(path)
	if err != nil {
		return &OutputError{Path: path, Err: err}
	}
	out.Close()
	// every frame at the first one's size (compressed frames: their own),
	// padded to even sides for 4:2:0
	vf := "pad=ceil(iw/2)*2:ceil(ih/2)*2,format=yuv420p"
	if w, h := s.frames[0].Width, s.frames[0].Height; w > 0 && h > 0 {
		vf = fmt.Sprintf("scale=%d:%d,", w, h) + vf
	}
	args := []string{"-hide_banner", "-nostdin", "-loglevel", "error", "-y",
		"-f", "concat", "-safe", "0", "-i", list.Name(), "-vf", vf,
		"-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-bf", "0"}
	if fps > 0 {
		args = append(args, "-fps_mode", "cfr", "-r", strconv.FormatFloat(fps, 'g', -1, 64))
	} else {
		args = append(args, "-fps_mode", "passthrough", "-video_track_timescale", "1000000")
	}
	args = append(args, "-movflags", "+faststart", "-f", "mp4", out.Name())
	cmd := exec.CommandContext(ctx, ffmpeg, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		out.Abort()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &OutputError{Path: path, Err: fmt.Errorf("ffmpeg: %v: %s", err, strings.TrimSpace(stderr.String()))}
	}
	if err := out.Commit(); err != nil {
		return &OutputError{Path: path, Err: err}
	}
	return nil
}

// concatList is ffmpeg's concat script for frames: each file with its
// duration, the time to the next frame (or 1/fps), computed from rounded
// absolute times so that microsecond rounding never accumulates. The last
// frame lasts as long as the mean interval before it (1/30 s alone).
func concatList(dir string, frames []*Entry, fps float64) string {
	var b strings.Builder
	b.WriteString("ffconcat version 1.0\n")
	at := func(i int) int64 { // µs from the first frame
		if fps > 0 {
			return int64(math.Round(float64(i) * 1e6 / fps))
		}
		if i == len(frames) {
			n := int64(len(frames) - 1)
			if n == 0 {
				return 33333
			}
			last := (frames[n].LogTime - frames[0].LogTime + 500) / 1000
			return last + last/n
		}
		return (frames[i].LogTime - frames[0].LogTime + 500) / 1000
	}
	for i, e := range frames {
		abs, _ := filepath.Abs(filepath.Join(dir, filepath.FromSlash(e.Path)))
		fmt.Fprintf(&b, "file '%s'\n", strings.ReplaceAll(abs, "'", `'\''`))
		// the image demuxer's time base is 1/framerate (25 by default): a
		// fine one keeps the durations' microseconds
		b.WriteString("option framerate 1000000\n")
		d := max(at(i+1)-at(i), 1)
		fmt.Fprintf(&b, "duration %d.%06d\n", d/1e6, d%1e6)
	}
	return b.String()
}
