// The run navigator's model (components/run-nav.tsx): the open traces grouped into runs, workers
// and spans, flattened into rows for a windowed list. Pure, so it is tested without a DOM.
//
// Grouping, the way a TensorBoard user knows it (reference/tb_plugin_spec.md §1) and beyond it:
// - a run is the folder the trace came from (TraceLabel.run); files opened on their own (dropped,
//   picked or by URL) form the one run "" shown as "Opened files";
// - a worker is the label's worker, else the file name; within a run workers are ordered by the
//   distributed rank their trace declares (distributedInfo.rank, known once its summary is read),
//   then by name with numbers as numbers ("rank-2" before "rank-10");
// - a worker's spans are ranked 1..n by their span strings (tb_plugin's string order), across
//   every file of that worker in the run, whichever drop brought it.

/** Where a trace's load is. */
export type Status = 'queued' | 'loading' | 'done' | 'failed' | 'cancelled';

/** Where a trace sits in the navigator, as a link names it (placeOf). */
export interface NavPlace {
  run: string;
  worker: string;
  span: number;
}

/** What the navigator needs of an open trace (worker/entry.ts's Entry has it all). */
export interface NavTrace {
  key: number;
  name: string;
  run: string;
  worker: string;
  /** The span as written in the file name (a timestamp), or null. */
  span: string | null;
  /** distributedInfo.rank once the summary is read; null when unknown or absent. */
  rank: number | null;
}

export interface SpanNode {
  trace: NavTrace;
  /** 1-based among the worker's spans; 0 when the file has no span. */
  spanRank: number;
  spanCount: number;
}

export interface WorkerNode {
  name: string;
  /** The lowest distributed rank among its traces, or null. */
  rank: number | null;
  spans: SpanNode[];
}

export interface RunNode {
  name: string;
  workers: WorkerNode[];
  traceCount: number;
}

const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The runs of `traces`, each with its workers and their spans, all in display order. */
export function buildRunTree(traces: readonly NavTrace[]): RunNode[] {
  const runs = new Map<string, Map<string, NavTrace[]>>();
  for (const t of traces) {
    let workers = runs.get(t.run);
    if (!workers) runs.set(t.run, (workers = new Map()));
    const list = workers.get(t.worker);
    if (list) list.push(t);
    else workers.set(t.worker, [t]);
  }
  const out: RunNode[] = [];
  for (const [name, workerMap] of runs) {
    const workers: WorkerNode[] = [];
    for (const [wname, list] of workerMap) {
      const spanNames = [...new Set(list.map((t) => t.span).filter((s): s is string => s != null))].sort(byString);
      const spans = list
        .map((t) => ({ trace: t, spanRank: t.span == null ? 0 : spanNames.indexOf(t.span) + 1, spanCount: spanNames.length }))
        .sort((a, b) => a.spanRank - b.spanRank || natural.compare(a.trace.name, b.trace.name) || a.trace.key - b.trace.key);
      const ranks = list.map((t) => t.rank).filter((r): r is number => r != null && r >= 0);
      workers.push({ name: wname, rank: ranks.length ? Math.min(...ranks) : null, spans });
    }
    workers.sort((a, b) => {
      if (a.rank != null && b.rank != null && a.rank !== b.rank) return a.rank - b.rank;
      if ((a.rank == null) !== (b.rank == null)) return a.rank == null ? 1 : -1;
      return natural.compare(a.name, b.name);
    });
    out.push({ name, workers, traceCount: workers.reduce((n, w) => n + w.spans.length, 0) });
  }
  // Files opened on their own first, then the runs by name.
  out.sort((a, b) => (a.name === '' ? -1 : b.name === '' ? 1 : natural.compare(a.name, b.name)));
  return out;
}

/** The traces in navigator order: run, then worker, then span. */
export function traceOrder(runs: readonly RunNode[]): NavTrace[] {
  return runs.flatMap((r) => r.workers.flatMap((w) => w.spans.map((s) => s.trace)));
}

export type NavRow =
  | { kind: 'run'; id: string; depth: 0; run: RunNode; collapsed: boolean }
  | { kind: 'worker'; id: string; depth: 1; run: RunNode; worker: WorkerNode; collapsed: boolean }
  /** A trace: a span under its worker (depth 2), or a worker with a single file (depth 1). */
  | { kind: 'trace'; id: string; depth: 1 | 2; run: RunNode; worker: WorkerNode; span: SpanNode };

export const runRowId = (run: string) => `r:${run}`;
export const workerRowId = (run: string, worker: string) => `w:${run}\u0000${worker}`;

/** The text a search looks in: the run, the worker, the file name and the rank. */
export function searchText(run: RunNode, worker: WorkerNode, t: NavTrace): string {
  return `${run.name}\n${worker.name}\n${t.name}${t.rank != null ? `\nrank ${t.rank}` : ''}`.toLowerCase();
}

/**
 * The rows shown: each run, its workers and their traces, under the groups that are not
 * collapsed. A worker with one file is shown as that file's row. With a search, only the traces
 * whose run, worker, file name or rank contain it are kept (with their run and worker rows),
 * whatever is collapsed.
 */
export function flattenRows(runs: readonly RunNode[], collapsed: ReadonlySet<string>, query = ''): NavRow[] {
  const q = query.trim().toLowerCase();
  const rows: NavRow[] = [];
  for (const run of runs) {
    const runId = runRowId(run.name);
    const runCollapsed = !q && collapsed.has(runId);
    const inner: NavRow[] = [];
    if (!runCollapsed) {
      for (const worker of run.workers) {
        const spans = q ? worker.spans.filter((s) => searchText(run, worker, s.trace).includes(q)) : worker.spans;
        if (!spans.length) continue;
        if (worker.spans.length === 1) {
          inner.push({ kind: 'trace', id: `t:${spans[0].trace.key}`, depth: 1, run, worker, span: spans[0] });
          continue;
        }
        const wid = workerRowId(run.name, worker.name);
        const wCollapsed = !q && collapsed.has(wid);
        inner.push({ kind: 'worker', id: wid, depth: 1, run, worker, collapsed: wCollapsed });
        if (!wCollapsed) for (const s of spans) inner.push({ kind: 'trace', id: `t:${s.trace.key}`, depth: 2, run, worker, span: s });
      }
      if (q && !inner.length) continue;
    } else if (q) continue;
    rows.push({ kind: 'run', id: runId, depth: 0, run, collapsed: runCollapsed });
    rows.push(...inner);
  }
  return rows;
}

/** The row ids to collapse so that `traceKey` is shown: none (it is already visible) or its parents. */
export function parentsOf(runs: readonly RunNode[], traceKey: number): string[] {
  for (const run of runs) {
    for (const worker of run.workers) {
      if (worker.spans.some((s) => s.trace.key === traceKey)) {
        const ids = [runRowId(run.name)];
        if (worker.spans.length > 1) ids.push(workerRowId(run.name, worker.name));
        return ids;
      }
    }
  }
  return [];
}

/** Where `traceKey` sits: its run, worker and span, as a link names them. */
export function placeOf(runs: readonly RunNode[], traceKey: number): NavPlace | null {
  for (const run of runs) {
    for (const worker of run.workers) {
      const s = worker.spans.find((x) => x.trace.key === traceKey);
      if (s) return { run: run.name, worker: worker.name, span: s.spanRank };
    }
  }
  return null;
}

/** The trace a link's run, worker and span (0 or absent: the worker's only or first file) name. */
export function findByPlace(runs: readonly RunNode[], run: string, worker: string, span = 0): NavTrace | null {
  const r = runs.find((x) => x.name === run);
  const w = r?.workers.find((x) => x.name === worker);
  if (!w) return null;
  if (!span) return w.spans[0]?.trace ?? null;
  return w.spans.find((s) => s.spanRank === span)?.trace ?? null;
}
