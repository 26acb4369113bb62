// Package msgdef parses ROS message definitions (ROS1 genmsg and ROS2 rosidl
// .msg dialects, .srv and .action files, and the concatenated MSG: bundles
// that recordings store) into resolved Type trees, computes ROS1 MD5 sums and
// genmsg full texts, and keeps a registry of known definitions.
//
// Entry points: FromSchema for a channel's stored schema (ros1msg, ros2msg,
// ROS2 service events, or none), ParseBundle and ParseService for texts,
// Default and Registry for the embedded and user (--msg-path) definitions,
// Distros and Registry.SetDistro for the built-in ROS 2 common interfaces
// of each distribution (distros/PROVENANCE.md), MD5, ServiceMD5 and
// FullText for ROS1 identities.
//
// Name resolution follows genmsg for ROS1 (a bare "Header" is
// std_msgs/Header, other bare names are in the referring type's package)
// and rosidl for ROS2 (bare names are in the same package; "pkg/msg/Type"
// is accepted everywhere and normalised to "pkg/Type" in Type.Name). A
// bundle's own definitions always win over the registry's, and a bundle is
// resolved in its own dialect only.
//
// Resolved Types are shared (a type used twice is one *Type) and must not
// be modified. Hostile text cannot make parsing expensive: recursive types
// are rejected and nesting (MaxDepth), fixed array lengths (MaxFixedLen)
// and the tree size (MaxExpandedFields) are bounded. Errors are *Error
// values unwrapping to record.ErrFormat, record.ErrUnknownType or
// record.ErrUnsupported.
package msgdef
