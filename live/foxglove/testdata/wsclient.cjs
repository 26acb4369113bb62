// wsclient: subscribe to every channel of a Foxglove WebSocket server with
// Foxglove's npm client (@foxglove/ws-protocol's FoxgloveClient over npm ws,
// subprotocol foxglove.websocket.v1) and decode each message from the
// schema the server advertised: ros1 with @foxglove/rosmsg-serialization,
// cdr with @foxglove/rosmsg2-serialization, definitions parsed by
// @foxglove/rosmsg. Each decoded message is written back with the same
// library's MessageWriter; "same" says whether that gives the bytes
// received (the definition describes the bytes exactly). A message with a
// non-ASCII string gets "same": "non-ascii" instead: rosmsg2-serialization
// 3.1's MessageWriter sizes CDR strings by their UTF-16 length, not their
// UTF-8 bytes ("näpfchen" written with length 9 for its 10 bytes + NUL).
// usage: node wsclient.cjs NODE_DIR URL COUNT TIMEOUT_MS
// Prints NDJSON: {"serverInfo":...}, {"channel":...} per channel, then
// {"topic","logTime","message","same"} per message, then {"done":true}
// after COUNT messages or {"timeout":true}.
"use strict";
const path = require("path");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { FoxgloveClient } = req("@foxglove/ws-protocol");
const WebSocket = req("ws");
const { parse } = req("@foxglove/rosmsg");
const ros1 = req("@foxglove/rosmsg-serialization");
const ros2 = req("@foxglove/rosmsg2-serialization");

const [url, count, timeoutMs] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5])];

const out = (v) =>
  process.stdout.write(
    JSON.stringify(v, (_k, x) =>
      typeof x === "bigint" ? x.toString() : ArrayBuffer.isView(x) ? Array.from(x) : x,
    ) + "\n",
  );

// exit once stdout has taken every line: on a pipe, process.exit would
// drop what is still queued (a large message's line past 64 KiB).
const exit = () => process.stdout.write("", () => process.exit(0));

const nonASCII = (v) =>
  typeof v === "string"
    ? /[^\x00-\x7f]/.test(v)
    : v !== null && typeof v === "object" && !ArrayBuffer.isView(v) && Object.values(v).some(nonASCII);

const client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
const subs = new Map(); // subscription id -> {channel, reader, writer}
let n = 0;
const timer = setTimeout(() => {
  out({ timeout: true, received: n });
  exit();
}, timeoutMs);

client.on("error", (e) => {
  out({ error: String(e) });
});
client.on("serverInfo", (info) => out({ serverInfo: info }));
client.on("advertise", (channels) => {
  for (const ch of channels) {
    out({ channel: ch });
    const defs = parse(ch.schema, { ros2: ch.encoding === "cdr" });
    const lib = ch.encoding === "cdr" ? ros2 : ros1;
    const id = client.subscribe(ch.id);
    subs.set(id, { channel: ch, reader: new lib.MessageReader(defs), writer: new lib.MessageWriter(defs) });
  }
});
client.on("message", ({ subscriptionId, timestamp, data }) => {
  const s = subs.get(subscriptionId);
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let message, same;
  try {
    message = s.reader.readMessage(bytes);
    same = Buffer.from(s.writer.writeMessage(message)).equals(Buffer.from(bytes));
    if (!same && nonASCII(message)) same = "non-ascii";
  } catch (e) {
    out({ topic: s.channel.topic, logTime: timestamp, decodeError: String(e) });
    return;
  }
  out({ topic: s.channel.topic, logTime: timestamp, message, same });
  if (++n === count) {
    clearTimeout(timer);
    out({ done: true });
    client.close();
    exit();
  }
});
