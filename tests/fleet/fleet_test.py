"""kinetoscope-fleet on a real dask.distributed LocalCluster of 2 worker processes (issue 27).

The run file's "distributed" must be exactly what `kinetoscope distributed --json` prints for the
same files, and its "ranks" one row per rank; a worker killed mid-run (its task runs again
elsewhere), an unreadable and a truncated rank (listed; the rest reduced), a binary missing on
the workers and a scheduler that cannot be reached (one sentence each).

usage: python3 tests/fleet/fleet_test.py build/native/kinetoscope   (a python3 with distributed)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "native", "kinetoscope")
FLEET = os.path.join(ROOT, "scripts", "kinetoscope-fleet")
SHARED = os.path.join(ROOT, "..", "shared", "traces")


def direct(files, tb=False):
    """`kinetoscope distributed --json` on the files: its span objects."""
    r = subprocess.run([CLI, "distributed", "--json"] + (["--tb-plugin"] if tb else []) + files, capture_output=True, text=True)
    return [json.loads(l) for l in r.stdout.splitlines() if l.strip()]


def direct_gpu_time(files, tb=False):
    """`kinetoscope distributed --gpu-time --json` on the files: the run's GPU time per span."""
    r = subprocess.run([CLI, "distributed", "--gpu-time", "--json"] + (["--tb-plugin"] if tb else []) + files, capture_output=True, text=True)
    return [json.loads(l) for l in r.stdout.splitlines() if l.strip()]


class FleetOnLocalCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from distributed import LocalCluster

        cls.tmp = tempfile.mkdtemp(prefix="ks-fleet-test-")
        # One cluster for every case, as a user's: the fleet connects to it by address.
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40)
        cls.scheduler = cls.cluster.scheduler_address
        # 64 generated ranks (small), one file per rank.
        cls.gen = os.path.join(cls.tmp, "gen64")
        subprocess.run(["node", os.path.join(ROOT, "scripts", "gen-trace.mjs"), "--size", "600K", "--ranks", "64", "--out", cls.gen],
                       check=True, capture_output=True)
        cls.gen_files = sorted(os.path.join(cls.gen, n) for n in os.listdir(cls.gen))

    @classmethod
    def tearDownClass(cls):
        cls.cluster.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def fleet(self, *args, binary=CLI):
        out = os.path.join(self.tmp, f"run{len(os.listdir(self.tmp))}.kinetoscope-run.json")
        r = subprocess.run([FLEET, "--scheduler", self.scheduler, "--kinetoscope", binary, *args, "-o", out],
                           capture_output=True, text=True, env={**os.environ, "KINETOSCOPE_PYTHON": sys.executable})
        run = json.load(open(out)) if os.path.exists(out) else None
        return r, run

    def test_64_generated_ranks_equal_distributed(self):
        r, run = self.fleet(self.gen)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(run["distributed"], direct(self.gen_files))
        self.assertEqual(run["gpu_time"], direct_gpu_time(self.gen_files))
        self.assertEqual(len([r for r in run["gpu_time"][0]["rows"] if r["scope"] == "trace"]), 64)
        self.assertEqual([x["file"] for x in run["ranks"]], self.gen_files)
        self.assertEqual([x["rank"] for x in run["ranks"]], [int(os.path.basename(f)[4:].split(".")[0]) for f in self.gen_files])
        self.assertEqual({x["status"] for x in run["ranks"]}, {"ok"})
        self.assertEqual(run["failed"], 0)
        self.assertIn("ranks 64/64", r.stderr)
        # Both workers took part.
        self.assertEqual(len({x["worker"] for x in run["ranks"]}), 2)

    def test_real_runs_equal_distributed(self):
        runs = [os.path.join(ROOT, "tests", "data", "h200_pt211", "ddp_gloo2"), os.path.join(ROOT, "tests", "data", "distributed-diverging-ranks")]
        runs += [p for p in (os.path.join(SHARED, "two_rank_sampled"), os.path.join(SHARED, "resnet50_num_workers_0")) if os.path.isdir(p)]
        for d in runs:
            names = sorted(os.listdir(d))
            named = [n for n in names if n.endswith((".pt.trace.json", ".pt.trace.json.gz"))]
            files = [os.path.join(d, n) for n in (named or [n for n in names if n.endswith((".json", ".json.gz"))])]
            for tb in (False, True):
                with self.subTest(run=d, tb_plugin=tb):
                    r, run = self.fleet(*(["--tb-plugin"] if tb else []), d)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(run["distributed"], direct(files, tb))
                    self.assertEqual(run["mode"], "tb_plugin" if tb else "default")
                    self.assertEqual(run["gpu_time"], direct_gpu_time(files, tb))
                    if len(run["gpu_time"]) == 1:
                        self.assert_gpu_time_per_trace(run["gpu_time"][0]["rows"], files)

    def assert_gpu_time_per_trace(self, rows, files):
        """Each rank's rows of the run file's GPU time are `kinetoscope gpu-time --json` on its trace."""
        for f in files:
            alone = json.loads(subprocess.run([CLI, "distributed", "--gpu-time", "--json", f], capture_output=True, text=True).stdout)
            worker = alone["rows"][0]["worker"]
            mine = [r for r in rows if r["worker"] == worker]
            g = json.loads(subprocess.run([CLI, "gpu-time", "--json", f], capture_output=True, text=True).stdout)
            if not g["rows"]:
                self.assertEqual([r["status"] for r in mine], ["no_gpu_work"], f)
                continue
            self.assertEqual(len(mine), len(g["rows"]), f)
            self.assertEqual(mine[0]["comm_comp_overlap_pct"], g["comm_comp_overlap_pct"], f)
            for got, want in zip(mine, g["rows"]):
                for k in ("scope", "step", "span_us", "idle_us", "compute_us", "non_compute_us", "idle_pct", "compute_pct",
                          "non_compute_pct", "events"):
                    self.assertEqual(got[k], want[k], f"{f} {got['scope']} {got['step']} {k}")

    def test_worker_killed_mid_run(self):
        # A kinetoscope that, the first time it summarizes rank 7, kills the worker process that ran
        # it (as a node lost mid-run); the nanny starts a new one and the task runs again.
        marker = os.path.join(self.tmp, "killed-once")
        wrapper = os.path.join(self.tmp, "kinetoscope-killer")
        with open(wrapper, "w") as f:
            f.write(f"""#!/bin/sh
case "$*" in *rank-summary*rank7.pt.trace.json*)
  if mkdir "{marker}" 2>/dev/null; then kill -9 $PPID; exit 1; fi ;;
esac
exec "{CLI}" "$@"
""")
        os.chmod(wrapper, 0o755)
        r, run = self.fleet(self.gen, binary=wrapper)
        self.assertTrue(os.path.isdir(marker), "the worker was killed")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(run["failed"], 0)
        self.assertEqual(run["distributed"], direct(self.gen_files))
        self.assertEqual(run["gpu_time"], direct_gpu_time(self.gen_files))
        self.assertEqual(len([r for r in run["gpu_time"][0]["rows"] if r["scope"] == "trace"]), 64)

    def test_unreadable_and_truncated_ranks_are_listed(self):
        d = os.path.join(self.tmp, "damaged")
        os.makedirs(d)
        files = []
        for k in range(6):
            src = os.path.join(self.gen, f"rank{k}.pt.trace.json")
            dst = os.path.join(d, f"rank{k}.pt.trace.json")
            if k == 2:
                shutil.copy(os.path.join(ROOT, "tests", "data", "not-json.png"), dst)  # unreadable
            elif k == 4:
                data = open(src, "rb").read()
                open(dst, "wb").write(data[: len(data) * 3 // 5])  # cut at 60 %
            else:
                shutil.copy(src, dst)
            files.append(dst)
        r, run = self.fleet(d)
        self.assertEqual(r.returncode, 1, "a failed rank makes the exit status 1")
        rows = {os.path.basename(x["file"]): x for x in run["ranks"]}
        self.assertEqual(rows["rank2.pt.trace.json"]["status"], "failed")
        self.assertTrue(rows["rank2.pt.trace.json"]["error"])
        self.assertEqual(rows["rank4.pt.trace.json"]["status"], "partial")
        self.assertIn("ends before the trace is complete", rows["rank4.pt.trace.json"]["error"])
        self.assertEqual({rows[f"rank{k}.pt.trace.json"]["status"] for k in (0, 1, 3, 5)}, {"ok"})
        self.assertEqual(run["failed"], 1)
        self.assertIn("failed: ", r.stderr)
        self.assertIn("rank2.pt.trace.json", r.stderr)
        # The rest reduced, as `kinetoscope distributed` reduces the same files (it skips the
        # unreadable one and reads what the cut one holds).
        self.assertEqual(run["distributed"], direct(files))

    def test_missing_binary_on_the_workers(self):
        r, run = self.fleet(self.gen, binary="/nonexistent/kinetoscope")
        self.assertEqual(r.returncode, 2)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], r"^kinetoscope-fleet: kinetoscope cannot run on workers tcp://.*/nonexistent/kinetoscope is not there.*give --kinetoscope PATH")
        self.assertIsNone(run)

    def test_scheduler_cannot_be_reached(self):
        out = os.path.join(self.tmp, "never.json")
        r = subprocess.run([FLEET, "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "3s", self.gen, "-o", out],
                           capture_output=True, text=True, env={**os.environ, "KINETOSCOPE_PYTHON": sys.executable, "KINETOSCOPE": CLI})
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr.strip().splitlines()[-1], r"^kinetoscope-fleet: cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9 ")
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main(verbosity=2)
