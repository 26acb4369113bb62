package rosbag2

// LatchedQoS is the offered QoS profile list rosbags-convert writes for a
// latched ROS1 connection, in metadata.yaml version 9's form: reliable,
// transient-local (what a late subscriber needs, as tf_static does),
// history unknown with depth 0, durations at their "infinite" values.
const LatchedQoS = `- history: unknown
  depth: 0
  reliability: reliable
  durability: transient_local
  deadline:
    sec: 2147483647
    nsec: 4294967295
  lifespan:
    sec: 2147483647
    nsec: 4294967295
  liveliness: automatic
  liveliness_lease_duration:
    sec: 2147483647
    nsec: 4294967295
  avoid_ros_namespace_conventions: false`
