"""What runs on a Dask worker for kinetoscope-fleet: one trace in, its rank summary out.

A top-level module with no imports from the package, so that the client can ship it to the
workers of any cluster (Client.upload_file) whether or not kinetoscope-fleet is installed there.
Each worker reads its own files (a local path, or a URL through fsspec where it is installed) and
runs the native `kinetoscope rank-summary` on it; only the summary (kilobytes) comes back.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

URL_SCHEMES = ("s3://", "gs://", "gcs://", "abfs://", "az://", "http://", "https://", "hdfs://")


def is_url(source):
    return source.startswith(URL_SCHEMES)


def resolve_binary(kinetoscope):
    """The kinetoscope binary on this machine: `kinetoscope` as given (a path), else on PATH."""
    if os.path.sep in kinetoscope:
        return kinetoscope if os.path.isfile(kinetoscope) and os.access(kinetoscope, os.X_OK) else None
    return shutil.which(kinetoscope)


def binary_version(kinetoscope):
    """(True, `kinetoscope --version`'s line) or (False, why not), run on each worker."""
    found = resolve_binary(kinetoscope)
    if found is None:
        return False, f"{kinetoscope} is not there" if os.path.sep in kinetoscope else f"no {kinetoscope} on its PATH"
    try:
        r = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        return False, f"{found} does not run ({e.strerror or e})"
    if r.returncode != 0 or not r.stdout.startswith("kinetoscope "):
        return False, f"{found} does not say its version (too old a build?)"
    return True, r.stdout.strip()


def _worker_address():
    try:
        from distributed import get_worker

        return get_worker().address
    except Exception:  # not inside a worker (a direct call, a test)
        return ""


def summarize(index, source, kinetoscope, tb_plugin=False):
    """The rank summary of `source`: a dict with its bytes, or status "failed" and a sentence.

    A trace that cannot be read is an answer ("failed"), not an exception: retrying would fail
    the same way. What may go better elsewhere (the binary killed, a download cut) raises, and
    the client's retries take it to another worker.
    """
    t0 = time.monotonic()
    name = os.path.basename(source.rstrip("/")) or source
    row = {"index": index, "file": source, "name": name, "worker": _worker_address()}
    found = resolve_binary(kinetoscope)
    if found is None:
        return {**row, "status": "failed", "error": f"kinetoscope binary not found on worker {row['worker'] or 'here'} ({kinetoscope})"}
    with tempfile.TemporaryDirectory(prefix="ks-fleet-") as tmp:
        path = source
        if is_url(source):
            try:
                import fsspec
            except ImportError:
                return {**row, "status": "failed", "error": f"cannot read {source}: fsspec is not installed on worker {row['worker']}"}
            path = os.path.join(tmp, name)
            with fsspec.open(source, "rb") as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst, 8 << 20)
        elif not os.path.exists(source):
            return {**row, "status": "failed", "error": f"{source} does not exist on worker {row['worker'] or 'here'}"}
        size = os.path.getsize(path)
        args = [found, "rank-summary", "--json", "--jobs", "1", "-o", os.path.join(tmp, "out"), path]
        if tb_plugin:
            args.insert(2, "--tb-plugin")
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode < 0:
            raise RuntimeError(f"kinetoscope rank-summary was killed (signal {-r.returncode}) on {name}")
        lines = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        if not lines:
            return {**row, "status": "failed", "error": r.stderr.strip() or f"kinetoscope rank-summary exited with {r.returncode}"}
        out = lines[0]
        if out.get("status") != "ok":
            return {**row, "status": "failed", "error": out.get("error") or r.stderr.strip()}
        with open(out["summary"], "rb") as f:
            summary = f.read()
    return {
        **row,
        "status": "partial" if out.get("problems") else "ok",
        "problems": out.get("problems", []),
        "rank": out.get("rank"),
        "world_size": out.get("world_size"),
        "steps": out.get("steps"),
        "calls": out.get("calls"),
        "bytes_read": size,
        "summary": summary,
        "seconds": round(time.monotonic() - t0, 3),
    }
