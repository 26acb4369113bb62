#!/usr/bin/env python3
"""Run baglab over a fleet of recordings on a Dask distributed cluster.

baglab is the per-file worker; Dask only schedules it. Each task runs the
baglab command line on one batch of recordings:

  1. export:  baglab export FILES... --out DIR --partition-by date --jobs 1
     Every worker writes into the same dataset directory (a shared file
     system). Part files are named by each input's content hash and each
     input's manifest row is written atomically, so tasks never write the
     same file; a rerun (or a retried task) skips inputs already exported.
  2. analyze: baglab analyze KIND FILES... --partial PARTIALS/NNNNNN.json --force
     Each task saves its accumulator state, not a result (--force: a rerun
     or a retried task replaces its own file whole).
  3. merge:   baglab analyze KIND --from-partial PARTIALS/*.json --json
     On the client, in the order of the files, so the result is byte for
     byte that of one `baglab analyze KIND` over every file.

Usage:
  python3 dask_fleet.py --baglab /usr/local/bin/baglab --out DATASET \\
      --partials PARTIALS --result placements.json [--analyze placements] \\
      [--partition-by date] [--batch 10] \\
      [--scheduler tcp://host:8786 | --workers 4] FILE... | --list FILES.txt

Recordings, --out and --partials may be object storage URLs
(s3://bucket/runs/a.bag, s3://bucket/dataset/, s3://bucket/partials/):
baglab reads and writes them in place, so the workers need no shared file
system, only the same credentials (AWS_* variables, AWS_ENDPOINT_URL for
an S3-compatible server).

Without --scheduler a LocalCluster of --workers processes (one thread
each) is started on loopback with free ports and --local-dir as its
scratch space, and stopped at the end. With --scheduler ADDRESS the tasks
run on an existing cluster (dask-scheduler / dask-worker, dask-jobqueue on
Slurm, Kubernetes ...); the paths given must then be the same on every
worker. Exit code 0 when every task succeeded; the first failing task's
baglab stderr is printed otherwise.
"""

import argparse
import os
import subprocess
import sys
import tempfile


def run_baglab(argv):
    """Runs one baglab command on a worker; returns (argv, exit code, stderr)."""
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return argv, p.returncode, p.stderr


def is_url(p):
    return "://" in p


def local_or_url(p):
    """An absolute path, or the URL as given."""
    return p if is_url(p) else os.path.abspath(p)


def batches(files, n):
    return [files[i:i + n] for i in range(0, len(files), n)]


def check(results, what):
    failed = [r for r in results if r[1] != 0]
    for argv, code, stderr in failed[:1]:
        sys.stderr.write("dask_fleet: %s failed (exit %d): %s\n%s" % (what, code, " ".join(argv), stderr))
    return not failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="recordings (.bag, .mcap, .db3 or rosbag2 folders)")
    ap.add_argument("--list", help="a file listing recordings, one per line")
    ap.add_argument("--baglab", default="baglab", help="the baglab binary (on every worker)")
    ap.add_argument("--out", required=True, help="dataset directory of the export")
    ap.add_argument("--partition-by", default="date", choices=["date", "source"])
    ap.add_argument("--analyze", default="all", help="analysis kind (placements, grasps, ... or all)")
    ap.add_argument("--partials", required=True, help="directory for the partial files")
    ap.add_argument("--result", required=True, help="where to write the merged --json result")
    ap.add_argument("--batch", type=int, default=1, help="recordings per task")
    ap.add_argument("--scheduler", help="address of a running dask-scheduler")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (without --scheduler)")
    ap.add_argument("--local-dir", help="LocalCluster scratch directory (default: a new temporary one)")
    args = ap.parse_args()

    files = list(args.files)
    if args.list:
        with open(args.list) as f:
            files += [l.strip() for l in f if l.strip()]
    if not files:
        ap.error("no recordings given")
    files = [local_or_url(f) for f in files]
    out, partials = local_or_url(args.out), local_or_url(args.partials)
    if not is_url(partials):
        os.makedirs(partials, exist_ok=True)

    from dask.distributed import Client, LocalCluster

    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        local = args.local_dir or tempfile.mkdtemp(prefix="dask-fleet-")
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                               local_directory=local, silence_logs=40)
        client = Client(cluster)
    try:
        groups = batches(files, max(args.batch, 1))
        exports = [[args.baglab, "export", *g, "--out", out, "--partition-by", args.partition_by, "--jobs", "1"]
                   for g in groups]
        names = [partials.rstrip("/") + "/%06d.partial.json" % i if is_url(partials)
                 else os.path.join(partials, "%06d.partial.json" % i) for i in range(len(groups))]
        analyses = [[args.baglab, "analyze", args.analyze, *g, "--partial", n, "--force", "--jobs", "1"]
                    for g, n in zip(groups, names)]
        # pure=False: a rerun of the script runs the commands again (baglab
        # itself skips what is done).
        futures = client.map(run_baglab, exports + analyses, pure=False)
        results = client.gather(futures)
        ok = check(results[:len(exports)], "export") & check(results[len(exports):], "analyze --partial")
        if not ok:
            return 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    with open(args.result + ".tmp", "w") as f:
        p = subprocess.run([args.baglab, "analyze", args.analyze, "--from-partial", ",".join(names), "--json"],
                           stdout=f, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        os.remove(args.result + ".tmp")
        sys.stderr.write("dask_fleet: merge failed (exit %d):\n%s" % (p.returncode, p.stderr))
        return 1
    os.replace(args.result + ".tmp", args.result)
    print("dask_fleet: %d recordings in %d tasks: dataset %s, result %s" % (len(files), len(groups), out, args.result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
