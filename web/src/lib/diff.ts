// The Diff view's data: the core's two answers of a comparison (Session.query of the baseline with
// the experiment's Session), read in place: `diff`, the diff tree's nodes in pre-order with both
// sides' numbers, and `diff_operators`, each node side's operators. From them, what the view
// draws: a node found by its path, the breadcrumbs down to it, its children's bars with the delta
// and cumulative delta, and its operators side by side. A node is its row in the diff answer.
import type { Answer } from '../generated/views';
import { stringColumn } from './answer';

/** What a thread does (core: diff.h ThreadRole): set on the nodes standing for one role's threads. */
export type ThreadRole = 'main' | 'autograd' | 'communication' | 'dataloader' | 'other';
const ROLES: readonly string[] = ['main', 'autograd', 'communication', 'dataloader', 'other'];

/** One side's numbers, a cell per node: its tree nodes' name ("CompositeNodes" for several, "Blank" for none), count, threads and times. */
export interface DiffSide {
  name: string[];
  nodes: Float64Array;
  /** The threads those nodes ran on. */
  threads: Float64Array;
  durationUs: Float64Array;
  deviceDurationUs: Float64Array;
  /** Σ per tree node: its device time, or its host time when it has none. */
  totalDurationUs: Float64Array;
}

/** Each node side's operators (the diff_operators answer): rows by node, the baseline's side first. */
export interface DiffOperators {
  name: string[];
  calls: Float64Array;
  hostUs: Float64Array;
  deviceUs: Float64Array;
  selfHostUs: Float64Array;
  selfDeviceUs: Float64Array;
  /** Rows [from[2n + s], to[2n + s]) are node n's side s (0 baseline, 1 experiment). */
  from: Uint32Array;
  to: Uint32Array;
}

export interface DiffTree {
  /** The nodes; row 0 is the root ("0"). */
  rowCount: number;
  path: string[];
  name: string[];
  role: (ThreadRole | null)[];
  parent: Int32Array;
  children: number[][];
  baseline: DiffSide;
  experiment: DiffSide;
  operators: DiffOperators;
  byPath: Map<string, number>;
}

function sideOf(a: Answer<'diff'>, s: 'baseline' | 'experiment'): DiffSide {
  const c = a.columns;
  const b = s === 'baseline';
  return {
    name: stringColumn(b ? c.baseline_name : c.experiment_name, a.strings) as string[],
    nodes: b ? c.baseline_nodes : c.experiment_nodes,
    threads: b ? c.baseline_threads : c.experiment_threads,
    durationUs: b ? c.baseline_duration_us : c.experiment_duration_us,
    deviceDurationUs: b ? c.baseline_device_duration_us : c.experiment_device_duration_us,
    totalDurationUs: b ? c.baseline_total_duration_us : c.experiment_total_duration_us,
  };
}

/** The comparison from its two answers: the columns read in place, each node's children and operator rows indexed. */
export function openDiff(tree: Answer<'diff'>, ops: Answer<'diff_operators'>): DiffTree {
  const c = tree.columns;
  const n = tree.rowCount;
  const path = stringColumn(c.path, tree.strings) as string[];
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) if (c.parent[i] >= 0 && c.parent[i] < n) children[c.parent[i]].push(i);
  const from = new Uint32Array(2 * n), to = new Uint32Array(2 * n);
  const experimentId = ops.strings.indexOf('experiment');
  const o = ops.columns;
  for (let r = 0; r < ops.rowCount; r++) {
    const k = 2 * o.node[r] + (o.side[r] === experimentId ? 1 : 0);
    if (k < 0 || k >= from.length) continue;
    if (to[k] === 0) from[k] = r;
    to[k] = r + 1;
  }
  return {
    rowCount: n,
    path,
    name: stringColumn(c.name, tree.strings) as string[],
    role: stringColumn(c.role, tree.strings).map((r) => (r != null && ROLES.includes(r) ? (r as ThreadRole) : null)),
    parent: c.parent,
    children,
    baseline: sideOf(tree, 'baseline'),
    experiment: sideOf(tree, 'experiment'),
    operators: {
      name: stringColumn(o.name, ops.strings) as string[],
      calls: o.calls,
      hostUs: o.host_duration_us,
      deviceUs: o.device_duration_us,
      selfHostUs: o.self_host_duration_us,
      selfDeviceUs: o.self_device_duration_us,
      from,
      to,
    },
    byPath: new Map(path.map((p, i) => [p, i])),
  };
}

/** The nodes from the root down to `path` ("0", "0-3", "0-3-1"…); stops where the path leaves the tree. */
export function trail(t: DiffTree, path: string): number[] {
  const out = [0];
  const parts = path.split('-');
  if (parts[0] !== '0') return out;
  let at = '0';
  for (const p of parts.slice(1)) {
    at += `-${p}`;
    const next = t.byPath.get(at);
    if (next == null) break;
    out.push(next);
  }
  return out;
}

/** The node at `path`, or the deepest one the path reaches. */
export function nodeAt(t: DiffTree, path: string): number {
  const p = trail(t, path);
  return p[p.length - 1];
}

/** A node's label: one name, or both when the sides differ ("aten::relu | aten::mul"); a role's node is named after its role. */
export function label(t: DiffTree, n: number): string {
  if (t.role[n]) return t.name[n];
  const a = t.baseline.name[n], b = t.experiment.name[n];
  const show = (s: string) => (s === 'CompositeNodes' ? 'Others' : s === 'Blank' ? '(none)' : s);
  return a === b ? show(a) : `${show(a)} | ${show(b)}`;
}

/**
 * The chart of a node: one bar pair per child (the node itself when it has none), the total time
 * of each side (device time, or host time for work without device time), the experiment's
 * difference and its running sum.
 */
export interface DiffBars {
  labels: string[];
  paths: string[];
  baselineUs: number[];
  experimentUs: number[];
  deltaUs: number[];
  cumulativeUs: number[];
}

export function bars(t: DiffTree, n: number): DiffBars {
  const items = t.children[n].length ? t.children[n] : [n];
  const out: DiffBars = { labels: [], paths: [], baselineUs: [], experimentUs: [], deltaUs: [], cumulativeUs: [] };
  let sum = 0;
  for (const c of items) {
    out.labels.push(label(t, c));
    out.paths.push(t.path[c]);
    const a = t.baseline.totalDurationUs[c], b = t.experiment.totalDurationUs[c];
    out.baselineUs.push(a);
    out.experimentUs.push(b);
    sum += b - a;
    out.deltaUs.push(b - a);
    out.cumulativeUs.push(sum);
  }
  return out;
}

/** The operators of a node side by side: baseline order first, then the experiment's own. */
export interface DiffRows {
  rowCount: number;
  name: string[];
  /** [baseline, experiment, experiment − baseline] per number. */
  calls: [Float64Array, Float64Array, Float64Array];
  hostUs: [Float64Array, Float64Array, Float64Array];
  selfHostUs: [Float64Array, Float64Array, Float64Array];
  deviceUs: [Float64Array, Float64Array, Float64Array];
  selfDeviceUs: [Float64Array, Float64Array, Float64Array];
}

const FIELDS = ['calls', 'hostUs', 'selfHostUs', 'deviceUs', 'selfDeviceUs'] as const;

export function operatorRows(t: DiffTree, n: number): DiffRows {
  const o = t.operators;
  const index = new Map<string, number>();
  const names: string[] = [];
  for (let side = 0; side < 2; side++)
    for (let r = o.from[2 * n + side]; r < o.to[2 * n + side]; r++) {
      if (index.has(o.name[r])) continue;
      index.set(o.name[r], names.length);
      names.push(o.name[r]);
    }
  const k = names.length;
  const triple = (): [Float64Array, Float64Array, Float64Array] => [new Float64Array(k), new Float64Array(k), new Float64Array(k)];
  const rows: DiffRows = { rowCount: k, name: names, calls: triple(), hostUs: triple(), selfHostUs: triple(), deviceUs: triple(), selfDeviceUs: triple() };
  for (let side = 0; side < 2; side++)
    for (let r = o.from[2 * n + side]; r < o.to[2 * n + side]; r++) {
      const i = index.get(o.name[r])!;
      for (const f of FIELDS) rows[f][side][i] = o[f][r];
    }
  for (const f of FIELDS) for (let i = 0; i < k; i++) rows[f][2][i] = rows[f][1][i] - rows[f][0][i];
  return rows;
}

/** "1 thread" / "2 threads"; for a role's node both sides' counts when they differ ("1 → 2 threads"). */
export function threadsText(t: DiffTree, n: number): string {
  const a = t.baseline.threads[n], b = t.experiment.threads[n];
  const word = (k: number) => (k === 1 ? 'thread' : 'threads');
  return a === b ? `${a} ${word(a)}` : `${a} → ${b} ${word(b)}`;
}
