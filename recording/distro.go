package recording

import (
	"cmp"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
)

// named is what a recording says of itself in rosbag2's metadata.
type named struct {
	// distro is the ROS distribution it names; writers other than rosbag2
	// put other words there ("rosbags"): users check the name
	// (msgdef.IsDistro).
	distro string
	custom map[string]string // custom_data
}

// bag2Named reads what the recording at path (open as r) says of itself
// in rosbag2's metadata, each item from the first of these that has it: a
// rosbag2 folder's metadata.yaml, a .db3's schema table (ros_distro) and,
// read alone, its metadata table (custom_data), the "rosbag2" metadata
// record rosbag2 writes in each MCAP (its serialized_metadata, or its
// ROS_DISTRO).
func bag2Named(path string, r record.Reader) named {
	var n named
	take := func(distro string, custom map[string]string) {
		n.distro = cmp.Or(n.distro, distro)
		if len(n.custom) == 0 {
			n.custom = custom
		}
	}
	if m := folderMetadata(path); m != nil {
		take(m.ROSDistro, m.CustomData)
	}
	for _, p := range parts(r) {
		if d, ok := p.(*db3.Reader); ok {
			var custom map[string]string
			if m := d.Metadata(); m != nil {
				custom = m.CustomData
			} else if m, _ := d.StoredMetadata(); m != nil { // a .db3 alone
				custom = m.CustomData
			}
			take(d.ROSDistro(), custom)
			continue
		}
		x, ok := p.(extrasReader)
		if !ok {
			continue
		}
		mds, err := x.Metadata()
		if err != nil {
			continue
		}
		for _, md := range mds {
			if md.Name != "rosbag2" {
				continue
			}
			var distro string
			var custom map[string]string
			// read as info reads it: what does not parse names nothing
			if m, err := db3.ParseStoredMetadata([]byte(md.Metadata["serialized_metadata"]), ""); err == nil {
				distro, custom = m.ROSDistro, m.CustomData
			}
			take(cmp.Or(md.Metadata["ROS_DISTRO"], distro), custom)
		}
	}
	return n
}
