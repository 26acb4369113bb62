"""Write a ROS1 bag of transforms with Debian's rosbag (an independent
writer), for the tf2 peer tests: python3 tfbag.py OUT.bag [SECONDS [T0 [old]]]

T0, the first stamp in seconds, defaults to 1700000000. tf2's python
binding passes stamps through a double (to_sec), which at epoch times is
238 ns coarse; at a simulator's T0 = 1000 every nanosecond survives.
"old" stores the TF topics as tf/tfMessage, the type of ROS's older tf
package (the same layout and MD5 as tf2_msgs/TFMessage).

Frames (tf2 stamps in seconds from T0):
  map -> odom           /tf, publisher /amcl, 5 Hz, a gap of 2 s, leading
                        slash on "/map" in some messages
  odom -> base_link     /tf, publisher /robot_state, 50 Hz, quaternions
                        with alternating signs (slerp's long-angle branch)
  base_link -> arm      /tf, publisher /robot_state, 100 Hz, other phase
  arm -> gripper        /tf_static (latched), publisher /static_pub
  base_link -> laser    /tf_static
  world2 -> island      /tf, publisher /other: a second tree
  odom -> base_link     repeated stamps now and then (TF_REPEATED_DATA)
/pose (geometry_msgs/PoseStamped in base_link, 20 Hz) for --at-topic
and export --tf-frame, with /point (geometry_msgs/PointStamped in arm,
20 Hz) and /posecov (geometry_msgs/PoseWithCovarianceStamped in laser,
10 Hz: a pose nested one level deeper); geometry in arrays and vectors
at 10 Hz: /poses (geometry_msgs/PoseArray in base_link, 3 poses), /path
(nav_msgs/Path in odom whose 4 PoseStamped carry their own frames, base_link,
arm, laser and now and then "", and stamps 0 to 0.9 s older), /vector
(geometry_msgs/Vector3Stamped in arm) and /wrench
(geometry_msgs/WrenchStamped in laser).
"""
import io
import math
import random
import sys

import rosbag
import rospy
from geometry_msgs.msg import (Point, Pose, PointStamped, PoseArray, PoseStamped, PoseWithCovarianceStamped,
                               TransformStamped, Vector3Stamped, WrenchStamped)
from nav_msgs.msg import Path
from tf2_msgs.msg import TFMessage


def quat(roll, pitch, yaw):
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return (sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy)


def ts(parent, child, ns, xyz, q):
    t = TransformStamped()
    t.header.frame_id = parent
    t.header.stamp = rospy.Time(ns // 10**9, ns % 10**9)
    t.child_frame_id = child
    t.transform.translation.x, t.transform.translation.y, t.transform.translation.z = xyz
    (t.transform.rotation.x, t.transform.rotation.y,
     t.transform.rotation.z, t.transform.rotation.w) = q
    return t


def main():
    out = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    t0 = int(sys.argv[3]) if len(sys.argv) > 3 else 1700000000
    old = len(sys.argv) > 4 and sys.argv[4] == 'old'
    rnd = random.Random(27)
    events = []  # (log ns, topic, publisher, msg)
    start = t0 * 10**9
    end = start + int(seconds * 1e9)

    def add(log_ns, topic, pub, msg):
        events.append((log_ns, len(events), topic, pub, msg))

    # static transforms, latched at the start
    add(start, '/tf_static', '/static_pub', TFMessage([
        ts('arm', 'gripper', start, (0.0, 0.0, 0.12), quat(0, math.pi / 2, 0)),
        ts('base_link', 'laser', start, (0.2, 0.0, 0.3), quat(0, 0, math.pi)),
    ]))
    # map -> odom at 5 Hz with a 2 s gap
    ns = start + 10**6
    k = 0
    while ns < end:
        if not (start + 6 * 10**9 < ns < start + 8 * 10**9):
            parent = '/map' if k % 3 == 0 else 'map'
            q = quat(0, 0, 0.01 * k)
            add(ns + 3 * 10**6, '/tf', '/amcl', TFMessage([ts(parent, 'odom', ns, (0.1 * k, -0.05 * k, 0), q)]))
        k += 1
        ns += 200 * 10**6
    # odom -> base_link at 50 Hz, a jittered stamp, alternate quaternion signs
    ns = start + 5 * 10**6
    k = 0
    while ns < end:
        stamp = ns + rnd.randint(-2000000, 2000000)
        yaw = 0.8 * math.sin(k * 0.05) + (3.0 if k > 400 else 0.0)
        q = quat(0.05 * math.sin(k * 0.3), 0.02 * math.cos(k * 0.2), yaw)
        if k % 2:
            q = tuple(-c for c in q)
        msgs = [ts('odom', 'base_link', stamp, (math.cos(k * 0.02) * 3, math.sin(k * 0.02) * 2, 0.0), q)]
        add(stamp + 1000000, '/tf', '/robot_state', TFMessage(msgs))
        if k % 97 == 5:  # the same stamp again with other values: tf2 keeps the first
            add(stamp + 1500000, '/tf', '/robot_state', TFMessage([ts('odom', 'base_link', stamp, (9.0, 9.0, 9.0), q)]))
        k += 1
        ns += 20 * 10**6
    # base_link -> arm at 100 Hz
    ns = start + 7 * 10**6
    k = 0
    while ns < end:
        q = quat(0.3 * math.sin(k * 0.01), 0.0, 1.2 * math.cos(k * 0.013))
        add(ns + 500000, '/tf', '/robot_state', TFMessage([ts('base_link', 'arm', ns, (0.1, 0.05 * math.sin(k * 0.1), 0.5), q)]))
        k += 1
        ns += 10 * 10**6
    # a second tree
    ns = start + 100 * 10**6
    while ns < end:
        add(ns, '/tf', '/other', TFMessage([ts('world2', 'island', ns, (1, 2, 3), quat(0.1, 0.2, 0.3))]))
        ns += 10**9
    # poses in base_link at 20 Hz
    ns = start + 11 * 10**6
    k = 0
    while ns < end:
        p = PoseStamped()
        p.header.frame_id = 'base_link'
        p.header.stamp = rospy.Time(ns // 10**9, ns % 10**9)
        p.pose.position.x, p.pose.position.y, p.pose.position.z = (1.0, 0.1 * k % 1.0, 0.2)
        (p.pose.orientation.x, p.pose.orientation.y, p.pose.orientation.z, p.pose.orientation.w) = quat(0, 0, 0.1 * k)
        add(ns + 2000000, '/pose', '/tracker', p)
        k += 1
        ns += 50 * 10**6

    # points in arm at 20 Hz, poses with covariance in laser at 10 Hz
    ns = start + 13 * 10**6
    k = 0
    while ns < end:
        p = PointStamped()
        p.header.frame_id = 'arm'
        p.header.stamp = rospy.Time(ns // 10**9, ns % 10**9)
        p.point.x, p.point.y, p.point.z = (0.3, -0.1 * (k % 7), 0.05 * k % 1.0)
        add(ns + 1000000, '/point', '/tracker', p)
        if k % 2 == 0:
            c = PoseWithCovarianceStamped()
            c.header.frame_id = 'laser'
            c.header.stamp = p.header.stamp
            c.pose.pose.position.x, c.pose.pose.position.y = (2.0, 0.01 * k)
            (c.pose.pose.orientation.x, c.pose.pose.orientation.y, c.pose.pose.orientation.z,
             c.pose.pose.orientation.w) = quat(0.1, 0, -0.05 * k)
            c.pose.covariance = [0.01 * i for i in range(36)]
            add(ns + 1500000, '/posecov', '/tracker', c)
        k += 1
        ns += 50 * 10**6

    # geometry in arrays, and vectors, at 10 Hz
    ns = start + 17 * 10**6
    k = 0
    frames = ('base_link', 'arm', 'laser', 'odom')
    while ns < end:
        stamp = rospy.Time(ns // 10**9, ns % 10**9)
        pa = PoseArray()
        pa.header.frame_id, pa.header.stamp = 'base_link', stamp
        for i in range(3):
            pa.poses.append(Pose(position=Point(0.5 * i, 0.1 * k % 1.0, -0.2 * i)))
            o = pa.poses[-1].orientation
            o.x, o.y, o.z, o.w = quat(0.1 * i, 0.02 * k, -0.1 * k)
        add(ns + 1000000, '/poses', '/planner', pa)
        path = Path()
        path.header.frame_id, path.header.stamp = 'odom', stamp
        for i, f in enumerate(frames):
            e = PoseStamped()
            e.header.frame_id = '' if (k + i) % 9 == 0 else f
            e_ns = ns - i * 300 * 10**6
            e.header.stamp = rospy.Time(e_ns // 10**9, e_ns % 10**9)
            e.pose.position.x, e.pose.position.y, e.pose.position.z = (1.0 + i, -0.3 * i, 0.01 * k % 0.5)
            o = e.pose.orientation
            o.x, o.y, o.z, o.w = quat(0, 0.05 * i, 0.07 * k)
            path.poses.append(e)
        add(ns + 2000000, '/path', '/planner', path)
        v = Vector3Stamped()
        v.header.frame_id, v.header.stamp = 'arm', stamp
        v.vector.x, v.vector.y, v.vector.z = (1.0, -0.5 + 0.01 * (k % 100), 0.25)
        add(ns + 3000000, '/vector', '/sensor', v)
        w = WrenchStamped()
        w.header.frame_id, w.header.stamp = 'laser', stamp
        w.wrench.force.x, w.wrench.force.y, w.wrench.force.z = (10.0, 0.1 * (k % 50), -9.81)
        w.wrench.torque.x, w.wrench.torque.y, w.wrench.torque.z = (0.0, 1.5, -0.02 * (k % 30))
        add(ns + 4000000, '/wrench', '/sensor', w)
        k += 1
        ns += 100 * 10**6

    events.sort()
    conns = {}
    with rosbag.Bag(out, 'w') as bag:
        for log_ns, _, topic, pub, msg in events:
            typ, data, raw = msg._type, msg, False
            if old and isinstance(msg, TFMessage):
                buf = io.BytesIO()
                msg.serialize(buf)
                typ, data, raw = 'tf/tfMessage', ('tf/tfMessage', buf.getvalue(), msg._md5sum, TFMessage), True
            at = rospy.Time(log_ns // 10**9, log_ns % 10**9)
            key = (topic, pub)
            if key in conns:
                bag._topic_connections[topic] = conns[key]
                bag.write(topic, data, at, raw=raw)
                continue
            bag._topic_connections.pop(topic, None)
            header = {'topic': topic, 'type': typ, 'md5sum': msg._md5sum,
                      'message_definition': msg._full_text, 'callerid': pub}
            if topic == '/tf_static':
                header['latching'] = '1'
            bag.write(topic, data, at, raw=raw, connection_header=header)
            conns[key] = bag._topic_connections[topic]


if __name__ == '__main__':
    main()
