"""kinetoscope-fleet: the Distributed view of a run of thousands of ranks, its map on a Dask cluster.

    kinetoscope-fleet (--scheduler tcp://HOST:8786 | --local N) [--kinetoscope PATH] [--tb-plugin]
                      [--retries N] SOURCE... -o RUN.kinetoscope-run.json

Each rank's trace is summarized on a worker by the native `kinetoscope rank-summary` (the worker
reads the file itself: a path it can see, or a URL through fsspec); the summaries (kilobytes) come
back and are reduced here by `kinetoscope distributed --from-summaries`, the same code the page
runs. The run file holds that reduce's output under "distributed" (one object per span, exactly
what `kinetoscope distributed --json` prints for the same files) and a row per rank under "ranks".
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import kinetoscope_fleet_task as task

RUN_FORMAT = 1


class FleetError(Exception):
    """One sentence for the user; the exit status is 2."""


def _trace_names(names):
    """A folder's traces as `kinetoscope distributed DIR` takes them."""
    named = [n for n in names if n.endswith((".pt.trace.json", ".pt.trace.json.gz"))]
    return sorted(named or [n for n in names if n.endswith((".json", ".json.gz"))])


def expand_sources(sources):
    """Files from folders, globs, paths and URLs, in the order given (each folder's sorted)."""
    out = []
    for s in sources:
        if task.is_url(s):
            if any(c in s for c in "*?[") or s.endswith("/"):
                try:
                    import fsspec
                except ImportError:
                    raise FleetError(f"{s}: listing a URL needs fsspec (python3-fsspec), which is not installed here")
                fs, _, paths = fsspec.core.get_fs_token_paths(s)
                if s.endswith("/"):
                    names = [p.rstrip("/").rsplit("/", 1)[-1] for p in fs.ls(paths[0], detail=False)]
                    keep = set(_trace_names(names))
                    found = [p for p in sorted(fs.ls(paths[0], detail=False)) if p.rstrip("/").rsplit("/", 1)[-1] in keep]
                else:
                    found = sorted(fs.glob(paths[0]))
                out += [fs.unstrip_protocol(p) for p in found]
            else:
                out.append(s)
        elif os.path.isdir(s):
            found = _trace_names(os.listdir(s))
            if not found:
                raise FleetError(f"{s}: no trace files in it")
            out += [os.path.join(s, n) for n in found]
        elif any(c in s for c in "*?["):
            found = sorted(glob.glob(s))
            if not found:
                raise FleetError(f"{s}: no file matches")
            out += found
        else:
            out.append(s)
    return out


def source_size(source):
    """Bytes of a local file (for MB/s); None for a URL or a missing file."""
    try:
        return None if task.is_url(source) else os.path.getsize(source)
    except OSError:
        return None


class Progress:
    """ranks done/total, failed, MB/s: one rewritten line on a terminal, a line per 10 % else."""

    def __init__(self, total, stream=sys.stderr):
        self.total, self.done, self.failed, self.bytes = total, 0, 0, 0
        self.t0 = time.monotonic()
        self.stream = stream
        self.tty = stream.isatty()
        self.last_decile = -1

    def update(self, row):
        self.done += 1
        self.failed += row["status"] == "failed"
        self.bytes += row.get("bytes_read") or 0
        secs = max(time.monotonic() - self.t0, 1e-9)
        width = 30
        fill = int(width * self.done / self.total) if self.total else width
        line = (f"[{'#' * fill}{'.' * (width - fill)}] ranks {self.done}/{self.total}"
                f"{f', {self.failed} failed' if self.failed else ''}, {self.bytes / 1e6 / secs:.1f} MB/s")
        if self.tty:
            self.stream.write("\r" + line + ("\n" if self.done == self.total else ""))
            self.stream.flush()
        else:
            decile = 10 * self.done // self.total if self.total else 10
            if decile != self.last_decile or self.done == self.total:
                self.last_decile = decile
                print(line, file=self.stream, flush=True)


def local_binary(given):
    """The client's own kinetoscope (it reduces): --kinetoscope, else PATH, else this checkout's build."""
    for cand in [given, os.environ.get("KINETOSCOPE"), "kinetoscope",
                 os.path.join(os.path.dirname(__file__), "..", "..", "..", "build", "native", "kinetoscope")]:
        if cand and task.resolve_binary(cand):
            return task.resolve_binary(cand)
    raise FleetError("no kinetoscope binary here: build it (./scripts/build --native-only) or give --kinetoscope PATH")


def connect(args):
    """A distributed.Client on the scheduler given, or on a LocalCluster of N worker processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise FleetError("kinetoscope-fleet needs Dask's distributed scheduler (Debian: python3-distributed; pip: distributed)")
    if args.local:
        cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40)
        return Client(cluster), cluster
    try:
        return Client(args.scheduler, timeout=args.connect_timeout), None
    except (OSError, TimeoutError) as e:
        raise FleetError(f"cannot reach the Dask scheduler at {args.scheduler} ({e}); start one "
                         f"(dask-scheduler, then dask-worker {args.scheduler}) or use --local N")


def check_workers(client, kinetoscope, version):
    """Every worker has a kinetoscope of this client's version, else one sentence."""
    answers = client.run(task.binary_version, kinetoscope)
    if not answers:
        raise FleetError("the Dask cluster has no workers")
    missing = sorted(f"{w} ({why})" for w, (ok, why) in answers.items() if not ok)
    if missing:
        raise FleetError(f"kinetoscope cannot run on worker{'s' if len(missing) > 1 else ''} {', '.join(missing)}: "
                         f"install it there, or give --kinetoscope PATH valid on every worker")
    other = sorted(f"{w} has {v}" for w, (ok, v) in answers.items() if v != version)
    if other:
        raise FleetError(f"the workers' kinetoscope differs from this one ({version}): {', '.join(other)}; "
                         f"use the same build everywhere")
    return len(answers)


def run_fleet(args, out=sys.stderr):
    sources = expand_sources(args.sources)
    if not sources:
        raise FleetError("no trace to read")
    mine = local_binary(args.kinetoscope if args.kinetoscope and os.path.sep in args.kinetoscope else None)
    version = subprocess.run([mine, "--version"], capture_output=True, text=True).stdout.strip()
    if not version.startswith("kinetoscope "):
        raise FleetError(f"{mine} does not say its version (too old a build?)")
    worker_binary = args.kinetoscope or ("kinetoscope" if not args.local else mine)
    client, cluster = connect(args)
    t0 = time.monotonic()
    try:
        client.upload_file(task.__file__)
        workers = check_workers(client, worker_binary, version)
        print(f"kinetoscope-fleet: {len(sources)} trace{'s' if len(sources) != 1 else ''} on {workers} "
              f"worker{'s' if workers != 1 else ''} ({version})", file=out, flush=True)
        from distributed import as_completed

        futures = {client.submit(task.summarize, i, s, worker_binary, args.tb_plugin, pure=False,
                                 retries=args.retries): i for i, s in enumerate(sources)}
        rows = [None] * len(sources)
        progress = Progress(len(sources), out)
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                row = fut.result()
            except Exception as e:  # retries spent, or the worker died each time (KilledWorker)
                row = {"index": i, "file": sources[i], "name": os.path.basename(sources[i]),
                       "status": "failed", "error": f"{type(e).__name__}: {e}"}
            rows[i] = row
            progress.update(row)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    map_seconds = time.monotonic() - t0

    # The reduce, here: the summaries as files, reduced by the same command as on one machine.
    with tempfile.TemporaryDirectory(prefix="ks-fleet-run-") as tmp:
        for r in rows:
            if r["status"] != "failed":
                with open(os.path.join(tmp, f"{r['index']:07d}.ks-summary"), "wb") as f:
                    f.write(r["summary"])
        kept = sum(r["status"] != "failed" for r in rows)
        spans, gpu_time, reduce_error = [], [], None
        if kept:
            cmd = [mine, "distributed", "--from-summaries", "--json"] + (["--tb-plugin"] if args.tb_plugin else []) + [tmp]
            red = subprocess.run(cmd, capture_output=True, text=True)
            spans = [json.loads(l) for l in red.stdout.splitlines() if l.strip()]
            if not spans:
                reduce_error = red.stderr.strip() or f"the reduce exited with {red.returncode}"
            else:
                # The run's GPU time per rank, from the same summaries (the page's per-rank table).
                red = subprocess.run(cmd + ["--gpu-time"], capture_output=True, text=True)
                gpu_time = [json.loads(l) for l in red.stdout.splitlines() if l.strip()]
        else:
            reduce_error = "no rank could be summarized"

    ranks = []
    for r in rows:
        row = {"file": r["file"], "rank": r.get("rank"), "world_size": r.get("world_size"), "status": r["status"],
               "error": r.get("error") if r["status"] == "failed" else ("; ".join(r["problems"]) if r.get("problems") else None),
               "steps": r.get("steps"), "calls": r.get("calls"), "bytes_read": r.get("bytes_read"),
               "summary_bytes": len(r["summary"]) if "summary" in r else None, "seconds": r.get("seconds"),
               "worker": r.get("worker") or None}
        ranks.append(row)
    run = {
        "kinetoscope_run": RUN_FORMAT,
        "version": version,
        "mode": "tb_plugin" if args.tb_plugin else "default",
        "sources": args.sources,
        "distributed": spans,
        "gpu_time": gpu_time,
        "reduce_error": reduce_error,
        "ranks": ranks,
        "failed": sum(r["status"] == "failed" for r in ranks),
        "seconds": {"map": round(map_seconds, 3), "total": round(time.monotonic() - t0, 3)},
    }
    tmp_out = args.output + ".part"
    with open(tmp_out, "w") as f:
        json.dump(run, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp_out, args.output)
    failed = [r for r in ranks if r["status"] == "failed"]
    partial = [r for r in ranks if r["status"] == "partial"]
    for r in failed:
        print(f"  failed: {r['file']}: {r['error']}", file=out)
    for r in partial:
        print(f"  partial: {r['file']}: {r['error']}", file=out)
    print(f"kinetoscope-fleet: {len(ranks) - len(failed)} of {len(ranks)} ranks reduced"
          f"{f', {len(failed)} failed' if failed else ''} -> {args.output}", file=out, flush=True)
    if reduce_error:
        print(f"kinetoscope-fleet: {reduce_error}", file=out)
    return 1 if failed or reduce_error else 0


def parser():
    p = argparse.ArgumentParser(
        prog="kinetoscope-fleet",
        description="The Distributed view of a run of many ranks: each rank's trace summarized on a Dask "
                    "worker by `kinetoscope rank-summary`, reduced here; the run file opens in the page.")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDR", help="a running Dask scheduler (tcp://HOST:8786)")
    where.add_argument("--local", metavar="N", type=int, help="start a LocalCluster of N worker processes here")
    p.add_argument("--kinetoscope", metavar="PATH",
                   help="the kinetoscope binary on the workers (default: on their PATH; with --local, this one's)")
    p.add_argument("--tb-plugin", action="store_true", help="tb_plugin's reading (as kinetoscope distributed --tb-plugin)")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="times a task that failed on a worker (killed, a download cut) is tried again (default 2)")
    p.add_argument("--connect-timeout", default="10s", help=argparse.SUPPRESS)
    p.add_argument("-o", "--output", required=True, metavar="RUN.kinetoscope-run.json", help="the run file to write")
    p.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="a folder (its traces), a glob, a trace, or a URL (s3://, gs://, https://: via fsspec)")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    if args.local is not None and args.local < 1:
        print("kinetoscope-fleet: --local takes a number of workers, 1 or more", file=sys.stderr)
        return 2
    try:
        return run_fleet(args)
    except FleetError as e:
        print(f"kinetoscope-fleet: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kinetoscope-fleet: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
