package recording

import (
	"cmp"
	"os"
	"path/filepath"

	"github.com/baglab/baglab/record"
	"github.com/baglab/baglab/recording/db3"
	"gopkg.in/yaml.v3"
)

// ROSDistro is the ROS distribution a recording at path (open as r) names,
// "" when it names none: a rosbag2 folder's metadata.yaml ros_distro, a
// .db3's schema table, or the "rosbag2" metadata record rosbag2 writes in
// each MCAP (its serialized_metadata's ros_distro, or ROS_DISTRO). Writers
// other than rosbag2 put other words there ("rosbags"); callers check the
// name (msgdef.IsDistro).
func ROSDistro(path string, r record.Reader) string { return bag2Named(path, r).distro }

// named is what a recording says of itself in rosbag2's metadata.
type named struct {
	distro string            // see ROSDistro
	custom map[string]string // custom_data
}

// bag2Named reads what the recording at path (open as r) says of itself
// in rosbag2's metadata, from the places ROSDistro lists: each item from
// the first that has it.
func bag2Named(path string, r record.Reader) named {
	var n named
	take := func(distro string, custom map[string]string) {
		n.distro = cmp.Or(n.distro, distro)
		if len(n.custom) == 0 {
			n.custom = custom
		}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "metadata.yaml")); err == nil {
			if m, err := db3.ReadBag2Metadata(path); err == nil {
				take(m.ROSDistro, m.CustomData)
			}
		}
	}
	for _, p := range parts(r) {
		if d, ok := p.(*db3.Reader); ok {
			var custom map[string]string
			if m := d.Metadata(); m != nil {
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
			var m struct {
				ROSDistro  string            `yaml:"ros_distro"`
				CustomData map[string]string `yaml:"custom_data"`
			}
			if yaml.Unmarshal([]byte(md.Metadata["serialized_metadata"]), &m) != nil {
				m.ROSDistro, m.CustomData = "", nil // what does not parse names nothing
			}
			take(cmp.Or(md.Metadata["ROS_DISTRO"], m.ROSDistro), m.CustomData)
		}
	}
	return n
}
