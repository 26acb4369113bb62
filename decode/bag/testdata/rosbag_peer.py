"""Peer for the bag tests: Debian ROS1 rosbag (python3-rosbag) writes and
reads bags so that the Go reader and writer are checked against an
independent implementation. Run with /usr/bin/python3.

  rosbag_peer.py write OUT COMPRESSION [active|killed]
                                                  write a bag, print what was written and,
                                                  unless active or killed, what reading gives
  rosbag_peer.py read IN                          read a bag; print JSON

Reading prints {"connections": [...], "messages": [...], "count", "compression"}
where a message is {"topic", "time_ns", "raw" (hex of the serialized bytes),
"text" (the decoded message)}; writing prints {"messages": [...], "read": {...}}.
"""
import io
import json
import shutil
import sys

import genpy
import rosbag
from geometry_msgs.msg import PoseStamped, Twist
from std_msgs.msg import String


def serialize(msg):
    b = io.BytesIO()
    msg.serialize(b)
    return b.getvalue()


def messages():
    """A deterministic mix of std_msgs/String, geometry_msgs/Twist and
    geometry_msgs/PoseStamped, with a delayed publisher whose times reach
    back into earlier chunks and with equal times across connections."""
    out = []
    base = 1700000000
    for i in range(300):
        t = genpy.Time(base, 0) + genpy.Duration(0, i * 10000000)
        s = String(data="hello %d %s" % (i, "x" * (i % 37)))
        out.append(("/chatter", s, t, None))
        if i % 3 == 0:
            tw = Twist()
            tw.linear.x, tw.angular.z = i * 0.5, -i * 0.25
            # Same time as the /chatter message: a tie across connections.
            out.append(("/cmd_vel", tw, t, None))
        if i % 50 == 49:
            # A burst recorded late with earlier stamps.
            for k in range(10):
                p = PoseStamped()
                p.header.seq = i * 10 + k
                p.header.stamp = t
                p.header.frame_id = "map"
                p.pose.position.x = float(k)
                p.pose.orientation.w = 1.0
                pt = t - genpy.Duration(0, (k + 1) * 37000000)
                hdr = {"callerid": "/late_node", "latching": "1", "topic": "/pose",
                       "type": PoseStamped._type, "md5sum": PoseStamped._md5sum,
                       "message_definition": PoseStamped._full_text}
                out.append(("/pose", p, pt, hdr))
    return out


def conn_json(c):
    header = {k: v.decode() if isinstance(v, bytes) else v for k, v in c.header.items()}
    return {"id": c.id, "topic": c.topic, "header": header}


def write(path, compression, mode):
    active = mode in ("active", "killed")
    tmp = path + (".active" if active else "")
    bag = rosbag.Bag(tmp, "w", compression=compression, chunk_threshold=4096 if mode != "killed" else 20000)
    written = []
    for topic, msg, t, hdr in messages():
        bag.write(topic, msg, t, connection_header=hdr)
        written.append({"topic": topic, "time_ns": t.to_nsec(), "raw": serialize(msg).hex()})
    if active:
        # As if rosbag record were killed: chunks are on disk, the index and
        # the bag header's index_pos are not. "active" finishes the open
        # chunk first, "killed" leaves it as it is on disk (header with zero
        # sizes, stored records or a compressed stream without its end).
        if mode == "active":
            bag.flush()
        bag._file.flush()
        shutil.copyfile(tmp, path)
        bag._file.close()
        print(json.dumps({"messages": written}))
    else:
        bag.close()
        print(json.dumps({"messages": written, "read": read(path)}))


def read(path):
    bag = rosbag.Bag(path)
    conns = [conn_json(c) for c in bag._connections.values()]
    msgs = []
    for topic, raw, t in bag.read_messages(raw=True):
        msgs.append({"topic": topic, "time_ns": t.to_nsec(), "raw": raw[1].hex()})
    text = []
    for topic, msg, t in bag.read_messages():
        text.append(str(msg))
    for m, s in zip(msgs, text):
        m["text"] = s
    return {"connections": conns, "messages": msgs, "count": bag.get_message_count(),
            "compression": bag.get_compression_info().compression}


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
    else:
        print(json.dumps(read(sys.argv[2])))
