// mcap_messages: read an MCAP file with npm @mcap/core (McapIndexedReader,
// log time order) and @foxglove/rosmsg2-serialization, an implementation
// independent of baglab's, and print one JSON line per message:
// {"topic", "log_ns", "stamp_ns" (header.stamp in ns, null when the type's
// first field is not a std_msgs Header), "size", "sha256"}.
// usage: node mcap_messages.cjs NODE_DIR FILE
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { McapIndexedReader } = req("@mcap/core");
const { MessageReader } = req("@foxglove/rosmsg2-serialization");
const { parse } = req("@foxglove/rosmsg");
const zstd = req("@foxglove/wasm-zstd");
const lz4 = req("@foxglove/wasm-lz4");

async function main() {
  await zstd.isLoaded;
  await lz4.isLoaded;
  const bytes = fs.readFileSync(process.argv[3]);
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
  const r = await McapIndexedReader.Initialize({
    readable,
    decompressHandlers: { zstd: (b, n) => zstd.decompress(b, Number(n)), lz4: (b, n) => lz4(b, Number(n)) },
  });
  const readers = new Map();
  const readerOf = (channelId) => {
    if (readers.has(channelId)) return readers.get(channelId);
    const ch = r.channelsById.get(channelId);
    const s = r.schemasById.get(ch.schemaId);
    let rd = null;
    if (ch.messageEncoding === "cdr" && s && s.encoding === "ros2msg") {
      const defs = parse(new TextDecoder().decode(s.data), { ros2: true });
      const first = defs[0].definitions.find((f) => !f.isConstant);
      const hdr = first && !first.isArray && /^std_msgs\/(msg\/)?Header$/.test(first.type);
      rd = { reader: new MessageReader(defs), header: hdr ? first.name : null, topic: ch.topic };
    } else {
      rd = { reader: null, header: null, topic: ch.topic };
    }
    readers.set(channelId, rd);
    return rd;
  };
  const out = [];
  for await (const m of r.readMessages()) {
    const rd = readerOf(m.channelId);
    let stamp = null;
    if (rd.header) {
      const msg = rd.reader.readMessage(m.data);
      const st = msg[rd.header].stamp;
      stamp = (BigInt(st.sec) * 1000000000n + BigInt(st.nanosec)).toString();
    }
    out.push(JSON.stringify({
      topic: rd.topic, log_ns: m.logTime.toString(), stamp_ns: stamp, size: m.data.length,
      sha256: crypto.createHash("sha256").update(m.data).digest("hex"),
    }));
  }
  process.stdout.write(out.join("\n") + "\n");
}
main().catch((e) => { console.error(e); process.exit(1); });
