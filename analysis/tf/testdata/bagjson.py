"""Dump the TF and /pose messages of a bag, read with Debian's rosbag in
log-time order, as JSON lines for ros2mcap.js: python3 bagjson.py BAG
{"log": ns, "topic", "transforms": [{"parent", "child", "stamp": ns,
"t": [x, y, z], "q": [x, y, z, w]}]} or {"log", "topic", "frame",
"stamp", "p": [x, y, z], "q": [...]} for a PoseStamped.
"""
import json
import sys

import rosbag


def main():
    with rosbag.Bag(sys.argv[1]) as b:
        for topic, msg, t in b.read_messages():
            if not hasattr(msg, 'transforms') and msg._type != 'geometry_msgs/PoseStamped':
                continue
            out = {'log': t.to_nsec(), 'topic': topic}
            if hasattr(msg, 'transforms'):
                out['transforms'] = [{
                    'parent': x.header.frame_id, 'child': x.child_frame_id, 'stamp': x.header.stamp.to_nsec(),
                    't': [x.transform.translation.x, x.transform.translation.y, x.transform.translation.z],
                    'q': [x.transform.rotation.x, x.transform.rotation.y, x.transform.rotation.z, x.transform.rotation.w],
                } for x in msg.transforms]
            else:
                p = msg.pose
                out.update(frame=msg.header.frame_id, stamp=msg.header.stamp.to_nsec(),
                           p=[p.position.x, p.position.y, p.position.z],
                           q=[p.orientation.x, p.orientation.y, p.orientation.z, p.orientation.w])
            print(json.dumps(out))


if __name__ == '__main__':
    main()
