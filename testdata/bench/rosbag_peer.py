#!/usr/bin/python3
"""Debian's python rosbag as a peer of the speed benchmark (compare.sh):

  rosbag_peer.py points OUT N   write N geometry_msgs/PointStamped at 1 kHz
                                into an lz4-compressed bag (the small-message
                                workload, written by rosbag itself)
  rosbag_peer.py cat BAG        read every message and json-dump it, as a
                                one-off script would (the peer of `cat`)
  rosbag_peer.py columns BAG    read every message into per-field column
                                lists, the rosbag_pandas path (the peer of
                                `export`)
"""
import base64
import json
import math
import sys

import genpy
import rosbag


def to_plain(v):
    if isinstance(v, genpy.Message):
        return {s: to_plain(getattr(v, s)) for s in v.__slots__}
    if isinstance(v, (genpy.Time, genpy.Duration)):
        return {"sec": v.secs, "nsec": v.nsecs}
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, (list, tuple)):
        return [to_plain(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def flatten(prefix, v, row):
    if isinstance(v, genpy.Message):
        for s in v.__slots__:
            flatten(prefix + "." + s if prefix else s, getattr(v, s), row)
    elif isinstance(v, (genpy.Time, genpy.Duration)):
        row[prefix] = v.to_nsec()
    else:
        row[prefix] = v


def points(path, n):
    from geometry_msgs.msg import PointStamped

    with rosbag.Bag(path, "w", compression="lz4") as bag:
        m = PointStamped()
        m.header.frame_id = "base_link"
        for i in range(n):
            t = genpy.Time(1704067200 + i // 1000, (i % 1000) * 1000000)
            m.header.seq = i
            m.header.stamp = t
            m.point.x, m.point.y, m.point.z = i * 0.001, math.sin(i * 0.01), 1.0
            bag.write("/robot/point", m, t)


def cat(path):
    n = 0
    out = open("/dev/null", "w")
    with rosbag.Bag(path) as bag:
        for topic, msg, t in bag.read_messages():
            line = {"topic": topic, "type": msg._type, "log_time_ns": t.to_nsec(), "message": to_plain(msg)}
            out.write(json.dumps(line))
            out.write("\n")
            n += 1
    print(n, file=sys.stderr)


def columns(path):
    cols = {}
    n = 0
    with rosbag.Bag(path) as bag:
        for topic, msg, t in bag.read_messages():
            row = {"log_time": t.to_nsec()}
            flatten("", msg, row)
            table = cols.setdefault(topic, {})
            for k, v in row.items():
                table.setdefault(k, []).append(v)
            n += 1
    print(n, file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "points":
        points(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "cat":
        cat(sys.argv[2])
    else:
        columns(sys.argv[2])
