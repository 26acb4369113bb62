// mcapdump: read an MCAP file with the npm @mcap/core reader (an independent
// implementation) and print its content as JSON on stdout.
// usage: node mcapdump.cjs NODE_DIR FILE [stream|stream-partial|indexed]
// With "stream" the records are those McapStreamReader reads in file order
// (for files without a usable index); the header, schemas, channels,
// messages, attachments and metadata are given, the index fields are not.
// "stream-partial" is "stream" for a file McapStreamReader may refuse: the
// records it read before it threw are given, with its error in "error"
// (and "done" false). "indexed" reads through McapIndexedReader only,
// without the streaming pass that checks every CRC (and that refuses,
// for one, a footer record in the data section).
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { McapIndexedReader, McapStreamReader } = req("@mcap/core");
const zstd = req("@foxglove/wasm-zstd");
const lz4 = req("@foxglove/wasm-lz4");

const hex = (u8) => Buffer.from(u8).toString("hex");

const schema = (s) => ({ id: s.id, name: s.name, encoding: s.encoding, data: hex(s.data) });
const channel = (c) => ({ id: c.id, schemaId: c.schemaId, topic: c.topic, messageEncoding: c.messageEncoding, metadata: Object.fromEntries(c.metadata) });
const message = (m) => ({ channelId: m.channelId, sequence: m.sequence, logTime: m.logTime.toString(), publishTime: m.publishTime.toString(), data: hex(m.data) });
const attachment = (a) => ({ name: a.name, mediaType: a.mediaType, logTime: a.logTime.toString(), createTime: a.createTime.toString(), data: hex(a.data) });
const metadata = (m) => ({ name: m.name, metadata: Object.fromEntries(m.metadata) });

async function main() {
  await zstd.isLoaded;
  await lz4.isLoaded;
  const decompressHandlers = {
    zstd: (buf, size) => zstd.decompress(buf, Number(size)),
    lz4: (buf, size) => lz4(buf, Number(size)),
  };
  const bytes = fs.readFileSync(process.argv[3]);
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
  const out = { messages: [], schemas: [], channels: [], attachments: [], metadata: [] };
  const mode = process.argv[4];
  if (mode === "stream" || mode === "stream-partial") {
    const sr = new McapStreamReader({ decompressHandlers, validateCrcs: true });
    sr.append(bytes);
    try {
      for (let rec; (rec = sr.nextRecord()); ) {
        if (rec.type === "Header") out.header = { profile: rec.profile, library: rec.library };
        else if (rec.type === "Schema") out.schemas.push(schema(rec));
        else if (rec.type === "Channel") out.channels.push(channel(rec));
        else if (rec.type === "Message") out.messages.push(message(rec));
        else if (rec.type === "Attachment") out.attachments.push(attachment(rec));
        else if (rec.type === "Metadata") out.metadata.push(metadata(rec));
      }
      if (!sr.done()) throw new Error("stream reader did not reach the end");
    } catch (e) {
      if (mode === "stream") throw e;
      out.error = String(e && e.message ? e.message : e);
    }
    out.done = sr.done();
    out.streamMessageCount = out.messages.length;
    process.stdout.write(JSON.stringify(out));
    return;
  }
  const r = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  out.header = r.header;
  out.statistics = r.statistics
    ? {
        messageCount: r.statistics.messageCount.toString(),
        channelCount: r.statistics.channelCount,
        chunkCount: r.statistics.chunkCount,
        attachmentCount: r.statistics.attachmentCount,
        metadataCount: r.statistics.metadataCount,
        start: r.statistics.messageStartTime.toString(),
        end: r.statistics.messageEndTime.toString(),
        channelMessageCounts: Object.fromEntries([...r.statistics.channelMessageCounts].map(([k, v]) => [k, v.toString()])),
      }
    : null;
  out.compressions = [...new Set(r.chunkIndexes.map((c) => c.compression))].sort();
  out.messageIndexChannels = r.chunkIndexes.reduce((n, c) => n + c.messageIndexOffsets.size, 0);
  for (const s of r.schemasById.values()) out.schemas.push(schema(s));
  for (const c of r.channelsById.values()) out.channels.push(channel(c));
  for await (const m of r.readMessages()) out.messages.push(message(m));
  for await (const a of r.readAttachments()) out.attachments.push(attachment(a));
  for await (const m of r.readMetadata()) out.metadata.push(metadata(m));
  if (mode === "indexed") {
    process.stdout.write(JSON.stringify(out));
    return;
  }
  // A streaming pass validates every CRC (chunks, data section, summary).
  const sr = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  sr.append(bytes);
  let n = 0;
  for (let rec; (rec = sr.nextRecord()); ) if (rec.type === "Message") n++;
  if (!sr.done()) throw new Error("stream reader did not reach the end");
  out.streamMessageCount = n;
  process.stdout.write(JSON.stringify(out));
}
main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
