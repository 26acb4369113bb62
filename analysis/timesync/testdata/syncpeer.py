"""Match the messages of topics of a bag (read with Debian's rosbag, in
log-time order) with Debian's python3-message-filters:
python3 syncpeer.py BAG POLICY QUEUE SLOP_NS TOPIC...

POLICY is approximate (ApproximateTimeSynchronizer) or exact
(TimeSynchronizer). Prints one JSON line per set: the header stamps (ns)
of its messages, in the order of the topics. The slop is set in ns:
rospy.Duration.from_sec would truncate 0.3 s to 299999999 ns.
"""
import json
import sys

import message_filters
import rosbag
import rospy


def main():
    bag, policy, queue, slop = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    topics = sys.argv[5:]
    rospy.rostime.set_rostime_initialized(True)  # Time.now() without a node: the wall clock
    fs = [message_filters.SimpleFilter() for _ in topics]
    if policy == 'exact':
        sync = message_filters.TimeSynchronizer(fs, queue)
    else:
        sync = message_filters.ApproximateTimeSynchronizer(fs, queue, slop / 1e9)
        sync.slop = rospy.Duration(0, slop)
    sets = []
    sync.registerCallback(lambda *msgs: sets.append([m.header.stamp.to_nsec() for m in msgs]))
    index = {t: i for i, t in enumerate(topics)}
    with rosbag.Bag(bag) as b:
        for topic, msg, _t in b.read_messages(topics=topics):
            fs[index[topic]].signalMessage(msg)
    for s in sets:
        print(json.dumps(s))


if __name__ == '__main__':
    main()
