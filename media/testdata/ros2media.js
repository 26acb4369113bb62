// Write ROS 2 media messages as an MCAP file with the npm @mcap/core writer
// and @foxglove/rosmsg2-serialization (CDR), independent of baglab's
// encoder: node ros2media.js NODE_DIR OUT.mcap
// /cam sensor_msgs/msg/Image bgr8 3x2 (rows of 10 bytes, 1 of padding),
// /depth Image mono16 2x2 little-endian, /cloud sensor_msgs/msg/PointCloud2
// (x y z float32, 2 points), /jpeg sensor_msgs/msg/CompressedImage.
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { McapWriter } = req("@mcap/core");
const { parse } = req("@foxglove/rosmsg");
const { MessageWriter } = req("@foxglove/rosmsg2-serialization");

const SEP = "================================================================================\n";
const HEADER = SEP + "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n" +
  SEP + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n";
const IMAGE = "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n" + HEADER;
const COMPRESSED = "std_msgs/Header header\nstring format\nuint8[] data\n" + HEADER;
const CLOUD = "std_msgs/Header header\nuint32 height\nuint32 width\nsensor_msgs/PointField[] fields\nbool is_bigendian\n" +
  "uint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n" + HEADER +
  SEP + "MSG: sensor_msgs/PointField\nuint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\nuint8 INT32=5\nuint8 UINT32=6\n" +
  "uint8 FLOAT32=7\nuint8 FLOAT64=8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n";

const header = (i) => ({ stamp: { sec: 1714564800 + i, nanosec: 7 }, frame_id: "camera" });
(async () => {
  const chunks = [];
  const writable = { position: () => BigInt(chunks.reduce((n, c) => n + c.length, 0)), write: async (b) => { chunks.push(Buffer.from(b)); } };
  const w = new McapWriter({ writable, chunkSize: 64 * 1024 });
  await w.start({ profile: "ros2", library: "ros2media.js" });
  const types = { "sensor_msgs/msg/Image": IMAGE, "sensor_msgs/msg/CompressedImage": COMPRESSED, "sensor_msgs/msg/PointCloud2": CLOUD };
  const schemas = {}, writers = {};
  for (const [name, def] of Object.entries(types)) {
    schemas[name] = await w.registerSchema({ name, encoding: "ros2msg", data: Buffer.from(def) });
    writers[name] = new MessageWriter(parse(def, { ros2: true }));
  }
  const cloud = Buffer.alloc(24);
  [1.5, -2, 3.25, 4, 5.5, -6].forEach((v, i) => cloud.writeFloatLE(v, 4 * i));
  const msgs = [
    ["/cam", "sensor_msgs/msg/Image", { header: header(1), height: 2, width: 3, encoding: "bgr8", is_bigendian: 0, step: 10,
      data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0]) }],
    ["/depth", "sensor_msgs/msg/Image", { header: header(2), height: 2, width: 2, encoding: "mono16", is_bigendian: 0, step: 4,
      data: Uint8Array.from([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0xff, 0xfe]) }],
    ["/cloud", "sensor_msgs/msg/PointCloud2", { header: header(3), height: 1, width: 2,
      fields: ["x", "y", "z"].map((name, i) => ({ name, offset: 4 * i, datatype: 7, count: 1 })),
      is_bigendian: false, point_step: 12, row_step: 24, data: Uint8Array.from(cloud), is_dense: true }],
    ["/jpeg", "sensor_msgs/msg/CompressedImage", { header: header(4), format: "jpeg", data: Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) }],
  ];
  let seq = 0;
  for (const [topic, type, msg] of msgs) {
    const channelId = await w.registerChannel({ topic, messageEncoding: "cdr", schemaId: schemas[type], metadata: new Map() });
    const t = BigInt(1714564800 + seq + 1) * 1000000000n;
    await w.addMessage({ channelId, sequence: seq++, logTime: t, publishTime: t, data: writers[type].writeMessage(msg) });
  }
  await w.end();
  fs.writeFileSync(process.argv[3], Buffer.concat(chunks));
})().catch((e) => { console.error(e); process.exit(1); });
