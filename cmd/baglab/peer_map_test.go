package main

import (
	"path/filepath"
	"testing"

	"github.com/baglab/baglab/internal/testkit/testenv"
)

// peerMap writes, with Debian's rosbag and genpy, what a LaMa exploration
// publishes — each vertex and edge as the map agent stores it
// (lama_msgs/LamaObject, ids from one sequence), objects updated later
// (renamed, an edge's end moved), a crossing descriptor per vertex and a
// place profile — and prints the map analysis computed with plain python and
// numpy, following the documented meaning (analyze --help, the doc comments
// of analysis.Map):
//
//   - an object is its latest state (log time); vertices have type 1, edges
//     type 2, anything else is another object;
//   - an edge is dangling when a reference names no vertex; a vertex's
//     degree counts its edges that are not (a loop twice); components are
//     those of the undirected graph, numbered 0, 1, … by their smallest
//     vertex id;
//   - a crossing's mean frontier width is the mean of its frontiers' widths
//     (NaN without frontiers); a place profile's area is the absolute
//     shoelace area of its polygon, its perimeter the closed length, the
//     open perimeter that length without the excluded segments (segment i
//     from point i to i+1, the last back to point 0), excluded_segments how
//     many of its segments are excluded (an index named twice counts once,
//     one that names no segment not at all).
const peerMap = `
import json, math, sys
import numpy as np
import genpy, genpy.dynamic, rosbag

out, defs = sys.argv[1], json.load(open(sys.argv[2]))
def cls(name):
    return genpy.dynamic.generate_dynamic(name, defs[name])[name]
LamaObject, Crossing, PlaceProfile = cls("lama_msgs/LamaObject"), cls("lama_msgs/Crossing"), cls("lama_msgs/PlaceProfile")
Frontier = genpy.dynamic.generate_dynamic("lama_msgs/Crossing", defs["lama_msgs/Crossing"])["lama_msgs/Frontier"]
Point32 = genpy.dynamic.generate_dynamic("lama_msgs/PlaceProfile", defs["lama_msgs/PlaceProfile"])["geometry_msgs/Point32"]

rng = np.random.default_rng(11)
S = 1_000_000_000
T0 = 1_650_000_000 * S
f32 = lambda x: float(np.float32(x))
msgs = []          # (t, topic, msg)
objects = {}       # id -> latest (t, dict)
crossings, profiles = [], []
next_id = [1]
t = [T0]

def tick():
    t[0] += int(rng.integers(S // 5, 3 * S))
    return t[0]

def push(typ, name, refs=(0, 0), emitter="lama_explorer", oid=None):
    if oid is None:
        oid = next_id[0]
        next_id[0] += 1
    o = LamaObject()
    o.id, o.id_in_world, o.name, o.emitter_id, o.emitter_name = oid, oid * 10 if typ == 1 else 0, name, 3, emitter
    o.type, o.references = typ, list(refs)
    now = tick()
    msgs.append((now, "/lama/objects", o))
    objects[oid] = (now, {"type": typ, "name": name, "refs": list(refs), "id_in_world": o.id_in_world})
    return oid

def describe(cx, cy):
    now = tick()
    c = Crossing()
    c.center.x, c.center.y, c.center.z = cx, cy, 0.0
    c.radius, c.max_range = rng.uniform(0.4, 1.5), 5.6
    nf = int(rng.integers(0, 5))   # 0: a dead end
    widths = []
    for k in range(nf):
        fr = Frontier()
        a = rng.uniform(-math.pi, math.pi)
        w = rng.uniform(0.6, 2.5)
        mx, my = cx + 2 * math.cos(a), cy + 2 * math.sin(a)
        fr.p1.x, fr.p1.y = mx - w / 2 * math.sin(a), my + w / 2 * math.cos(a)
        fr.p2.x, fr.p2.y = mx + w / 2 * math.sin(a), my - w / 2 * math.cos(a)
        fr.width, fr.angle = w, a
        widths.append(f32(w))
        c.frontiers.append(fr)
    msgs.append((now, "/crossing_detector/crossing", c))
    crossings.append({"topic": "/crossing_detector/crossing", "log_time_ns": now, "center_x": cx, "center_y": cy,
        "radius": f32(c.radius), "max_range": f32(c.max_range), "frontiers": nf,
        "mean_frontier_width": float(np.mean(widths)) if widths else "NaN"})
    # the place profile: the obstacle borders seen around the crossing, the
    # segments at maximum range excluded
    now = tick()
    p = PlaceProfile()
    p.header.frame_id = "base_laser_link"
    p.header.stamp = genpy.Time(now // S, now % S)
    n = int(rng.integers(6, 40))
    ang = np.sort(rng.uniform(-math.pi, math.pi, n))
    r = rng.uniform(0.8, 5.6, n)
    xs = [f32(v) for v in r * np.cos(ang)]
    ys = [f32(v) for v in r * np.sin(ang)]
    for x, y in zip(xs, ys):
        q = Point32()
        q.x, q.y, q.z = x, y, 0.0
        p.polygon.points.append(q)
    excl = sorted(set(int(i) for i in rng.choice(n, size=int(rng.integers(0, n // 2 + 1)), replace=False)))
    if rng.random() < 0.3:
        excl = sorted(set(excl) | {n - 1})   # the closing segment
    sent = list(excl)
    if len(profiles) == 5:
        # a publisher that names a segment twice and one past the last
        sent = sorted(excl + excl[:1] + [n, n + 3])
    p.exclude_segments = sent
    msgs.append((now, "/place_profile", p))
    X, Y = np.array(xs), np.array(ys)
    seg = np.hypot(np.roll(X, -1) - X, np.roll(Y, -1) - Y)
    profiles.append({"topic": "/place_profile", "log_time_ns": now, "frame_id": "base_laser_link", "points": n,
        "area": float(abs(np.dot(X, np.roll(Y, -1)) - np.dot(np.roll(X, -1), Y)) / 2),
        "perimeter": float(seg.sum()), "open_perimeter": float(np.delete(seg, excl).sum()),
        "excluded_segments": len(excl)})

# an exploration: a chain of crossings, loop closures, a self-loop, a
# second robot's map, an isolated vertex, an edge to a vertex the
# recording missed, an object of no known type
vertices = []
prev = None
for k in range(14):
    cx, cy = f32(rng.uniform(-20, 20)), f32(rng.uniform(-20, 20))
    v = push(1, "crossing_%d" % k)
    vertices.append(v)
    describe(cx, cy)
    if prev is not None:
        push(2, "corridor_%d" % k, (prev, v))
    if k in (6, 11):
        push(2, "loop_%d" % k, (v, vertices[int(rng.integers(0, k - 1))]))
    prev = v
push(2, "turn_back", (vertices[3], vertices[3]))
other = [push(1, "r2_%d" % k, emitter="robot2") for k in range(4)]
push(2, "r2_a", (other[0], other[1]), emitter="robot2")
push(2, "r2_b", (other[2], other[1]), emitter="robot2")
push(1, "lonely")
push(2, "to_nowhere", (vertices[5], 999))
push(0, "unknown_object")
# later updates: a vertex renamed, an edge's end moved (the old end loses
# a degree), the isolated vertex joined to the second map
push(1, "crossing_2_kitchen", oid=vertices[2])
e = [oid for oid, (_, o) in objects.items() if o["name"] == "corridor_9"][0]
push(2, "corridor_9", (vertices[8], other[3]), oid=e)

msgs.sort(key=lambda m: m[0])
with rosbag.Bag(out, "w", compression="lz4") as bag:
    for now, tp, m in msgs:
        bag.write(tp, m, genpy.Time(now // S, now % S))

# the analysis
ids = sorted(objects)
V = [i for i in ids if objects[i][1]["type"] == 1]
E = [i for i in ids if objects[i][1]["type"] == 2]
Vset = set(V)
deg = {v: 0 for v in V}
adj = {v: set() for v in V}
edge_list = []
for i in E:
    a, b = objects[i][1]["refs"]
    dangling = a not in Vset or b not in Vset
    edge_list.append({"id": i, "name": objects[i][1]["name"], "from": a, "to": b, "dangling": dangling})
    if not dangling:
        deg[a] += 1
        deg[b] += 1
        adj[a].add(b)
        adj[b].add(a)
comp, sizes = {}, []
for v in V:   # by id: a component is numbered at its smallest vertex
    if v in comp:
        continue
    c = len(sizes)
    stack, comp[v] = [v], c
    while stack:
        u = stack.pop()
        for w in adj[u]:
            if w not in comp:
                comp[w] = c
                stack.append(w)
    sizes.append(sum(1 for x in comp.values() if x == c))
hist = {}
for v in V:
    hist[deg[v]] = hist.get(deg[v], 0) + 1
crossings.sort(key=lambda c: c["log_time_ns"])
profiles.sort(key=lambda p: p["log_time_ns"])
print(json.dumps({"vertices": len(V), "edges": len(E), "other_objects": len(ids) - len(V) - len(E),
    "components": len(sizes), "component_sizes": sizes, "dangling_edges": sum(e["dangling"] for e in edge_list),
    "degree_histogram": [{"degree": d, "vertices": hist[d]} for d in sorted(hist)],
    "vertex_list": [{"id": v, "id_in_world": objects[v][1]["id_in_world"], "name": objects[v][1]["name"],
        "degree": deg[v], "component": comp[v]} for v in V],
    "edge_list": edge_list, "crossings": crossings, "place_profiles": profiles}))
`

// TestAnalyzeMapPeer compares baglab's map analysis of a LaMa exploration
// Debian's rosbag wrote with the graph and descriptor statistics python and
// numpy computed from what it drew.
func TestAnalyzeMapPeer(t *testing.T) {
	testenv.RequirePeer(t, "rosbag", "numpy")
	dir := t.TempDir()
	defs := writeDefs(t, dir, "lama_msgs/LamaObject", "lama_msgs/Crossing", "lama_msgs/PlaceProfile")
	bag := filepath.Join(dir, "map.bag")
	want := decodeNumbers(t, runPeer(t, peerMap, bag, defs))
	if n, _ := want["vertices"].(interface{ Int64() (int64, error) }).Int64(); n < 15 {
		t.Fatalf("the peer drew %d vertices", n)
	}
	comparePeer(t, "map", peerAnalyze(t, "map", bag), want)
}
