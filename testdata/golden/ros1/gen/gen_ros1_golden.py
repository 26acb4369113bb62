#!/usr/bin/python3
"""Generate the independent ROS1 golden corpus for baglab's decode/ros1 codec.

Everything here comes from Debian's ROS1 tooling, never from baglab:

  * action expansion: Debian libactionlib-msgs-dev's /usr/lib/actionlib_msgs/genaction.py
  * Python message classes: Debian python3-genpy's /usr/lib/genpy/genmsg_py.py and
    gensrv_py.py (the generators catkin runs), fed the .msg/.srv files of
    decode/msgdef/defs/ros1 (the exact text baglab embeds), written to a temp dir
  * serialization: the generated classes' serialize()/deserialize()
  * md5 and definition bundle: the generated classes' _md5sum and _full_text
    (what rosbag writes into a connection header)

It also covers gen/extra/baglab_golden_msgs, a small test-only package with
the wire shapes the shipped set lacks (every primitive as T[] and T[N], arrays
of empty messages, Python-keyword field names).

For every type it writes, into testdata/golden/ros1/:

  <pkg>__<Type>.msg       the definition bundle (genpy _full_text, verbatim)
  <pkg>__<Type>__<i>.bin  ROS1 wire bytes of instance i (0 = genpy default
                          instance, 1..N = seeded random instances)
  <pkg>__<Type>__<i>.json the peer's JSON rendering of instance i (see
                          PROVENANCE.md for the convention)
  index.json              one entry per type: type, md5, origin, files

Run from anywhere:  /usr/bin/python3 testdata/golden/ros1/gen/gen_ros1_golden.py
Output is deterministic (same bytes on every run).
"""

import argparse
import base64
import importlib
import io
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

PY = '/usr/bin/python3'
GENACTION = '/usr/lib/actionlib_msgs/genaction.py'
GENMSG_PY = '/usr/lib/genpy/genmsg_py.py'
GENSRV_PY = '/usr/lib/genpy/gensrv_py.py'

SEED = 'baglab-ros1-golden-v1'
N_RANDOM = 3
EDGE_FIRST, EDGE_OTHERS = 0.6, 0.15

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DEFAULT = os.path.dirname(HERE)
MSGS_DEFAULT = os.path.join(HERE, '..', '..', '..', '..', 'decode', 'msgdef', 'defs', 'ros1')  # the embedded copies; the md5/full-text tables of ../shared/msgs are used when present
EXTRA_DEFAULT = os.path.join(HERE, 'extra')

DEBIAN_PKGS = ['std_msgs', 'geometry_msgs', 'sensor_msgs', 'actionlib_msgs',
               'visualization_msgs', 'diagnostic_msgs']


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit('command failed (%d): %s\n%s' % (r.returncode, ' '.join(cmd), r.stdout))


def listdir(d, ext):
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(ext))


# ---------------------------------------------------------------- generation

def generate_python(roots, tmp):
    """Expand actions and run genpy over every package; return (pydir,
    search path, types, package roots).

    roots maps a definitions root to the origin its .msg types get. types is
    a list of (full type name, origin, python module name, class name).
    """
    root_of, origin_of = {}, {}
    for root, origin in roots.items():
        for p in os.listdir(root):
            if os.path.isdir(os.path.join(root, p)):
                if p in root_of:
                    sys.exit('package %s is in both %s and %s' % (p, root_of[p], root))
                root_of[p], origin_of[p] = root, origin
    pkgs = sorted(root_of)
    search = {}
    for pkg in pkgs:
        msgs = root_of[pkg]
        dirs = [os.path.join(msgs, pkg, 'msg')]
        actions = listdir(os.path.join(msgs, pkg, 'action'), '.action')
        if actions:
            adir = os.path.join(tmp, 'action', pkg)
            for a in actions:
                run([PY, GENACTION, a, '-o', adir])
            dirs.append(adir)
        search[pkg] = [d for d in dirs if os.path.isdir(d)]
    incl = []
    for pkg in pkgs:
        for d in search[pkg]:
            incl += ['-I', '%s:%s' % (pkg, d)]

    pydir = os.path.join(tmp, 'py')
    types = []
    for pkg in pkgs:
        msgs = root_of[pkg]
        os.makedirs(os.path.join(pydir, pkg))
        open(os.path.join(pydir, pkg, '__init__.py'), 'w').close()
        msgfiles = listdir(os.path.join(msgs, pkg, 'msg'), '.msg')
        actfiles = listdir(os.path.join(tmp, 'action', pkg), '.msg')
        if msgfiles or actfiles:
            out = os.path.join(pydir, pkg, 'msg')
            run([PY, GENMSG_PY, '-p', pkg, '-o', out] + incl + msgfiles + actfiles)
            run([PY, GENMSG_PY, '--initpy', '-p', pkg, '-o', out])
            for f in msgfiles:
                types.append((pkg + '/' + os.path.basename(f)[:-4], origin_of[pkg], pkg + '.msg',
                              os.path.basename(f)[:-4]))
            for f in actfiles:
                types.append((pkg + '/' + os.path.basename(f)[:-4], 'action', pkg + '.msg',
                              os.path.basename(f)[:-4]))
        srvfiles = listdir(os.path.join(msgs, pkg, 'srv'), '.srv')
        if srvfiles:
            out = os.path.join(pydir, pkg, 'srv')
            run([PY, GENSRV_PY, '-p', pkg, '-o', out] + incl + srvfiles)
            run([PY, GENSRV_PY, '--initpy', '-p', pkg, '-o', out])
            for f in srvfiles:
                name = os.path.basename(f)[:-4]
                for part in ('Request', 'Response'):
                    types.append((pkg + '/' + name + part, 'srv', pkg + '.srv', name + part))
    return pydir, search, types, root_of


def load_field_names(root_of, search, types):
    """Field names as written in the definitions (genpy renames Python keywords
    in __slots__), keyed by full type name."""
    import genmsg
    import genmsg.msg_loader as ml
    ctx = genmsg.MsgContext.create_default()
    names = {}
    for full, origin, _, short in types:
        pkg = full.split('/')[0]
        if origin == 'srv':
            srvname = short[:-len('Request')] if short.endswith('Request') else short[:-len('Response')]
            path = os.path.join(root_of[pkg], pkg, 'srv', srvname + '.srv')
            spec = ml.load_srv_from_file(ctx, path, pkg + '/' + srvname)
            ml.load_depends(ctx, spec, search)
            names[pkg + '/' + srvname + 'Request'] = list(spec.request.names)
            names[pkg + '/' + srvname + 'Response'] = list(spec.response.names)
        else:
            spec = ml.load_msg_by_type(ctx, full, search)
            ml.load_depends(ctx, spec, search)
            names[full] = list(spec.names)
    return names


# ---------------------------------------------------------------- random values

INT_RANGES = {
    'int8': (-2**7, 2**7 - 1), 'byte': (-2**7, 2**7 - 1),
    'uint8': (0, 2**8 - 1), 'char': (0, 2**8 - 1),
    'int16': (-2**15, 2**15 - 1), 'uint16': (0, 2**16 - 1),
    'int32': (-2**31, 2**31 - 1), 'uint32': (0, 2**32 - 1),
    'int64': (-2**63, 2**63 - 1), 'uint64': (0, 2**64 - 1),
}

F32_SPECIAL = [float('nan'), float('inf'), float('-inf'), -0.0, 0.0,
               struct.unpack('<f', struct.pack('<I', 0x7f7fffff))[0],   # max
               struct.unpack('<f', struct.pack('<I', 0xff7fffff))[0],   # -max
               struct.unpack('<f', struct.pack('<I', 0x00800000))[0],   # min normal
               struct.unpack('<f', struct.pack('<I', 0x00000001))[0],   # min denormal
               struct.unpack('<f', struct.pack('<I', 0x807fffff))[0],   # -max denormal
               1.0, -1.0, 0.5, 16777216.0, 16777217.0]
F64_SPECIAL = [float('nan'), float('inf'), float('-inf'), -0.0, 0.0,
               sys.float_info.max, -sys.float_info.max, sys.float_info.min,
               5e-324, -5e-324, 2.2250738585072009e-308,  # largest denormal
               1.0, -1.0, 0.1, 1e16, 9007199254740993.0, 2.0**63, 1e-7, 123456.789]

STRING_PIECES = ['', 'a', 'hello', 'base_link', '/map', 'héllo wörld', 'Grüße', '日本語',
                 'ロボット', '🤖', '🚀 launch', 'π≈3.14159', '\u2028\u2029', '"quoted"',
                 'back\\slash', 'tab\there', 'new\nline', 'cr\r', '\x00nul', '\x01\x1f\x7f',
                 '</script>', '&<>', ' spaces  ', '{"json": [1,2]}', 'ÿ', '\u00e9\u0301',
                 'Ω', '\ufeffbom', '\U0010ffff']


def int_specials(base):
    lo, hi = INT_RANGES[base]
    return [lo, hi, 0, 1, hi - 1, lo + 1] + ([-1] if lo < 0 else [])


def rand_int(rng, base, edge, pick):
    lo, hi = INT_RANGES[base]
    r = rng.random()
    if r < edge:
        return pick(base, int_specials(base))
    if r < edge + 0.2:
        return rng.randint(max(lo, -1000), min(hi, 1000))
    return rng.randint(lo, hi)


def rand_f32(rng, edge, pick):
    r = rng.random()
    if r < edge:
        v = pick('float32', F32_SPECIAL)
    elif r < edge + 0.3:
        v = round(rng.uniform(-1000, 1000), rng.randint(0, 4))
    elif r < edge + 0.35:
        # a denormal
        v = struct.unpack('<f', struct.pack('<I', rng.randint(1, 0x007fffff) | rng.choice([0, 0x80000000])))[0]
    else:
        while True:
            bits = rng.getrandbits(32)
            if (bits >> 23) & 0xff != 0xff:
                break
        v = struct.unpack('<f', struct.pack('<I', bits))[0]
    # exactly representable as float32 (what genpy's '<f' would write anyway)
    return struct.unpack('<f', struct.pack('<f', v))[0]


def rand_f64(rng, edge, pick):
    r = rng.random()
    if r < edge:
        return pick('float64', F64_SPECIAL)
    if r < edge + 0.3:
        return round(rng.uniform(-1e4, 1e4), rng.randint(0, 6))
    if r < edge + 0.35:
        return struct.unpack('<d', struct.pack('<Q', rng.randint(1, (1 << 52) - 1) | rng.choice([0, 1 << 63])))[0]
    while True:
        bits = rng.getrandbits(64)
        if (bits >> 52) & 0x7ff != 0x7ff:
            return struct.unpack('<d', struct.pack('<Q', bits))[0]


def rand_string(rng):
    k = rng.choice([0, 1, 1, 2, 3])
    s = ''.join(rng.choice(STRING_PIECES) for _ in range(k))
    if rng.random() < 0.2:
        s += ''.join(chr(rng.choice([rng.randint(0x20, 0x7e), rng.randint(0xa0, 0xd7ff),
                                     rng.randint(0xe000, 0xfffd), rng.randint(0x10000, 0x10ffff)]))
                     for _ in range(rng.randint(1, 6)))
    return s


class Gen:
    """Seeded random instances of genpy classes. edge is the probability that a
    number is drawn from the extremes/special values rather than the full range;
    with cycle those are taken in turn per primitive (so the first int64 of a
    message is int64 min, the first float32 NaN), else at random, and
    sequences are filled to their cap."""

    def __init__(self, genpy, rng, edge, cycle):
        self.genpy = genpy
        self.rng = rng
        self.edge = edge
        self.cycle = cycle
        self.turn = {}

    def pick(self, base, specials):
        if not self.cycle:
            return self.rng.choice(specials)
        k = self.turn.get(base, 0)
        self.turn[base] = k + 1
        return specials[k % len(specials)]

    def cls(self, owner_pkg, base):
        if '/' not in base:
            base = 'std_msgs/Header' if base == 'Header' else owner_pkg + '/' + base
        pkg, name = base.split('/')
        return getattr(importlib.import_module(pkg + '.msg'), name)

    def scalar(self, rng, owner_pkg, base, depth):
        if base in INT_RANGES:
            return rand_int(rng, base, self.edge, self.pick)
        if base == 'bool':
            return rng.random() < 0.5
        if base == 'float32':
            return rand_f32(rng, self.edge, self.pick)
        if base == 'float64':
            return rand_f64(rng, self.edge, self.pick)
        if base == 'string':
            return rand_string(rng)
        if base == 'time':
            secs = rng.choice([0, 2**32 - 1, rng.randint(0, 2**32 - 1), rng.randint(1400000000, 1800000000)])
            return self.genpy.Time(secs, rng.choice([0, 999999999, rng.randint(0, 999999999)]))
        if base == 'duration':
            secs = rng.choice([0, -1, -2**31, 2**31 - 1, rng.randint(-2**31, 2**31 - 1), rng.randint(-100, 100)])
            d = self.genpy.Duration(0)
            d.secs, d.nsecs = secs, rng.choice([0, 999999999, rng.randint(0, 999999999)])
            return d
        return self.message(rng, self.cls(owner_pkg, base), depth + 1)

    def message(self, rng, cls, depth=0):
        import genmsg.msgs
        msg = cls()
        pkg = cls._type.split('/')[0]
        maxlen = 4 if depth <= 1 else (2 if depth == 2 else 1)
        for slot, typ in zip(cls.__slots__, cls._slot_types):
            base, is_array, alen = genmsg.msgs.parse_type(typ)
            if not is_array:
                setattr(msg, slot, self.scalar(rng, pkg, base, depth))
                continue
            # instance 1 (cycle) fills sequences to the cap, the others draw 0..cap
            n = alen if alen is not None else (maxlen if self.cycle else rng.randint(0, maxlen))
            if base in ('uint8', 'char'):
                if alen is None:
                    n = rng.choice([0, rng.randint(1, 16)])
                setattr(msg, slot, bytes(rng.getrandbits(8) for _ in range(n)))
            else:
                setattr(msg, slot, [self.scalar(rng, pkg, base, depth) for _ in range(n)])
        return msg


# ---------------------------------------------------------------- JSON rendering

def f32_text(v):
    import numpy as np
    s = repr(np.float32(v))  # shortest text that reads back as the same float32
    assert struct.pack('<f', float(s)) == struct.pack('<f', v), (v, s)
    return s


def float_text(v, f32):
    if math.isnan(v):
        return '"NaN"'
    if math.isinf(v):
        return '"Infinity"' if v > 0 else '"-Infinity"'
    if f32:
        return f32_text(v)
    s = repr(v)
    assert struct.pack('<d', float(s)) == struct.pack('<d', v), (v, s)
    return s


def scalar_json(base, v, names):
    if base in INT_RANGES:
        assert isinstance(v, int), (base, v)
        return str(int(v))
    if base == 'bool':
        return 'true' if v else 'false'
    if base in ('float32', 'float64'):
        return float_text(float(v), base == 'float32')
    if base == 'string':
        return json.dumps(v, ensure_ascii=False)
    if base in ('time', 'duration'):
        return '{"sec":%d,"nsec":%d}' % (v.secs, v.nsecs)
    return msg_json(v, names)


def msg_json(msg, names):
    """JSON text of a genpy message: an object with the fields in order."""
    import genmsg.msgs
    parts = []
    for name, slot, typ in zip(names[msg._type], msg.__slots__, msg._slot_types):
        v = getattr(msg, slot)
        base, is_array, _ = genmsg.msgs.parse_type(typ)
        if not is_array:
            txt = scalar_json(base, v, names)
        elif base in ('uint8', 'char'):
            assert isinstance(v, bytes)
            txt = '"%s"' % base64.b64encode(v).decode()
        elif base == 'byte':
            txt = '"%s"' % base64.b64encode(struct.pack('<%db' % len(v), *v)).decode()
        else:
            txt = '[' + ','.join(scalar_json(base, x, names) for x in v) + ']'
        parts.append(json.dumps(name) + ':' + txt)
    return '{' + ','.join(parts) + '}'


# ---------------------------------------------------------------- cross-checks

def shared_md5s(msgs):
    root = os.path.dirname(os.path.abspath(msgs))
    table = {}
    for f in ('ros1-md5sums.txt', 'ros1-action-md5sums.txt', 'ros1-srv-md5sums.txt'):
        p = os.path.join(root, f)
        if os.path.exists(p):
            for line in open(p):
                if line.strip():
                    t, m = line.split()
                    table[t] = m
    return table


DEBIAN_CHECK = r'''
import importlib, json, sys
out = {}
for t, module in json.load(sys.stdin):
    try:
        c = getattr(importlib.import_module(module), t.split('/')[1])
    except Exception:
        continue
    out[t] = [c._md5sum, c._full_text, c.__module__ and sys.modules[c.__module__].__file__]
json.dump(out, sys.stdout)
'''


def debian_installed(types):
    """md5 and full text of the Debian-installed python3-*-msgs classes (run in a
    separate interpreter so they cannot shadow the generated ones)."""
    r = subprocess.run([PY, '-c', DEBIAN_CHECK], input=json.dumps(types),
                       stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(r.stdout)


# ---------------------------------------------------------------- main

def write(path, data):
    mode = 'wb' if isinstance(data, bytes) else 'w'
    tmp = path + '.tmp'
    with open(tmp, mode) as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--msgs', default=MSGS_DEFAULT, help='ROS1 definitions root')
    ap.add_argument('--extra', default=EXTRA_DEFAULT,
                    help='root of extra test-only packages covering shapes the shipped set lacks')
    ap.add_argument('--out', default=OUT_DEFAULT, help='output directory')
    ap.add_argument('--keep-tmp', action='store_true', help='keep the generated Python code')
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix='baglab-genpy-')
    try:
        pydir, search, types, root_of = generate_python({args.msgs: 'msg', args.extra: 'extra'}, tmp)
        sys.path.insert(0, pydir)
        import genpy
        for pkg in {t[2] for t in types}:
            m = importlib.import_module(pkg)
            if not os.path.abspath(m.__file__).startswith(pydir):
                sys.exit('imported %s from %s, not from the generated code' % (pkg, m.__file__))
        names = load_field_names(root_of, search, types)
        shared = shared_md5s(args.msgs)
        debian = debian_installed([(t[0], t[2]) for t in types if t[0].split('/')[0] in DEBIAN_PKGS])
        fulltext = os.path.join(os.path.dirname(os.path.abspath(args.msgs)), 'ros1-fulltext')
        ft_checked = 0

        index, problems, deb_checked = [], [], 0
        old = {f for f in os.listdir(args.out) if f.endswith(('.bin', '.json', '.msg'))}
        new = set()
        for full, origin, module, short in types:
            cls = getattr(importlib.import_module(module), short)
            if cls._type != full:
                problems.append('%s: genpy _type %s' % (full, cls._type))
            if full in shared and shared[full] != cls._md5sum:
                problems.append('%s: md5 %s, shared table %s' % (full, cls._md5sum, shared[full]))
            if full in debian:
                deb_checked += 1
                if debian[full][0] != cls._md5sum or debian[full][1] != cls._full_text:
                    problems.append('%s: differs from Debian-installed %s' % (full, debian[full][2]))
            stem = full.replace('/', '__')
            ft = os.path.join(fulltext, stem + '.txt')
            if os.path.exists(ft):
                ft_checked += 1
                if open(ft).read() != cls._full_text:
                    problems.append('%s: _full_text differs from %s' % (full, ft))
            defname = stem + '.msg'
            write(os.path.join(args.out, defname), cls._full_text)
            new.add(defname)
            entry = {'type': full, 'md5': cls._md5sum, 'origin': origin, 'definition': defname,
                     'instances': []}
            for i in range(N_RANDOM + 1):
                seed = '%s:%s:%d' % (SEED, full, i)
                # instance 1 leans on extremes, the others on the full ranges
                edge = EDGE_FIRST if i == 1 else EDGE_OTHERS
                rng = random.Random(seed)
                msg = cls() if i == 0 else Gen(genpy, rng, edge, i == 1).message(rng, cls)
                buf = io.BytesIO()
                msg.serialize(buf)
                data = buf.getvalue()
                back = cls()
                back.deserialize(data)
                buf2 = io.BytesIO()
                back.serialize(buf2)
                if buf2.getvalue() != data:
                    problems.append('%s #%d: genpy round trip changes bytes' % (full, i))
                js = msg_json(back, names)
                json.loads(js)  # well-formed
                if msg_json(msg, names) != js:
                    problems.append('%s #%d: JSON of deserialized differs from original' % (full, i))
                b, j = '%s__%d.bin' % (stem, i), '%s__%d.json' % (stem, i)
                write(os.path.join(args.out, b), data)
                write(os.path.join(args.out, j), js + '\n')
                new.update((b, j))
                entry['instances'].append({'bin': b, 'json': j, 'seed': seed if i else 'default',
                                           'size': len(data)})
            index.append(entry)
        for f in sorted(old - new):
            os.remove(os.path.join(args.out, f))
        head = {'generator': 'testdata/golden/ros1/gen/gen_ros1_golden.py', 'seed': SEED,
                'random_instances': N_RANDOM}
        write(os.path.join(args.out, 'index.json'), json.dumps(head)[:-1] + ',"types":[\n' +
              ',\n'.join(json.dumps(e, ensure_ascii=False) for e in index) + '\n]}\n')
        counts = {}
        for e in index:
            counts[e['origin']] = counts.get(e['origin'], 0) + 1
        srvs = {e['type'][:-len('Request')] for e in index if e['type'].endswith('Request')}
        missing = sorted(t for t in shared if t not in srvs and t not in {e['type'] for e in index})
        print('types: %d (%s)' % (len(index), ', '.join('%s %d' % kv for kv in sorted(counts.items()))))
        print('md5 checked against shared tables: %d; md5+full text against Debian-installed classes: %d; '
              'full text against shared ros1-fulltext: %d' % (len(shared) - len(srvs) - len(missing),
                                                              deb_checked, ft_checked))
        print('in shared md5 tables but not generated: %s' % (missing or 'none'))
        if problems:
            print('\n'.join(problems), file=sys.stderr)
            sys.exit(1)
        if args.keep_tmp:
            print('generated Python code kept in', pydir)
    finally:
        if not args.keep_tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
