// ros2peer: read a rosbag2 folder with independent implementations and print
// what they read as JSON: js-yaml parses metadata.yaml; MCAP splits are
// read with @mcap/core, .db3 splits with sql.js (@foxglove/sql.js); every
// message is decoded by @foxglove/rosmsg2-serialization from the
// definition the split stores (parsed by @foxglove/rosmsg).
// usage: node ros2peer.cjs NODE_DIR FOLDER|FILE (a storage file alone: its
// stored metadata stands for metadata.yaml's rosbag2_bagfile_information)
// Output: {"metadata": <metadata.yaml>, "files": {name: {"profile", "topics": {topic: {"type", "encoding",
// "schema_encoding", "metadata", "qos" (its offered_qos_profiles parsed)}}, "records": {name: {key: value}},
// "chunks" (MCAP: [{"compression", "uncompressed_size", "compressed_size"}] from the chunk index)}},
// "messages": [{"topic", "type",
// "log_time_ns", "message"}]}
// in split order, then log time, then file order. rosmsg's ROS 2 parser
// refuses camelCase field names; such definitions are parsed in its ROS1
// mode, which reads the same syntax. Compressed recordings are read as
// rosbag2 compresses them: a split NAME.zstd (compression_mode FILE) is
// one zstd stream of the split, a message (MESSAGE) one zstd frame of its
// CDR; MCAP chunks decompress by @foxglove/wasm-zstd and wasm-lz4. MCAP
// metadata records ("rosbag2") are in "records", their
// serialized_metadata parsed by js-yaml; so is a .db3 split's metadata
// table, as records.rosbag2 {metadata_version, serialized_metadata}. In messages uint8[]
// (and byte[]) are base64, 64-bit integers exact, NaN and infinities
// the strings "NaN", "Infinity", "-Infinity".
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { McapIndexedReader } = req("@mcap/core");
const { parse } = req("@foxglove/rosmsg");
const { MessageReader } = req("@foxglove/rosmsg2-serialization");
const yaml = req("js-yaml");
const initSqlJs = req("@foxglove/sql.js/dist/sql-asm.js"); // the asm.js build: no .wasm to fetch
const zstd = req("@foxglove/wasm-zstd");
const lz4 = req("@foxglove/wasm-lz4");

const json = (v) => {
  if (v instanceof Uint8Array || v instanceof Int8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
  if (ArrayBuffer.isView(v)) return Array.from(v, json);
  if (Array.isArray(v)) return v.map(json);
  if (typeof v === "bigint") return "#" + v + "#";
  if (typeof v === "number" && !Number.isFinite(v)) return Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, json(x)]));
  return v;
};

// qos parses a split's offered_qos_profiles text (MCAP channel metadata,
// the topics table of a .db3) with js-yaml; null when there is none.
const qos = (text) => (text ? yaml.load(text) : null);

// unzstd decompresses a zstd stream of unknown size: wasm-zstd needs room
// for the output, so it tries growing buffers.
const unzstd = (b) => {
  for (let room = Math.max(1 << 16, b.length * 8); ; room *= 4) {
    try {
      return zstd.decompress(b, room);
    } catch (e) {
      if (room > 1 << 30) throw e;
    }
  }
};

async function main() {
  await zstd.isLoaded;
  await lz4.isLoaded;
  let dir = process.argv[3];
  let metadata = null;
  let info;
  if (fs.statSync(dir).isFile()) {
    info = { relative_file_paths: [path.basename(dir)] };
    dir = path.dirname(dir);
  } else {
    metadata = yaml.load(fs.readFileSync(path.join(dir, "metadata.yaml"), "utf8"));
    info = metadata.rosbag2_bagfile_information;
  }
  const out = { metadata, files: {}, messages: [] };
  let perMessage = info.compression_mode === "MESSAGE";
  // stored takes a file's stored metadata for a file alone.
  const stored = (m) => {
    if (metadata === null) {
      out.metadata = { rosbag2_bagfile_information: m };
      perMessage = m.compression_mode === "MESSAGE";
    }
  };
  const readers = new Map(); // schema text -> MessageReader
  const readerFor = (name, text) => {
    const key = name + "\0" + text;
    if (!readers.has(key)) {
      // rosmsg's ROS 2 mode refuses field names rosidl forbids (camelCase
      // ones of ROS1 packages, kept by the conversion as rosbags keeps
      // them); its ROS1 mode reads the same .msg syntax, with pkg/Type
      // names and without ROS 2's default values (geometry_msgs/Quaternion's
      // "float64 w 1", in a ROS 2 distribution's definitions that a ROS1
      // type converted with --distro refers to), which the wire ignores.
      let defs;
      try {
        defs = parse(text, { ros2: true });
      } catch (e) {
        if (!/Invalid field name/.test(String(e))) throw e;
        const ros1 = text
          .replace(/\b([A-Za-z]\w*)\/msg\/(\w+)/g, "$1/$2")
          .split("\n")
          .map((l) => l.replace(/^(\s*[\w/]+(?:\[[^\]]*\])?\s+[A-Za-z]\w*)\s+[^=#\s][^=#]*?(\s*#.*)?$/, "$1$2"))
          .join("\n");
        defs = parse(ros1);
      }
      readers.set(key, new MessageReader(defs));
    }
    return readers.get(key);
  };
  const payload = (data) => (perMessage ? unzstd(data) : data);
  for (const rel of info.relative_file_paths) {
    let bytes = fs.readFileSync(path.join(dir, rel));
    const file = { topics: {} };
    out.files[rel] = file;
    const msgs = [];
    let name = rel;
    if (rel.endsWith(".zstd")) {
      if (info.compression_mode !== "FILE") throw new Error(rel + " in a recording compressed by " + info.compression_mode);
      bytes = unzstd(bytes);
      name = rel.slice(0, -".zstd".length);
    }
    if (name.endsWith(".mcap")) {
      const reader = await McapIndexedReader.Initialize({
        readable: { size: async () => BigInt(bytes.length), read: async (o, s) => bytes.subarray(Number(o), Number(o + s)) },
        decompressHandlers: { zstd: (b, s) => zstd.decompress(b, Number(s)), lz4: (b, s) => lz4(b, Number(s)) },
      });
      file.profile = reader.header.profile;
      file.chunks = reader.chunkIndexes.map((c) => ({ compression: c.compression, uncompressed_size: Number(c.uncompressedSize), compressed_size: Number(c.compressedSize) }));
      file.records = {};
      for await (const md of reader.readMetadata()) {
        const rec = Object.fromEntries(md.metadata);
        if (rec.serialized_metadata !== undefined) rec.serialized_metadata = yaml.load(rec.serialized_metadata);
        file.records[md.name] = rec;
        if (md.name === "rosbag2") stored(rec.serialized_metadata);
      }
      for (const ch of reader.channelsById.values()) {
        const s = reader.schemasById.get(ch.schemaId);
        file.topics[ch.topic] = { type: s.name, encoding: ch.messageEncoding, schema_encoding: s.encoding, metadata: Object.fromEntries(ch.metadata), qos: qos(ch.metadata.get("offered_qos_profiles")) };
      }
      for await (const m of reader.readMessages()) {
        const ch = reader.channelsById.get(m.channelId);
        const s = reader.schemasById.get(ch.schemaId);
        msgs.push({ topic: ch.topic, type: s.name, t: m.logTime, message: readerFor(s.name, new TextDecoder().decode(s.data)).readMessage(payload(m.data)) });
      }
    } else if (name.endsWith(".db3")) {
      const SQL = await initSqlJs();
      const db = new SQL.Database(bytes);
      const rows = (q) => { const r = db.exec(q); return r.length ? r[0].values : []; };
      const defs = new Map(rows("SELECT topic_type, encoding, encoded_message_definition FROM message_definitions").map((r) => [r[0], { encoding: r[1], text: r[2] }]));
      file.schema = rows("SELECT schema_version, ros_distro FROM schema");
      file.records = {};
      for (const [version, text] of rows("SELECT metadata_version, metadata FROM metadata")) {
        file.records.rosbag2 = { metadata_version: version, serialized_metadata: yaml.load(text) };
        stored(file.records.rosbag2.serialized_metadata);
      }
      const topics = new Map();
      for (const [id, name, type, format, qosText, hash] of rows("SELECT id, name, type, serialization_format, offered_qos_profiles, type_description_hash FROM topics")) {
        topics.set(id, { name, type });
        file.topics[name] = { type, encoding: format, schema_encoding: defs.get(type).encoding, metadata: { offered_qos_profiles: qosText, type_description_hash: hash }, qos: qos(qosText) };
      }
      const stmt = db.prepare("SELECT topic_id, CAST(timestamp AS TEXT), data FROM messages ORDER BY timestamp, id"); // as text: a JS number loses ns
      while (stmt.step()) {
        const [tid, ts, data] = stmt.get();
        const t = topics.get(tid);
        msgs.push({ topic: t.name, type: t.type, t: BigInt(ts), message: readerFor(t.type, defs.get(t.type).text).readMessage(payload(data)) });
      }
      stmt.free();
      db.close();
    } else {
      throw new Error("unknown split " + rel);
    }
    msgs.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
    for (const m of msgs) out.messages.push({ topic: m.topic, type: m.type, log_time_ns: "#" + m.t + "#", message: json(m.message) });
  }
  process.stdout.write(JSON.stringify(out).replace(/"#(-?\d+)#"/g, "$1"));
}
main().catch((e) => { console.error(e); process.exit(1); });
