// Package digest identifies a recording by its content: the size and
// SHA-256 of a file, or for a folder (a rosbag2 recording) of its files and
// of their sha256sum listing. The report's provenance and the export
// manifest use the same digest.
package digest
