#!/usr/bin/python3
"""Write a Humble-style rosbag2 folder with Python's sqlite3 module, an
implementation independent of baglab's Go driver.

usage: humble_db3.py PAYLOADS.json OUTDIR [ROS_DISTRO]

PAYLOADS.json lists {"topic", "type", "timestamp", "data" (hex)} in time
order. OUTDIR/OUTDIR_0.db3 gets the tables rosbag2 0.15 (Humble) creates:
topics(id, name, type, serialization_format, offered_qos_profiles) and
messages, no schema, metadata or message_definitions table, so no
definition of any type; OUTDIR/metadata.yaml is version 5 as Humble writes
it, with a ros_distro line (version 8 and later) only when ROS_DISTRO is
given.
"""
import json
import os
import sqlite3
import sys

SCHEMA_HUMBLE = [
    "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
    "serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL);",
    "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);",
    "CREATE INDEX timestamp_idx ON messages (timestamp ASC);",
]

QOS = ("- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 0\n    nsec: 0\n"
       "  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 0\n"
       "    nsec: 0\n  avoid_ros_namespace_conventions: false")


def main():
    payloads = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    distro = sys.argv[3] if len(sys.argv) > 3 else ""
    os.makedirs(out, exist_ok=True)
    name = os.path.basename(out.rstrip("/")) + "_0.db3"
    db = sqlite3.connect(os.path.join(out, name))
    for s in SCHEMA_HUMBLE:
        db.execute(s)
    topics = {}
    for p in payloads:
        if p["topic"] not in topics:
            topics[p["topic"]] = (len(topics) + 1, p["type"])
            db.execute("INSERT INTO topics VALUES (?, ?, ?, 'cdr', ?)", (len(topics), p["topic"], p["type"], QOS))
    for p in payloads:
        db.execute("INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)",
                   (topics[p["topic"]][0], p["timestamp"], bytes.fromhex(p["data"])))
    db.commit()
    db.close()
    start, end = payloads[0]["timestamp"], payloads[-1]["timestamp"]
    lines = ["rosbag2_bagfile_information:", "  version: %d" % (8 if distro else 5), "  storage_identifier: sqlite3",
             "  duration:", "    nanoseconds: %d" % (end - start), "  starting_time:",
             "    nanoseconds_since_epoch: %d" % start, "  message_count: %d" % len(payloads),
             "  topics_with_message_count:"]
    for topic, (tid, typ) in topics.items():
        n = sum(1 for p in payloads if p["topic"] == topic)
        lines += ["    - topic_metadata:", "        name: %s" % topic, "        type: %s" % typ,
                  "        serialization_format: cdr", "        offered_qos_profiles: %s" % json.dumps(QOS),
                  "      message_count: %d" % n]
    lines += ["  compression_format: \"\"", "  compression_mode: \"\"", "  relative_file_paths:", "    - " + name,
              "  files:", "    - path: " + name, "      starting_time:", "        nanoseconds_since_epoch: %d" % start,
              "      duration:", "        nanoseconds: %d" % (end - start), "      message_count: %d" % len(payloads)]
    if distro:
        lines += ["  custom_data: ~", "  ros_distro: " + distro]
    open(os.path.join(out, "metadata.yaml"), "w").write("\n".join(lines) + "\n")


main()
