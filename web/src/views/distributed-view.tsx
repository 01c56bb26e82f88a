// The run page: what selecting a run in the navigator shows. Its Distributed view is reduced in
// the core from one small summary per rank (the map step: each trace's rank summary, taken from
// its Session in its own worker of the pool when it loaded, so the page needs no rank's full
// model to show it; app/loader.ts, worker/worker-pool.ts), so the page shows exactly what
// `kinetoscope distributed --json` prints for the same files:
// devices per worker, computation/communication overlap and wait time per worker as stacked
// columns, the communication operations, step time per worker with the slowest rank, and the
// collectives by process group and message size. One step selector drives every part.
import uPlot from 'uplot';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { alpha, axisStyle, barSeries, Chart, fitLabels, type ChartTheme } from '../components/chart';
import { DataTable } from '../components/data-table';
import { barTicks } from '../lib/axis-size';
import { rowsModel, type TableModel } from '../lib/table-model';
import { csvStem } from '../lib/download';
import { RunGpuTime } from './run-gpu-time';
import { formatCount, formatDeviceMemory, formatDurationUs } from '../lib/format';
import {
  OVERLAP_PARTS,
  isStraggler,
  stackedColumns,
  STRAGGLER_THRESHOLD_PCT,
  WAIT_PARTS,
  workerLabel,
  type CommOp,
  type Collective,
  type DistributedView,
  type DistWorker,
  type Straggler,
} from '../lib/distributed';
import type { Status } from '../lib/run-tree';
import type { Summary } from '../lib/summary';
import './distributed-view.css';

/** A trace of the run, as the page has it. */
export interface RunTrace {
  key: number;
  name: string;
  /** Its worker and span in the run ("default" without a span), as the rank summary names it. */
  worker: string;
  span: string;
  status: Status;
  /** Its rank summary (the core's answer in binary form, the map step's output; done traces), or why it could not be taken. */
  rank: Uint8Array | null;
  rankError: string | null;
  /** Its summary once read (null: not yet, or it failed). */
  summary?: Summary | null;
}

/**
 * Whether the traces of the "Opened files" group (run "") are the ranks of one distributed run:
 * each declares a rank (distributedInfo), all the same world size, no rank twice. Anything else
 * (a ViT step beside an NCCL rank, say) is a set of files, listed, not a run to compare ranks of.
 * Folders are runs by their layout (tb_plugin's rule); while a summary is unread, it waits.
 */
export function looseFilesAreRun(traces: readonly Pick<RunTrace, 'status' | 'summary'>[]): boolean | null {
  if (traces.some((t) => (t.status === 'queued' || t.status === 'loading') && !t.summary)) return null;
  const d = traces.map((t) => t.summary?.distributed ?? null);
  if (!d.length || d.some((x) => x == null)) return false;
  const ranks = new Set(d.map((x) => x!.rank));
  return ranks.size === d.length && d.every((x) => x!.world_size === d[0]!.world_size);
}

/** What the page needs of the app's workers: the reduce of the rank summaries. */
export interface DistributedRunner {
  reduce: (ranks: Uint8Array[]) => Promise<DistributedView[]>;
}

type State =
  | { kind: 'waiting'; pending: number }
  | { kind: 'computing' }
  | { kind: 'ready'; views: DistributedView[]; failed: number }
  | { kind: 'error'; message: string };

/** The worker name of a file opened without a trace name: the file name without `.json[.gz]`. */
export function workerOfFile(name: string): string {
  return name.replace(/(\.pt\.trace)?\.json(\.gz)?$/, '').replace(/\.gz$/, '') || name;
}

const ms = (us: number) => formatDurationUs(us);

export function RunPage({
  run,
  traces,
  runner,
  step,
  onStep,
  onCompare,
  onOpenTrace,
  forceDistributed = false,
}: {
  /** Shows the Distributed view even for opened files that are not one run (asked by a recommendation, or the list's button). */
  forceDistributed?: boolean;
  /** Opens the Diff view of two traces of the run (baseline, experiment: trace keys). */
  onCompare?: (baseline: number, experiment: number) => void;
  /** Shows one trace (a click in the list of opened files that are not a run). */
  onOpenTrace?: (key: number) => void;
  run: string;
  traces: RunTrace[];
  runner: DistributedRunner;
  /** The step shown (a step name), or null for all steps. */
  step: string | null;
  onStep: (step: string | null) => void;
}) {
  const [asked, setAsked] = useState(false);
  if (run === '' && !forceDistributed && !asked && looseFilesAreRun(traces) === false) {
    return <OpenedFiles traces={traces} onCompare={onCompare} onOpenTrace={onOpenTrace} onDistributed={() => setAsked(true)} />;
  }
  return <RunBody run={run} traces={traces} runner={runner} step={step} onStep={onStep} onCompare={onCompare} />;
}

/**
 * "Opened files" that are not the ranks of one run: each file with its summary (events, duration,
 * devices, rank), a click showing it, and Compare… for any two.
 */
function OpenedFiles({
  traces,
  onCompare,
  onOpenTrace,
  onDistributed,
}: {
  traces: RunTrace[];
  onCompare?: (baseline: number, experiment: number) => void;
  onOpenTrace?: (key: number) => void;
  onDistributed: () => void;
}) {
  return (
    <section class="run-page card" data-testid="run-page" data-run="" data-state="files" aria-label="Opened files">
      <header class="run-head">
        <div>
          <h2 class="run-title">Opened files</h2>
          <p class="muted run-sub" data-testid="run-counts">
            {formatCount(traces.length)} trace{traces.length === 1 ? '' : 's'}, not the ranks of one run (a Distributed view compares the ranks of one job:
            open a folder, or files that all declare their rank)
          </p>
        </div>
        <div class="run-controls">
          {onCompare && traces.length > 1 && <Compare traces={traces} onCompare={onCompare} />}
          <button type="button" data-testid="opened-files-distributed" onClick={onDistributed}>
            Distributed view anyway
          </button>
        </div>
      </header>
      <table class="table opened-files" data-testid="opened-files">
        <thead>
          <tr>
            <th>File</th>
            <th class="num">Events</th>
            <th class="num">Duration</th>
            <th>Devices</th>
            <th>Rank</th>
          </tr>
        </thead>
        <tbody>
          {traces.map((t) => {
            const s = t.summary;
            const gpus = s?.devices ?? [];
            return (
              <tr key={t.key} data-testid="opened-file" data-file={t.name}>
                <td>
                  <button type="button" class="link-button" onClick={() => onOpenTrace?.(t.key)}>
                    {t.name}
                  </button>
                </td>
                <td class="num">{s ? formatCount(s.events) : '—'}</td>
                <td class="num">{s?.span_us != null ? ms(s.span_us) : '—'}</td>
                <td>{gpus.length ? `${gpus.length} × ${gpus[0].name}` : s ? 'none' : '—'}</td>
                <td title={s && !s.distributed ? 'The trace declares no rank (no distributedInfo)' : undefined}>
                  {s?.distributed ? `${s.distributed.rank} of ${s.distributed.world_size}` : '—'}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function RunBody({
  run,
  traces,
  runner,
  step,
  onStep,
  onCompare,
}: {
  onCompare?: (baseline: number, experiment: number) => void;
  run: string;
  traces: RunTrace[];
  runner: DistributedRunner;
  step: string | null;
  onStep: (step: string | null) => void;
}) {
  const pending = traces.filter((t) => t.status === 'queued' || t.status === 'loading').length;
  const ready = traces.filter((t) => t.status === 'done' && t.rank != null);
  // Recomputed when the set of loaded traces changes (a trace loaded or closed).
  const readyKey = ready.map((t) => `${t.key}:${t.worker}:${t.span}`).join('|');
  const [state, setState] = useState<State>({ kind: 'computing' });
  useEffect(() => {
    if (pending) {
      setState({ kind: 'waiting', pending });
      return;
    }
    if (!ready.length) {
      setState({ kind: 'error', message: 'No trace of this run is loaded.' });
      return;
    }
    let live = true;
    setState({ kind: 'computing' });
    (async () => {
      const views = await runner.reduce(ready.map((t) => t.rank!));
      if (live) setState({ kind: 'ready', views, failed: traces.length - ready.length });
    })().catch((e) => live && setState({ kind: 'error', message: (e as Error).message || String(e) }));
    return () => {
      live = false;
    };
    // readyKey stands for `ready`; runner is stable.
  }, [readyKey, pending]);

  const views = state.kind === 'ready' ? state.views : [];
  const [spanIdx, setSpanIdx] = useState(0);
  const view = views[Math.min(spanIdx, Math.max(0, views.length - 1))] ?? null;
  const steps = view?.steps ?? [];
  const stepKey = step != null && steps.includes(step) ? step : 'all';

  return (
    <section class="run-page card" data-testid="run-page" data-run={run} data-state={state.kind} aria-label={`Run ${run || 'Opened files'}`}>
      <header class="run-head">
        <div>
          <h2 class="run-title">{run || 'Opened files'}</h2>
          <p class="muted run-sub" data-testid="run-counts">
            {formatCount(traces.length)} trace{traces.length === 1 ? '' : 's'}
            {pending ? ` · ${formatCount(pending)} still loading` : ''}
            {state.kind === 'ready' && state.failed ? ` · ${formatCount(state.failed)} not loaded (left out)` : ''}
          </p>
        </div>
        {(view || onCompare) && (
          <div class="run-controls">
            {onCompare && <Compare traces={traces} onCompare={onCompare} />}
            {view && <SpanStepPicks spans={views.map((v) => v.span)} spanIdx={spanIdx} onSpan={setSpanIdx} steps={steps} stepKey={stepKey} onStep={onStep} />}
          </div>
        )}
      </header>
      <h3 class="run-view-title">Distributed</h3>
      {state.kind === 'waiting' && <p class="muted" data-testid="run-waiting">Waiting for {formatCount(state.pending)} trace{state.pending === 1 ? '' : 's'} of this run to load…</p>}
      {state.kind === 'computing' && <p class="muted">Matching the collectives across the ranks…</p>}
      {state.kind === 'error' && (
        <div class="notice notice-error" role="alert">
          <span class="notice-icon" aria-hidden="true">⚠</span>
          <p data-testid="run-error">{state.message}</p>
        </div>
      )}
      {state.kind === 'ready' && !view && <p class="muted">No trace of this run could be read.</p>}
      {view && <DistributedBody view={view} stepKey={stepKey} run={run} />}
    </section>
  );
}

/** A trace's name in the Compare pickers: "worker · span 2", or the worker. */
const traceName = (t: RunTrace) => (t.span === 'default' ? t.worker : `${t.worker} · span ${t.span}`);

/**
 * The pair "Compare…" starts with: a worker's first two spans (a run recorded twice), else the
 * first two traces (two ranks).
 */
export function defaultPair(traces: readonly Pick<RunTrace, 'key' | 'worker' | 'span'>[]): [number, number] | null {
  const byWorker = new Map<string, number[]>();
  for (const t of traces) byWorker.set(t.worker, [...(byWorker.get(t.worker) ?? []), t.key]);
  for (const keys of byWorker.values()) if (keys.length >= 2) return [keys[0], keys[1]];
  return traces.length >= 2 ? [traces[0].key, traces[1].key] : null;
}

/** "Compare…": pick two traces of the run (ranks or spans) and open the Diff view of the pair. */
function Compare({ traces, onCompare }: { traces: RunTrace[]; onCompare: (baseline: number, experiment: number) => void }) {
  const done = traces.filter((t) => t.status === 'done');
  const [open, setOpen] = useState(false);
  const [pair, setPair] = useState<[number, number] | null>(null);
  const first = defaultPair(done);
  const [b, x] = pair && done.some((t) => t.key === pair[0]) && done.some((t) => t.key === pair[1]) ? pair : first ?? [null, null];
  if (done.length < 2) return null;
  if (!open)
    return (
      <button type="button" class="run-compare" data-testid="run-compare" title="Compare two traces of this run (two ranks, or two spans) in the Diff view" onClick={() => setOpen(true)}>
        Compare…
      </button>
    );
  const select = (which: 0 | 1, value: number | null, testid: string, label: string) => (
    <label class="ov-select">
      {label}{' '}
      <select
        data-testid={testid}
        value={String(value)}
        onChange={(e) => {
          const k = Number((e.currentTarget as HTMLSelectElement).value);
          setPair(which === 0 ? [k, x!] : [b!, k]);
        }}
      >
        {done.map((t) => (
          <option key={t.key} value={String(t.key)} title={t.name}>
            {traceName(t)}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div class="run-compare-form" data-testid="run-compare-form" role="group" aria-label="Compare two traces">
      {select(0, b, 'compare-baseline', 'Baseline')}
      {select(1, x, 'compare-experiment', 'Experiment')}
      <button type="button" data-testid="compare-open" disabled={b == null || x == null || b === x} onClick={() => onCompare(b!, x!)}>
        Open Diff
      </button>
      <button type="button" class="link-button" data-testid="compare-cancel" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </div>
  );
}

export function DistributedBody({ view, stepKey, run }: { view: DistributedView; stepKey: string; run: string }) {
  const workers = view.workers;
  const of = stepKey === 'all' ? 'per step, on average' : `in step ${stepKey}`;
  return (
    <div class="dist" data-testid="distributed" data-span={view.span} data-available={String(view.available)} data-step={stepKey} data-workers={workers.length}>
      {!view.available && (
        <div class="notice notice-info" data-testid="dist-unavailable">
          <span class="notice-icon" aria-hidden="true">ℹ</span>
          <p>No distributed view: {view.reason}</p>
        </div>
      )}
      {view.matching.notes.length > 0 && (
        <div class="notice notice-info dist-notes" data-testid="dist-notes">
          <span class="notice-icon" aria-hidden="true">ℹ</span>
          <div>
            <p>
              {formatCount(view.matching.matched)} of {formatCount(view.matching.calls)} collective calls were matched across the ranks. Where ranks
              recorded different collectives, matching stops and the rest is shown as not matched:
            </p>
            <ul>
              {view.matching.notes.map((n, i) => (
                <li key={i} data-testid="dist-note">
                  {n}
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
      <Devices workers={workers} />
      {view.available && (
        <>
          <div class="dist-row">
            <section class="ov-panel" data-testid="dist-overlap">
              <h4>Computation and communication, {of}</h4>
              <StackedPanel
                workers={workers}
                values={view.overlap[stepKey]}
                parts={OVERLAP_PARTS}
                testid="overlap"
                label={`Computation, overlapping, communication and other time per worker, ${of}`}
              />
            </section>
            <section class="ov-panel" data-testid="dist-waittime">
              <h4>Wait time of collectives, {of}</h4>
              <StackedPanel
                workers={workers}
                values={view.waittime[stepKey]}
                parts={view.mode === 'tb_plugin' ? WAIT_PARTS.slice(0, 2) : WAIT_PARTS}
                testid="waittime"
                label={`Data transfer and synchronizing time of collectives per worker, ${of}`}
              />
            </section>
          </div>
          <Stragglers view={view} stepKey={stepKey} />
        </>
      )}
      {view.gpuTime && <RunGpuTime rows={view.gpuTime} run={run} stepKey={stepKey} />}
      {view.available && (
        <>
          <CommOps view={view} run={run} />
          <Collectives view={view} run={run} />
        </>
      )}
    </div>
  );
}

/**
 * Above this many workers (a run file of a cluster's job) the per-worker tables are windowed data
 * tables (only the rows in view are in the page, sortable and searchable): 8,192 plain rows each
 * took seconds to lay out. Below it they are plain tables, all rows at once.
 */
export const MANY_WORKERS = 256;

const deviceText = (w: DistWorker) =>
  w.devices.map((d) => `GPU ${d.id}: ${d.name || 'unnamed'} (${formatDeviceMemory(d.memoryBytes)}${d.computeCapability ? `, compute ${d.computeCapability}` : ''})`).join('; ');

function Devices({ workers }: { workers: DistWorker[] }) {
  const many = workers.length > MANY_WORKERS;
  const model = useMemo(
    () =>
      many
        ? rowsModel(workers, (w) => w.worker, [
            { id: 'worker', label: 'Worker', type: 'text', get: (w: DistWorker) => w.worker },
            { id: 'rank', label: 'Rank', type: 'number', unit: 'count', width: 80, get: (w: DistWorker) => w.rank ?? NaN },
            { id: 'node', label: 'Node', type: 'text', width: 140, get: (w: DistWorker) => w.node },
            { id: 'process', label: 'Process', type: 'text', width: 100, get: (w: DistWorker) => w.process },
            { id: 'gpus', label: 'GPUs', type: 'text', grow: 2, get: (w: DistWorker) => deviceText(w) || 'none recorded' },
          ])
        : null,
    [workers, many],
  );
  if (model)
    return (
      <section class="ov-panel" data-testid="dist-devices">
        <h4>Workers and devices</h4>
        <DataTable model={model} stem="dist-devices" label="Workers and devices" csvName="workers-and-devices.csv" searchPlaceholder="Search workers and GPUs" maxHeight={240} initialSort={{ column: 'rank', dir: 'asc' }} />
      </section>
    );
  return (
    <section class="ov-panel" data-testid="dist-devices">
      <h4>Workers and devices</h4>
      <div class="ov-scroll">
        <table class="table ov-detail">
          <thead>
            <tr>
              <th>Worker</th>
              <th class="num">Rank</th>
              <th>Node</th>
              <th>Process</th>
              <th>GPUs</th>
            </tr>
          </thead>
          <tbody>
            {workers.map((w) => (
              <tr key={w.worker} data-testid="dist-device-row" data-worker={w.worker}>
                <td>{w.worker}</td>
                <td class="num">{w.rank ?? '—'}</td>
                <td>{w.node}</td>
                <td>{w.process}</td>
                <td>{w.devices.length ? deviceText(w) : <span class="muted">none recorded</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Stacked columns per worker (uPlot bars, tallest first) and the same numbers as a table. */
function StackedPanel<K extends string>({
  workers,
  values,
  parts,
  testid,
  label,
}: {
  workers: DistWorker[];
  values: Record<string, Partial<Record<K, number>>> | undefined;
  parts: readonly { key: K; label: string; color: string }[];
  testid: string;
  label: string;
}) {
  const data = useMemo(() => stackedColumns(workers, values, parts), [workers, values, parts]);
  const many = workers.length > MANY_WORKERS;
  const numbers = useMemo(
    () =>
      many
        ? rowsModel(workers, (w) => w.worker, [
            { id: 'worker', label: 'Worker', type: 'text' as const, get: (w: DistWorker) => workerLabel(w) },
            ...parts.map((p) => ({ id: p.key, label: p.label, type: 'number' as const, unit: 'us' as const, width: 120, get: (w: DistWorker) => values?.[w.worker]?.[p.key] ?? NaN })),
          ])
        : null,
    [workers, values, parts, many],
  );
  const order = [...parts].reverse();
  const n = workers.length;
  const options = (width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => {
    const every = Math.max(1, Math.ceil((n * 46) / Math.max(1, width - 70)));
    const yAxis = barAxis();
    return {
      scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: yAxis.range } },
      axes: [
        { ...axisStyle(t), grid: { show: false }, splits: () => data[0], values: (_u, splits) => splits.map((i) => (i % every === 0 ? workerLabel(workers[i]) ?? '' : '')) },
        { ...axisStyle(t), size: fitLabels(64), splits: yAxis.splits, values: (_u, vals) => vals.map((v) => `${+v.toFixed(3)} ms`) },
      ],
      series: [
        {},
        ...order.map((p) => ({ label: p.label, ...barSeries(p.color, [0.6, 64]) })),
      ],
      legend: { show: false },
      cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false, x: false },
    };
  };
  return (
    <>
      <ul class="ov-legend" aria-label="Legend">
        {parts.map((p) => (
          <li key={p.key}>
            <span class="ov-swatch" style={{ background: p.color }} />
            {p.label}
          </li>
        ))}
      </ul>
      <Chart options={options} data={data as uPlot.AlignedData} height={190} testid={`${testid}-chart`} label={label} />
      {numbers ? (
        <DataTable model={numbers} stem={`${testid}-numbers`} label={label} csvName={`${testid}-per-worker.csv`} searchPlaceholder="Search workers" maxHeight={200} />
      ) : (
      <div class="ov-scroll dist-numbers">
        <table class="table ov-detail" data-testid={`${testid}-table`}>
          <thead>
            <tr>
              <th>Worker</th>
              {parts.map((p) => (
                <th key={p.key} class="num">
                  {p.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {workers.map((w) => (
              <tr key={w.worker} data-testid={`${testid}-row`} data-worker={w.worker}>
                <td>{workerLabel(w)}</td>
                {parts.map((p) => {
                  const v = values?.[w.worker]?.[p.key];
                  return (
                    <td key={p.key} class="num" data-part={p.key} data-us={v ?? ''}>
                      {v == null ? '—' : ms(v)}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      )}
    </>
  );
}

const SLOW = '#d9534f';

/**
 * The ms axis of a bar chart: 3 to 6 ticks and a top just above the tallest bar (barTicks). The
 * scale's range is asked first in uPlot's cycle, its splits after: the ticks found for the range
 * are the ones drawn.
 */
function barAxis(): { range: uPlot.Range.Function; splits: () => number[] } {
  let ticks = [0, 1];
  return {
    range: (_u, _min, max) => {
      const b = barTicks(max);
      ticks = b.ticks;
      return [0, b.top];
    },
    splits: () => ticks,
  };
}

function Stragglers({ view, stepKey }: { view: DistributedView; stepKey: string }) {
  const s: Straggler | undefined = view.stragglers.find((x) => x.step === stepKey);
  const straggler = !!s && isStraggler(s);
  const workers = view.workers.filter((w) => s && s.timesUs[w.worker] != null);
  const data = useMemo(() => {
    if (!s) return null;
    const x = workers.map((_, i) => i);
    const t = workers.map((w) => s.timesUs[w.worker] / 1000);
    // The slowest bar is red only when it is a straggler (STRAGGLER_THRESHOLD_PCT behind the median).
    const red = (i: number) => straggler && workers[i].worker === s.slowestWorker;
    return [x, t.map((v, i) => (red(i) ? 0 : v)), t.map((v, i) => (red(i) ? v : 0)), x.map(() => s.medianUs / 1000)];
  }, [s, workers, straggler]);
  if (!s || !data) return null;
  const n = workers.length;
  const options = (width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => {
    const every = Math.max(1, Math.ceil((n * 46) / Math.max(1, width - 70)));
    const bars = (color: string) => barSeries(color, [0.6, 64]);
    const yAxis = barAxis();
    return {
      scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: yAxis.range } },
      axes: [
        { ...axisStyle(t), grid: { show: false }, splits: () => data[0], values: (_u, splits) => splits.map((i) => (i % every === 0 ? workerLabel(workers[i]) : '')) },
        { ...axisStyle(t), size: fitLabels(64), splits: yAxis.splits, values: (_u, vals) => vals.map((v) => `${+v.toFixed(3)} ms`) },
      ],
      series: [{}, { label: 'Step time', ...bars(alpha(t.accent, 0.75)) }, { label: 'Slowest', ...bars(SLOW) }, { label: 'Median', stroke: t.fg, width: 1.5, dash: [6, 4], points: { show: false } }],
      legend: { show: false },
      cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false, x: false },
    };
  };
  const slowest = view.workers.find((w) => w.worker === s.slowestWorker);
  return (
    <section
      class="ov-panel"
      data-testid="dist-stragglers"
      data-step={s.step}
      data-slowest={s.slowestWorker}
      data-straggler={straggler ? 'yes' : 'no'}
      data-y-ticks={barTicks(Math.max(0, ...workers.map((w) => s.timesUs[w.worker] / 1000))).ticks.join(' ')}
      data-median-us={s.medianUs}
      data-behind-us={s.behindMedianUs}
    >
      <h4>Step time per worker{s.step === 'all' ? ' (average)' : `, step ${s.step}`}</h4>
      <p data-testid="straggler-sentence">
        {straggler ? 'Straggler' : 'Slowest'}: <strong>{slowest ? workerLabel(slowest) : s.slowestWorker}</strong>, {ms(s.slowestUs)}, {ms(s.behindMedianUs)}
        {s.behindMedianPct != null ? ` (${s.behindMedianPct.toFixed(2)} %)` : ''} behind the median of {ms(s.medianUs)}
        {straggler
          ? `: ${STRAGGLER_THRESHOLD_PCT} % or more behind, shown in red.`
          : `. No straggler: no worker is ${STRAGGLER_THRESHOLD_PCT} % or more behind the median.`}
      </p>
      <ul class="ov-legend" aria-label="Legend">
        <li>
          <span class="ov-swatch dist-swatch-accent" />
          Step time
        </li>
        {straggler && (
          <li>
            <span class="ov-swatch" style={{ background: SLOW }} />
            Straggler ({STRAGGLER_THRESHOLD_PCT} % or more behind the median)
          </li>
        )}
        <li>
          <span class="ov-swatch dist-swatch-median" />
          Median
        </li>
      </ul>
      <Chart options={options} data={data as uPlot.AlignedData} height={170} testid="straggler-chart" label={`Step time per worker; the slowest is ${s.slowestWorker}`} />
    </section>
  );
}

type CommOpRow = CommOp & { worker: string };
type Columns<R> = Parameters<typeof rowsModel<R>>[2];

const COMMOP_COLUMNS: Columns<CommOpRow> = [
  { id: 'worker', label: 'Worker', type: 'text', width: 130, get: (r: CommOpRow) => r.worker },
  { id: 'name', label: 'Name', type: 'text', get: (r: CommOpRow) => r.name },
  { id: 'calls', label: 'Calls', type: 'number', unit: 'count', width: 80, get: (r: CommOpRow) => r.calls },
  { id: 'total_bytes', label: 'Total size', type: 'number', unit: 'bytes', width: 110, get: (r: CommOpRow) => r.totalBytes },
  { id: 'avg_bytes', label: 'Avg size', type: 'number', unit: 'bytes', width: 100, get: (r: CommOpRow) => r.avgBytes },
  { id: 'total_latency_us', label: 'Total latency', type: 'number', unit: 'us', width: 120, get: (r: CommOpRow) => r.totalLatencyUs },
  { id: 'avg_latency_us', label: 'Avg latency', type: 'number', unit: 'us', width: 110, get: (r: CommOpRow) => r.avgLatencyUs },
  { id: 'transfer_us', label: 'Data transfer time', header: 'Transfer', type: 'number', unit: 'us', width: 110, get: (r: CommOpRow) => r.transferUs },
  { id: 'avg_transfer_us', label: 'Avg data transfer time', header: 'Avg transfer', type: 'number', unit: 'us', width: 120, get: (r: CommOpRow) => r.avgTransferUs },
];

function CommOps({ view, run }: { view: DistributedView; run: string }) {
  const model: TableModel = useMemo(() => {
    const rows = view.workers.flatMap((w) => (view.commops[w.worker] ?? []).map((op) => ({ ...op, worker: w.worker })));
    return rowsModel(rows, (r) => `${r.worker} ${r.name}`, COMMOP_COLUMNS);
  }, [view]);
  return (
    <section class="ov-panel" data-testid="dist-commops">
      <h4>Communication operations per worker</h4>
      <DataTable
        model={model}
        stem="commops"
        label="Communication operations per worker"
        csvName={`${csvStem(run || 'run')}-communication-ops.csv`}
        searchPlaceholder="Search workers and operations"
        emptyText="No communication operation."
        maxHeight={320}
      />
    </section>
  );
}

/** Why a collective row has no process group (the Process group and Ranks cells' hover text). */
export const NO_PROCESS_GROUP_WHY = 'Not recorded: these calls carry no process group (record_param_comms without "Process Group Name", as Gloo writes them)';

const collectiveColumns = (rows: readonly Collective[]): Columns<Collective> => [
  {
    id: 'process_group',
    label: 'Process group',
    type: 'text',
    width: 140,
    get: (r: Collective) => r.processGroup,
    format: (v) => (v === '' ? '—' : String(v)),
    title: (i) => (rows[i].processGroup ? rows[i].processGroup : NO_PROCESS_GROUP_WHY),
  },
  {
    id: 'group_size',
    label: 'Group size',
    header: 'Ranks',
    type: 'number',
    unit: 'count',
    width: 70,
    get: (r: Collective) => r.groupSize ?? NaN,
    title: (i) => (rows[i].groupSize != null ? String(rows[i].groupSize) : NO_PROCESS_GROUP_WHY),
  },
  { id: 'name', label: 'Name', type: 'text', get: (r: Collective) => r.name },
  { id: 'bytes', label: 'Message size', header: 'Size', type: 'number', unit: 'bytes', width: 100, get: (r: Collective) => r.bytes ?? NaN },
  { id: 'calls', label: 'Calls', type: 'number', unit: 'count', width: 70, get: (r: Collective) => r.calls },
  { id: 'workers', label: 'Workers', type: 'number', unit: 'count', width: 80, get: (r: Collective) => r.workers },
  { id: 'total_us', label: 'Total time', type: 'number', unit: 'us', width: 110, get: (r: Collective) => r.totalUs },
  { id: 'avg_us', label: 'Avg time', type: 'number', unit: 'us', width: 100, get: (r: Collective) => r.avgUs },
  { id: 'transfer_us', label: 'Data transfer time', header: 'Transfer', type: 'number', unit: 'us', width: 110, get: (r: Collective) => r.transferUs },
];

function Collectives({ view, run }: { view: DistributedView; run: string }) {
  const model: TableModel = useMemo(
    () => rowsModel(view.collectives, (r) => `${r.processGroup} ${r.name} ${r.bytes}`, collectiveColumns(view.collectives)),
    [view],
  );
  return (
    <section class="ov-panel" data-testid="dist-collectives">
      <h4>Collectives by process group and message size (all workers)</h4>
      <DataTable
        model={model}
        stem="collectives"
        label="Collectives by process group and message size"
        csvName={`${csvStem(run || 'run')}-collectives.csv`}
        searchPlaceholder="Search groups and collectives"
        emptyText="No collective."
        maxHeight={320}
      />
      <p class="muted dist-foot">
        One row per process group, collective and message size: rows of the same collective in the same group differ in their size (DDP's gradient
        buckets, for one). Message size per call: its elements times the size of its dtype (record_param_comms' In msg nelems and dtype, else the
        collective's Input Dims and Input type). — where the trace does not say: a process group and its ranks are not recorded for calls without
        "Process Group Name" (Gloo's, for one); hover a cell for why. Transfer: the part of each call every rank spent, the rest being waiting for the
        slowest.
      </p>
    </section>
  );
}

/** The run page's span and step pickers (a run of loaded traces, or a run file): a span select
 * when the run has more than one, and the step select (all steps' average, or one step). */
export function SpanStepPicks({
  spans,
  spanIdx,
  onSpan,
  steps,
  stepKey,
  onStep,
}: {
  spans: string[];
  spanIdx: number;
  onSpan: (i: number) => void;
  steps: string[];
  stepKey: string;
  onStep: (step: string | null) => void;
}) {
  return (
    <>
      {spans.length > 1 && (
        <label class="ov-select">
          Span{' '}
          <select data-testid="dist-span" value={String(spanIdx)} onChange={(e) => onSpan(Number((e.currentTarget as HTMLSelectElement).value))}>
            {spans.map((span, i) => (
              <option key={span} value={String(i)}>
                {span === 'default' ? 'default' : `span ${span}`}
              </option>
            ))}
          </select>
        </label>
      )}
      {steps.length > 0 && (
        <label class="ov-select">
          Step{' '}
          <select
            data-testid="dist-step"
            value={stepKey}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              onStep(v === 'all' ? null : v);
            }}
          >
            <option value="all">All steps (average)</option>
            {steps.map((st) => (
              <option key={st} value={st}>
                Step {st}
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  );
}
