// mcapwrite: write an MCAP file with the npm @mcap/core writer (an
// independent implementation) for one named case, with real ROS1 payloads
// (std_msgs/String, geometry_msgs/PointStamped serialized by hand).
// usage: node mcapwrite.cjs NODE_DIR OUT CASE
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { McapWriter, McapRecordBuilder } = req("@mcap/core");
const { crc32 } = req("@foxglove/crc");
const zstd = req("@foxglove/wasm-zstd");

const enc = new TextEncoder();
const STRING = "string data\n";
const POINT_STAMPED =
  "Header header\nPoint point\n\n================================================================================\n" +
  "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n\n" +
  "================================================================================\nMSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n";

function rosString(s) {
  const b = Buffer.from(s);
  const o = Buffer.alloc(4 + b.length);
  o.writeUInt32LE(b.length, 0);
  b.copy(o, 4);
  return o;
}

function rosPointStamped(seq, frame, x, y, z) {
  const f = Buffer.from(frame);
  const o = Buffer.alloc(16 + f.length + 24);
  o.writeUInt32LE(seq, 0);
  o.writeUInt32LE(seq, 4); // stamp.sec
  o.writeUInt32LE(0, 8); // stamp.nsec
  o.writeUInt32LE(f.length, 12);
  f.copy(o, 16);
  o.writeDoubleLE(x, 16 + f.length);
  o.writeDoubleLE(y, 24 + f.length);
  o.writeDoubleLE(z, 32 + f.length);
  return o;
}

// messages adds n messages alternating between a String and a PointStamped
// channel, with log times out of order (7i mod n) after from.
async function messages(w, n, from = 1_000_000_000n) {
  const { c1, c2 } = (w.baglabChannels ??= await channels(w));
  for (let i = 0; i < n; i++) {
    const t = from + BigInt((i * 7) % n) * 1000n;
    const point = i % 2 === 1;
    await w.addMessage({
      channelId: point ? c2 : c1,
      sequence: i,
      logTime: t,
      publishTime: t + 1n,
      data: point ? rosPointStamped(i, "map", i, 2 * i, 0.5) : rosString(`hello ${i}`),
    });
  }
}

// channels registers the String and PointStamped channels.
async function channels(w) {
  const s1 = await w.registerSchema({ name: "std_msgs/String", encoding: "ros1msg", data: enc.encode(STRING) });
  const s2 = await w.registerSchema({ name: "geometry_msgs/PointStamped", encoding: "ros1msg", data: enc.encode(POINT_STAMPED) });
  const c1 = await w.registerChannel({ topic: "/chatter", schemaId: s1, messageEncoding: "ros1", metadata: new Map([["md5sum", "992ce8a1687cec8c8bd883ec73ca41d1"]]) });
  const c2 = await w.registerChannel({ topic: "/point", schemaId: s2, messageEncoding: "ros1", metadata: new Map([["md5sum", "c63aecb41bfdfd6b7e1fac37c7cbe7bf"]]) });
  return { c1, c2 };
}

// records writes a file record by record with McapRecordBuilder, for
// files McapWriter does not make: items are schema, channel, message and
// metadata records ({ op, ...record }) or chunks ({ op: "chunk", records },
// with start and end to state other message times than the records',
// and noIndex to write no message indexes for it), each chunk followed by
// its message indexes; header, footer and dataEnd items write those
// records where they stand. The summary holds the schemas, channels,
// statistics and chunk indexes; extraSummary(b, st), if given, writes
// more records after the statistics record st.
function records(items, extraSummary) {
  const b = new McapRecordBuilder();
  b.writeMagic();
  b.writeHeader({ profile: "ros1", library: "mcapwrite" });
  const schemas = new Map();
  const channels = new Map();
  const chunkIndexes = [];
  const st = { messageCount: 0n, schemaCount: 0, channelCount: 0, attachmentCount: 0, metadataCount: 0, chunkCount: 0, messageStartTime: 0n, messageEndTime: 0n, channelMessageCounts: new Map() };
  const write = (w, r) => {
    if (r.op === "schema") schemas.set(r.id, r), w.writeSchema(r);
    if (r.op === "channel") channels.set(r.id, r), w.writeChannel(r);
    if (r.op === "metadata") st.metadataCount++, w.writeMetadata(r);
    if (r.op === "header") w.writeHeader(r);
    if (r.op === "footer") w.writeFooter({ summaryStart: 0n, summaryOffsetStart: 0n, summaryCrc: 0 });
    if (r.op === "dataEnd") w.writeDataEnd({ dataSectionCrc: 0 });
    if (r.op === "message") {
      if (st.messageCount === 0n || r.logTime < st.messageStartTime) st.messageStartTime = r.logTime;
      if (st.messageCount === 0n || r.logTime > st.messageEndTime) st.messageEndTime = r.logTime;
      st.messageCount++;
      st.channelMessageCounts.set(r.channelId, (st.channelMessageCounts.get(r.channelId) ?? 0n) + 1n);
      w.writeMessage(r);
    }
  };
  for (const it of items) {
    if (it.op !== "chunk") {
      write(b, it);
      continue;
    }
    const cb = new McapRecordBuilder();
    const index = new Map();
    let start, end;
    for (const r of it.records) {
      if (r.op === "message") {
        if (!index.has(r.channelId)) index.set(r.channelId, []);
        index.get(r.channelId).push([r.logTime, BigInt(cb.length)]);
        start = start === undefined || r.logTime < start ? r.logTime : start;
        end = end === undefined || r.logTime > end ? r.logTime : end;
      }
      write(cb, r);
    }
    const data = cb.buffer.slice();
    const chunkStartOffset = BigInt(b.length);
    const chunk = { messageStartTime: it.start ?? start ?? 0n, messageEndTime: it.end ?? end ?? 0n, uncompressedSize: BigInt(data.length), uncompressedCrc: crc32(data), compression: "", records: data };
    const chunkLength = b.writeChunk(chunk);
    const indexStart = BigInt(b.length);
    const messageIndexOffsets = new Map();
    for (const [channelId, recs] of it.noIndex ? [] : index) {
      messageIndexOffsets.set(channelId, BigInt(b.length));
      b.writeMessageIndex({ channelId, records: recs });
    }
    chunkIndexes.push({ messageStartTime: chunk.messageStartTime, messageEndTime: chunk.messageEndTime, chunkStartOffset, chunkLength, messageIndexOffsets,
      messageIndexLength: BigInt(b.length) - indexStart, compression: "", compressedSize: BigInt(data.length), uncompressedSize: BigInt(data.length) });
    st.chunkCount++;
  }
  b.writeDataEnd({ dataSectionCrc: 0 });
  const summaryStart = BigInt(b.length);
  for (const x of schemas.values()) b.writeSchema(x);
  for (const x of channels.values()) b.writeChannel(x);
  st.schemaCount = schemas.size;
  st.channelCount = channels.size;
  b.writeStatistics(st);
  if (extraSummary) extraSummary(b, st);
  for (const x of chunkIndexes) b.writeChunkIndex(x);
  b.writeFooter({ summaryStart, summaryOffsetStart: 0n, summaryCrc: 0 });
  b.writeMagic();
  return b.buffer;
}

const stringSchema = { op: "schema", id: 1, name: "std_msgs/String", encoding: "ros1msg", data: enc.encode(STRING) };
const chatter = (id, topic) => ({ op: "channel", id, topic, schemaId: 1, messageEncoding: "ros1", metadata: new Map([["md5sum", "992ce8a1687cec8c8bd883ec73ca41d1"]]) });
const hello = (channelId, t) => ({ op: "message", channelId, sequence: Number(t), logTime: BigInt(t), publishTime: BigInt(t), data: rosString(`hello ${t}`) });

const cases = {
  // An ordinary file: 30 messages in zstd chunks of about 200 bytes, a
  // metadata record and an attachment between them, every index.
  "chunked-zstd": {
    options: { chunkSize: 200, compressChunk: (data) => ({ compression: "zstd", compressedData: zstd.compress(data) }) },
    write: async (w) => {
      await messages(w, 12);
      await w.addMetadata({ name: "run", metadata: new Map([["operator", "ada"]]) });
      await messages(w, 10, 2_000_000_000n);
      await w.addAttachment({ name: "calib.yaml", mediaType: "text/yaml", logTime: 5n, createTime: 6n, data: enc.encode("k: 1\n") });
      await messages(w, 8, 3_000_000_000n);
    },
  },
  // 20 messages without chunks: the summary indexes none of them, and
  // the file is read in file order.
  "unchunked": {
    options: { useChunks: false },
    write: async (w) => {
      await messages(w, 12);
      await messages(w, 8, 2_000_000_000n);
    },
  },
  // A summary that indexes the chunks but repeats neither schemas nor
  // channels: they are only in the chunks.
  "summary-without-definitions": {
    options: { repeatSchemas: false, repeatChannels: false, chunkSize: 200 },
    write: (w) => messages(w, 30),
  },
  // No chunks; a metadata record and an attachment each after messages.
  // The writer indexes them at the offset of those messages (it has not
  // written them out yet), so McapIndexedReader cannot read them; the
  // data section holds them.
  "unchunked-metadata": {
    options: { useChunks: false },
    write: async (w) => {
      await w.addMetadata({ name: "robot", metadata: new Map([["id", "r1"]]) });
      await messages(w, 6);
      await w.addMetadata({ name: "run", metadata: new Map([["operator", "ada"]]) });
      await messages(w, 4, 2_000_000_000n);
      await w.addAttachment({ name: "calib.yaml", mediaType: "text/yaml", logTime: 5n, createTime: 6n, data: enc.encode("k: 1\n") });
    },
  },
  // A channel registered without messages: the summary lists it and the
  // statistics count it, the data section does not hold it.
  "unused-channel": {
    options: {},
    write: async (w) => {
      const s = await w.registerSchema({ name: "std_msgs/String", encoding: "ros1msg", data: enc.encode(STRING) });
      const c = await w.registerChannel({ topic: "/chatter", schemaId: s, messageEncoding: "ros1", metadata: new Map() });
      const s2 = await w.registerSchema({ name: "geometry_msgs/PointStamped", encoding: "ros1msg", data: enc.encode(POINT_STAMPED) });
      await w.registerChannel({ topic: "/point", schemaId: s2, messageEncoding: "ros1", metadata: new Map() });
      await w.addMessage({ channelId: c, sequence: 0, logTime: 1n, publishTime: 1n, data: rosString("hello") });
    },
  },
  // Times from 2^63 ns (after 2262-04-11): a message with log time
  // 2^64-1 and one with publish time 2^63, between ordinary ones.
  "time-past-2262": {
    options: {},
    write: async (w) => {
      await messages(w, 4);
      const { c1 } = w.baglabChannels;
      await w.addMessage({ channelId: c1, sequence: 100, logTime: 2n ** 64n - 1n, publishTime: 1n, data: rosString("far log") });
      await w.addMessage({ channelId: c1, sequence: 101, logTime: 5n, publishTime: 2n ** 63n, data: rosString("far publish") });
      await messages(w, 2, 2_000_000_000n);
    },
  },
  // A chunk that says its messages span [1, 3], holding one at 2^64-1:
  // only a read of the chunk meets the far time.
  "time-past-2262-in-chunk": {
    records: [{ op: "chunk", start: 1n, end: 3n, records: [stringSchema, chatter(1, "/a"), hello(1, 1), { ...hello(1, 2), logTime: 2n ** 64n - 1n }, hello(1, 3)] }],
  },
  // Channel 1 is /a in the first chunk and /b in the second.
  "channel-redefined": {
    records: [
      { op: "chunk", records: [stringSchema, chatter(1, "/a"), hello(1, 1)] },
      { op: "chunk", records: [stringSchema, chatter(1, "/b"), hello(1, 2)] },
    ],
  },
  // A metadata record inside a chunk.
  "metadata-in-chunk": {
    records: [{ op: "chunk", records: [stringSchema, chatter(1, "/a"), hello(1, 1), { op: "metadata", name: "m", metadata: new Map([["k", "v"]]) }] }],
  },
  // A chunk that says its messages span [5, 6]; they are at 1 and 9.
  "chunk-times-too-narrow": {
    records: [{ op: "chunk", start: 5n, end: 6n, records: [stringSchema, chatter(1, "/a"), hello(1, 1), hello(1, 9)] }],
  },
  // Messages between the chunks of a file with a chunk index.
  "messages-outside-chunks": {
    records: [stringSchema, chatter(1, "/a"), hello(1, 1), { op: "chunk", records: [hello(1, 10), hello(1, 11)] }, hello(1, 12), { op: "chunk", records: [hello(1, 3)] }],
  },
  // Two statistics records in the summary: the same twice, or a second
  // that counts one message fewer.
  "statistics-twice": {
    records: [{ op: "chunk", records: [stringSchema, chatter(1, "/a"), hello(1, 1), hello(1, 2), hello(1, 3)] }],
    extraSummary: (b, st) => b.writeStatistics(st),
  },
  "statistics-differ": {
    records: [{ op: "chunk", records: [stringSchema, chatter(1, "/a"), hello(1, 1), hello(1, 2), hello(1, 3)] }],
    extraSummary: (b, st) => b.writeStatistics({ ...st, messageCount: 2n, messageEndTime: 2n, channelMessageCounts: new Map([[1, 2n]]) }),
  },
  // A metadata record in the summary section.
  "metadata-in-summary": {
    records: [{ op: "chunk", records: [stringSchema, chatter(1, "/a"), hello(1, 1)] }],
    extraSummary: (b) => b.writeMetadata({ name: "m", metadata: new Map([["k", "v"]]) }),
  },
  // A second header record in the data section.
  "header-twice": {
    records: [stringSchema, chatter(1, "/a"), hello(1, 1), { op: "header", profile: "ros1", library: "again" }, hello(1, 2)],
  },
  // A footer record in the data section, before a message.
  "footer-in-data": {
    records: [stringSchema, chatter(1, "/a"), hello(1, 1), { op: "footer" }, hello(1, 2)],
  },
  // A data end record before the last message, and another after it.
  "records-after-data-end": {
    records: [stringSchema, chatter(1, "/a"), hello(1, 1), { op: "dataEnd" }, hello(1, 2)],
  },
  // The same with chunks that have no message indexes.
  "messages-outside-unindexed-chunks": {
    records: [stringSchema, chatter(1, "/a"), hello(1, 1), { op: "chunk", noIndex: true, records: [hello(1, 10), hello(1, 11)] }, hello(1, 12), { op: "chunk", noIndex: true, records: [hello(1, 3)] }],
  },
};

async function main() {
  await zstd.isLoaded;
  const [, , , out, name] = process.argv;
  const c = cases[name];
  if (!c) throw new Error(`unknown case ${name}`);
  if (c.records) {
    fs.writeFileSync(out, records(c.records, c.extraSummary));
    return;
  }
  const chunks = [];
  let pos = 0n;
  const writable = {
    position: () => pos,
    write: async (b) => {
      chunks.push(Buffer.from(b));
      pos += BigInt(b.byteLength);
    },
  };
  const w = new McapWriter({ writable, ...c.options });
  await w.start({ profile: "ros1", library: "mcapwrite" });
  await c.write(w);
  await w.end();
  fs.writeFileSync(out, Buffer.concat(chunks));
}
main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
