// Generates the CDR golden fixtures with an independent implementation:
// @foxglove/rosmsg parses the definitions, @foxglove/rosmsg2-serialization's
// MessageWriter serializes seeded-random instances and its MessageReader
// decodes the bytes back; that decoded value is written as JSON.
//
// Usage (from the repository root, after `npm ci --prefix testdata/node`):
//
//	node testdata/golden/cdr/gen/gen.mjs testdata/golden/cdr
//
// For each case NAME it writes NAME.cdr (the bytes), NAME.msg (the
// definition bundle given to the peer) and NAME.json (the peer's decoded
// value), plus index.json listing every case. JSON conventions, chosen so
// that nothing is lost:
//   - int64/uint64 values (JS bigint) are decimal strings;
//   - uint8/char/byte arrays (Uint8Array) are base64 strings;
//   - other typed arrays are plain arrays (BigInt64Array elements as strings);
//   - float NaN, +Inf, -Inf and negative zero are the strings "NaN",
//     "Infinity", "-Infinity" and "-0"; other floats are JSON numbers (the
//     shortest text that reads back as the same double);
//   - builtin_interfaces Time/Duration are {"sec","nanosec"} objects.
//
// Big-endian cases: MessageWriter always asks CdrWriter for CDR_LE, so the
// script swaps in a CdrWriter subclass that passes kind CDR_BE (the peer's
// own big-endian code path) and reads the result back with MessageReader.
//
// The peer's CdrWriter.string sizes strings by UTF-16 length, which is wrong
// for non-ASCII text, so random strings are ASCII; the "utf8_*" cases are
// laid out by hand here (uint32 length + UTF-8 bytes + NUL via CdrWriter
// primitives) and only decoded by the peer.
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../../../node/package.json"));
const { parse } = require("@foxglove/rosmsg");
const { MessageWriter, MessageReader } = require("@foxglove/rosmsg2-serialization");
const cdrWriterModule = require("@foxglove/cdr/dist/CdrWriter");
const { CdrWriter, EncapsulationKind } = require("@foxglove/cdr");

const outDir = process.argv[2];
if (!outDir) {
  console.error("usage: node gen.mjs OUTDIR");
  process.exit(2);
}
const msgsRoot = process.argv[3] ?? path.join(here, "../../../../decode/msgdef/defs/ros2"); // the embedded copies of the definitions

// ---------------------------------------------------------------- PRNG
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------- definitions
const SEP = "\n================================================================================\n";

function readMsg(rel) {
  return fs.readFileSync(path.join(msgsRoot, rel), "utf8");
}

// splitSrv splits .srv text on the first line that is exactly "---".
function splitSrv(text) {
  const lines = text.split("\n");
  const i = lines.findIndex((l) => l.trim() === "---");
  return [lines.slice(0, i).join("\n"), lines.slice(i + 1).join("\n")];
}

// bundle builds a MSG: bundle: the root text, then each dependency.
function bundle(root, deps) {
  let s = root;
  for (const [name, text] of deps) {
    s += SEP + "MSG: " + name + "\n" + text;
  }
  return s;
}

const durationText = readMsg("builtin_interfaces/msg/Duration.msg");
const timeText = readMsg("builtin_interfaces/msg/Time.msg");
const seiText = readMsg("service_msgs/msg/ServiceEventInfo.msg");
const durDep = ["builtin_interfaces/Duration", durationText];
const timeDep = ["builtin_interfaces/Time", timeText];

const types = []; // {name, text}
function addType(name, text) {
  types.push({ name, text });
}

addType("builtin_interfaces/Time", timeText);
addType("builtin_interfaces/Duration", durationText);
addType("service_msgs/ServiceEventInfo", bundle(seiText, [timeDep]));

for (const srv of ["Query", "AddPlugin", "RemovePlugin", "RemoveQuery"]) {
  const [req, resp] = splitSrv(readMsg(`remap_msgs/srv/${srv}.srv`));
  const deps = (t) => (t.includes("builtin_interfaces/Duration") ? [durDep] : []);
  addType(`remap_msgs/${srv}_Request`, bundle(req, deps(req)));
  addType(`remap_msgs/${srv}_Response`, bundle(resp, deps(resp)));
  // The service event rosidl generates for service introspection.
  const ev = [
    "service_msgs/ServiceEventInfo info",
    `remap_msgs/${srv}_Request[<=1] request`,
    `remap_msgs/${srv}_Response[<=1] response`,
    "",
  ].join("\n");
  addType(
    `remap_msgs/${srv}_Event`,
    bundle(ev, [
      ["service_msgs/ServiceEventInfo", seiText],
      timeDep,
      [`remap_msgs/${srv}_Request`, req],
      [`remap_msgs/${srv}_Response`, resp],
      ...(req.includes("Duration") || resp.includes("Duration") ? [durDep] : []),
    ]),
  );
}

// Edge-case definitions of our own (package cdr_test).
const itemText = "string name\nint32 v\nfloat64 x\nstring[] tags\n";
const smallText = "uint8 x\nfloat64 y\n";
const stringListText = "string[] items\n";
const emptyText = "# no fields\nint32 SOME_CONSTANT=7\n";

addType(
  "cdr_test/AllPrimitives",
  `# every primitive, scalar and unbounded sequence
int32 ANSWER=42
string GREETING="hi"
bool b
byte by
char ch
int8 i8
uint8 u8
int16 i16
uint16 u16
int32 i32
uint32 u32
int64 i64
uint64 u64
float32 f32
float64 f64
string s
bool[] bs
byte[] bys
char[] chs
int8[] i8s
uint8[] u8s
int16[] i16s
uint16[] u16s
int32[] i32s
uint32[] u32s
int64[] i64s
uint64[] u64s
float32[] f32s
float64[] f64s
string[] ss
`,
);
addType("cdr_test/NestedStrings", bundle("StringList[] lists\nstring[] flat\nStringList one\n", [["cdr_test/StringList", stringListText]]));
addType("cdr_test/StructsWithStrings", bundle("Item[] items\nstring after\n", [["cdr_test/Item", itemText]]));
addType(
  "cdr_test/Bounded",
  bundle(
    "string<=8 s\nint32[<=4] b\nstring<=5[<=3] bs\nItem[<=2] bi\nuint8[<=6] blob\nfloat64[<=3] fs\n",
    [["cdr_test/Item", itemText]],
  ),
);
addType(
  "cdr_test/Fixed",
  bundle(
    "uint8 first\nint16[3] a\nfloat64[2] b\nstring[2] s\nItem[2] items\nuint8[5] blob\nbool[3] flags\nint64[2] c\nbuiltin_interfaces/Time[2] stamps\n",
    [["cdr_test/Item", itemText], timeDep],
  ),
);
addType(
  "cdr_test/NestedAlign",
  bundle("float64 a\nSmall s\nint64 c\nSmall[] ss\nuint8 d\nSmall[2] fs\n", [["cdr_test/Small", smallText]]),
);
addType(
  "cdr_test/Empties",
  bundle("Empty e\nuint8 x\nEmpty[] es\nfloat64[] f\nuint8 y\nint16[] h\nuint8 z\nEmpty[2] fe\n", [["cdr_test/Empty", emptyText]]),
);
addType(
  "cdr_test/Times",
  bundle("builtin_interfaces/Time t\nbuiltin_interfaces/Duration d\nuint8 x\nbuiltin_interfaces/Time[] ts\nbuiltin_interfaces/Duration[<=2] ds\n", [timeDep, durDep]),
);
// Alignment: k uint8 fields, then the value, then a trailing uint8.
const alignKinds = ["int16", "uint16", "int32", "float32", "int64", "uint64", "float64"];
for (const k of alignKinds) {
  for (let pad = 0; pad < 8; pad++) {
    let text = "";
    for (let i = 0; i < pad; i++) text += `uint8 p${i}\n`;
    text += `${k} v\nuint8 tail\n${k}[] vs\n`;
    addType(`cdr_test/Align_${k}_${pad}`, text);
  }
}

// ---------------------------------------------------------------- random values
function makeGen(defs, rnd) {
  const byName = new Map(defs.map((d) => [d.name ?? "", d.definitions]));
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = (xs) => xs[int(0, xs.length - 1)];
  const asciiString = (max) => {
    const n = int(0, max);
    let s = "";
    for (let i = 0; i < n; i++) s += String.fromCharCode(int(32, 126));
    return s;
  };
  const big = (bits, signed) => {
    let v = 0n;
    for (let i = 0; i < bits / 16; i++) v = (v << 16n) | BigInt(int(0, 0xffff));
    if (rnd() < 0.2) v = pick([0n, 1n, (1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1)]);
    return signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
  };
  const f64 = () => {
    if (rnd() < 0.15) return pick([0, -0, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE, 1e-300]);
    return (rnd() - 0.5) * 10 ** int(-10, 12);
  };
  const f32 = () => Math.fround(f64());
  const prim = (type, bound) => {
    switch (type) {
      case "bool": return rnd() < 0.5;
      case "int8": return int(-128, 127);
      case "uint8": return int(0, 255);
      case "int16": return int(-32768, 32767);
      case "uint16": return int(0, 65535);
      case "int32": return int(-(2 ** 31), 2 ** 31 - 1);
      case "uint32": return int(0, 2 ** 32 - 1);
      case "int64": return big(64, true);
      case "uint64": return big(64, false);
      case "float32": return f32();
      case "float64": return f64();
      case "string": return asciiString(bound ?? 12);
      case "time":
      case "duration": return { sec: int(-(2 ** 31), 2 ** 31 - 1), nanosec: int(0, 999999999) };
    }
    throw new Error("no generator for " + type);
  };
  const typed = {
    int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
    int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
    float32: Float32Array, float64: Float64Array,
  };
  const value = (defsOf, empty) => {
    const msg = {};
    for (const f of defsOf) {
      if (f.isConstant) continue;
      const one = () => (f.isComplex ? value(byName.get(f.type), empty) : empty ? zero(f.type) : prim(f.type, f.upperBound));
      if (f.isArray) {
        const n = f.arrayLength ?? (empty ? 0 : int(0, f.arrayUpperBound ?? 4));
        const xs = Array.from({ length: n }, one);
        msg[f.name] = !f.isComplex && typed[f.type] && rnd() < 0.5 ? new typed[f.type](xs) : xs;
      } else {
        msg[f.name] = one();
      }
    }
    return msg;
  };
  const zero = (type) => ({ bool: false, string: "", int64: 0n, uint64: 0n, time: { sec: 0, nanosec: 0 }, duration: { sec: 0, nanosec: 0 } })[type] ?? 0;
  return (empty) => value(defs[0].definitions, empty);
}

// ---------------------------------------------------------------- JSON
function toJSON(v) {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "NaN";
    if (v === Infinity) return "Infinity";
    if (v === -Infinity) return "-Infinity";
    if (Object.is(v, -0)) return "-0";
    return v;
  }
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
  if (ArrayBuffer.isView(v)) return Array.from(v, toJSON);
  if (Array.isArray(v)) return v.map(toJSON);
  if (v !== null && typeof v === "object") {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = toJSON(x);
    return o;
  }
  return v;
}

// ---------------------------------------------------------------- writing
class BigEndianCdrWriter extends CdrWriter {
  constructor(options = {}) {
    super({ ...options, kind: EncapsulationKind.CDR_BE });
  }
}

function serialize(defs, msg, bigEndian) {
  const saved = cdrWriterModule.CdrWriter;
  if (bigEndian) cdrWriterModule.CdrWriter = BigEndianCdrWriter;
  try {
    return new MessageWriter(defs).writeMessage(msg);
  } finally {
    cdrWriterModule.CdrWriter = saved;
  }
}

fs.mkdirSync(outDir, { recursive: true });
for (const f of fs.readdirSync(outDir)) {
  if (/\.(cdr|json|msg)$/.test(f)) fs.unlinkSync(path.join(outDir, f));
}
const index = [];
let total = 0;

function emit(name, typeName, text, bytes, source) {
  const defs = parse(text, { ros2: true });
  const reader = new MessageReader(defs);
  const decoded = reader.readMessage(bytes);
  if (reader.lastReadHadTrailingBytes()) throw new Error(`${name}: peer left trailing bytes`);
  const be = bytes[1] === EncapsulationKind.CDR_BE;
  fs.writeFileSync(path.join(outDir, name + ".cdr"), bytes);
  fs.writeFileSync(path.join(outDir, name + ".msg"), text);
  fs.writeFileSync(path.join(outDir, name + ".json"), JSON.stringify(toJSON(decoded), null, 1) + "\n");
  index.push({ name, type: typeName, big_endian: be, bytes_from: source });
  total += bytes.length;
}

const beTypes = new Set([
  "remap_msgs/Query_Request", "remap_msgs/Query_Event", "cdr_test/AllPrimitives", "cdr_test/Fixed",
  "cdr_test/NestedAlign", "service_msgs/ServiceEventInfo", "cdr_test/Align_int64_3", "cdr_test/Align_int16_1",
  "cdr_test/Times", "cdr_test/Bounded",
]);
let seed = 1;
for (const { name, text } of types) {
  const defs = parse(text, { ros2: true });
  const base = name.replace("/", "__");
  const isAlign = name.includes("/Align_");
  const seeds = isAlign ? 1 : 3;
  for (let i = 0; i < seeds; i++) {
    const gen = makeGen(defs, mulberry32(seed++));
    const msg = gen(i === 0 && !isAlign);
    const tag = i === 0 && !isAlign ? "zero" : `r${i}`;
    emit(`${base}.${tag}`, name, text, serialize(defs, msg, false), "MessageWriter");
    if (beTypes.has(name) && i <= 1) {
      emit(`${base}.${tag}.be`, name, text, serialize(defs, msg, true), "MessageWriter(CDR_BE)");
    }
  }
}

// Service events with exactly one of request/response, as introspection writes them.
{
  const t = types.find((x) => x.name === "remap_msgs/Query_Event");
  const defs = parse(t.text, { ros2: true });
  const gen = makeGen(defs, mulberry32(seed++));
  const ev = gen(false);
  const req = makeGen(defs, mulberry32(seed++))(false);
  ev.info.event_type = 0;
  ev.request = req.request.length ? req.request : [makeGen(parse(types.find((x) => x.name === "remap_msgs/Query_Request").text, { ros2: true }), mulberry32(seed++))(false)];
  ev.response = [];
  emit("remap_msgs__Query_Event.request_sent", t.name, t.text, serialize(defs, ev, false), "MessageWriter");
}

// Hand-laid strings (see the header comment): a message "string s,
// string[] ss, uint8 tail" holding strs[0] in s and the rest in ss, each
// a uint32 length, its bytes and a NUL, laid with CdrWriter primitives.
function handStrings(name, strs, tail, be) {
  const w = new CdrWriter({ kind: be ? EncapsulationKind.CDR_BE : EncapsulationKind.CDR_LE });
  const put = (b) => {
    w.uint32(b.length + 1);
    w.uint8Array(b);
    w.uint8(0);
  };
  put(strs[0]);
  w.uint32(strs.length - 1);
  for (const b of strs.slice(1)) put(b);
  w.uint8(tail);
  const type = name.replace("__", "/").replace(/\..*/, "");
  emit(name, type, "string s\nstring[] ss\nuint8 tail\n", w.data, "hand (CdrWriter primitives)");
}

// UTF-8 strings.
{
  const strs = ["héllo wörld", "日本語", "🤖 robot", "", "a"].map((s) => Buffer.from(s, "utf8"));
  handStrings("cdr_test__Utf8.le", strs, 200, false);
  handStrings("cdr_test__Utf8.be", strs, 201, true);
}

// Strings that are not valid UTF-8 (Latin-1, a cut multi-byte character, a
// surrogate, stray continuation bytes): the peer's TextDecoder reads each
// ill-formed sequence as U+FFFD.
handStrings("cdr_test__InvalidUtf8.le", [
  Buffer.from("Caf\xe9", "latin1"),
  Buffer.from([0x61, 0xe2, 0x82, 0x7a, 0xff]),
  Buffer.from([0xf0, 0x9f, 0x98, 0x20, 0x63, 0x75, 0x74]),
  Buffer.from([0xed, 0xa0, 0x80, 0x80, 0xbf]),
  Buffer.from("ok", "utf8"),
], 202, false);

index.sort((a, b) => (a.name < b.name ? -1 : 1));
fs.writeFileSync(path.join(outDir, "index.json"), JSON.stringify(index, null, 1) + "\n");
console.error(`${index.length} cases, ${total} bytes of CDR`);
