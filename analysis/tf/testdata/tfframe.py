"""Express each message of a topic in another frame with Debian's tf2
(BufferCore fed the bag's /tf and /tf_static, as tf2peer.py does) and
tf2_geometry_msgs: python3 tfframe.py BAG TOPIC FRAME

geometry_msgs/PoseStamped and the pose.pose of PoseWithCovarianceStamped
go through do_transform_pose and print [x, y, z, qx, qy, qz, qw];
PointStamped through do_transform_point, [x, y, z]; Vector3Stamped
through do_transform_vector3, [x, y, z]; WrenchStamped through
do_transform_wrench, [fx, fy, fz, tx, ty, tz]. Arrays element by element,
as a list: each pose of a PoseArray (in the message's frame and stamp)
and each PoseStamped of a nav_msgs/Path (in its own) through
do_transform_pose. One JSON line per message, null (for an element of a
list: that element) where tf2 raises an exception.
"""
import json
import sys
import warnings

import rosbag
import rospy
import tf2_geometry_msgs
import tf2_py
from geometry_msgs.msg import PoseStamped


def main():
    warnings.filterwarnings('ignore')
    bag, topic, frame = sys.argv[1], sys.argv[2], sys.argv[3]
    buf = tf2_py.BufferCore(rospy.Duration(10**6))
    poses = []
    with rosbag.Bag(bag) as b:
        types = b.get_type_and_topic_info().topics
        tf_topics = [t for t, i in types.items() if i.msg_type in ('tf2_msgs/TFMessage', 'tf/tfMessage')]
        for t, msg, _ in b.read_messages(topics=tf_topics + [topic]):
            if t == topic:
                poses.append(msg)
                continue
            for tr in msg.transforms:
                if t.endswith('tf_static'):
                    buf.set_transform_static(tr, 'peer')
                else:
                    buf.set_transform(tr, 'peer')

    def lookup(h):
        try:
            return buf.lookup_transform_core(frame, h.frame_id, h.stamp)
        except tf2_py.TransformException:
            return None

    def pose(ps, tr):
        out = tf2_geometry_msgs.do_transform_pose(ps, tr).pose
        return [out.position.x, out.position.y, out.position.z,
                out.orientation.x, out.orientation.y, out.orientation.z, out.orientation.w]

    for p in poses:
        if p._type == 'nav_msgs/Path':
            els = []
            for e in p.poses:
                tr = lookup(e.header)
                els.append(None if tr is None else pose(e, tr))
            print(json.dumps(els))
            continue
        tr = lookup(p.header)
        if tr is None:
            print('null')
            continue
        if p._type == 'geometry_msgs/PoseArray':
            els = []
            for e in p.poses:
                ps = PoseStamped()
                ps.header, ps.pose = p.header, e
                els.append(pose(ps, tr))
            print(json.dumps(els))
            continue
        if p._type == 'geometry_msgs/Vector3Stamped':
            v = tf2_geometry_msgs.do_transform_vector3(p, tr).vector
            print(json.dumps([v.x, v.y, v.z]))
            continue
        if p._type == 'geometry_msgs/WrenchStamped':
            w = tf2_geometry_msgs.do_transform_wrench(p, tr).wrench
            print(json.dumps([w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z]))
            continue
        if p._type == 'geometry_msgs/PointStamped':
            pt = tf2_geometry_msgs.do_transform_point(p, tr).point
            print(json.dumps([pt.x, pt.y, pt.z]))
            continue
        if p._type == 'geometry_msgs/PoseWithCovarianceStamped':
            ps = PoseStamped()
            ps.header = p.header
            ps.pose = p.pose.pose
            p = ps
        print(json.dumps(pose(p, tr)))


if __name__ == '__main__':
    main()
