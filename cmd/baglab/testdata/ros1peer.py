#!/usr/bin/python3
"""Debian ROS1 rosbag (python3-rosbag) as the peer of the ROS 2 conversion
tests. Run with /usr/bin/python3.

  ros1peer.py rewrite IN OUT   write OUT with rosbag's writer: every message
                               of IN, raw, on its own connection header
  ros1peer.py headers BAG      print per topic its connection's type, md5sum
                               and latching, the md5sum genpy computes of
                               the definition it stores, and the seq of
                               every std_msgs/Header in its messages
  ros1peer.py values BAG       print every message as JSON, in the shape the
                               ROS 2 conversion gives it: std_msgs/Header
                               without seq, time and duration as
                               {"sec", "nanosec"}, uint8[], char[] and
                               byte[] as base64, byte unsigned (ROS 2's
                               octet), NaN and infinities as strings,
                               integral floats as JSON.stringify writes them
"""
import base64
import json
import math
import sys

import genpy
import genpy.dynamic
import rosbag


def conv(v, typ=""):
    if isinstance(v, genpy.Message):
        out = {}
        for name, t in zip(v.__slots__, v._slot_types):
            if v._type == "std_msgs/Header" and name == "seq":
                continue
            out[name] = conv(getattr(v, name), t)
        return out
    if typ == "byte":  # ROS 2's byte is an octet: read unsigned
        return v & 0xFF
    if typ.startswith("byte["):  # ... and byte[] a blob
        return base64.b64encode(bytes(x & 0xFF for x in v)).decode()
    if isinstance(v, (genpy.Time, genpy.Duration)):
        return {"sec": v.secs, "nanosec": v.nsecs & 0xFFFFFFFF}
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode()
    if isinstance(v, (list, tuple)):
        return [conv(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)  # as JSON.stringify writes it
    return v


def main():
    cmd = sys.argv[1]
    if cmd == "rewrite":
        with rosbag.Bag(sys.argv[2]) as inbag, rosbag.Bag(sys.argv[3], "w") as out:
            for topic, raw, t, header in inbag.read_messages(raw=True, return_connection_header=True):
                out.write(topic, raw, t, raw=True, connection_header=header)
    elif cmd == "values":
        msgs = []
        with rosbag.Bag(sys.argv[2]) as bag:
            for topic, msg, t, header in bag.read_messages(return_connection_header=True):
                # the connection's type: genpy shares one class among
                # types with the same definition, whose _type is one name
                msgs.append({"topic": topic, "type": header["type"].decode(), "log_time_ns": t.to_nsec(), "message": conv(msg)})
        json.dump(msgs, sys.stdout)
    elif cmd == "headers":
        out = {}
        with rosbag.Bag(sys.argv[2]) as bag:
            for c in bag._get_connections():
                h = c.header
                cls = genpy.dynamic.generate_dynamic(c.datatype, h["message_definition"].decode())[c.datatype]
                t = out.setdefault(c.topic, {"type": c.datatype, "md5sum": c.md5sum, "latching": h.get("latching", b"0").decode(),
                                             "definition_md5sum": cls._md5sum, "seqs": []})
            for topic, msg, _ in bag.read_messages():
                out[topic]["seqs"].extend(seqs(msg))
        json.dump(out, sys.stdout)
    else:
        sys.exit("unknown command " + cmd)


def seqs(v):
    """The seq of every std_msgs/Header in message v."""
    if isinstance(v, genpy.Message):
        if v._type == "std_msgs/Header":
            return [v.seq]
        return [s for name in v.__slots__ for s in seqs(getattr(v, name))]
    if isinstance(v, (list, tuple)):
        return [s for x in v for s in seqs(x)]
    return []


main()
