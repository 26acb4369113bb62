// Write the messages bagjson.py dumped (stdin) as a ROS2 MCAP file with the
// npm @mcap/core writer and @foxglove/rosmsg2-serialization (CDR):
// node ros2mcap.js NODE_DIR OUT.mcap [CDR.jsonl] < messages.jsonl
// /tf and /tf_static as tf2_msgs/msg/TFMessage, /pose as
// geometry_msgs/msg/PoseStamped, schemas in ros2msg. CDR.jsonl, when
// given, receives each message as {"topic","type","log","data" (base64),
// "definition"}, for db3write.py.
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { McapWriter } = req("@mcap/core");
const { parse } = req("@foxglove/rosmsg");
const { MessageWriter } = req("@foxglove/rosmsg2-serialization");

const SEP = "================================================================================\n";
const COMMON = SEP + "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n" +
  SEP + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n";
const TF = "geometry_msgs/TransformStamped[] transforms\n" +
  SEP + "MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform\n" + COMMON +
  SEP + "MSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation\n" +
  SEP + "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n" +
  SEP + "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n";
const POSE = "std_msgs/Header header\ngeometry_msgs/Pose pose\n" + COMMON +
  SEP + "MSG: geometry_msgs/Pose\ngeometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n" +
  SEP + "MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n" +
  SEP + "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n";

const stamp = (ns) => ({ sec: Number(BigInt(ns) / 1000000000n), nanosec: Number(BigInt(ns) % 1000000000n) });
const vec = (a) => ({ x: a[0], y: a[1], z: a[2] });
const quat = (a) => ({ x: a[0], y: a[1], z: a[2], w: a[3] });

(async () => {
  const lines = fs.readFileSync(0, "utf8").trim().split("\n")
    .map((l) => JSON.parse(l.replace(/("(?:log|stamp)"): (\d+)/g, '$1: "$2"')));
  const chunks = [];
  const writable = { position: () => BigInt(chunks.reduce((n, c) => n + c.length, 0)), write: async (b) => { chunks.push(Buffer.from(b)); } };
  const w = new McapWriter({ writable, chunkSize: 64 * 1024 });
  await w.start({ profile: "ros2", library: "ros2mcap.js" });
  const tfSchema = await w.registerSchema({ name: "tf2_msgs/msg/TFMessage", encoding: "ros2msg", data: Buffer.from(TF) });
  const poseSchema = await w.registerSchema({ name: "geometry_msgs/msg/PoseStamped", encoding: "ros2msg", data: Buffer.from(POSE) });
  const tfWriter = new MessageWriter(parse(TF, { ros2: true }));
  const poseWriter = new MessageWriter(parse(POSE, { ros2: true }));
  const channels = new Map();
  const dump = [];
  let seq = 0;
  for (const m of lines) {
    const isTF = m.transforms !== undefined;
    if (!channels.has(m.topic)) {
      channels.set(m.topic, await w.registerChannel({ topic: m.topic, messageEncoding: "cdr", schemaId: isTF ? tfSchema : poseSchema, metadata: new Map() }));
    }
    const data = isTF
      ? tfWriter.writeMessage({ transforms: m.transforms.map((x) => ({ header: { stamp: stamp(x.stamp), frame_id: x.parent }, child_frame_id: x.child, transform: { translation: vec(x.t), rotation: quat(x.q) } })) })
      : poseWriter.writeMessage({ header: { stamp: stamp(m.stamp), frame_id: m.frame }, pose: { position: vec(m.p), orientation: quat(m.q) } });
    const t = BigInt(m.log);
    await w.addMessage({ channelId: channels.get(m.topic), sequence: seq++, logTime: t, publishTime: t, data });
    dump.push(JSON.stringify({ topic: m.topic, type: isTF ? "tf2_msgs/msg/TFMessage" : "geometry_msgs/msg/PoseStamped",
      log: m.log, data: Buffer.from(data).toString("base64"), definition: isTF ? TF : POSE }));
  }
  await w.end();
  fs.writeFileSync(process.argv[3], Buffer.concat(chunks));
  if (process.argv[4]) fs.writeFileSync(process.argv[4], dump.join("\n") + "\n");
})().catch((e) => { console.error(e); process.exit(1); });
