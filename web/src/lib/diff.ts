// The Diff view's data: Session.diffJson (as `kinetoscope diff --json`), checked in the worker
// (json-check.ts), and what the view draws from it: a node found by its path, the breadcrumbs down
// to it, its children's bars with the delta and cumulative delta, and its operators side by side.
import { Reader } from './json-check';

export interface DiffAgg {
  name: string;
  calls: number;
  hostUs: number;
  deviceUs: number;
  selfHostUs: number;
  selfDeviceUs: number;
}

/** One side of a node: one tree node (its name), several ("CompositeNodes") or none ("Blank"). */
export interface DiffSide {
  name: string;
  nodes: number;
  /** The threads those nodes ran on. */
  threads: number;
  durationUs: number;
  deviceDurationUs: number;
  /** Σ per tree node: its device time, or its host time when it has none. */
  totalDurationUs: number;
  aggs: DiffAgg[];
}

/** What a thread does (core: diff.h ThreadRole): set on the nodes standing for one role's threads. */
export type ThreadRole = 'main' | 'autograd' | 'communication' | 'dataloader' | 'other';
const ROLES: readonly string[] = ['main', 'autograd', 'communication', 'dataloader', 'other'];

export interface DiffNode {
  path: string;
  name: string;
  role: ThreadRole | null;
  baseline: DiffSide;
  experiment: DiffSide;
  children: DiffNode[];
}

export interface Diff {
  baseline: string;
  experiment: string;
  tree: DiffNode;
}

const MAX_DEPTH = 300; // the core stops at 256 matched levels

function side(r: Reader): DiffSide {
  return {
    name: r.str('name'),
    nodes: r.num('nodes'),
    threads: r.has('threads') ? r.num('threads') : 0,
    durationUs: r.num('duration_us'),
    deviceDurationUs: r.num('device_duration_us'),
    totalDurationUs: r.num('total_duration_us'),
    aggs: r.field('aggs').items().map((a) => ({
      name: a.str('name'),
      calls: a.num('calls'),
      hostUs: a.num('host_duration_us'),
      deviceUs: a.num('device_duration_us'),
      selfHostUs: a.num('self_host_duration_us'),
      selfDeviceUs: a.num('self_device_duration_us'),
    })),
  };
}

function node(r: Reader, depth: number): DiffNode {
  const children = r.field('children').items();
  const role = r.has('role') ? r.strOrNull('role') : null;
  return {
    path: r.str('path'),
    name: r.str('name'),
    role: role != null && ROLES.includes(role) ? (role as ThreadRole) : null,
    baseline: side(r.field('baseline').object()),
    experiment: side(r.field('experiment').object()),
    children: depth < MAX_DEPTH ? children.map((c) => node(c.object(), depth + 1)) : [],
  };
}

export function parseDiff(json: string): Diff {
  const r = Reader.parse('diffJson', json);
  return { baseline: r.str('baseline'), experiment: r.str('experiment'), tree: node(r.field('tree').object(), 0) };
}

/** The nodes from the root down to `path` ("0", "0-3", "0-3-1"…); stops where the path leaves the tree. */
export function trail(root: DiffNode, path: string): DiffNode[] {
  const out = [root];
  const parts = path.split('-');
  if (parts[0] !== '0') return out;
  let at = root;
  for (const p of parts.slice(1)) {
    const i = Number(p);
    const next = Number.isInteger(i) ? at.children[i] : undefined;
    if (!next) break;
    out.push(next);
    at = next;
  }
  return out;
}

/** The node at `path`, or the deepest one the path reaches. */
export function nodeAt(root: DiffNode, path: string): DiffNode {
  const t = trail(root, path);
  return t[t.length - 1];
}

/** A node's label: one name, or both when the sides differ ("aten::relu | aten::mul"); a role's node is named after its role. */
export function label(n: DiffNode): string {
  if (n.role) return n.name;
  const a = n.baseline.name, b = n.experiment.name;
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

export function bars(n: DiffNode): DiffBars {
  const items = n.children.length ? n.children : [n];
  const out: DiffBars = { labels: [], paths: [], baselineUs: [], experimentUs: [], deltaUs: [], cumulativeUs: [] };
  let sum = 0;
  for (const c of items) {
    out.labels.push(label(c));
    out.paths.push(c.path);
    out.baselineUs.push(c.baseline.totalDurationUs);
    out.experimentUs.push(c.experiment.totalDurationUs);
    const d = c.experiment.totalDurationUs - c.baseline.totalDurationUs;
    sum += d;
    out.deltaUs.push(d);
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

export function operatorRows(n: DiffNode): DiffRows {
  const index = new Map<string, number>();
  const names: string[] = [];
  for (const a of [...n.baseline.aggs, ...n.experiment.aggs]) {
    if (index.has(a.name)) continue;
    index.set(a.name, names.length);
    names.push(a.name);
  }
  const k = names.length;
  const triple = (): [Float64Array, Float64Array, Float64Array] => [new Float64Array(k), new Float64Array(k), new Float64Array(k)];
  const rows: DiffRows = { rowCount: k, name: names, calls: triple(), hostUs: triple(), selfHostUs: triple(), deviceUs: triple(), selfDeviceUs: triple() };
  n.baseline.aggs.forEach((a) => FIELDS.forEach((f) => (rows[f][0][index.get(a.name)!] = a[f])));
  n.experiment.aggs.forEach((a) => FIELDS.forEach((f) => (rows[f][1][index.get(a.name)!] = a[f])));
  for (const f of FIELDS) for (let i = 0; i < k; i++) rows[f][2][i] = rows[f][1][i] - rows[f][0][i];
  return rows;
}

/** "1 thread" / "2 threads"; for a role's node both sides' counts when they differ ("1 → 2 threads"). */
export function threadsText(n: DiffNode): string {
  const a = n.baseline.threads, b = n.experiment.threads;
  const word = (k: number) => (k === 1 ? 'thread' : 'threads');
  return a === b ? `${a} ${word(a)}` : `${a} → ${b} ${word(b)}`;
}
