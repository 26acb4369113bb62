"""Independent side of baglab's media tests (Debian rosbag, genpy,
cv_bridge, OpenCV, Open3D).

  peer.py write BAG       write a ROS1 bag of images of every encoding,
                          compressed images, compressedDepth and clouds
  peer.py check BAG DIR [raw] [ascii] [dropnan] [twin=BINDIR]
                          read every message with cv_bridge / point_cloud2
                          and the files baglab wrote under DIR with OpenCV,
                          numpy, Open3D and PCL (with ascii and twin, PCL's
                          ASCII writer converts our binary PCDs under
                          BINDIR for comparison); print one JSON line per
                          message:
                          {"topic", "t", "file", "ok", "why", "what"}
"""
import json
import os
import struct
import sys

import cv2
import numpy as np
import rosbag
import rospy
from cv_bridge import CvBridge
from sensor_msgs.msg import CompressedImage, Image, PointCloud2, PointField
from sensor_msgs import point_cloud2
from std_msgs.msg import Header

T0 = 1714564800

# encoding -> (channels, numpy dtype)
ENCODINGS = {
    "rgb8": (3, np.uint8), "bgr8": (3, np.uint8), "rgba8": (4, np.uint8), "bgra8": (4, np.uint8),
    "rgb16": (3, np.uint16), "bgr16": (3, np.uint16), "rgba16": (4, np.uint16), "bgra16": (4, np.uint16),
    "mono8": (1, np.uint8), "mono16": (1, np.uint16),
    "8UC1": (1, np.uint8), "8UC2": (2, np.uint8), "8UC3": (3, np.uint8), "8UC4": (4, np.uint8),
    "16UC1": (1, np.uint16), "16UC2": (2, np.uint16), "16UC3": (3, np.uint16), "16UC4": (4, np.uint16),
    "32FC1": (1, np.float32),
    "bayer_rggb8": (1, np.uint8), "bayer_bggr8": (1, np.uint8), "bayer_gbrg8": (1, np.uint8), "bayer_grbg8": (1, np.uint8),
    "bayer_rggb16": (1, np.uint16), "bayer_bggr16": (1, np.uint16), "bayer_gbrg16": (1, np.uint16), "bayer_grbg16": (1, np.uint16),
    "yuv422": (2, np.uint8),
}
# encodings no PNG sample format holds, written as .npy
ARRAYS = {}
for _bits, _dt in (("8S", np.int8), ("16S", np.int16), ("32S", np.int32), ("32F", np.float32), ("64F", np.float64)):
    for _n in range(1, 5):
        if _bits + str(_n) != "32F1":
            ARRAYS["%sC%d" % (_bits, _n)] = (_n, _dt)
ENCODINGS.update(ARRAYS)


def topic_of(enc, variant=""):
    return "/cam/" + enc.lower() + variant


def image(enc, w, h, rng, big=False, pad=0, t=0):
    ch, dt = ENCODINGS[enc]
    if enc in ARRAYS and np.issubdtype(dt, np.floating):
        a = rng.uniform(-1e3, 1e3, size=(h, w * ch)).astype(dt)
        a[0, 0], a[0, 1], a[1, 0], a[1, 1] = np.nan, np.inf, -np.inf, -0.0
    elif enc in ARRAYS:
        i = np.iinfo(dt)
        a = rng.integers(i.min, i.max, size=(h, w * ch), endpoint=True, dtype=dt)
        a[0, 0], a[0, 1] = i.min, i.max
    elif dt == np.float32:
        a = rng.uniform(0.2, 70.0, size=(h, w)).astype(np.float32)
        a[0, 0] = np.nan
        a[0, 1] = np.inf
        a[1, 0] = -1
        a[1, 1] = 0
    elif dt == np.uint16:
        a = rng.integers(0, 65536, size=(h, w * ch), dtype=np.uint16)
    else:
        a = rng.integers(0, 256, size=(h, w * ch), dtype=np.uint8)
    a = a.reshape(h, -1)
    if big:
        a = a.astype(a.dtype.newbyteorder(">"))
    else:
        a = a.astype(a.dtype.newbyteorder("<"))
    raw = a.tobytes()
    rowlen = len(raw) // h
    step = rowlen + pad
    data = b"".join(raw[y * rowlen:(y + 1) * rowlen] + bytes([0xAB]) * pad for y in range(h))
    m = Image()
    m.header = Header(seq=t, stamp=rospy.Time(T0 + t, 5000), frame_id="camera")
    m.height, m.width, m.encoding = h, w, enc
    m.is_bigendian = 1 if big else 0
    m.step = step
    m.data = data
    return m


def cloud(t, rng, organized):
    fields = [PointField("x", 0, PointField.FLOAT32, 1), PointField("y", 4, PointField.FLOAT32, 1),
              PointField("z", 8, PointField.FLOAT32, 1), PointField("rgb", 16, PointField.FLOAT32, 1),
              PointField("intensity", 20, PointField.UINT16, 1), PointField("ring", 22, PointField.INT8, 1),
              PointField("t", 24, PointField.FLOAT64, 1)]
    h, w = (3, 4) if organized else (1, 10)
    pts = []
    for i in range(w * h):
        x, y, z = (float(v) for v in rng.uniform(-5, 5, 3).astype(np.float32))
        if i in (2, 7):
            x = float("nan")
        r, g, b = (int(v) for v in rng.integers(0, 256, 3))
        packed = struct.unpack("<f", struct.pack("<I", (255 << 24) | (r << 16) | (g << 8) | b))[0]
        pts.append((x, y, z, packed, int(rng.integers(0, 65536)), int(rng.integers(-128, 128)), float(rng.uniform(0, 1))))
    header = Header(seq=t, stamp=rospy.Time(T0 + t), frame_id="lidar")
    # pack with a 32-byte point (4 bytes of padding at 12 and 1 at 23, 7 at 25..31 none: t ends at 32)
    m = PointCloud2()
    m.header, m.height, m.width, m.fields = header, h, w, fields
    m.is_bigendian, m.point_step, m.row_step, m.is_dense = False, 32, 32 * w, False
    buf = bytearray(32 * w * h)
    for i, p in enumerate(pts):
        struct.pack_into("<fff", buf, 32 * i, p[0], p[1], p[2])
        struct.pack_into("<f", buf, 32 * i + 16, p[3])
        struct.pack_into("<H", buf, 32 * i + 20, p[4])
        struct.pack_into("<b", buf, 32 * i + 22, p[5])
        struct.pack_into("<d", buf, 32 * i + 24, p[6])
    m.data = bytes(buf)
    return m


def write(path):
    rng = np.random.default_rng(7)
    with rosbag.Bag(path, "w") as bag:
        t = 1
        for enc in ENCODINGS:
            w, h = (8, 6) if enc == "yuv422" else (7, 5)
            for variant, big, pad in (("", False, 0), ("/padded", False, 6)):
                m = image(enc, w, h, rng, big=big, pad=pad, t=t)
                bag.write(topic_of(enc, variant), m, rospy.Time(T0 + t))
                t += 1
            if np.dtype(ENCODINGS[enc][1]).itemsize > 1:
                m = image(enc, w, h, rng, big=True, pad=2 if enc != "32FC1" else 4, t=t)
                bag.write(topic_of(enc, "/big"), m, rospy.Time(T0 + t))
                t += 1
        # compressed images: JPEG and PNG as image_transport writes them
        src = rng.integers(0, 256, size=(12, 16, 3), dtype=np.uint8)
        for fmt, ext in (("rgb8; jpeg compressed bgr8", ".jpg"), ("png", ".png")):
            c = CompressedImage()
            c.header = Header(seq=t, stamp=rospy.Time(T0 + t), frame_id="camera")
            c.format = fmt
            c.data = cv2.imencode(ext, src)[1].tobytes()
            bag.write("/cam/compressed" + ext.replace(".", "_"), c, rospy.Time(T0 + t))
            t += 1
        # compressedDepth 16UC1: ConfigHeader (int32 format, float32 x2) + PNG
        depth = rng.integers(0, 10000, size=(6, 8), dtype=np.uint16)
        c = CompressedImage()
        c.header = Header(seq=t, stamp=rospy.Time(T0 + t), frame_id="camera")
        c.format = "16UC1; compressedDepth"
        c.data = struct.pack("<iff", 0, 0, 0) + cv2.imencode(".png", depth)[1].tobytes()
        bag.write("/cam/depth16/compressedDepth", c, rospy.Time(T0 + t))
        t += 1
        # compressedDepth 32FC1: quantised inverse depth, as the plugin encodes it
        qa, qb = 100.0, 1.0 / 8.0
        d = rng.uniform(0.5, 10.0, size=(6, 8)).astype(np.float32)
        d[0, 0] = np.nan
        inv = np.where(np.isnan(d), 0, np.round(qa / d + qb)).astype(np.uint16)
        c = CompressedImage()
        c.header = Header(seq=t, stamp=rospy.Time(T0 + t), frame_id="camera")
        c.format = "32FC1; compressedDepth"
        c.data = struct.pack("<iff", 0, qa, qb) + cv2.imencode(".png", inv)[1].tobytes()
        bag.write("/cam/depth32/compressedDepth", c, rospy.Time(T0 + t))
        t += 1
        # compressedDepth RVL and PNG as compressed_depth_image_transport's own
        # encoder wrote them (testdata/rvl, made by rvl/gen.sh)
        for c in rvl_cases():
            m = CompressedImage()
            m.header = Header(seq=t, stamp=rospy.Time(T0 + t), frame_id="camera")
            m.format, m.data = c["format"], c["data"]
            bag.write("/depth/" + c["name"], m, rospy.Time(T0 + t))
            t += 1
        for organized in (False, True):
            bag.write("/cloud" + ("/organized" if organized else ""), cloud(t, rng, organized), rospy.Time(T0 + t))
            t += 1
        # a cloud as PCL packs PointXYZRGB without padding: x y z rgb, 16 bytes, by point_cloud2
        pts = [(float(x), float(y), float(z), struct.unpack("<f", struct.pack("<I", 0xFF000000 | (i * 2654435761 & 0xFFFFFF)))[0])
               for i, (x, y, z) in enumerate(rng.uniform(-2, 2, size=(20, 3)).astype(np.float32))]
        pts[5] = (float("nan"),) + pts[5][1:]
        fields = [PointField("x", 0, PointField.FLOAT32, 1), PointField("y", 4, PointField.FLOAT32, 1),
                  PointField("z", 8, PointField.FLOAT32, 1), PointField("rgb", 12, PointField.FLOAT32, 1)]
        c = point_cloud2.create_cloud(Header(seq=t, stamp=rospy.Time(T0 + t), frame_id="lidar"), fields, pts)
        bag.write("/cloud/packed", c, rospy.Time(T0 + t))
        t += 1


RVL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rvl")


def rvl_cases():
    """The compressedDepth messages of testdata/rvl: format, data and the
    rows compressed_depth_image_transport's decoder made of them."""
    import gzip
    cases = json.load(open(os.path.join(RVL, "cases.json")))
    for c in cases:
        base = os.path.join(RVL, c["name"])
        c["format"] = open(base + ".format").read()
        c["data"] = open(base + ".data", "rb").read()
        dt = "<u2" if c["encoding"] == "16UC1" else "<f4"
        c["decoded"] = np.frombuffer(gzip.open(base + ".decoded.gz").read(), dt).reshape(c["height"], c["width"])
    return cases


def unpad(m):
    """m with its rows cut to width: Debian's cv_bridge 1.16 ignores step
    (core.py reads height x width pixels from the start of data), so padded
    rows are cut with numpy before it reads them."""
    n, dt = ENCODINGS[m.encoding]
    rowlen = m.width * n * np.dtype(dt).itemsize
    if m.step == rowlen:
        return m
    rows = np.frombuffer(bytes(m.data), np.uint8)[:m.step * m.height].reshape(m.height, m.step)[:, :rowlen]
    c = Image(header=m.header, height=m.height, width=m.width, encoding=m.encoding, is_bigendian=m.is_bigendian)
    c.step, c.data = rowlen, rows.tobytes()
    return c


def bridge_pixels(bridge, m):
    """What cv_bridge (and OpenCV) make of an Image, in OpenCV's channel
    order, for comparison with cv2.imread of our PNG."""
    m = unpad(m)
    enc = m.encoding
    if enc in ("rgb8", "bgr8", "rgba8", "bgra8", "rgb16", "bgr16", "rgba16", "bgra16"):
        n, dt = ENCODINGS[enc]
        want = ("bgr" if n == 3 else "bgra") + ("8" if dt == np.uint8 else "16")
        return bridge.imgmsg_to_cv2(m, want), "imgmsg_to_cv2(%s)" % want
    if enc.startswith("bayer_") or enc == "yuv422":
        want = "bgr8" if enc.endswith("8") or enc == "yuv422" else "bgr16"
        return bridge.imgmsg_to_cv2(m, want), "imgmsg_to_cv2(%s)" % want
    a = bridge.imgmsg_to_cv2(m, "passthrough")
    if enc == "32FC1":
        mm = np.where(np.isfinite(a) & (a > 0), np.round(a.astype(np.float64) * 1000), 0)
        return np.clip(mm, 0, 65535).astype(np.uint16), "imgmsg_to_cv2(passthrough) in mm"
    return a, "imgmsg_to_cv2(passthrough)"


def index_of(d):
    import csv
    rows = {}
    with open(os.path.join(d, "index.csv")) as f:
        for r in csv.DictReader(f):
            rows[(r["topic"], r["log_time"])] = r
    return rows


def read_pcl_ply(f):
    """The vertices pcl_pcd2ply (PCL's PCD reader) makes of our file, as
    an ASCII PLY: (property names, rows of floats)."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        ply = os.path.join(tmp, "c.ply")
        subprocess.run(["pcl_pcd2ply", "-format", "0", f, ply], check=True, capture_output=True)
        lines = open(ply).read().split("\n")
    names, n, i = [], 0, 0
    while lines[i] != "end_header":
        w = lines[i].split()
        if w[:2] == ["element", "vertex"]:
            n = int(w[2])
        elif w[:1] == ["property"] and len(names) < 100 and not w[-1].startswith(("view_", "x_axis", "y_axis", "z_axis", "focal", "scale", "center", "k", "width", "height")):
            names.append(w[-1])
        i += 1
    rows = [[float(v) for v in lines[i + 1 + k].split()[:len(names)]] for k in range(n)]
    return names, rows


PCD_TYPES = {("F", 4): "<f4", ("F", 8): "<f8", ("U", 1): "u1", ("U", 2): "<u2", ("U", 4): "<u4",
             ("I", 1): "i1", ("I", 2): "<i2", ("I", 4): "<i4"}
PF_TYPES = {1: "i1", 2: "u1", 3: "<i2", 4: "<u2", 5: "<i4", 6: "<u4", 7: "<f4", 8: "<f8"}


def message_points(m, keep=None):
    """The message's points as a numpy structured array, straight from its
    bytes (no float conversion, so packed colours keep their bits)."""
    assert not m.is_bigendian and m.row_step == m.point_step * m.width
    dt = np.dtype({"names": [fd.name for fd in m.fields], "formats": [PF_TYPES[fd.datatype] for fd in m.fields],
                   "offsets": [fd.offset for fd in m.fields], "itemsize": m.point_step})
    a = np.frombuffer(bytes(m.data), dt, count=m.width * m.height)
    return a if keep is None else a[keep]


def read_pcd(f):
    """A PCD file's header (dict of lists) and its points (structured
    array); binary data only."""
    data = open(f, "rb").read()
    hdr, pos = {}, 0
    while True:
        end = data.index(b"\n", pos)
        line = data[pos:end].decode()
        pos = end + 1
        if line.startswith("#"):
            continue
        w = line.split()
        hdr[w[0]] = w[1:]
        if w[0] == "DATA":
            break
    assert hdr["DATA"] == ["binary"], hdr["DATA"]
    dt = np.dtype([(n, PCD_TYPES[(t, int(z))], (int(c),) if int(c) > 1 else ())
                   for n, t, z, c in zip(hdr["FIELDS"], hdr["TYPE"], hdr["SIZE"], hdr["COUNT"])])
    return hdr, np.frombuffer(data[pos:], dt, count=int(hdr["POINTS"][0]))


def pcl_convert(f, mode):
    """f as PCL writes it again after reading it (pcl_convert_pcd_ascii_binary:
    mode 0 ASCII, with 9 digits, 1 binary): the file's path in a new
    temporary folder."""
    import subprocess
    import tempfile
    out = os.path.join(tempfile.mkdtemp(), "pcl.pcd")
    subprocess.run(["pcl_convert_pcd_ascii_binary", f, out, str(mode)] + (["9"] if mode == 0 else []),
                   check=True, capture_output=True)
    return out


def same_bits(a, b):
    """Arrays equal bit for bit, but any NaN equal to any NaN (text has
    one NaN)."""
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True)) and bool(np.array_equal(np.signbit(a), np.signbit(b)))
    return bool(np.array_equal(a, b))


def check_pcl_ascii(m, f, want, twin):
    """PCL's reader and writer against our ASCII PCD f: PCL reads every
    field of the message's points from f (converted to binary by
    pcl_convert_pcd_ascii_binary, packed rgb bit for bit), and, where twin
    (our binary PCD of the same message) is given, PCL's own ASCII writer
    makes of twin the header we wrote (rgb as TYPE U) and the same values
    (rgb integers and integer fields exactly, 4-byte floats as the same
    float32, 8-byte ones to PCL's 9 digits)."""
    _, got = read_pcd(pcl_convert(f, 1))
    if len(got) != len(want):
        return "pcl: %d points, want %d" % (len(got), len(want))
    for name in want.dtype.names:
        g, w = got[name], want[name]
        if name == "rgb":  # PCL's binary writer: TYPE F again; compare the bits
            g, w = g.view("<u4"), w.view("<u4")
        if not same_bits(g, w):
            i = int(np.argmax(~((g == w) | (np.isnan(g) & np.isnan(w))) if g.dtype.kind == "f" else g != w))
            return "pcl read %s = %r at point %d, want %r" % (name, g[i], i, w[i])
    if twin is None:
        return ""
    theirs = open(pcl_convert(twin, 0)).read().split("\n")
    ours = open(f).read().split("\n")
    th = {ln.split()[0]: ln for ln in theirs if ln and not ln[0].isdigit() and ln.split()[0].isupper()}
    for key in ("FIELDS", "SIZE", "TYPE", "COUNT", "WIDTH", "HEIGHT", "POINTS", "DATA"):
        mine = next(ln for ln in ours if ln.startswith(key + " "))
        if mine != th.get(key):
            return "header %r, PCL's ASCII writer: %r" % (mine, th.get(key))
    start = lambda lines: next(i for i, ln in enumerate(lines) if ln.startswith("DATA")) + 1
    names = list(want.dtype.names)
    hdr = {ln.split()[0]: ln.split()[1:] for ln in ours[:start(ours)] if not ln.startswith("#")}
    for k, (a, b) in enumerate(zip(ours[start(ours):start(ours) + len(want)], theirs[start(theirs):start(theirs) + len(want)])):
        for name, t, z, x, y in zip(names, hdr["TYPE"], hdr["SIZE"], a.split(), b.split()):
            fx, fy = float(x), float(y)
            same = x == y if t in "UI" else (
                np.float32(fx) == np.float32(fy) if z == "4" else abs(fx - fy) <= 1e-8 * abs(fy)) or x == y
            if not same:
                return "point %d %s: we wrote %s, PCL's ASCII writer %s" % (k, name, x, y)
    return ""


def check_cloud(m, f, rel, opts):
    """Open3D's and PCL's reading of our PCD against the message's points
    as sensor_msgs.point_cloud2 reads them."""
    import open3d as o3d
    pts = list(point_cloud2.read_points(m, skip_nans=False))
    keep = None
    if "dropnan" in opts:  # PCL's removeNaNFromPointCloud: x, y or z NaN (read_points' skip_nans also drops NaN colours)
        keep = [not any(np.isnan(p[:3])) for p in pts]
        pts = [p for p in pts if not any(np.isnan(p[:3]))]
    names = [fd.name for fd in m.fields]
    want = np.array([[p[0], p[1], p[2]] for p in pts], dtype=np.float64)
    colours = []
    for p in pts:
        u = struct.unpack("<I", struct.pack("<f", p[names.index("rgb")]))[0]
        colours.append([(u >> 16) & 255, (u >> 8) & 255, u & 255])
    ascii = "ascii" in opts
    if f.endswith(".ply"):  # our PLY: Open3D alone (x, y, z and the packed colour as red, green, blue)
        pc = o3d.io.read_point_cloud(f, remove_nan_points=False, remove_infinite_points=False)
        xyz, cols = np.asarray(pc.points), np.asarray(pc.colors)
        ok = xyz.shape == want.shape and np.array_equal(xyz, want, equal_nan=True) and np.allclose(cols * 255, colours, atol=1e-4)
        return bool(ok), "" if ok else "open3d: PLY points or colours differ", "open3d read_point_cloud of our PLY vs point_cloud2.read_points"
    pc = o3d.io.read_point_cloud(f, remove_nan_points=False, remove_infinite_points=False)
    xyz, cols = np.asarray(pc.points), np.asarray(pc.colors)
    if xyz.shape != want.shape:
        return False, "open3d: %s points, want %s" % (xyz.shape, want.shape), ""
    if ascii:  # Open3D parses ASCII floats as doubles
        if not np.allclose(xyz, want, rtol=1e-6, atol=0, equal_nan=True) or not np.allclose(cols * 255, colours, atol=1e-4):
            return False, "open3d: points or colours differ", ""
        # twin=DIR: our binary PCD of the same message, DIR/<the same file>
        twin = next((os.path.join(o[5:], rel) for o in opts if o.startswith("twin=")), None)
        why = check_pcl_ascii(m, f, message_points(m, keep), twin)
        what = "open3d read_point_cloud (points, colours) and PCL's reader (every field, rgb bits) vs the message"
        if twin:
            what += "; PCL's ASCII writer makes our header and values of our binary PCD"
        return why == "", why, what
    if not np.array_equal(xyz, want, equal_nan=True) or not np.allclose(cols * 255, colours, atol=1e-4):
        return False, "open3d: points or colours differ", ""
    pnames, rows = read_pcl_ply(f)
    if len(rows) != len(pts):
        return False, "pcl_pcd2ply: %d points, want %d" % (len(rows), len(pts)), ""
    for p, r, c in zip(pts, rows, colours):
        got = dict(zip(pnames, r))
        for k, name in enumerate(names):
            if name == "rgb":
                if [got["red"], got["green"], got["blue"]] != c:
                    return False, "pcl_pcd2ply: colour %s, want %s" % ([got["red"], got["green"], got["blue"]], c), ""
                continue
            a, b = got[name], float(p[k])
            if not (a == b or (np.isnan(a) and np.isnan(b)) or abs(a - b) <= 1e-7 * max(1.0, abs(b))):
                return False, "pcl_pcd2ply: %s = %r, want %r" % (name, a, b), ""
    return True, "", "open3d read_point_cloud (points, colours) and pcl_pcd2ply (every field) vs point_cloud2.read_points"


def check(path, d, opts=()):
    bridge = CvBridge()
    rows = index_of(d)
    import open3d as o3d
    topics = {k[0] for k in rows}  # the topics of the extraction (a --topics selection)
    for topic, m, t in rosbag.Bag(path).read_messages(topics=sorted(topics)):
        key = (topic, str(t.to_nsec()))
        out = {"topic": topic, "t": t.to_nsec(), "ok": False}
        r = rows.get(key)
        if r is None:
            out["why"] = "not in index.csv"
            print(json.dumps(out))
            continue
        f = os.path.join(d, r["file"])
        out["file"] = r["file"]
        ty = m._type
        try:
            if ty == "sensor_msgs/Image" and m.encoding in ARRAYS:
                got = np.load(f)
                want = bridge.imgmsg_to_cv2(unpad(m), "passthrough")
                out["what"] = "np.load of our .npy vs imgmsg_to_cv2(passthrough), bit for bit"

                def bits(a):
                    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<"))).view(np.uint8)
                out["ok"] = (f.endswith(".npy") and got.shape == want.shape and got.dtype.kind == want.dtype.kind and
                             got.dtype.itemsize == want.dtype.itemsize and bool(np.array_equal(bits(got), bits(want))))
                if not out["ok"]:
                    out["why"] = "got %s %s, want %s %s" % (got.shape, got.dtype, want.shape, want.dtype)
            elif ty == "sensor_msgs/Image":
                got = cv2.imread(f, cv2.IMREAD_UNCHANGED)
                if "raw" in opts and m.encoding.startswith("bayer_"):
                    want, out["what"] = bridge.imgmsg_to_cv2(unpad(m), "passthrough"), "raw mosaic"
                else:
                    want, out["what"] = bridge_pixels(bridge, m)
                if m.encoding in ("8UC2", "16UC2"):  # OpenCV reads grey+alpha as BGRA
                    got = got[:, :, [0, 3]]
                out["ok"] = got is not None and got.shape == want.shape and got.dtype == want.dtype and bool(np.array_equal(got, want))
                if not out["ok"] and got is not None:
                    out["why"] = "got %s %s, want %s %s; %d differ" % (got.shape, got.dtype, want.shape, want.dtype,
                                                                     int(np.sum(got != want)) if got.shape == want.shape else -1)
            elif ty == "sensor_msgs/CompressedImage":
                data = open(f, "rb").read()
                if topic.startswith("/depth/"):
                    got = cv2.imread(f, cv2.IMREAD_UNCHANGED)
                    c = next(c for c in rvl_cases() if "/depth/" + c["name"] == topic)
                    want = c["decoded"]
                    if c["encoding"] == "32FC1":
                        mm = np.where(np.isfinite(want) & (want > 0), np.round(want.astype(np.float64) * 1000), 0)
                        want = np.clip(mm, 0, 65535).astype(np.uint16)
                    want = want.astype(np.uint16)
                    out["what"] = "decodeCompressedDepthImage's depths (testdata/rvl)" + (" in mm" if c["encoding"] == "32FC1" else "")
                    out["ok"] = got is not None and got.shape == want.shape and got.dtype == want.dtype and bool(np.array_equal(got, want))
                    if not out["ok"] and got is not None:
                        out["why"] = "got %s %s, want %s %s" % (got.shape, got.dtype, want.shape, want.dtype)
                elif "compressedDepth" in m.format:
                    got = cv2.imread(f, cv2.IMREAD_UNCHANGED)
                    inv = cv2.imdecode(np.frombuffer(bytes(m.data[12:]), np.uint8), cv2.IMREAD_UNCHANGED)
                    if m.format.startswith("16UC1"):
                        want, out["what"] = inv, "cv2.imdecode of the PNG after the 12-byte header"
                    else:
                        qa, qb = struct.unpack("<ff", bytes(m.data[4:12]))
                        with np.errstate(divide="ignore"):
                            dm = np.where(inv == 0, np.nan, np.float32(qa) / (inv.astype(np.float32) - np.float32(qb)))
                        want = np.clip(np.where(np.isfinite(dm) & (dm > 0), np.round(dm.astype(np.float64) * 1000), 0), 0, 65535).astype(np.uint16)
                        out["what"] = "inverse depth decoded as compressed_depth_image_transport, in mm"
                    out["ok"] = got is not None and got.shape == want.shape and bool(np.array_equal(got, want))
                else:
                    out["what"] = "bytes"
                    out["ok"] = data == bytes(m.data) and f.endswith(".jpg" if "jpeg" in m.format else ".png")
            elif ty == "sensor_msgs/PointCloud2":
                out["ok"], out["why"], out["what"] = check_cloud(m, f, r["file"], opts)
        except Exception as e:  # noqa
            out["why"] = "%s: %s" % (type(e).__name__, e)
        print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], opts=sys.argv[4:])
