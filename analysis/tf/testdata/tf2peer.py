"""Look transforms up with Debian's tf2 (python3-tf2 BufferCore) in the
/tf and /tf_static of a bag read with Debian's rosbag, fed in log-time
order: python3 tf2peer.py BAG < queries

python3 tf2peer.py --dump BAG writes those transforms for tf2core.cpp
instead, one a line: S (static) or D, parent, child, sec, nsec, then
translation and rotation as repr (exact), separated by tabs.

Each query line is TARGET, SOURCE and TIME_NS separated by tabs; each answer is one JSON line,
{"stamp", "t": [x, y, z], "q": [x, y, z, w], "rpy": [roll, pitch, yaw]} or
{"error", "msg"}; rpy is PyKDL's Rotation.GetRPY (python3-pykdl), left
out when PyKDL is not installed.
BufferCore keeps 10 s of history by default; baglab keeps the whole
recording, so the buffer here keeps 10^6 s.
"""
import json
import warnings
import sys

import rosbag
import rospy
import tf2_py

try:
    import PyKDL
except ImportError:
    PyKDL = None

TF_TYPES = ('tf2_msgs/TFMessage', 'tf/tfMessage')


def transforms(path):
    """Yields (static, TransformStamped) from the TF topics of a bag."""
    with rosbag.Bag(path) as bag:
        topics = [t for t, info in bag.get_type_and_topic_info().topics.items() if info.msg_type in TF_TYPES]
        for topic, msg, _t in bag.read_messages(topics=topics):
            static = topic == 'tf_static' or topic.endswith('/tf_static')
            for t in msg.transforms:
                yield static, t


def dump(path):
    for static, t in transforms(path):
        tr, ro = t.transform.translation, t.transform.rotation
        print('\t'.join(['S' if static else 'D', t.header.frame_id, t.child_frame_id,
                         str(t.header.stamp.secs), str(t.header.stamp.nsecs)] +
                        [repr(float(v)) for v in (tr.x, tr.y, tr.z, ro.x, ro.y, ro.z, ro.w)]))


def main():
    warnings.filterwarnings('ignore')  # rosbag's classes are not geometry_msgs'
    if sys.argv[1] == '--dump':
        dump(sys.argv[2])
        return
    buf = tf2_py.BufferCore(rospy.Duration(10**6))
    for static, t in transforms(sys.argv[1]):
        if static:
            buf.set_transform_static(t, 'peer')
        else:
            buf.set_transform(t, 'peer')
    out = []
    for line in sys.stdin:
        target, source, ns = line.rstrip('\n').split('\t')
        ns = int(ns)
        try:
            r = buf.lookup_transform_core(target, source, rospy.Time(ns // 10**9, ns % 10**9))
            tr, ro = r.transform.translation, r.transform.rotation
            o = {'stamp': r.header.stamp.to_nsec(), 't': [tr.x, tr.y, tr.z], 'q': [ro.x, ro.y, ro.z, ro.w]}
            if PyKDL is not None:
                o['rpy'] = list(PyKDL.Rotation.Quaternion(ro.x, ro.y, ro.z, ro.w).GetRPY())
            out.append(o)
        except tf2_py.TransformException as e:
            out.append({'error': type(e).__name__, 'msg': str(e)})
    for o in out:
        print(json.dumps(o))


if __name__ == '__main__':
    main()
