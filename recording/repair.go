package recording

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/baglab/baglab/internal/atomicfile"
	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/remote"
)

// RepairOptions configure Repair.
type RepairOptions struct {
	// KeepUnverified keeps the records no CRC vouches for (MCAP) instead of
	// leaving them out; the output then carries a metadata record that
	// says so (mcapfile.UnverifiedMetadata).
	KeepUnverified bool
	// Remote is the session that reads an input named by URL (nil: one of
	// Repair's own).
	Remote *remote.Session
	// Sync has the output synced to disk before it is renamed into place
	// (CreateOptions.Sync).
	Sync bool
}

// RepairReport is what Repair did.
type RepairReport struct {
	// Summary sums the repair up in one line (a bag's skipped ranges
	// included).
	Summary string
	// Stretches lists, for MCAP, the damaged stretches one by one, those
	// whose records were kept marked Unverified; a bag's are in Summary.
	Stretches []record.Skipped
	// Damaged reports whether something of the input may be missing from
	// the output or is unverified in it (a torn end of a bag that was
	// never closed does not count).
	Damaged bool
}

// Repair rebuilds the recording in, a file of format f, into out, keeping
// every intact message: a ROS1 bag is reindexed (bag.ReindexContext), an
// MCAP file recovered (mcapfile.RecoverContext). Other formats are
// record.ErrUnsupported. Repair creates the missing folders of out; when
// it fails, it removes those of them that are empty again, never a folder
// that was there before (inNewFolders, as Create). An input named by URL
// is repaired from a private temporary copy (a damaged file is read
// whole, in order), which what Repair reports names by the URL.
func Repair(ctx context.Context, f Format, in, out string, o RepairOptions) (*RepairReport, error) {
	c, _ := formatRow(f)
	if c.repair == nil {
		return nil, fmt.Errorf("%s: %w: repairing %s files", in, record.ErrUnsupported, f)
	}
	if remote.IsURL(in) {
		return repairURL(ctx, f, in, out, o)
	}
	return inNewFolders(out, func(*atomicfile.DirSet) (*RepairReport, error) {
		return c.repair(ctx, in, out, o)
	})
}

// repairOf is the repair that salvages what is intact of a recording of
// format f: reindex for a bag, recover for MCAP, record.RepairNone for the
// formats Repair does not handle. Its value is the baglab verb.
func repairOf(f Format) record.Repair {
	c, _ := formatRow(f)
	return c.repairVerb
}

// RepairOutput is the path Repair writes to when the caller names none (as
// baglab reindex and recover do): in with its extension replaced by
// ".reindexed.bag" for a bag or ".recovered.mcap" for MCAP, once a
// recorder's ".active" suffix is dropped (run.bag.active becomes
// run.reindexed.bag), so that in itself is never overwritten. It is ""
// for formats Repair does not handle.
func RepairOutput(in string, f Format) string {
	c, _ := formatRow(f)
	if c.repairSuffix == "" {
		return ""
	}
	base := strings.TrimSuffix(in, ".active")
	return strings.TrimSuffix(base, filepath.Ext(base)) + c.repairSuffix
}
