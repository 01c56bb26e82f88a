// The Distributed view of a run, read from the core's reduce (docs/contracts.md, the distributed
// views: per span of the run, the workers, communication operations, stragglers and collectives as
// columns, the per-step overlap and wait time as metadata), and the series its charts draw. Times
// are µs.
import { openAnswer, stringColumn, type WireAnswer } from './answer';

export interface DistDevice {
  id: number;
  name: string;
  memoryBytes: number;
  computeCapability: string;
}

export interface DistWorker {
  worker: string;
  rank: number | null;
  span: string;
  worldSize: number;
  backend: string;
  node: string;
  process: string;
  devices: DistDevice[];
}

export interface Overlap {
  computation: number;
  overlapping: number;
  communication: number;
  other: number;
}

export interface WaitTime {
  transfer: number;
  synchronizing: number;
  unmatched: number;
}

export interface CommOp {
  name: string;
  calls: number;
  totalBytes: number;
  avgBytes: number;
  totalLatencyUs: number;
  avgLatencyUs: number;
  transferUs: number;
  avgTransferUs: number;
}

export interface Straggler {
  step: string;
  medianUs: number;
  slowestWorker: string;
  slowestRank: number | null;
  slowestUs: number;
  behindMedianUs: number;
  behindMedianPct: number | null;
  timesUs: Record<string, number>;
}

/**
 * How far behind the median a worker's step time must be for the page to call it a straggler (in
 * red): the slowest worker is always named, but two ranks 0.07 % apart (the gloo run in
 * tests/data/h200_pt211) are the same speed; 5 % is a difference a person would act on.
 */
export const STRAGGLER_THRESHOLD_PCT = 5;

/** Whether the slowest worker of `s` is far enough behind the median to be shown as a straggler. */
export function isStraggler(s: Pick<Straggler, 'behindMedianPct'>, thresholdPct = STRAGGLER_THRESHOLD_PCT): boolean {
  return s.behindMedianPct != null && s.behindMedianPct >= thresholdPct;
}

export interface Collective {
  processGroup: string;
  groupSize: number | null;
  name: string;
  bytes: number | null;
  calls: number;
  workers: number;
  totalUs: number;
  avgUs: number;
  transferUs: number;
}

export interface DistributedView {
  span: string;
  mode: 'default' | 'tb_plugin';
  available: boolean;
  reason: string | null;
  workers: DistWorker[];
  steps: string[];
  /** Keyed by "all" or a step name, then by worker. */
  overlap: Record<string, Record<string, Overlap>>;
  /** Keyed by "all", a step name, or "null" (calls outside every step), then by worker. */
  waittime: Record<string, Record<string, WaitTime>>;
  commops: Record<string, CommOp[]>;
  stragglers: Straggler[];
  collectives: Collective[];
  matching: { calls: number; matched: number; notes: string[] };
  /** The span's GPU time per rank (its trace's row, then its steps'); null: not computed. */
  gpuTime: RankGpuTime[] | null;
}

/**
 * One row of a run's GPU time (docs/contracts.md, view distributed_gpu_time): a rank's trace
 * (scope "trace", HTA's scope) or one of its steps, as `kinetoscope gpu-time` computes them on
 * that trace. Null: not known (no GPU work, a summary without GPU time, a step row's overlap).
 */
export interface RankGpuTime {
  worker: string;
  rank: number | null;
  scope: 'trace' | 'step';
  step: string | null;
  /** ok, no_gpu_work or no_summary. */
  status: string;
  stepUs: number | null;
  spanUs: number | null;
  idleUs: number | null;
  computeUs: number | null;
  nonComputeUs: number | null;
  idlePct: number | null;
  computePct: number | null;
  nonComputePct: number | null;
  events: number | null;
  overlapPct: number | null;
}

const GPU_TIME_NUMBERS = [
  ['stepUs', 'step_us'],
  ['spanUs', 'span_us'],
  ['idleUs', 'idle_us'],
  ['computeUs', 'compute_us'],
  ['nonComputeUs', 'non_compute_us'],
  ['idlePct', 'idle_pct'],
  ['computePct', 'compute_pct'],
  ['nonComputePct', 'non_compute_pct'],
  ['events', 'events'],
  ['overlapPct', 'comm_comp_overlap_pct'],
] as const;

/** The run's GPU time from its answer's columns (the page's own reduce). */
export function openRunGpuTime(w: WireAnswer): RankGpuTime[] {
  const a = openAnswer('distributed_gpu_time', w);
  const c = a.columns as unknown as Record<string, ArrayLike<number>>;
  const str = (col: string, i: number) => {
    const id = c[col][i];
    return id === 0xffffffff ? null : a.strings[id] ?? null;
  };
  const out: RankGpuTime[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    const row = {
      worker: str('worker', i) ?? '',
      rank: nullable(c.rank[i], c.rank[i] === I32_NULL),
      scope: str('scope', i) === 'step' ? 'step' : 'trace',
      step: str('step', i),
      status: str('status', i) ?? '',
    } as RankGpuTime;
    for (const [k, col] of GPU_TIME_NUMBERS) row[k] = Number.isNaN(c[col][i]) ? null : c[col][i];
    out.push(row);
  }
  return out;
}

/** The run's GPU time from its --json rows (a run file's "gpu_time"; `kinetoscope distributed --gpu-time --json`). */
export function runGpuTimeFromJson(rows: readonly Record<string, unknown>[]): RankGpuTime[] {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return rows.map((r) => {
    const row = {
      worker: text(r.worker) ?? '',
      rank: num(r.rank),
      scope: r.scope === 'step' ? 'step' : 'trace',
      step: text(r.step),
      status: text(r.status) ?? '',
    } as RankGpuTime;
    for (const [k, col] of GPU_TIME_NUMBERS) row[k] = num(r[col]);
    return row;
  });
}

/** A span's answers as the worker passes them on (docs/contracts.md, views distributed*). */
export interface DistributedAnswers {
  workers: WireAnswer;
  commops: WireAnswer;
  stragglers: WireAnswer;
  collectives: WireAnswer;
  /** The run's GPU time per rank (view distributed_gpu_time). */
  gpu_time?: WireAnswer;
}

const nullable = (v: number, isNull: boolean) => (isNull ? null : v);
const I32_NULL = -0x80000000;

/**
 * A span's Distributed view from the reduce's answers: the workers, communication operations,
 * stragglers and collectives read from their columns, the per-step overlap and wait time from
 * the metadata. The core's error sentence is thrown as a CoreError.
 */
export function openDistributed(w: DistributedAnswers): DistributedView {
  const a = openAnswer('distributed', w.workers);
  const ops = openAnswer('distributed_commops', w.commops);
  const st = openAnswer('distributed_stragglers', w.stragglers);
  const co = openAnswer('distributed_collectives', w.collectives);
  const m = a.meta;
  const names = stringColumn(a.columns.worker, a.strings);
  const workers: DistWorker[] = names.map((worker, i) => ({
    worker: worker ?? '',
    rank: nullable(a.columns.rank[i], a.columns.rank[i] === I32_NULL),
    span: a.strings[a.columns.span[i]] ?? '',
    worldSize: a.columns.world_size[i],
    backend: a.strings[a.columns.backend[i]] ?? '',
    node: a.strings[a.columns.node[i]] ?? '',
    process: a.strings[a.columns.process[i]] ?? '',
    devices: (m.devices[i] ?? []).map((d) => ({ id: d.id, name: d.name, memoryBytes: d.memory_bytes, computeCapability: d.compute_capability })),
  }));
  const overlap: DistributedView['overlap'] = {};
  for (const [key, per] of Object.entries(m.overlap)) {
    overlap[key] = {};
    for (const [worker, o] of Object.entries(per))
      overlap[key][worker] = { computation: o.computation_us, overlapping: o.overlapping_us, communication: o.communication_us, other: o.other_us };
  }
  const waittime: DistributedView['waittime'] = {};
  for (const [key, per] of Object.entries(m.waittime)) {
    waittime[key] = {};
    for (const [worker, t] of Object.entries(per)) waittime[key][worker] = { transfer: t.transfer_us, synchronizing: t.synchronizing_us, unmatched: t.unmatched_us ?? 0 };
  }
  // Every worker has its list (empty when it made no call) where the view is available.
  const commops: DistributedView['commops'] = {};
  if (m.available) for (const x of workers) commops[x.worker] = [];
  const opWorker = stringColumn(ops.columns.worker, ops.strings);
  const c = ops.columns;
  for (let i = 0; i < ops.rowCount; i++) {
    (commops[opWorker[i] ?? ''] ??= []).push({
      name: ops.strings[c.name[i]] ?? '',
      calls: c.calls[i],
      totalBytes: c.total_bytes[i],
      avgBytes: c.avg_bytes[i],
      totalLatencyUs: c.total_latency_us[i],
      avgLatencyUs: c.avg_latency_us[i],
      transferUs: c.transfer_us[i],
      avgTransferUs: c.avg_transfer_us[i],
    });
  }
  const s = st.columns;
  const stragglers: Straggler[] = [];
  for (let i = 0; i < st.rowCount; i++) {
    stragglers.push({
      step: st.strings[s.step[i]] ?? '',
      medianUs: s.median_us[i],
      slowestWorker: st.strings[s.slowest_worker[i]] ?? '',
      slowestRank: nullable(s.slowest_rank[i], s.slowest_rank[i] === I32_NULL),
      slowestUs: s.slowest_us[i],
      behindMedianUs: s.behind_median_us[i],
      behindMedianPct: nullable(s.behind_median_pct[i], Number.isNaN(s.behind_median_pct[i])),
      timesUs: st.meta.times_us[i] ?? {},
    });
  }
  const k = co.columns;
  const collectives: Collective[] = [];
  for (let i = 0; i < co.rowCount; i++) {
    collectives.push({
      processGroup: co.strings[k.process_group[i]] ?? '',
      groupSize: nullable(k.group_size[i], k.group_size[i] === I32_NULL),
      name: co.strings[k.name[i]] ?? '',
      bytes: nullable(k.bytes[i], Number.isNaN(k.bytes[i])),
      calls: k.calls[i],
      workers: k.workers[i],
      totalUs: k.total_us[i],
      avgUs: k.avg_us[i],
      transferUs: k.transfer_us[i],
    });
  }
  return {
    span: m.span,
    mode: m.mode,
    available: m.available,
    reason: m.reason,
    workers,
    steps: m.steps,
    overlap,
    waittime,
    commops,
    stragglers,
    collectives,
    matching: m.matching,
    gpuTime: w.gpu_time ? openRunGpuTime(w.gpu_time) : null,
  };
}

/** Worker labels for charts: "rank 3" when the trace declares its rank, else the worker name. */
export function workerLabel(w: DistWorker): string {
  return w.rank != null ? `rank ${w.rank}` : w.worker;
}

export const OVERLAP_PARTS = [
  { key: 'computation', label: 'Computation', color: '#3b82c4' },
  { key: 'overlapping', label: 'Overlapping', color: '#8e6bd1' },
  { key: 'communication', label: 'Communication', color: '#e0792b' },
  { key: 'other', label: 'Other', color: '#9aa3ad' },
] as const;

export const WAIT_PARTS = [
  { key: 'transfer', label: 'Data transfer', color: '#2f9e6e' },
  { key: 'synchronizing', label: 'Synchronizing', color: '#d9534f' },
  { key: 'unmatched', label: 'Not matched across ranks', color: '#b8a04a' },
] as const;

/**
 * Stacked columns, one per worker, for uPlot bars drawn tallest-first: x = worker index, then the
 * cumulative sums (ms) of `parts` in reverse order, so each series shows its own segment on top
 * of the ones below it.
 */
export function stackedColumns<K extends string>(
  workers: readonly DistWorker[],
  values: Record<string, Partial<Record<K, number>>> | undefined,
  parts: readonly { key: K }[],
): number[][] {
  const x = workers.map((_, i) => i);
  const cum: number[][] = [];
  let run = workers.map(() => 0);
  for (const p of parts) {
    run = run.map((v, i) => v + Math.max(0, values?.[workers[i].worker]?.[p.key] ?? 0) / 1000);
    cum.push(run);
  }
  return [x, ...cum.reverse()];
}
