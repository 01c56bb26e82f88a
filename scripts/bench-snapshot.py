#!/usr/bin/env python3
"""`scripts/bench --snapshot`: the native CLI on CUDA allocator snapshots (issue 26's "CLI >= 200
MB/s" and "heap <= 0.5x the pickle"): `kinetoscope snapshot --json` on generated snapshots of N
entries (scripts/gen-snapshot, kept in /tmp/kinetoscope-bench), optionally beside an older build
(--before BIN), runs taking turns. It prints a table of medians: CPU seconds (user + system, the
number to compare on a loaded machine), MB/s and M entries/s per CPU second, wall time, and the
process's peak RSS against the file's size (reading, the numbers per device and the views the JSON
is assembled from: the page's SnapshotSession does the same work).

  scripts/bench --snapshot [--entries 2000000,10000000] [--runs 3] [--before OLD_KINETOSCOPE] [--file X.pickle]

--wasm: the wasm core in Node instead, as the Snapshot page's worker runs it
(scripts/bench-snapshot-wasm.mjs: read, the heap after reading and with the page's views built,
the timeline's zoom windows), build/wasm/kinetoscope_node.js beside --before-wasm MODULE.
--page: the page in Chromium (scripts/bench-snapshot-page.mjs: pick → timeline drawn, each zoom
click → window drawn), web/dist beside --before-dist DIST. Each run prints one JSON line.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(binary, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run([binary, 'snapshot', '--json', path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f'{binary} failed on {path}: {p.stderr.decode().strip()}')
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, after.ru_maxrss  # ru_maxrss of children: the largest child so far (KB)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--entries', default='2000000,10000000')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--before')
    ap.add_argument('--after', default=os.path.join(repo, 'build/native/kinetoscope'))
    ap.add_argument('--file', action='append', default=[])
    ap.add_argument('--wasm', action='store_true')
    ap.add_argument('--before-wasm')
    ap.add_argument('--page', action='store_true')
    ap.add_argument('--before-dist')
    a = ap.parse_args()
    files = list(a.file)
    if not a.file:
        os.makedirs('/tmp/kinetoscope-bench', exist_ok=True)
        for n in [int(x) for x in a.entries.split(',') if x]:
            f = f'/tmp/kinetoscope-bench/snapshot-{n}.pickle'
            if not os.path.exists(f):
                print(f'writing {f} (scripts/gen-snapshot --entries {n})', file=sys.stderr)
                subprocess.run([os.path.join(repo, 'scripts/gen-snapshot'), '--entries', str(n), '-o', f], check=True)
            files.append(f)
    if a.wasm or a.page:
        # The worker's core in Node, or the page: builds taking turns, one JSON line a run.
        if a.wasm:
            builds = [('after', os.path.join(repo, 'build/wasm/kinetoscope_node.js'))] + ([('before', a.before_wasm)] if a.before_wasm else [])
        else:
            builds = [('after', os.path.join(repo, 'web/dist'))] + ([('before', a.before_dist)] if a.before_dist else [])
        print(f'# {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average {os.getloadavg()[0]:.1f}, {a.runs} runs each, taking turns')
        for f in files:
            for _ in range(a.runs):
                for name, b in builds:
                    if a.wasm:
                        cmd = ['node', os.path.join(repo, 'scripts/bench-snapshot-wasm.mjs'), b, f]
                        env = os.environ
                    else:
                        cmd = ['node', os.path.join(repo, 'scripts/bench-snapshot-page.mjs'), f]
                        env = dict(os.environ, KINETOSCOPE_DIST=b)
                    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
                    if out.returncode != 0:
                        sys.exit(f'{name} failed on {f}: {out.stderr.strip()[-2000:]}')
                    print(f'{name} {out.stdout.strip()}', flush=True)
        return
    builds = [('after', a.after)] + ([('before', a.before)] if a.before else [])
    print(f'# {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, load average {os.getloadavg()[0]:.1f}, {a.runs} runs each, taking turns')
    print('| file | bytes | entries | build | CPU s (median) | MB/s (CPU) | M entries/s (CPU) | wall s | peak RSS | RSS / file |')
    print('|---|---:|---:|---|---:|---:|---:|---:|---:|---:|')
    for f in files:
        size = os.path.getsize(f)
        out = subprocess.run([a.after, 'snapshot', '--json', f], capture_output=True, text=True).stdout
        import json
        entries = sum(d['trace_entries'] for d in json.loads(out)['devices'])
        res = {name: [] for name, _ in builds}
        for _ in range(a.runs):
            for name, b in builds:
                # A child's peak RSS is only readable as the largest so far: each run in a fresh
                # Python child keeps the numbers apart.
                r = subprocess.run([sys.executable, '-c', f'import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r});'
                                    f'import importlib.util as u; s = u.spec_from_file_location("b", {os.path.abspath(__file__)!r}); m = u.module_from_spec(s); s.loader.exec_module(m);'
                                    f'print(*m.run({b!r}, {f!r}))'], capture_output=True, text=True, check=True)
                cpu, wall, rss = r.stdout.split()
                res[name].append((float(cpu), float(wall), int(rss)))
        for name, _ in builds:
            cpu = statistics.median(x[0] for x in res[name])
            wall = statistics.median(x[1] for x in res[name])
            rss = max(x[2] for x in res[name]) * 1024
            print(f'| {os.path.basename(f)} | {size:,} | {entries:,} | {name} | {cpu:.2f} | {size / 1e6 / cpu:.0f} | {entries / 1e6 / cpu:.2f} | {wall:.2f} | {rss / 1e6:.0f} MB | {rss / size:.2f}x |')


if __name__ == '__main__':
    main()
