"""gen.py PEER DIR: writes the inputs of baglab's RVL fixtures and has
PEER (peer.cpp, compressed_depth_image_transport's codec) compress and
decode them into DIR/NAME.format, NAME.data and NAME.decoded.gz (the
decoded rows, gzipped); DIR/cases.json lists them. Run by gen.sh."""
import gzip
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

# name, encoding, width, height, compression, depth_max, depth_quantization
CASES = [
    ("depth16_rvl", "16UC1", 64, 48, "rvl", 10.0, 100.0),
    ("depth16_full_rvl", "16UC1", 37, 21, "rvl", 100.0, 100.0),
    ("depth16_empty_rvl", "16UC1", 640, 480, "rvl", 10.0, 100.0),
    ("depth16_tiny_rvl", "16UC1", 1, 1, "rvl", 10.0, 100.0),
    ("depth32_rvl", "32FC1", 64, 48, "rvl", 10.0, 100.0),
    ("depth32_far_rvl", "32FC1", 29, 17, "rvl", 100.0, 150.0),
    ("depth32_png", "32FC1", 64, 48, "png", 10.0, 100.0),
]


def image(name, enc, w, h, rng):
    yy, xx = np.mgrid[0:h, 0:w]
    if enc == "16UC1":
        if name.endswith("empty_rvl"):
            return np.zeros((h, w), np.uint16)
        if name.endswith("tiny_rvl"):
            return np.array([[1234]], np.uint16)
        if name.endswith("full_rvl"):  # every value, big jumps both ways
            a = rng.integers(1, 65536, size=(h, w), dtype=np.uint16)
            a[0, :4] = [1, 65535, 1, 65535]
            a[rng.random((h, w)) < 0.2] = 0
            return a
        # a tilted plane in mm with noise, holes and depths past depth_max
        a = (800 + 40 * xx + 25 * yy + rng.normal(0, 3, (h, w))).astype(np.uint16)
        a[10:20, 5:30] = 0
        a[rng.random((h, w)) < 0.05] = 0
        a[40:, 50:] = 12000
        return a
    a = (0.5 + 0.08 * xx + 0.05 * yy + rng.normal(0, 0.01, (h, w))).astype(np.float32)
    a[3:9, 2:12] = np.nan
    a[0, 0] = np.inf
    a[rng.random((h, w)) < 0.05] = np.nan
    if name.endswith("far_rvl"):
        a *= 9  # out to ~ 100 m
    else:
        a[30:, 40:] = 11.5  # past depth_max: no reading
    return a.astype("<f4")


def main(peer, out):
    rng = np.random.default_rng(28)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, enc, w, h, comp, dmax, quant in CASES:
            a = image(name, enc, w, h, rng)
            src = os.path.join(tmp, name + ".raw")
            a.astype(a.dtype.newbyteorder("<")).tofile(src)
            subprocess.run([peer, enc, str(w), str(h), comp, str(dmax), str(quant), "9", src,
                            os.path.join(out, name)], check=True)
            dec = os.path.join(out, name + ".decoded")
            with open(dec, "rb") as f, gzip.GzipFile(dec + ".gz", "wb", mtime=0) as z:
                z.write(f.read())
            os.remove(dec)
            cases.append({"name": name, "encoding": enc, "width": w, "height": h, "compression": comp,
                          "depth_max": dmax, "depth_quantization": quant})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
