// Package db3 reads and writes rosbag2 recordings in the sqlite3 storage
// format (.db3 files and rosbag2 folders), and parses and renders rosbag2
// metadata (a folder's metadata.yaml, what each split stores) for both
// storage formats.
//
// A .db3 file holds the tables topics(id, name, type, serialization_format,
// offered_qos_profiles[, type_description_hash]), messages(id, topic_id,
// timestamp, data) and, since rosbag2 schema version 4 (Iron), schema,
// metadata and message_definitions(id, topic_type, encoding,
// encoded_message_definition, type_description_hash). Files are read
// through the pure-Go SQLite driver modernc.org/sqlite, opened read-only;
// messages stream from one query per file ordered by (timestamp, id),
// filtered by topic and time in SQL, and the files of a split recording
// are merged in time order. A channel's schema is the topic type with the
// definition from message_definitions (encoding "ros2msg" or "ros2idl"),
// or an empty encoding when the file stores none, so that the consumer
// falls back to its type registry. The Writer writes the SQLite file
// itself (internal/sqlitefile), laid out as rosbag2's schema version 4.
//
// The package does not import the codecs: payloads stay CDR bytes.
package db3
