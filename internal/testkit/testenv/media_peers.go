package testenv

// The peers of the media tests (images, clouds, video), in a file of
// their own so that the table above stays one line per other peer.
func init() {
	peers["cv_bridge"] = peer{what: "Debian python3-cv-bridge and python3-opencv (make deps-apt)", py: []string{"cv_bridge", "cv2", "numpy"}}
	peers["open3d"] = peer{what: "Debian python3-open3d (make deps-apt)", py: []string{"open3d"}}
	peers["pcl"] = peer{what: "Debian pcl-tools (make deps-apt)", progs: []string{"pcl_pcd2ply", "pcl_convert_pcd_ascii_binary"}}
	peers["image_view"] = peer{what: "Debian ros-image-view (make deps-apt)", files: []string{"/usr/lib/image_view/extract_images"}}
	peers["ffmpeg"] = peer{what: "Debian ffmpeg (make deps-apt)", progs: []string{"ffmpeg", "ffprobe"}}
}
