package recording

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baglab/baglab/internal/english"
	"github.com/baglab/baglab/internal/termtext"
)

// WriteText writes the description as `baglab info` prints it: the
// summary lines, one line per topic (messages, mean rate, type, encoding,
// MD5) or "none", then MCAP metadata and attachments, with topics or
// without. The "rosbag2" records of a recording the rosbag2 line
// describes are counted on one line, not printed whole (one per split).
// Text from the recording is escaped (termtext.Line), so that a name
// holding a newline or a terminal escape shows as such. The text is
// written at once, so that a failing writer's error is returned whichever
// line it hits.
func (d *Description) WriteText(w io.Writer) error {
	var b bytes.Buffer
	d.text(&b)
	_, err := w.Write(b.Bytes())
	return err
}

// text appends the text of WriteText to w.
func (d *Description) text(w *bytes.Buffer) {
	s := d.Summary
	tw := tabwriter.NewWriter(w, 0, 2, 1, ' ', 0)
	line := termtext.Line
	fmt.Fprintf(tw, "path:\t%s\n", line(s.Path))
	fmt.Fprintf(tw, "format:\t%s\n", s.Format)
	fmt.Fprintf(tw, "duration:\t%s\n", time.Duration(s.DurationNs).Round(time.Microsecond))
	fmt.Fprintf(tw, "start:\t%s\n", formatNs(s.StartNs, s.MessageCount > 0))
	fmt.Fprintf(tw, "end:\t%s\n", formatNs(s.EndNs, s.MessageCount > 0))
	fmt.Fprintf(tw, "messages:\t%d\n", s.MessageCount)
	if s.CompressionNote != "" {
		fmt.Fprintf(tw, "compression:\t%s (%s)\n", line(s.Compression), s.CompressionNote)
	} else {
		fmt.Fprintf(tw, "compression:\t%s\n", line(s.Compression))
	}
	if s.Unindexed != "" {
		// Only bag and MCAP readers summarise by scanning.
		fmt.Fprintf(tw, "index:\tunindexed (%s), read by scanning; `baglab %s %s` makes it indexed\n", s.Unindexed, repairOf(Format(s.Format)), line(s.Path))
	}
	if b := d.ROSBag2; b != nil {
		fmt.Fprintf(tw, "rosbag2:\t%s\n", b.text())
		for _, k := range slices.Sorted(maps.Keys(b.CustomData)) {
			fmt.Fprintf(tw, "custom_data:\t%s: %s\n", line(k), line(b.CustomData[k]))
		}
	}
	tw.Flush() // into w, a buffer: it cannot fail
	if len(d.Topics) == 0 {
		w.WriteString("topics:      none\n")
	} else {
		w.WriteString("topics:\n")
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		for _, t := range d.Topics {
			typ := t.Type
			if len(t.Types) > 1 {
				typ = strings.Join(t.Types, " | ")
			}
			typ = line(typ)
			freq := ""
			if t.FrequencyHz > 0 {
				freq = fmt.Sprintf("%.4g Hz", t.FrequencyHz)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", line(t.Topic), english.Count(t.MessageCount, "msg"), freq, typ, line(t.Encoding), line(t.MD5))
		}
		tw.Flush()
	}
	stored := 0 // rosbag2 records the rosbag2 line already describes
	for _, m := range d.Metadata {
		if d.ROSBag2 != nil && m.Name == "rosbag2" {
			stored++
			continue
		}
		keys := make([]string, 0, len(m.Metadata))
		for k := range m.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "metadata %s:\n", line(m.Name))
		for _, k := range keys {
			writeValue(w, line(k), m.Metadata[k])
		}
	}
	if stored > 0 {
		fmt.Fprintf(w, "metadata rosbag2: %s of the metadata the files store, as on the rosbag2 line (info --json holds them whole)\n", english.Count(stored, "record"))
	}
	for _, a := range d.Attachments {
		fmt.Fprintf(w, "attachment %s: %s, %d bytes\n", line(a.Name), line(a.MediaType), a.Size)
	}
}

// writeValue writes a metadata entry: "  key: value", or for a value of
// several lines (the rosbag2 record's YAML) the key and then each line
// indented under it, each escaped as a line.
func writeValue(w *bytes.Buffer, key, value string) {
	if !strings.Contains(strings.TrimSuffix(value, "\n"), "\n") {
		fmt.Fprintf(w, "  %s: %s\n", key, termtext.Line(value))
		return
	}
	fmt.Fprintf(w, "  %s:\n", key)
	for l := range strings.Lines(value) {
		fmt.Fprintf(w, "    %s\n", termtext.Line(strings.TrimSuffix(l, "\n")))
	}
}

// formatNs is a time as RFC 3339 in UTC with its epoch seconds, or "-"
// when there is none (a recording without messages). Time 0 is a time:
// recordings made under simulated time start there.
func formatNs(ns int64, has bool) string {
	if !has {
		return "-"
	}
	t := time.Unix(0, ns).UTC()
	return fmt.Sprintf("%s (%d.%09d)", t.Format(time.RFC3339Nano), ns/1e9, ns%1e9)
}

// text is the folder's line of WriteText: "metadata version 9, mcap, 3
// files, zstd per file, ros_distro humble".
func (b *ROSBag2Info) text() string {
	parts := []string{fmt.Sprintf("metadata version %d", b.Version), termtext.Line(b.Storage), english.Count(len(b.Files), "file")}
	if b.CompressionMode != "" {
		parts = append(parts, termtext.Line(fmt.Sprintf("%s per %s", b.CompressionFormat, strings.ToLower(b.CompressionMode))))
	}
	if b.ROSDistro != "" {
		parts = append(parts, "ros_distro "+termtext.Line(b.ROSDistro))
	}
	return strings.Join(parts, ", ")
}
