"""Write a ROS1 bag of stamped topics with Debian's rosbag (an independent
writer), for the synchronizer peer tests: python3 syncbag.py OUT.bag [SEED]

/a geometry_msgs/PoseStamped   30 Hz, jittered stamps, latency 1-40 ms
/b sensor_msgs/Imu             100 Hz, now and then a dropped message
/c geometry_msgs/PointStamped  10 Hz, bursts arriving late (up to 150 ms),
                               now and then a repeated stamp
/d geometry_msgs/Vector3Stamped  the stamp of every third /b message (for
                               TimeSynchronizer), some dropped, some late
Messages are written in log-time order; log time = stamp + latency, so
stamps do not arrive in order across topics.
"""
import random
import sys

import rosbag
import rospy
from geometry_msgs.msg import PointStamped, PoseStamped, Vector3Stamped
from sensor_msgs.msg import Imu

T0 = 1700000000


def stamp(ns):
    return rospy.Time(ns // 10**9, ns % 10**9)


def main():
    out = sys.argv[1]
    rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    start = T0 * 10**9
    seconds = 30
    events = []
    k = 0
    ns = start
    while ns < start + seconds * 10**9:
        m = PoseStamped()
        st = ns + rnd.randint(-3000000, 3000000)
        m.header.stamp, m.header.frame_id = stamp(st), 'a'
        m.pose.position.x = k
        m.pose.orientation.w = 1
        events.append((st + rnd.randint(1000000, 40000000), '/a', m))
        k += 1
        ns += 33333333
    k = 0
    ns = start + 2000000
    while ns < start + seconds * 10**9:
        if rnd.random() > 0.05:
            m = Imu()
            m.header.stamp, m.header.frame_id = stamp(ns), 'imu'
            m.linear_acceleration.x = k
            events.append((ns + rnd.randint(500000, 5000000), '/b', m))
        if k % 3 == 0 and rnd.random() > 0.1:
            d = Vector3Stamped()
            d.header.stamp, d.header.frame_id = stamp(ns), 'd'
            d.vector.x = k
            events.append((ns + rnd.randint(500000, 60000000), '/d', d))
        k += 1
        ns += 10000000
    k = 0
    ns = start + 5000000
    last = None
    while ns < start + seconds * 10**9:
        m = PointStamped()
        st = ns + rnd.randint(-20000000, 20000000)
        if last is not None and rnd.random() < 0.05:
            st = last
        last = st
        m.header.stamp, m.header.frame_id = stamp(st), 'c'
        m.point.x = k
        late = 150000000 if k % 17 < 3 else rnd.randint(1000000, 10000000)
        events.append((st + late, '/c', m))
        k += 1
        ns += 100000000
    events.sort(key=lambda e: e[0])
    with rosbag.Bag(out, 'w') as bag:
        for log_ns, topic, msg in events:
            bag.write(topic, msg, stamp(log_ns))


if __name__ == '__main__':
    main()
