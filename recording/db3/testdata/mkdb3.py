#!/usr/bin/python3
"""Write rosbag2 sqlite3 test recordings with Python's sqlite3 module, an
implementation independent of baglab's Go driver.

usage: mkdb3.py OUTDIR

OUTDIR/split/          rosbag2 folder (schema version 4, message_definitions),
                       two split files split_0.db3 and split_1.db3 + metadata.yaml
OUTDIR/old.db3         a Foxy-era file: topics(id, name, type,
                       serialization_format, offered_qos_profiles), messages;
                       no schema, metadata or message_definitions table
OUTDIR/expected.json   every message as written: topic, timestamp, data (hex),
                       in (timestamp, file, id) order, per recording

The CDR payloads are written by hand, byte by byte: std_msgs/msg/String is
the 4-byte encapsulation header (CDR little endian: 00 01 00 00), a uint32
length that counts the terminating NUL, the bytes and the NUL;
std_msgs/msg/Int32 is the header and the little-endian int32.
"""
import json
import os
import sqlite3
import struct
import sys

# The rosbag2 sqlite3 schema version 4 (rosbag2_storage_sqlite3
# SqliteStorage::initialize).
SCHEMA_V4 = [
    "CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);",
    "CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,metadata TEXT NOT NULL);",
    "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
    "serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,type_description_hash TEXT NOT NULL);",
    "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,encoding TEXT NOT NULL,"
    "encoded_message_definition TEXT NOT NULL,type_description_hash TEXT NOT NULL);",
    "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);",
    "CREATE INDEX timestamp_idx ON messages (timestamp ASC);",
]

# Foxy (rosbag2 0.3): no schema table, no type hash, no definitions.
SCHEMA_FOXY = [
    "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
    "serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL);",
    "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);",
    "CREATE INDEX timestamp_idx ON messages (timestamp ASC);",
]

QOS = ("- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 0\n    nsec: 0\n"
       "  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 0\n"
       "    nsec: 0\n  avoid_ros_namespace_conventions: false")

STRING_DEF = "# This was originally provided as an example message.\nstring data\n"
INT32_DEF = "int32 data\n"


def cdr_string(s):
    b = s.encode()
    return b"\x00\x01\x00\x00" + struct.pack("<I", len(b) + 1) + b + b"\x00"


def cdr_int32(v):
    return b"\x00\x01\x00\x00" + struct.pack("<i", v)


def make(path, schema, topics, messages, definitions=None, distro="jazzy"):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    for s in schema:
        db.execute(s)
    v4 = any("message_definitions" in s for s in schema)
    if v4:
        db.execute("INSERT INTO schema (schema_version, ros_distro) VALUES (4, ?)", (distro,))
    for t in topics:
        if v4:
            db.execute("INSERT INTO topics (id, name, type, serialization_format, offered_qos_profiles, type_description_hash) "
                       "VALUES (?, ?, ?, 'cdr', ?, ?)", (t[0], t[1], t[2], QOS, "RIHS01_" + "ab" * 32))
        else:
            db.execute("INSERT INTO topics (id, name, type, serialization_format, offered_qos_profiles) VALUES (?, ?, ?, 'cdr', ?)",
                       (t[0], t[1], t[2], QOS))
    for d in definitions or []:
        db.execute("INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) "
                   "VALUES (?, ?, ?, ?)", d)
    for m in messages:
        db.execute("INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)", m)
    if v4:
        db.execute("INSERT INTO metadata (metadata_version, metadata) VALUES (9, 'rosbag2_bagfile_information: {}')")
    db.commit()
    db.close()


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "split"), exist_ok=True)
    topics = [(1, "/chatter", "std_msgs/msg/String"), (2, "/count", "std_msgs/msg/Int32")]
    defs = [("std_msgs/msg/String", "ros2msg", STRING_DEF, "RIHS01_" + "cd" * 32),
            ("std_msgs/msg/Int32", "ros2msg", INT32_DEF, "RIHS01_" + "ef" * 32)]
    expected = {"split": [], "old": []}
    # Split file 0: times 1000..1990, inserted out of time order; two
    # messages share a timestamp. File 1: times 2000..2990.
    for part in (0, 1):
        msgs = []
        for i in range(100):
            t = 1_000_000_000 + part * 1000 + ((i * 37) % 100) * 10
            if i % 2 == 0:
                msgs.append((1, t, cdr_string("hello %d.%d" % (part, i))))
            else:
                msgs.append((2, t, cdr_int32(part * 1000 + i)))
        msgs.append((2, 1_000_000_000 + part * 1000, cdr_int32(-1)))
        make(os.path.join(out, "split", "split_%d.db3" % part), SCHEMA_V4, topics, msgs, defs)
        rows = [(m[1], part, n, m) for n, m in enumerate(msgs)]
        rows.sort(key=lambda r: (r[0], r[1], r[2]))
        for r in rows:
            expected["split"].append({"topic": topics[r[3][0] - 1][1], "timestamp": r[0], "data": r[3][2].hex()})
    with open(os.path.join(out, "split", "metadata.yaml"), "w") as f:
        f.write("""rosbag2_bagfile_information:
  version: 9
  storage_identifier: sqlite3
  duration:
    nanoseconds: 1990
  starting_time:
    nanoseconds_since_epoch: 1000000000
  message_count: 202
  topics_with_message_count:
    - topic_metadata:
        name: /chatter
        type: std_msgs/msg/String
        serialization_format: cdr
        offered_qos_profiles:
          - history: keep_last
            depth: 10
        type_description_hash: RIHS01_abab
      message_count: 100
    - topic_metadata:
        name: /count
        type: std_msgs/msg/Int32
        serialization_format: cdr
        offered_qos_profiles: ""
        type_description_hash: RIHS01_abab
      message_count: 102
  compression_format: ""
  compression_mode: ""
  relative_file_paths:
    - split_0.db3
    - split_1.db3
  files:
    - path: split_0.db3
      starting_time:
        nanoseconds_since_epoch: 1000000000
      duration:
        nanoseconds: 990
      message_count: 101
    - path: split_1.db3
      starting_time:
        nanoseconds_since_epoch: 1000001000
      duration:
        nanoseconds: 990
      message_count: 101
  custom_data: ~
  ros_distro: jazzy
""")
    old = [(5, "/old", "std_msgs/msg/String")]
    msgs = [(5, 500 + i, cdr_string("x" * i)) for i in range(10)]
    make(os.path.join(out, "old.db3"), SCHEMA_FOXY, old, msgs)
    for m in msgs:
        expected["old"].append({"topic": "/old", "timestamp": m[1], "data": m[2].hex()})
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f)


main()
