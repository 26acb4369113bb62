"""Express each message of a topic in another frame with Debian's tf2
(BufferCore fed the bag's /tf and /tf_static, as tf2peer.py does) and
tf2_geometry_msgs: python3 tfframe.py BAG TOPIC FRAME

geometry_msgs/PoseStamped and the pose.pose of PoseWithCovarianceStamped
go through do_transform_pose and print [x, y, z, qx, qy, qz, qw];
PointStamped through do_transform_point, [x, y, z]. One JSON line per
message, null where tf2 raises an exception.
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
    for p in poses:
        try:
            tr = buf.lookup_transform_core(frame, p.header.frame_id, p.header.stamp)
        except tf2_py.TransformException:
            print('null')
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
        out = tf2_geometry_msgs.do_transform_pose(p, tr).pose
        print(json.dumps([out.position.x, out.position.y, out.position.z,
                          out.orientation.x, out.orientation.y, out.orientation.z, out.orientation.w]))


if __name__ == '__main__':
    main()
