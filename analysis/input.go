package analysis

import (
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording"
)

// Input is one input of a run as its provenance records it, in a partial
// file (PartialFile.Inputs) and in a report's provenance block: its path
// as given, its content (size and SHA-256, see internal/digest) and its
// summary.
type Input struct {
	Path string `json:"path"`
	// Format is the container format ("bag", "mcap", "db3"; "mixed" for a
	// folder of recordings in several).
	Format string `json:"format"`
	// Size is the size in bytes (of every file for a folder).
	Size int64 `json:"size"`
	// SHA256 is the hex digest of the file; for a folder, of the listing
	// "<sha256>  <relative path>\n" of its files in path order, as
	// sha256sum prints it.
	SHA256 string `json:"sha256"`
	// StartNs and EndNs are the first and last log times (ns since the
	// Unix epoch); MessageCount counts the messages.
	StartNs      int64  `json:"start_ns"`
	EndNs        int64  `json:"end_ns"`
	MessageCount uint64 `json:"message_count"`
	// Files lists the files of a folder with their digests (nil for a
	// file). Partial files do not record them.
	Files []InputFile `json:"-"`
}

// InputFile is one file of a folder input: its path relative to the
// folder, with forward slashes, its size and its SHA-256.
type InputFile struct {
	Path   string
	Size   int64
	SHA256 string
}

// DescribeInputs describes each recording of in (folders expanded, as
// Paths lists them): its digest, and its format, time range and message
// count from the summary read when in was opened. No recording is opened
// again; only the digest reads the files.
func DescribeInputs(in *recording.Inputs) ([]Input, error) {
	out := make([]Input, in.Len())
	for i, p := range in.Paths() {
		d, err := describeInput(p, in.File(i).Summary())
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// DescribePaths is DescribeInputs by the paths in was opened with
// (Inputs.Given): a plain folder (see recording.Expand) is one input, its
// digest that of the folder and its summary that of its recordings
// combined (recording.CombineSummaries), as they were read.
func DescribePaths(in *recording.Inputs) ([]Input, error) {
	given := in.Given()
	out := make([]Input, 0, len(given))
	k := 0
	for _, g := range given {
		sums := make([]*record.Summary, g.Recordings)
		for j := range sums {
			sums[j] = in.File(k + j).Summary()
		}
		d, err := describeInput(g.Path, recording.CombineSummaries(sums))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		k += g.Recordings
	}
	return out, nil
}

// describeInput is the input at path with summary s (nil: none).
func describeInput(path string, s *record.Summary) (Input, error) {
	d, err := recording.Digest(path)
	if err != nil {
		return Input{}, err
	}
	in := Input{Path: path, Size: d.Size, SHA256: d.SHA256}
	for _, f := range d.Files {
		in.Files = append(in.Files, InputFile(f))
	}
	if s != nil {
		in.Format, in.StartNs, in.EndNs, in.MessageCount = s.Format, s.StartNs, s.EndNs, s.MessageCount
	}
	return in, nil
}
