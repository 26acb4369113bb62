// mcapwrite: write an MCAP file with the npm @mcap/core writer (an
// independent implementation) for one named case, with real ROS1 payloads
// (std_msgs/String, geometry_msgs/PointStamped serialized by hand).
// usage: node mcapwrite.cjs NODE_DIR OUT CASE
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { McapWriter } = req("@mcap/core");

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

const cases = {
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
};

async function main() {
  const [, , , out, name] = process.argv;
  const c = cases[name];
  if (!c) throw new Error(`unknown case ${name}`);
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
