"""Topic statistics computed with numpy, the peer of `baglab analyze topics`.

usage: topics_peer.py bag FILE     read a ROS1 bag with Debian's rosbag
       topics_peer.py ndjson       read messages from stdin, one JSON object
                                   per line: topic, log_ns, stamp_ns (or null),
                                   size, sha256 (mcap_messages.cjs prints them)
       [--gap SECONDS]

Prints {topic: {statistics}} as JSON. Definitions as baglab documents them:
periods are numpy.diff of the log times (ns) / 1e9, percentiles numpy's
default (linear), std numpy.std (population), a gap a period above --gap or
3 x the median period, latency (log time - header.stamp) / 1e9 for messages
whose type's first field is a std_msgs/Header, a duplicate a payload equal
to the one before it on the topic, stamps backwards a stamp below the one
before it.
"""
import hashlib
import json
import sys

import numpy as np


def bag_messages(path):
    import rosbag

    with rosbag.Bag(path) as bag:
        for topic, raw, t in bag.read_messages(raw=True):
            datatype, data, md5, pos, pytype = raw
            stamp = None
            if pytype._slot_types and pytype._slot_types[0] in ("std_msgs/Header", "Header"):
                msg = pytype()
                msg.deserialize(data)
                stamp = getattr(msg, msg.__slots__[0]).stamp.to_nsec()
            yield topic, t.to_nsec(), stamp, len(data), hashlib.sha256(data).hexdigest()


def ndjson_messages(stream):
    for line in stream:
        if line.strip():
            m = json.loads(line)
            stamp = None if m["stamp_ns"] is None else int(m["stamp_ns"])
            yield m["topic"], int(m["log_ns"]), stamp, int(m["size"]), m["sha256"]


def num(x):
    x = float(x)
    if np.isnan(x):
        return "NaN"
    return x


def stats(msgs, gap):
    per = {}
    for topic, log, stamp, size, digest in msgs:
        per.setdefault(topic, []).append((log, stamp, size, digest))
    out = {}
    for topic, ms in per.items():
        ms.sort(key=lambda m: m[0])  # stable: equal log times keep reading order
        t = np.array([m[0] for m in ms], dtype=np.int64)
        sizes = np.array([m[2] for m in ms], dtype=np.int64)
        n = len(t)
        span = (t[-1] - t[0]) / 1e9
        s = {"count": n, "first_ns": int(t[0]), "last_ns": int(t[-1]), "span_s": num(span),
             "bytes": int(sizes.sum()), "size_min": int(sizes.min()), "size_max": int(sizes.max()),
             "size_mean": num(sizes.sum() / n),
             "rate_hz": num((n - 1) / span) if span > 0 else "NaN",
             "bandwidth_bps": num(sizes.sum() / span) if span > 0 else "NaN",
             "duplicates": sum(1 for a, b in zip(ms, ms[1:]) if a[3] == b[3])}
        s.update({"period_median_s": "NaN", "period_p99_s": "NaN", "period_std_s": "NaN", "period_max_s": "NaN",
                  "gap_threshold_s": "NaN",
                  "gaps": 0, "gap_longest_s": 0.0, "gap_total_s": 0.0, "gap_share": "NaN"})
        if n > 1:
            p = np.diff(t) / 1e9
            med = np.percentile(p, 50)
            thr = gap if gap > 0 else 3 * med
            g = p[p > thr]
            s.update({"period_median_s": num(med), "period_p99_s": num(np.percentile(p, 99)),
                      "period_std_s": num(np.std(p)), "period_max_s": num(p.max()),
                      "gap_threshold_s": num(thr), "gaps": int(len(g)),
                      "gap_longest_s": num(g.max()) if len(g) else 0.0,
                      "gap_total_s": num(g.sum()) if len(g) else 0.0,
                      "gap_share": num((g.sum() if len(g) else 0.0) / span) if span > 0 else "NaN"})
        stamped = [(m[0], m[1]) for m in ms if m[1] is not None]
        s.update({"stamped": len(stamped), "latency_p50_s": "NaN", "latency_p95_s": "NaN", "latency_p99_s": "NaN",
                  "latency_max_s": "NaN", "stamps_backwards": 0})
        if stamped:
            lat = (np.array([a for a, _ in stamped], dtype=np.int64) - np.array([b for _, b in stamped], dtype=np.int64)) / 1e9
            st = np.array([b for _, b in stamped], dtype=np.int64)
            s.update({"latency_p50_s": num(np.percentile(lat, 50)), "latency_p95_s": num(np.percentile(lat, 95)),
                      "latency_p99_s": num(np.percentile(lat, 99)), "latency_max_s": num(lat.max()),
                      "stamps_backwards": int((np.diff(st) < 0).sum())})
        out[topic] = s
    return out


def main():
    args = sys.argv[1:]
    gap = 0.0
    if "--gap" in args:
        i = args.index("--gap")
        gap = float(args[i + 1])
        del args[i:i + 2]
    msgs = bag_messages(args[1]) if args[0] == "bag" else ndjson_messages(sys.stdin)
    json.dump(stats(msgs, gap), sys.stdout, indent=1, sort_keys=True)


main()
