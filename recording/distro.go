package recording

import (
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
func ROSDistro(path string, r record.Reader) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "metadata.yaml")); err == nil {
			if m, err := db3.ReadBag2Metadata(path); err == nil && m.ROSDistro != "" {
				return m.ROSDistro
			}
		}
	}
	for _, p := range parts(r) {
		if d, ok := p.(*db3.Reader); ok {
			if name := d.ROSDistro(); name != "" {
				return name
			}
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
			if name := md.Metadata["ROS_DISTRO"]; name != "" {
				return name
			}
			var m struct {
				ROSDistro string `yaml:"ros_distro"`
			}
			if yaml.Unmarshal([]byte(md.Metadata["serialized_metadata"]), &m) == nil && m.ROSDistro != "" {
				return m.ROSDistro
			}
		}
	}
	return ""
}
