"""Write the CDR messages ros2mcap.js dumped as a rosbag2 sqlite3 file
(schema version 4, Iron and later: definitions in message_definitions)
with Python's sqlite3: python3 db3write.py CDR.jsonl OUT.db3
"""
import base64
import json
import sqlite3
import sys


def main():
    msgs = [json.loads(l) for l in open(sys.argv[1])]
    db = sqlite3.connect(sys.argv[2])
    db.executescript('''
CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);
CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version INTEGER NOT NULL, metadata TEXT NOT NULL);
CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
  serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL, type_description_hash TEXT NOT NULL);
CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL, encoding TEXT NOT NULL,
  encoded_message_definition TEXT NOT NULL, type_description_hash TEXT NOT NULL);
CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);
INSERT INTO schema VALUES (4, 'jazzy');
''')
    topics, types = {}, {}
    for m in msgs:
        if m['type'] not in types:
            types[m['type']] = len(types) + 1
            db.execute('INSERT INTO message_definitions VALUES (?, ?, ?, ?, ?)',
                       (types[m['type']], m['type'], 'ros2msg', m['definition'], ''))
        if m['topic'] not in topics:
            topics[m['topic']] = len(topics) + 1
            db.execute('INSERT INTO topics VALUES (?, ?, ?, ?, ?, ?)',
                       (topics[m['topic']], m['topic'], m['type'], 'cdr', '', ''))
        db.execute('INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)',
                   (topics[m['topic']], int(m['log']), base64.b64decode(m['data'])))
    db.commit()
    db.close()


if __name__ == '__main__':
    main()
