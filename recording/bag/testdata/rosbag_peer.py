"""Peer for the bag tests: Debian ROS1 rosbag (python3-rosbag) writes and
reads bags so that the Go reader and writer are checked against an
independent implementation. Run with /usr/bin/python3.

  rosbag_peer.py write OUT COMPRESSION [active|killed]
                                                  write a bag, print what was written and,
                                                  unless active or killed, what reading gives
  rosbag_peer.py read IN                          read a bag; print JSON
  rosbag_peer.py reindex IN OUT                   copy IN to OUT, rosbag reindex OUT, read it
  rosbag_peer.py topics IN...                     per bag, per topic: count, first and last times,
                                                  mean rate over the gaps, rosbag's own frequency
  rosbag_peer.py overlap OUT COMPRESSION          write a bag whose chunks overlap in time
                                                  (see overlap below)
  rosbag_peer.py headers OUT                      write a bag whose connection headers differ from
                                                  what rosbag writes by itself (see headers below),
                                                  read it back
  rosbag_peer.py encrypted OUT COMPRESSION USER   write a bag encrypted for the GPG key of USER
                                                  (rosbag's AES-CBC encryptor; GNUPGHOME holds the
                                                  key), read it back

Reading prints {"connections": [...], "messages": [...], "count", "compression"}
where a message is {"topic", "time_ns", "raw" (hex of the serialized bytes),
"text" (the decoded message)}; writing prints {"messages": [...], "read": {...}}.
"""
import io
import json
import shutil
import statistics
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


def topics(path):
    """Per topic, from rosbag's read_messages: message count, first and last
    time, the mean rate over the gaps between consecutive times (1 / mean
    period), and the frequency rosbag info --freq shows (1 / median
    period, from get_type_and_topic_info)."""
    bag = rosbag.Bag(path)
    times = {}
    for topic, _, t in bag.read_messages(raw=True):
        times.setdefault(topic, []).append(t.to_nsec())
    info = bag.get_type_and_topic_info().topics
    out = {}
    for topic, ts in times.items():
        ts.sort()
        periods = [(b - a) / 1e9 for a, b in zip(ts, ts[1:])]
        mean = statistics.fmean(periods) if periods else 0
        out[topic] = {"count": len(ts), "first_ns": ts[0], "last_ns": ts[-1],
                      "mean_hz": 1 / mean if mean > 0 else 0,
                      "rosbag_hz": info[topic].frequency or 0}
    return {"topics": out}


def overlap(path, compression):
    """A bag whose chunks overlap in time, so that /x's first message is not
    in the chunk that starts first among those holding it, nor its last in
    the chunk that ends last. Each big message closes a chunk
    (chunk_threshold 1000). Times in s after 1700000000, chunk by chunk:

      1: /y 0, /x 9 (big)                               [0, 9]
      2: /y 5, /x 7, /x 6 (big)                         [5, 7]
      3: /x 30, /x 15 (second connection), /y 25 (big)  [15, 30]
      4: /x 50, /y 100 (big)                            [50, 100]
      5: /x 61, /x 60, /y 70 (big)                      [60, 70]
      6: /z 40 (big)                                    [40, 40]
    """
    bag = rosbag.Bag(path, "w", compression=compression, chunk_threshold=1000)
    small, big = String(data="s"), String(data="x" * 1200)
    other = {"callerid": "/other", "topic": "/x", "type": String._type, "md5sum": String._md5sum,
             "message_definition": String._full_text}
    for topic, sec, msg, hdr in [
            ("/y", 0, small, None), ("/x", 9, big, None),
            ("/y", 5, small, None), ("/x", 7, small, None), ("/x", 6, big, None),
            ("/x", 30, small, None), ("/x", 15, small, other), ("/y", 25, big, None),
            ("/x", 50, small, None), ("/y", 100, big, None),
            ("/x", 61, small, None), ("/x", 60, small, None), ("/y", 70, big, None),
            ("/z", 40, big, None)]:
        bag.write(topic, msg, genpy.Time(1700000000 + sec, 1000 * sec), connection_header=hdr)
    bag.close()


def headers(path):
    """A bag with the connection headers Bag.write takes as given: two
    publishers of /x (one latched), a /y written with the header of a
    publisher of /orig_y, a /z header in another field order with a field
    rosbag does not know. rosbag keeps one connection per topic, so the
    second /x connection is made by forgetting the first."""
    bag = rosbag.Bag(path, "w")
    std = dict(type=String._type, md5sum=String._md5sum, message_definition=String._full_text)
    hdrs = [("/x", dict(callerid="/a", latching="1", topic="/x", **std)),
            ("/x", dict(topic="/x", callerid="/b", **std)),
            ("/y", dict(topic="/orig_y", **std)),
            ("/z", dict(callerid="/c", tcp_nodelay="1", latching="0", topic="/z", **std))]
    conns = {}
    for i in range(20):
        k = i % len(hdrs)
        topic, hdr = hdrs[k]
        if k in conns:
            bag._topic_connections[topic] = conns[k]
        else:
            bag._topic_connections.pop(topic, None)
        bag.write(topic, String(data="m%d" % i), genpy.Time(1700000000 + i, 0), connection_header=hdr)
        conns[k] = bag._topic_connections[topic]
    bag.close()
    return read(path)


def encrypted(path, compression, user):
    """The messages of write, encrypted as rosbag encrypt does it: every
    chunk and the index section's connection records with AES-CBC under a
    random key, stored in the bag header encrypted for user's GPG key."""
    bag = rosbag.Bag(path, "w", compression=compression, chunk_threshold=4096)
    bag.set_encryptor("rosbag/AesCbcEncryptor", user)
    for topic, msg, t, hdr in messages():
        bag.write(topic, msg, t, connection_header=hdr)
    bag.close()
    return read(path)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
    elif sys.argv[1] == "topics":
        print(json.dumps([topics(p) for p in sys.argv[2:]]))
    elif sys.argv[1] == "encrypted":
        print(json.dumps({"read": encrypted(sys.argv[2], sys.argv[3], sys.argv[4])}))
    elif sys.argv[1] == "headers":
        print(json.dumps(headers(sys.argv[2])))
    elif sys.argv[1] == "overlap":
        overlap(sys.argv[2], sys.argv[3])
        print(json.dumps({}))
    elif sys.argv[1] == "reindex":
        shutil.copyfile(sys.argv[2], sys.argv[3])
        b = rosbag.Bag(sys.argv[3], "a", allow_unindexed=True)
        for _ in b.reindex():
            pass
        b.close()
        print(json.dumps(read(sys.argv[3])))
    else:
        print(json.dumps(read(sys.argv[2])))
