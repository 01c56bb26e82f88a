// Runs, workers and spans, named the way tb_plugin names them (reference/tb_plugin_spec.md §1),
// so a folder of traces opens as the same runs and workers a TensorBoard user knows.
//
// A trace file is `<worker>[.<span>].pt.trace.json[.gz]`: the span is the last `.digits` group
// right before `.pt.trace.json`, the worker everything before it (dots included). A run is a
// folder that directly holds such files; its name is the folder's path inside what was dropped.
// Spans become 1-based ranks per worker, ordered as strings (tb_plugin's order, not numeric).
// Pure: the DOM walking is lib/folder.ts.

/** The worker and span a trace file name carries, or null if it is not named as a trace. */
export interface WorkerSpan {
  worker: string;
  span: string | null;
}

// Lazy worker, so that the span is the last `.digits` before the suffix.
const TRACE_NAME = /^(.+?)(?:\.(\d+))?\.pt\.trace\.json(?:\.gz)?$/;

export function parseTraceName(fileName: string): WorkerSpan | null {
  const m = TRACE_NAME.exec(fileName);
  return m ? { worker: m[1], span: m[2] ?? null } : null;
}

/** A file found in a dropped folder, with its path inside the drop ("logs/run1/w0.pt.trace.json"). */
export interface FoundFile<F> {
  path: string;
  file: F;
}

/** Where a trace of a folder belongs: its run, worker and span rank (1-based, of spanCount). */
export interface TraceLabel {
  run: string;
  worker: string;
  /** The span as written in the file name (a timestamp, usually), or null. */
  span: string | null;
  /** 1-based position of the span among this worker's spans in the run; 0 when there is none. */
  spanRank: number;
  spanCount: number;
}

export interface Labelled<F> {
  file: F;
  path: string;
  label: TraceLabel;
}

export interface FolderTraces<F> {
  /** The trace files, ordered by run, span rank, then worker (numbers inside names as numbers). */
  traces: Labelled<F>[];
  /** Paths of the other files, which are not opened (configs, checkpoints, other JSON). */
  skipped: string[];
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

// "worker10" after "worker2": the order a person expects from names with numbers in them.
const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * Picks the trace files out of the files of dropped folders and labels them. A run is named by
 * its folder's path including the dropped folder ("logs/run1"), so two dropped folders that
 * both hold a "version_0" stay apart; files dropped loose (not in a folder) have run ''.
 */
export function labelTraces<F>(found: FoundFile<F>[]): FolderTraces<F> {
  const skipped: string[] = [];
  const named: { f: FoundFile<F>; run: string; ws: WorkerSpan }[] = [];
  for (const f of found) {
    const ws = parseTraceName(baseOf(f.path));
    if (ws) named.push({ f, run: dirOf(f.path), ws });
    else skipped.push(f.path);
  }
  // Span ranks: per run and worker, the distinct span strings sorted as strings.
  const spans = new Map<string, string[]>();
  const key = (run: string, worker: string) => `${run}\u0000${worker}`;
  for (const n of named) {
    if (n.ws.span == null) continue;
    const k = key(n.run, n.ws.worker);
    const list = spans.get(k) ?? [];
    if (!list.includes(n.ws.span)) list.push(n.ws.span);
    spans.set(k, list);
  }
  for (const list of spans.values()) list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const traces = named.map(({ f, run, ws }) => {
    const list = spans.get(key(run, ws.worker)) ?? [];
    const label: TraceLabel = {
      run,
      worker: ws.worker,
      span: ws.span,
      spanRank: ws.span == null ? 0 : list.indexOf(ws.span) + 1,
      spanCount: list.length,
    };
    return { file: f.file, path: f.path, label };
  });
  traces.sort(
    (a, b) =>
      natural.compare(a.label.run, b.label.run) ||
      a.label.spanRank - b.label.spanRank ||
      natural.compare(a.label.worker, b.label.worker) ||
      natural.compare(a.path, b.path),
  );
  return { traces, skipped };
}

/** One line naming a trace's place: "run logs/resnet · worker rank-0 · span 2 of 3". */
export function describeLabel(l: TraceLabel): string {
  const parts = l.run ? [`run ${l.run}`] : [];
  parts.push(`worker ${l.worker}`);
  if (l.spanRank > 0) parts.push(l.spanCount > 1 ? `span ${l.spanRank} of ${l.spanCount}` : `span ${l.span}`);
  return parts.join(' · ');
}

/** What to open of a drop, in order, and a sentence about what was left out (or null). */
export interface OpenPlan<F> {
  open: { file: F; label: TraceLabel | null }[];
  notice: string | null;
}

/** A folder without any `*.pt.trace.json[.gz]` opens its `.json[.gz]` files, at most this many. */
export const MAX_FALLBACK_FILES = 32;

const JSONISH = /\.json(\.gz)?$/i;

/**
 * Loose files are all opened, in the given order (labelled when named as traces). Of the files
 * in folders only the traces are, ordered by run, span and worker; when the folders hold no
 * trace-named file at all, their `.json`/`.json.gz` files are tried instead (a trace saved
 * under another name still opens; a file that is not a trace gets its own clear message).
 */
export function planOpen<F>(loose: { name: string; file: F }[], inFolders: FoundFile<F>[], truncated = false): OpenPlan<F> {
  // Loose files named as traces get their worker and span rank among the loose files.
  const looseLabels = new Map(labelTraces(loose.map((l) => ({ path: l.name, file: l.file }))).traces.map((t) => [t.file, t.label]));
  const open: OpenPlan<F>['open'] = loose.map((l) => ({ file: l.file, label: looseLabels.get(l.file) ?? null }));
  const notes: string[] = [];
  if (inFolders.length) {
    const { traces, skipped } = labelTraces(inFolders);
    if (traces.length) {
      open.push(...traces.map((t) => ({ file: t.file, label: t.label })));
      const runs = new Set(traces.map((t) => t.label.run)).size;
      let s = `Opening ${traces.length} trace${traces.length === 1 ? '' : 's'} from ${runs} run${runs === 1 ? '' : 's'}`;
      if (skipped.length) s += `; ${skipped.length} other file${skipped.length === 1 ? ' was' : 's were'} skipped (only <worker>[.<span>].pt.trace.json[.gz] files are traces)`;
      notes.push(s + '.');
    } else {
      const jsons = inFolders.filter((f) => JSONISH.test(f.path));
      if (!jsons.length) {
        notes.push(`No traces in the dropped folder: none of its ${inFolders.length} file${inFolders.length === 1 ? ' is' : 's are'} a .pt.trace.json[.gz], .json or .json.gz file.`);
      } else {
        const tried = jsons.slice().sort((a, b) => natural.compare(a.path, b.path)).slice(0, MAX_FALLBACK_FILES);
        open.push(...tried.map((t) => ({ file: t.file, label: null })));
        let s = `No file in the dropped folder is named as a trace (<worker>[.<span>].pt.trace.json[.gz]), so its .json and .json.gz files are opened instead`;
        if (jsons.length > tried.length) s += ` (the first ${tried.length} of ${jsons.length})`;
        notes.push(s + '.');
      }
    }
  }
  if (truncated) notes.push('The folder holds too many files: only its first ones were looked at.');
  return { open, notice: notes.length ? notes.join(' ') : null };
}
