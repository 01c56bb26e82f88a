// A run file (`kinetoscope-fleet ... -o RUN.kinetoscope-run.json`, docs/contracts.md "Run files"):
// the reduce of a run of many ranks, made on a cluster, opened in the page like a local run. It
// holds what `kinetoscope distributed --json` prints ("distributed", one object per span), the
// run's GPU time per rank ("gpu_time", `distributed --gpu-time --json`) and a row per rank
// ("ranks": file, rank, status, error). It is small (kilobytes a rank) and not a trace: it is
// read as JSON text, and recognised by its first bytes, whatever its name.
import {
  runGpuTimeFromJson,
  type CommOp,
  type DistributedView,
  type DistWorker,
  type Overlap,
  type WaitTime,
} from './distributed';
import { checkTraceUrl } from './trace-url';

/** The run file format this page reads (the fleet's RUN_FORMAT). */
export const RUN_FILE_FORMAT = 1;

/** One rank of the run as the fleet lists it. */
export interface RunFileRank {
  /** The trace as the fleet was given it: a path on the machine that ran it, or a URL. */
  file: string;
  rank: number | null;
  worldSize: number | null;
  /** ok, partial (a damaged trace reduced from what it holds) or failed. */
  status: string;
  /** Why it failed, or what a partial trace lost; null for ok. */
  error: string | null;
  steps: number | null;
  calls: number | null;
  bytesRead: number | null;
  seconds: number | null;
}

export interface RunFile {
  /** The file's name (or the URL's last segment). */
  name: string;
  /** The kinetoscope that reduced it ("kinetoscope 0.1.0 (…)"). */
  version: string;
  mode: string;
  sources: string[];
  /** The Distributed view per span, with its GPU time per rank. */
  views: DistributedView[];
  ranks: RunFileRank[];
  /** Why the reduce gave nothing (no rank could be read), else null. */
  reduceError: string | null;
}

/** A run file that cannot be read: `message` is the one sentence the page shows. */
export class RunFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunFileError';
  }
}

/** Whether these first bytes of a file are a run file's: a JSON object whose first key is "kinetoscope_run". */
export function isRunFileHead(bytes: Uint8Array): boolean {
  let text = '';
  for (let i = 0; i < Math.min(bytes.length, 64); i++) text += String.fromCharCode(bytes[i]);
  return /^\uFEFF?\s*\{\s*"kinetoscope_run"\s*:/.test(text.replace(/^\xEF\xBB\xBF/, ''));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v != null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A span's Distributed view from its `kinetoscope distributed --json` object. */
export function distributedFromJson(o: Record<string, unknown>, gpu: Record<string, unknown> | null): DistributedView {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter(isObject) : []);
  const workers: DistWorker[] = list(o.workers).map((w) => ({
    worker: text(w.worker) ?? '',
    rank: num(w.rank),
    span: text(w.span) ?? '',
    worldSize: num(w.world_size) ?? -1,
    backend: text(w.backend) ?? '',
    node: text(w.node) ?? '',
    process: text(w.process) ?? '',
    devices: list(w.devices).map((d) => ({
      id: num(d.id) ?? -1,
      name: text(d.name) ?? '',
      memoryBytes: num(d.memory_bytes) ?? -1,
      computeCapability: text(d.compute_capability) ?? '',
    })),
  }));
  const byStepWorker = <T>(v: unknown, one: (x: Record<string, unknown>) => T) => {
    const out: Record<string, Record<string, T>> = {};
    if (isObject(v))
      for (const [key, per] of Object.entries(v)) {
        out[key] = {};
        if (isObject(per)) for (const [worker, x] of Object.entries(per)) if (isObject(x)) out[key][worker] = one(x);
      }
    return out;
  };
  const overlap = byStepWorker<Overlap>(o.overlap, (x) => ({
    computation: num(x.computation_us) ?? 0,
    overlapping: num(x.overlapping_us) ?? 0,
    communication: num(x.communication_us) ?? 0,
    other: num(x.other_us) ?? 0,
  }));
  const waittime = byStepWorker<WaitTime>(o.waittime, (x) => ({
    transfer: num(x.transfer_us) ?? 0,
    synchronizing: num(x.synchronizing_us) ?? 0,
    unmatched: num(x.unmatched_us) ?? 0,
  }));
  const commops: Record<string, CommOp[]> = {};
  if (isObject(o.commops))
    for (const [worker, ops] of Object.entries(o.commops))
      commops[worker] = list(ops).map((x) => ({
        name: text(x.name) ?? '',
        calls: num(x.calls) ?? 0,
        totalBytes: num(x.total_bytes) ?? 0,
        avgBytes: num(x.avg_bytes) ?? 0,
        totalLatencyUs: num(x.total_latency_us) ?? 0,
        avgLatencyUs: num(x.avg_latency_us) ?? 0,
        transferUs: num(x.transfer_us) ?? 0,
        avgTransferUs: num(x.avg_transfer_us) ?? 0,
      }));
  const matching = isObject(o.matching) ? o.matching : {};
  return {
    span: text(o.span) ?? 'default',
    mode: o.mode === 'tb_plugin' ? 'tb_plugin' : 'default',
    available: o.available !== false,
    reason: text(o.reason),
    workers,
    steps: Array.isArray(o.steps) ? o.steps.filter((s): s is string => typeof s === 'string') : [],
    overlap,
    waittime,
    commops,
    stragglers: list(o.stragglers).map((s) => {
      const times: Record<string, number> = {};
      if (isObject(s.times_us)) for (const [w, t] of Object.entries(s.times_us)) if (typeof t === 'number') times[w] = t;
      return {
        step: text(s.step) ?? '',
        medianUs: num(s.median_us) ?? 0,
        slowestWorker: text(s.slowest_worker) ?? '',
        slowestRank: num(s.slowest_rank),
        slowestUs: num(s.slowest_us) ?? 0,
        behindMedianUs: num(s.behind_median_us) ?? 0,
        behindMedianPct: num(s.behind_median_pct),
        timesUs: times,
      };
    }),
    collectives: list(o.collectives).map((c) => ({
      processGroup: text(c.process_group) ?? '',
      groupSize: num(c.group_size),
      name: text(c.name) ?? '',
      bytes: num(c.bytes),
      calls: num(c.calls) ?? 0,
      workers: num(c.workers) ?? 0,
      totalUs: num(c.total_us) ?? 0,
      avgUs: num(c.avg_us) ?? 0,
      transferUs: num(c.transfer_us) ?? 0,
    })),
    matching: {
      calls: num(matching.calls) ?? 0,
      matched: num(matching.matched) ?? 0,
      notes: Array.isArray(matching.notes) ? matching.notes.filter((n): n is string => typeof n === 'string') : [],
    },
    gpuTime: gpu && Array.isArray(gpu.rows) ? runGpuTimeFromJson(gpu.rows.filter(isObject)) : null,
  };
}

/**
 * The run file in `text` (named `name`), or a RunFileError whose message is one sentence: not
 * JSON, not a run file, a format this page does not read, or a part missing.
 */
export function parseRunFile(text_: string, name: string): RunFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text_);
  } catch (e) {
    throw new RunFileError(`${name} is not a readable Kinetoscope run file: its JSON is broken (${(e as Error).message}); write it again with kinetoscope-fleet.`);
  }
  if (!isObject(doc) || !('kinetoscope_run' in doc))
    throw new RunFileError(`${name} is not a Kinetoscope run file (kinetoscope-fleet writes those, with "kinetoscope_run" first).`);
  if (doc.kinetoscope_run !== RUN_FILE_FORMAT)
    throw new RunFileError(`${name} is a run file of format ${JSON.stringify(doc.kinetoscope_run)}; this page reads format ${RUN_FILE_FORMAT}: open it with the Kinetoscope that wrote it.`);
  if (!Array.isArray(doc.distributed) || !Array.isArray(doc.ranks) || !doc.distributed.every(isObject) || !doc.ranks.every(isObject))
    throw new RunFileError(`${name} is a damaged run file: its "distributed" or "ranks" list is missing or not a list of objects.`);
  const gpu = Array.isArray(doc.gpu_time) ? doc.gpu_time.filter(isObject) : [];
  const views = doc.distributed.map((o) => distributedFromJson(o, gpu.find((g) => g.span === o.span) ?? null));
  const ranks: RunFileRank[] = doc.ranks.map((r) => ({
    file: text(r.file) ?? '',
    rank: num(r.rank),
    worldSize: num(r.world_size),
    status: text(r.status) ?? 'failed',
    error: text(r.error),
    steps: num(r.steps),
    calls: num(r.calls),
    bytesRead: num(r.bytes_read),
    seconds: num(r.seconds),
  }));
  return {
    name,
    version: text(doc.version) ?? '',
    mode: text(doc.mode) ?? 'default',
    sources: Array.isArray(doc.sources) ? doc.sources.filter((s): s is string => typeof s === 'string') : [],
    views,
    ranks,
    reduceError: text(doc.reduce_error),
  };
}

/**
 * How a rank's trace can be opened from the page: by its URL when the run file records an http(s)
 * one (the same rule as `?url=`; the server must allow the page, CORS), else a sentence saying
 * where it is and how to open it.
 */
export function rankTraceLink(file: string, pageHref: string): { url: string } | { how: string } {
  if (/^https?:\/\//i.test(file)) {
    const c = checkTraceUrl(file, pageHref);
    if (c.ok) return { url: c.url };
  }
  const where = /^[a-z][a-z0-9+.-]*:\/\//i.test(file) ? `at ${file}, which the browser cannot read` : `at ${file} on the machine that ran kinetoscope-fleet`;
  return { how: `This rank's trace is ${where}: copy it here and drop it on the page to open it.` };
}
