// The Distributed view of a run, as the core's reduce writes it (docs/contracts.md,
// `kinetoscope distributed --json`: one object per span of the run, one per line), checked, and the
// series its charts draw. Times are µs.
import { Reader } from './json-check';

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
}

function byKey<T>(r: Reader, each: (x: Reader) => T): Record<string, T> {
  r.object();
  const out: Record<string, T> = {};
  for (const k of Object.keys(r.value as object)) out[k] = each(r.field(k));
  return out;
}

function parseView(r: Reader): DistributedView {
  const mode = r.str('mode');
  return {
    span: r.str('span'),
    mode: mode === 'tb_plugin' ? 'tb_plugin' : 'default',
    available: r.bool('available'),
    reason: r.strOrNull('reason'),
    workers: r.field('workers').items().map((w) => ({
      worker: w.str('worker'),
      rank: w.numOrNull('rank'),
      span: w.str('span'),
      worldSize: w.num('world_size'),
      backend: w.str('backend'),
      node: w.str('node'),
      process: w.str('process'),
      devices: w.field('devices').items().map((d) => ({
        id: d.num('id'),
        name: d.str('name'),
        memoryBytes: d.num('memory_bytes'),
        computeCapability: d.str('compute_capability'),
      })),
    })),
    steps: r.field('steps').items().map((s, i) => {
      if (typeof s.value !== 'string') throw new Error(`distributed: steps[${i}] should be a string`);
      return s.value;
    }),
    overlap: byKey(r.field('overlap'), (s) =>
      byKey(s, (o) => ({ computation: o.num('computation_us'), overlapping: o.num('overlapping_us'), communication: o.num('communication_us'), other: o.num('other_us') })),
    ),
    waittime: byKey(r.field('waittime'), (s) =>
      byKey(s, (o) => ({ transfer: o.num('transfer_us'), synchronizing: o.num('synchronizing_us'), unmatched: o.has('unmatched_us') ? o.num('unmatched_us') : 0 })),
    ),
    commops: byKey(r.field('commops'), (rows) =>
      rows.items().map((o) => ({
        name: o.str('name'),
        calls: o.num('calls'),
        totalBytes: o.num('total_bytes'),
        avgBytes: o.num('avg_bytes'),
        totalLatencyUs: o.num('total_latency_us'),
        avgLatencyUs: o.num('avg_latency_us'),
        transferUs: o.num('transfer_us'),
        avgTransferUs: o.num('avg_transfer_us'),
      })),
    ),
    stragglers: r.field('stragglers').items().map((s) => ({
      step: s.str('step'),
      medianUs: s.num('median_us'),
      slowestWorker: s.str('slowest_worker'),
      slowestRank: s.numOrNull('slowest_rank'),
      slowestUs: s.num('slowest_us'),
      behindMedianUs: s.num('behind_median_us'),
      behindMedianPct: s.numOrNull('behind_median_pct'),
      timesUs: byKey(s.field('times_us'), (t) => {
        if (typeof t.value !== 'number') throw new Error(`distributed: ${t.path} should be a number`);
        return t.value;
      }),
    })),
    collectives: r.field('collectives').items().map((c) => ({
      processGroup: c.str('process_group'),
      groupSize: c.numOrNull('group_size'),
      name: c.str('name'),
      bytes: c.numOrNull('bytes'),
      calls: c.num('calls'),
      workers: c.num('workers'),
      totalUs: c.num('total_us'),
      avgUs: c.num('avg_us'),
      transferUs: c.num('transfer_us'),
    })),
    matching: (() => {
      const m = r.field('matching').object();
      return {
        calls: m.num('calls'),
        matched: m.num('matched'),
        notes: m.field('notes').items().map((n) => String(n.value)),
      };
    })(),
  };
}

/** The reduce's output: one JSON object per line, or one {"error"} line (a CoreError). */
export function parseDistributed(text: string): DistributedView[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => parseView(Reader.parse('reduceDistributedJson', l)));
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
