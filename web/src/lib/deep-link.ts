// Deep links: the page's hash names a place in one trace (its run, worker and span, its file
// name, the view, the step, and the view's table: grouping, sorting, search, selected row), so a
// link opens the same place again once the same traces are loaded. Pure but for readLink (the
// hash as it is now): the app's deep links (app/deep-links.ts) and the trace page
// (views/trace-page.tsx) read and write location.hash with these.
//
// The hash is written like a query string, `#run=logs%2Frun1&worker=w0&span=2&file=w0.2.pt.trace.
// json&view=operators&group=op%2Bshape&sort=host_total_us.asc&q=conv&row=aten%3A%3Aconv2d`, in a
// fixed key order, and only with what
// differs from a freshly loaded card: an absent field means the default (Overview, all steps, the
// view's first grouping and sorting, no search, no row). Reading never throws: unknown keys and
// values that cannot be right are dropped, and whoever applies a place ignores columns and rows
// the table does not have.
import type { RowKey, SortState, TableModel } from './table-model';

export type LinkView = 'overview' | 'operators' | 'kernels' | 'modules' | 'ranges' | 'trace' | 'timeline' | 'memory' | 'diff' | 'gpu-time' | 'roofline';
export const LINK_VIEWS: readonly LinkView[] = ['overview', 'operators', 'kernels', 'modules', 'ranges', 'trace', 'timeline', 'memory', 'diff', 'gpu-time', 'roofline'];

/** The table part of a place: the view's grouping and its data table's state. */
export interface TablePlace {
  group?: string;
  sort?: SortState;
  /** The search text. */
  q?: string;
  /** The selected row's key, as the data table knows it (String of a RowKey). */
  row?: string;
  /** Memory view: the device ("GPU0") when not the default one. */
  device?: string;
  /** Memory view: the selected range, µs from the trace's time origin (both or neither). */
  mem_from?: string;
  mem_to?: string;
  /** Diff view: the experiment trace (the card's trace is the baseline), named as a trace is. */
  vs_run?: string;
  vs_worker?: string;
  vs_span?: number;
  vs_file?: string;
  /** Diff view: the node zoomed into, by its path in the diff tree ("0-3"; absent: the top). */
  node?: string;
}

export interface Place extends TablePlace {
  /** The trace's run (its folder's path in the drop), when it came from a folder. */
  run?: string;
  /** Its worker, when its file is named as a trace (`<worker>[.<span>].pt.trace.json[.gz]`). */
  worker?: string;
  /** Its span's rank among the worker's spans (1..n), when it has one. */
  span?: number;
  /** The card's file name; absent: the first file loaded. Links from before run/worker/span have only this. */
  file?: string;
  view?: LinkView;
  /** The step's name as the Overview lists it ("5"), not its index, which a cut trace shifts. */
  step?: string;
  /**
   * `view=distributed` without a worker: the run page of `run` (what selecting a run in the
   * navigator shows) with its Distributed view, at `step`. Kept apart from `view`, which names a
   * trace's tab.
   */
  runView?: 'distributed';
}

/** What a data table reports of itself (components/data-table.tsx `onState`). */
export interface TableState {
  sort: SortState | null;
  /** The search the rows are filtered by (after the debounce of big tables). */
  search: string;
  selected: RowKey | null;
}

// Key order of the hash; also the fields a place has.
const KEYS = ['run', 'worker', 'span', 'file', 'view', 'step', 'group', 'sort', 'q', 'row', 'device', 'mem_from', 'mem_to', 'vs_run', 'vs_worker', 'vs_span', 'vs_file', 'node'] as const;

/** Column ids are plain words; "." separates the column from the direction in `sort=`. */
const SORT = /^([A-Za-z0-9_+-]+)\.(asc|desc)$/;

/** The hash of `p`, without the '#'; '' when it holds nothing. */
export function formatPlace(p: Place): string {
  const out = new URLSearchParams();
  for (const k of KEYS) {
    if (k === 'sort') {
      if (p.sort && SORT.test(`${p.sort.column}.${p.sort.dir}`)) out.append('sort', `${p.sort.column}.${p.sort.dir}`);
      continue;
    }
    if (k === 'span' || k === 'vs_span') {
      const n = p[k];
      if (n != null && Number.isInteger(n) && n > 0) out.append(k, String(n));
      continue;
    }
    const v = p[k];
    if (k === 'view' && p.runView) {
      out.append('view', p.runView);
      continue;
    }
    // The Overview is where a card opens: saying so would only lengthen the link.
    if (k === 'view' && v === 'overview') continue;
    if (typeof v === 'string' && v !== '') out.append(k, v);
  }
  return out.toString();
}

/** The place a hash (with or without its '#') names; fields that are not valid are left out. */
export function parsePlace(hash: string): Place {
  const p: Place = {};
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  } catch {
    return p;
  }
  // The first of a repeated key counts, as a person editing the link by hand would expect.
  const get = (k: string) => {
    const v = params.get(k);
    return v == null || v === '' ? undefined : v;
  };
  const run = get('run');
  if (run) p.run = run;
  const worker = get('worker');
  if (worker) p.worker = worker;
  const span = get('span');
  if (span && /^[1-9][0-9]{0,6}$/.test(span)) p.span = Number(span);
  const file = get('file');
  if (file) p.file = file;
  const view = get('view');
  if (view && (LINK_VIEWS as readonly string[]).includes(view)) p.view = view as LinkView;
  else if (view === 'distributed' && !worker) p.runView = 'distributed';
  const step = get('step');
  if (step) p.step = step;
  const group = get('group');
  if (group) p.group = group;
  const sort = SORT.exec(get('sort') ?? '');
  if (sort) p.sort = { column: sort[1], dir: sort[2] as 'asc' | 'desc' };
  const q = get('q');
  if (q) p.q = q;
  const row = get('row');
  if (row) p.row = row;
  const device = get('device');
  if (device && /^(CPU|GPU[0-9]{1,4})$/.test(device)) p.device = device;
  // A range is two finite numbers, from <= to; anything else is dropped whole.
  const from = get('mem_from'), to = get('mem_to');
  if (from && to && Number.isFinite(Number(from)) && Number.isFinite(Number(to)) && Number(from) <= Number(to)) {
    p.mem_from = from;
    p.mem_to = to;
  }
  for (const k of ['vs_run', 'vs_worker', 'vs_file'] as const) {
    const v = get(k);
    if (v) p[k] = v;
  }
  const vsSpan = get('vs_span');
  if (vsSpan && /^[1-9][0-9]{0,6}$/.test(vsSpan)) p.vs_span = Number(vsSpan);
  const node = get('node');
  if (node && /^0(-[0-9]{1,6}){0,300}$/.test(node)) p.node = node;
  return p;
}

/**
 * The table part a view writes: its grouping and its table's state, each left out when it is what
 * the view starts with (`defaultGroup`, `defaultSort`), so links stay short and a default change
 * later is followed.
 */
export function tablePlace(group: string, defaultGroup: string, s: TableState | null, defaultSort: SortState | null): TablePlace {
  const t: TablePlace = {};
  if (group !== defaultGroup) t.group = group;
  if (!s) return t;
  if (s.sort && !(defaultSort && s.sort.column === defaultSort.column && s.sort.dir === defaultSort.dir)) t.sort = s.sort;
  if (s.search) t.q = s.search;
  if (s.selected != null) t.row = String(s.selected);
  return t;
}

/**
 * The table part while the table of `group` is not shown yet (its rows are being computed): the
 * link's sorting, search and row (`start`) still stand, so a link copied meanwhile loses nothing.
 */
export function pendingTablePlace(group: string, defaultGroup: string, start: TablePlace | undefined): TablePlace {
  const t = tablePlace(group, defaultGroup, null, null);
  if (start?.sort) t.sort = start.sort;
  if (start?.q) t.q = start.q;
  if (start?.row) t.row = start.row;
  return t;
}

/** A link's sorting when `model` has that column, else `fallback` (a link from another version). */
export function knownSort(model: TableModel, sort: SortState | undefined, fallback: SortState | null): SortState | null {
  return sort && model.columns.some((c) => c.id === sort.column) ? sort : fallback;
}

/** A link's grouping when the view has it, else the view's first. */
export function knownGroup<G extends string>(group: string | undefined, groups: readonly G[]): G {
  return group && (groups as readonly string[]).includes(group) ? (group as G) : groups[0];
}

/** The index (as the card keeps it: 'all' or a number) of the step named `name`. */
export function stepIndexOf(steps: readonly { name: string }[], name: string | undefined): string {
  if (name == null) return 'all';
  const i = steps.findIndex((s) => s.name === name);
  return i < 0 ? 'all' : String(i);
}

/** The step name a card's step ('all' or an index) is written as; undefined for all steps. */
export function stepNameOf(steps: readonly { name: string }[], step: string): string | undefined {
  if (step === 'all') return undefined;
  const i = Number(step);
  return Number.isInteger(i) && i >= 0 && i < steps.length ? steps[i].name : undefined;
}

/** A deep link's place, numbered so a card opens each link once; taken once a card opened it. */
export interface Link {
  seq: number;
  place: Place;
  taken: boolean;
}

let nextLinkSeq = 1;

/** A new link number (a place opened from inside the page is numbered as a link is). */
export function nextLinkNumber(): number {
  return nextLinkSeq++;
}

/** The place in the page's hash; null when it names nothing (no hash, or nothing valid in it). */
export function readLink(): Link | null {
  const place = parsePlace(location.hash);
  return Object.keys(place).length ? { seq: nextLinkNumber(), place, taken: false } : null;
}
