// Write a ROS 2 MCAP of two Jazzy visualization_msgs/msg/Marker messages
// on /markers with the npm @mcap/core writer and
// @foxglove/rosmsg2-serialization (CDR), the definition Jazzy's as the npm
// @foxglove/rosmsg-msgs-common holds it: the first with its texture
// fields empty, the second with a texture, UV coordinates and a mesh
// file. It prints the messages written, as JSON.
//
//   node texmarker.cjs NODE_DIR OUT.mcap
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");
const nodeDir = path.resolve(process.argv[2]);
const req = createRequire(path.join(nodeDir, "package.json"));
const { McapWriter } = req("@mcap/core");
const { parse } = req("@foxglove/rosmsg");
const { MessageWriter } = req("@foxglove/rosmsg2-serialization");

const DEF = fs.readFileSync(path.join(nodeDir, "node_modules", "@foxglove", "rosmsg-msgs-common", "msgdefs",
  "ros2jazzy", "visualization_msgs", "msg", "Marker.msg"), "utf8");

const base = (id, sec) => ({
  header: { stamp: { sec, nanosec: 5 }, frame_id: "map" },
  ns: "arm", id, type: 10, action: 0,
  pose: { position: { x: 1.5, y: -2, z: 0.25 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
  scale: { x: 1, y: 1, z: 1 },
  color: { r: 0.25, g: 0, b: 0, a: 0.5 },
  lifetime: { sec: 2, nanosec: 500 },
  frame_locked: true,
  points: [{ x: 1, y: 2, z: 3 }],
  colors: [],
  texture_resource: "",
  texture: { header: { stamp: { sec: 0, nanosec: 0 }, frame_id: "" }, format: "", data: new Uint8Array(0) },
  uv_coordinates: [],
  text: "gripper",
  mesh_resource: "package://arm/grip.dae",
  mesh_file: { filename: "", data: new Uint8Array(0) },
  mesh_use_embedded_materials: true,
});

(async () => {
  const plain = base(7, 1700000001);
  const textured = base(8, 1700000002);
  textured.texture_resource = "embedded://grip.png";
  textured.texture.format = "png";
  textured.texture.data = new Uint8Array([137, 80, 78, 71]);
  textured.uv_coordinates = [{ u: 0.5, v: 0.25 }];
  textured.mesh_file = { filename: "grip.dae", data: new Uint8Array([1, 2, 3]) };

  const chunks = [];
  const writable = { position: () => BigInt(chunks.reduce((n, c) => n + c.length, 0)), write: async (b) => { chunks.push(Buffer.from(b)); } };
  const w = new McapWriter({ writable });
  await w.start({ profile: "ros2", library: "texmarker.cjs" });
  const schemaId = await w.registerSchema({ name: "visualization_msgs/msg/Marker", encoding: "ros2msg", data: Buffer.from(DEF) });
  const channelId = await w.registerChannel({ topic: "/markers", messageEncoding: "cdr", schemaId, metadata: new Map() });
  const writer = new MessageWriter(parse(DEF, { ros2: true }));
  let seq = 0;
  for (const m of [plain, textured]) {
    const t = BigInt(m.header.stamp.sec) * 1000000000n;
    await w.addMessage({ channelId, sequence: seq++, logTime: t, publishTime: t, data: writer.writeMessage(m) });
  }
  await w.end();
  fs.writeFileSync(process.argv[3], Buffer.concat(chunks));
  process.stdout.write(JSON.stringify([plain, textured], (k, v) => (v instanceof Uint8Array ? Array.from(v) : v)));
})().catch((e) => { console.error(e); process.exit(1); });
