#!/usr/bin/python3
"""The python peer of `baglab cat > /dev/null`: read every message of a bag
with Debian's rosbag and json-dump it, as a one-off analysis script would."""
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


def main(path):
    n = 0
    out = open("/dev/null", "w")
    with rosbag.Bag(path) as bag:
        for topic, msg, t in bag.read_messages():
            line = {"topic": topic, "type": msg._type, "log_time_ns": t.to_nsec(), "message": to_plain(msg)}
            out.write(json.dumps(line))
            out.write("\n")
            n += 1
    print(n, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
