package baseline

import (
	"cmp"
	"context"
	"encoding/json"

	"github.com/baglab/baglab/recording"
)

// DatasetKeys are the keys of the tables of a dataset document (what
// `info --json` prints).
var DatasetKeys = Keys{
	{Path: "files", Noun: "file", Key: []string{"path"}},
	{Path: "files[*].topics", Noun: "topic", Key: []string{"topic"}},
	{Path: "files[*].metadata", Noun: "metadata record", Key: []string{"name"}},
	{Path: "files[*].attachments", Noun: "attachment", Key: []string{"name", "log_time_ns"}},
}

// DatasetDocument is the result document of a dataset baseline for the
// recordings paths: what `info --json` prints for them (recording.DescribeEach:
// a plain folder stands for the recordings in it), always as an array. The
// first recording that cannot be described fails it.
func DatasetDocument(paths []string) ([]byte, error) {
	var failed error
	ds, _, err := recording.DescribeEach(context.Background(), paths, recording.OpenOptions{}, func(_ string, err error) { failed = cmp.Or(failed, err) })
	if err = cmp.Or(err, failed); err != nil {
		return nil, err
	}
	if ds == nil {
		ds = []*recording.Description{}
	}
	return json.Marshal(ds)
}
