"""scripts/bench --fleet: kinetoscope-fleet on a LocalCluster against `kinetoscope distributed --jobs W`
on the same generated run (issue 27's cost on one machine), and the run file's size.

    scripts/bench --fleet [--ranks 256] [--size 50M] [--workers 2] [--runs 3]

Prints a markdown table: medians of --runs runs, MB/s and events/s beside the seconds, and the
fleet's cost as a ratio of distributed's measured in the same run. The run is generated once into
/tmp/kinetoscope-bench/fleet-<ranks>x<size> (scripts/gen-trace.mjs --ranks).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CLI = os.path.join(ROOT, "build", "native", "kinetoscope")
FLEET = os.path.join(ROOT, "scripts", "kinetoscope-fleet")


def timed(cmd, **kw):
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"bench-fleet: {' '.join(cmd[:3])}... failed: {r.stderr.strip()[-400:]}")
    return time.monotonic() - t0, r


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ranks", type=int, default=256)
    p.add_argument("--size", default="50M")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    run_dir = f"/tmp/kinetoscope-bench/fleet-{a.ranks}x{a.size}"
    if not os.path.isdir(run_dir) or len(os.listdir(run_dir)) != a.ranks:
        print(f"generating {a.ranks} ranks of {a.size} into {run_dir}", file=sys.stderr)
        subprocess.run(["node", os.path.join(ROOT, "scripts", "gen-trace.mjs"), "--size", a.size, "--ranks", str(a.ranks),
                        "--out", run_dir], check=True, capture_output=True)
    files = sorted(os.path.join(run_dir, n) for n in os.listdir(run_dir))
    total = sum(os.path.getsize(f) for f in files)
    events = json.loads(subprocess.run([CLI, "summary", "--json", files[0]], capture_output=True, text=True, check=True).stdout)
    per_rank_events = int(events["events"])  # the ranks are copies of rank 0 (gen-trace --ranks)

    dist, fleet, run_bytes, summary_bytes = [], [], 0, []
    env = {**os.environ, "KINETOSCOPE": CLI}
    for k in range(a.runs):
        s, direct = timed([CLI, "distributed", "--json", "--jobs", str(a.workers), run_dir])
        dist.append(s)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run.kinetoscope-run.json")
            s, _ = timed([FLEET, "--local", str(a.workers), "--kinetoscope", CLI, run_dir, "-o", out], env=env)
            fleet.append(s)
            run = json.load(open(out))
            if run["distributed"] != [json.loads(l) for l in direct.stdout.splitlines() if l.strip()]:
                sys.exit("bench-fleet: the fleet's distributed differs from kinetoscope distributed's")
            run_bytes = os.path.getsize(out)
            summary_bytes = [r["summary_bytes"] for r in run["ranks"]]
        print(f"run {k + 1}: distributed {dist[-1]:.2f} s, fleet {fleet[-1]:.2f} s", file=sys.stderr)

    md, mf = statistics.median(dist), statistics.median(fleet)
    ev = per_rank_events * a.ranks
    print(f"\n{a.ranks} ranks x {a.size} ({total / 1e6:,.0f} MB, {ev:,} events), {a.workers} workers, median of {a.runs}\n")
    print("| how | seconds | MB/s | events/s | vs distributed |")
    print("|---|---:|---:|---:|---:|")
    print(f"| `kinetoscope distributed --jobs {a.workers}` | {md:.2f} | {total / 1e6 / md:,.0f} | {ev / md:,.0f} | 1.00x |")
    print(f"| `kinetoscope-fleet --local {a.workers}` | {mf:.2f} | {total / 1e6 / mf:,.0f} | {ev / mf:,.0f} | {mf / md:.2f}x |")
    print(f"\nrank summary: median {statistics.median(summary_bytes):,.0f} bytes; run file {run_bytes:,} bytes "
          f"({run_bytes / a.ranks:,.0f} per rank)")


if __name__ == "__main__":
    main()
