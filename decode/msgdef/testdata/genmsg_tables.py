#!/usr/bin/python3
"""Compute genmsg's MD5 sums and full texts for a tree of ROS1 definitions.

Usage: /usr/bin/python3 genmsg_tables.py ROOT   (ROOT/<pkg>/{msg,srv,action}/)

Everything comes from Debian's ROS1 tooling, never from baglab: actions are
expanded by actionlib_msgs' genaction.py (Debian libactionlib-msgs-dev) into a
temporary folder, then genmsg (python3-genmsg) loads each type with its
dependencies and computes compute_md5 / compute_full_text, as catkin and rosbag
do. Prints one JSON object:

  {"msg":    {"pkg/Type": {"md5": ..., "full": ...}},   every .msg
   "action": {"pkg/Type": {"md5": ..., "full": ...}},   the 7 types of every .action
   "srv":    {"pkg/Srv": md5, "pkg/SrvRequest": md5, "pkg/SrvResponse": md5}}

Used by decode/msgdef's tests as the reference for the embedded registry.
"""
import json
import os
import subprocess
import sys
import tempfile

import genmsg
import genmsg.msg_loader as ml

GENACTION = '/usr/lib/actionlib_msgs/genaction.py'


def main():
    root = os.path.abspath(sys.argv[1])
    pkgs = sorted(p for p in os.listdir(root) if os.path.isdir(os.path.join(root, p)))
    with tempfile.TemporaryDirectory() as gen:
        generated = {}
        for pkg in pkgs:
            adir = os.path.join(root, pkg, 'action')
            if not os.path.isdir(adir):
                continue
            out = os.path.join(gen, pkg, 'msg')
            for f in sorted(os.listdir(adir)):
                if f.endswith('.action'):
                    subprocess.run(['/usr/bin/python3', GENACTION, os.path.join(adir, f), '-o', out],
                                   check=True, stdout=subprocess.DEVNULL)
            generated[pkg] = sorted(f[:-4] for f in os.listdir(out))
        search = {}
        for pkg in pkgs:
            search[pkg] = [d for d in (os.path.join(root, pkg, 'msg'), os.path.join(gen, pkg, 'msg')) if os.path.isdir(d)]

        def msg(name):
            ctx = genmsg.MsgContext.create_default()
            spec = ml.load_msg_by_type(ctx, name, search)
            ml.load_depends(ctx, spec, search)
            return {'md5': genmsg.compute_md5(ctx, spec), 'full': genmsg.compute_full_text(ctx, spec)}

        res = {'msg': {}, 'action': {}, 'srv': {}}
        for pkg in pkgs:
            mdir = os.path.join(root, pkg, 'msg')
            if os.path.isdir(mdir):
                for f in sorted(os.listdir(mdir)):
                    if f.endswith('.msg'):
                        res['msg'][pkg + '/' + f[:-4]] = msg(pkg + '/' + f[:-4])
            for t in generated.get(pkg, []):
                res['action'][pkg + '/' + t] = msg(pkg + '/' + t)
            sdir = os.path.join(root, pkg, 'srv')
            if os.path.isdir(sdir):
                for f in sorted(os.listdir(sdir)):
                    if not f.endswith('.srv'):
                        continue
                    name = pkg + '/' + f[:-4]
                    ctx = genmsg.MsgContext.create_default()
                    spec = ml.load_srv_from_file(ctx, os.path.join(sdir, f), name)
                    ml.load_depends(ctx, spec, search)
                    res['srv'][name] = genmsg.compute_md5(ctx, spec)
                    res['srv'][name + 'Request'] = genmsg.compute_md5(ctx, spec.request)
                    res['srv'][name + 'Response'] = genmsg.compute_md5(ctx, spec.response)
    json.dump(res, sys.stdout, sort_keys=True)


if __name__ == '__main__':
    main()
