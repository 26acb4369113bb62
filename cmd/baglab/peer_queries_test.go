package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// peerQueries writes an MCAP file as rosbag2 records ROS2 service
// introspection of remap's Query service — npm @mcap/core writes the file,
// @foxglove/rosmsg2-serialization the CDR of each remap_msgs/srv/Query_Event
// — and prints the queries analysis computed in plain JS from the calls it
// drew, following the documented meaning (analyze --help, the doc comments
// of analysis.Queries and QueryCall):
//
//   - a call is one (client_gid, sequence_number); its request and response
//     are those any of its events carries; its log time its earliest
//     event's;
//   - its latency runs from REQUEST_SENT to RESPONSE_RECEIVED ("client"),
//     else from REQUEST_RECEIVED to RESPONSE_SENT ("server"), else from the
//     request event seen to the response event seen ("mixed");
//   - per scope (all, each query id — "" for calls whose request was not
//     recorded — and each pattern, a call counted once per pattern it
//     names): calls, responses, successes, their share of the responses, and
//     the latencies' n, mean, min, p50, p95 (linear interpolation, numpy's
//     default) and max; errors: the error_msg of calls answered with
//     success false, most frequent first.
//
// The server records its events with contents; client A too, client B
// metadata only (no request or response), client C nothing. Some calls get
// no answer; the recording starts during one call; the recorder drops an
// event now and then.
const peerQueries = `
const path = require("path");
const fs = require("fs");
const { createRequire } = require("module");
const req = createRequire(path.join(path.resolve(process.argv[1]), "package.json"));
const { McapWriter } = req("@mcap/core");
const { parse } = req("@foxglove/rosmsg");
const { MessageWriter } = req("@foxglove/rosmsg2-serialization");

const REQ = "string[] patterns\nstring[] vars\nstring[] models\nbool dynamic\nbuiltin_interfaces/Duration duration\n" +
  "builtin_interfaces/Duration frequency\nbool publish_tf\nstring id\n";
const RESP = "bool success\nstring json\nstring error_msg\n";
const SEP = "================================================================================\n";
const EVENT = "service_msgs/ServiceEventInfo info\nremap_msgs/Query_Request[<=1] request\nremap_msgs/Query_Response[<=1] response\n" +
  SEP + "MSG: service_msgs/ServiceEventInfo\nuint8 event_type\nbuiltin_interfaces/Time stamp\nuint8[16] client_gid\nint64 sequence_number\n" +
  SEP + "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n" +
  SEP + "MSG: builtin_interfaces/Duration\nint32 sec\nuint32 nanosec\n" +
  SEP + "MSG: remap_msgs/Query_Request\n" + REQ + SEP + "MSG: remap_msgs/Query_Response\n" + RESP;
const writer = new MessageWriter(parse(EVENT, { ros2: true }));

// a seeded generator (mulberry32)
let seed = 20240501;
function rnd() {
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const MS = 1000000n;

const gid = (k) => Array.from({ length: 16 }, (_, i) => (i === 0 ? 0x01 : i === 15 ? k : (k * 37 + i * 11) & 0xff));
const clients = [
  { name: "A", gid: gid(0xa1), mode: "contents" },
  { name: "B", gid: gid(0xb2), mode: "metadata" },
  { name: "C", gid: gid(0xc3), mode: "off" },
];
const queries = [
  { id: "cups", patterns: ["?c rdf:type Cup", "?c on ?t"] },
  { id: "tables", patterns: ["?t rdf:type Table"] },
  { id: "reachable", patterns: ["?o rdf:type Object", "?o on ?t", "?t rdf:type Table"] },
  { id: "dynamic_cups", patterns: ["?c rdf:type Cup"] },
];
const errors = ["model not found: kitchen", "timeout while evaluating patterns", "unbound variable ?x"];

const events = []; // { logTime, info, request, response }
const hex = (g) => g.map((b) => b.toString(16).padStart(2, "0")).join("");
const stamp = (ns) => ({ sec: Number(ns / 1000000000n), nanosec: Number(ns % 1000000000n) });
let t = 1714564800000000000n;
const seqs = new Map();
for (let k = 0; k < 90; k++) {
  t += BigInt(Math.floor(50 + rnd() * 900)) * MS;
  const c = k === 1 || k === 2 ? clients[0] : pick(clients);
  // calls 1 and 2 lose one event of each side: only a "mixed" latency
  const lost = k === 1 ? [1, 3] : k === 2 ? [0, 2] : [];
  const seq = (seqs.get(c.name) ?? 0n) + 1n;
  seqs.set(c.name, seq);
  const q = pick(queries);
  const request = { patterns: q.patterns, vars: [], models: ["kitchen"], dynamic: q.id.startsWith("dynamic"),
    duration: { sec: 0, nanosec: 0 }, frequency: { sec: 1, nanosec: 0 }, publish_tf: false, id: q.id };
  const ok = rnd() < 0.75;
  const response = { success: ok, json: ok ? '[{"c": "cup_1"}]' : "", error_msg: ok ? "" : pick(errors) };
  const answered = rnd() < 0.9;
  const net = () => BigInt(Math.floor(200 + rnd() * 3000)) * 1000n; // 0.2-3.2 ms
  const sent = t, received = sent + net();
  const work = BigInt(Math.floor(rnd() * 400)) * MS + BigInt(Math.floor(rnd() * 1000000));
  const respSent = received + work, respReceived = respSent + net();
  const ev = (type, at, withReq, withResp, contents) => {
    if (rnd() < 0.05 || lost.includes(type)) return; // the recorder dropped it
    events.push({
      logTime: at + BigInt(Math.floor(rnd() * 2000000)), // the recorder's delay
      info: { event_type: type, stamp: stamp(at), client_gid: c.gid, sequence_number: seq },
      request: contents && withReq ? [request] : [],
      response: contents && withResp ? [response] : [],
    });
  };
  const late = k === 0; // the recording starts after this call was sent
  if (c.mode !== "off" && !late) ev(0, sent, true, false, c.mode === "contents");
  if (!late) ev(1, received, true, false, true);
  if (answered) {
    ev(2, respSent, false, true, true);
    if (c.mode !== "off") ev(3, respReceived, false, true, c.mode === "contents");
  }
}

(async () => {
  const fh = await fs.promises.open(process.argv[2], "w");
  const w = new McapWriter({ writable: { position: () => BigInt(pos), write: async (b) => { await fh.write(b); pos += b.length; } }, chunkSize: 4096 });
  let pos = 0;
  await w.start({ profile: "ros2", library: "peer_queries_test" });
  const schemaId = await w.registerSchema({ name: "remap_msgs/srv/Query_Event", encoding: "ros2msg",
    data: new TextEncoder().encode(REQ + "---\n" + RESP) });
  const channelId = await w.registerChannel({ topic: "/remap/query/_service_event", schemaId, messageEncoding: "cdr", metadata: new Map() });
  events.sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0));
  let i = 0;
  for (const e of events) {
    const data = writer.writeMessage({ info: e.info, request: e.request, response: e.response });
    await w.addMessage({ channelId, sequence: i++, logTime: e.logTime, publishTime: e.logTime, data });
  }
  await w.end();
  await fh.close();

  // the analysis
  const calls = new Map();
  for (const e of events) {
    const key = hex(e.info.client_gid) + "/" + e.info.sequence_number;
    let c = calls.get(key);
    if (!c) calls.set(key, (c = { gid: hex(e.info.client_gid), seq: e.info.sequence_number, logTime: e.logTime, stamps: {}, req: null, resp: null }));
    if (e.logTime < c.logTime) c.logTime = e.logTime;
    c.stamps[e.info.event_type] = BigInt(e.info.stamp.sec) * 1000000000n + BigInt(e.info.stamp.nanosec);
    if (e.request.length) c.req = e.request[0];
    if (e.response.length) c.resp = e.response[0];
  }
  const list = [...calls.values()].sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 :
    a.gid < b.gid ? -1 : a.gid > b.gid ? 1 : Number(a.seq - b.seq)));
  const rows = [];
  const scopes = { all: [], id: new Map(), pattern: new Map() };
  const add = (m, k, c) => (m.has(k) ? m.get(k) : m.set(k, []).get(k)).push(c);
  const errs = new Map();
  for (const c of list) {
    const s = c.stamps;
    let lat = null, from = "";
    if (s[0] !== undefined && s[3] !== undefined) (lat = s[3] - s[0]), (from = "client");
    else if (s[1] !== undefined && s[2] !== undefined) (lat = s[2] - s[1]), (from = "server");
    else if ((s[0] ?? s[1]) !== undefined && (s[2] ?? s[3]) !== undefined) (lat = (s[2] ?? s[3]) - (s[0] ?? s[1])), (from = "mixed");
    const row = { client_gid: c.gid, sequence_number: c.seq, log_time_ns: c.logTime, id: c.req ? c.req.id : "",
      patterns: c.req ? c.req.patterns.join("\n") : "", has_request: !!c.req, has_response: !!c.resp,
      success: c.resp ? c.resp.success : false, error_msg: c.resp ? c.resp.error_msg : "",
      latency_s: lat === null ? "NaN" : Number(lat) / 1e9, latency_from: from };
    rows.push(row);
    scopes.all.push(row);
    add(scopes.id, row.id, row);
    for (const p of new Set(c.req ? c.req.patterns : [])) add(scopes.pattern, p, row);
    if (c.resp && !c.resp.success) errs.set(c.resp.error_msg, (errs.get(c.resp.error_msg) ?? 0) + 1);
  }
  const pct = (x, q) => {
    const pos = (q / 100) * (x.length - 1), lo = Math.floor(pos), hi = Math.ceil(pos);
    return x[lo] + (x[hi] - x[lo]) * (pos - lo);
  };
  const stat = (rs) => {
    const responses = rs.filter((r) => r.has_response).length, successes = rs.filter((r) => r.has_response && r.success).length;
    const x = rs.filter((r) => r.latency_s !== "NaN").map((r) => r.latency_s).sort((a, b) => a - b);
    const none = x.length === 0;
    return { calls: rs.length, responses, successes, success_rate: responses ? successes / responses : "NaN",
      latency: { n: x.length, mean_s: none ? "NaN" : x.reduce((a, b) => a + b, 0) / x.length, min_s: none ? "NaN" : x[0],
        p50_s: none ? "NaN" : pct(x, 50), p95_s: none ? "NaN" : pct(x, 95), max_s: none ? "NaN" : x[x.length - 1] } };
  };
  const sorted = (m) => [...m.keys()].sort();
  const out = {
    all: stat(scopes.all),
    by_id: sorted(scopes.id).map((id) => Object.assign(id ? { id } : {}, stat(scopes.id.get(id)))),
    by_pattern: sorted(scopes.pattern).map((p) => Object.assign({ pattern: p }, stat(scopes.pattern.get(p)))),
    errors: [...errs].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([error_msg, count]) => ({ error_msg, count })),
    calls: rows,
  };
  process.stdout.write(JSON.stringify(out, (k, v) => (typeof v === "bigint" ? "#" + v + "#" : v)).replace(/"#(-?\d+)#"/g, "$1"));
})().catch((e) => { console.error(e); process.exit(1); });
`

// TestAnalyzeQueriesPeer compares baglab's queries analysis of an MCAP file
// the npm @mcap/core writer and @foxglove/rosmsg2-serialization wrote with the
// statistics JS computed from the service events it drew.
func TestAnalyzeQueriesPeer(t *testing.T) {
	testenv.RequirePeer(t, "node", "mcap", "rosmsg2")
	path := filepath.Join(t.TempDir(), "queries.mcap")
	cmd := exec.Command("node", "-e", peerQueries, testenv.NodeDir(t), path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("peer: %v\n%s", err, stderr.String())
	}
	want := decodeNumbers(t, out)
	if calls := want["calls"].([]any); len(calls) < 80 {
		t.Fatalf("the peer drew %d calls", len(calls))
	}
	comparePeer(t, "queries", peerAnalyze(t, "queries", path), want)
}
