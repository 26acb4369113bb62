package recording

import "testing"

func TestRepairOutput(t *testing.T) {
	for _, c := range []struct {
		in   string
		f    Format
		want string
	}{
		{"run.bag", FormatBag, "run.reindexed.bag"},
		{"data/run.bag.active", FormatBag, "data/run.reindexed.bag"},
		{"data/run.mcap.active", FormatMCAP, "data/run.recovered.mcap"},
		{"cut.mcap", FormatMCAP, "cut.recovered.mcap"},
		{"day.1/recording", FormatBag, "day.1/recording.reindexed.bag"},
		{"archive.tar.bag", FormatBag, "archive.tar.reindexed.bag"},
		{"queries.db3", FormatDB3, ""},
	} {
		if got := RepairOutput(c.in, c.f); got != c.want {
			t.Errorf("RepairOutput(%q, %s) = %q, want %q", c.in, c.f, got, c.want)
		}
	}
}
