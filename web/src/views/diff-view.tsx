// The Diff view (tb_plugin's, spec §16): this trace as the baseline against another loaded trace
// (another span of the worker, another run, another rank) as the experiment. Top: each part of the
// node shown (its children in the diff tree) as a pair of bars, baseline and experiment; middle:
// the experiment's difference per part and its running sum; bottom: the node's operators side by
// side with their differences. A click on a bar zooms into that part; the breadcrumbs go back.
// The numbers are the core's diff and diff_operators answers (`kinetoscope diff --json`), asked
// of the baseline's Session with the experiment's, their columns read in place (lib/diff.ts).
import uPlot from 'uplot';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { axisStyle, barSeries, Chart, fitLabels, type ChartTheme } from '../components/chart';
import { DataTable } from '../components/data-table';
import type { NavPlace, Status } from '../lib/run-tree';
import { useQuery, type Ask } from '../components/use-query';
import { rowsModel, type Column, type TableModel } from '../lib/table-model';
import { knownSort, tablePlace, type TablePlace, type TableState } from '../lib/deep-link';
import { openAnswer } from '../lib/answer';
import { bars, label, nodeAt, openDiff, operatorRows, threadsText, trail, type DiffRows, type DiffTree } from '../lib/diff';
import { formatDurationUs } from '../lib/format';
import { formatUsCell } from '../lib/operators';
import { QueryStatus } from './view-status';
import './diff-view.css';

/** A trace of the page, as the Diff view's pickers list it. */
export interface DiffTrace {
  key: number;
  name: string;
  status: Status;
  /** The load call keeping its Session, and the worker generation it lives in. */
  session: number | null;
  gen: number | null;
  /** Its place in the navigator (null: not named as a trace). */
  place: NavPlace | null;
  /** It is a memory snapshot (its page the Snapshot page). */
  snapshot?: boolean;
}

/** "run / worker · span 2", or the file name. */
export function traceTitle(t: DiffTrace): string {
  const p = t.place;
  if (!p) return t.name;
  return `${p.run ? `${p.run} / ` : ''}${p.worker}${p.span ? ` · span ${p.span}` : ''}`;
}

/** The trace a link's vs_* fields name: by run, worker and span, else by file name. */
export function traceOfLink(traces: readonly DiffTrace[], l: TablePlace | undefined): DiffTrace | undefined {
  if (!l) return undefined;
  if (l.vs_worker != null) {
    const hit = traces.find((t) => t.place && t.place.worker === l.vs_worker && t.place.run === (l.vs_run ?? '') && (!l.vs_span || t.place.span === l.vs_span));
    if (hit) return hit;
  }
  return l.vs_file != null ? traces.find((t) => t.name === l.vs_file) : undefined;
}

/** The experiment a card starts with: the worker's next span (or previous), else the next trace. */
export function defaultExperiment(traces: readonly DiffTrace[], self: number): DiffTrace | undefined {
  const me = traces.find((t) => t.key === self);
  const others = traces.filter((t) => t.key !== self);
  if (me?.place) {
    const same = others.filter((t) => t.place && t.place.run === me.place!.run && t.place.worker === me.place!.worker);
    const next = same.find((t) => t.place!.span > me.place!.span) ?? same[same.length - 1];
    if (next) return next;
  }
  const i = traces.findIndex((t) => t.key === self);
  return traces.slice(i + 1).find((t) => t.key !== self) ?? others[0];
}

const BASE_COLOR = '#7c8aa5';
const EXP_COLOR = '#e8833a';
const DELTA_COLOR = '#d6336c';

const fmt = (us: number) => formatDurationUs(us);
const signed = (us: number) => (us > 0 ? '+' : us < 0 ? '−' : '') + formatDurationUs(Math.abs(us));

/** Row i of the operator table. */
interface OpRow {
  i: number;
}

// Field, column id stem, name, short header; the self times' two sides start hidden (the Columns
// menu shows them; the CSV has them), their difference is shown.
const PAIRS = [
  ['hostUs', 'host_total', 'Host total', 'Host'],
  ['deviceUs', 'device_total', 'Device total', 'Device'],
  ['selfHostUs', 'host_self', 'Host self', 'Host self'],
  ['selfDeviceUs', 'device_self', 'Device self', 'Dev. self'],
] as const;

function operatorModel(r: DiffRows): TableModel {
  type C = Omit<Column, 'value'> & { get: (x: OpRow) => string | number };
  const cols: C[] = [{ id: 'name', label: 'Operator', type: 'text', get: (x) => r.name[x.i], grow: 3 }];
  cols.push({ id: 'calls_base', label: 'Baseline calls', header: 'Calls B', type: 'number', unit: 'count', width: 70, get: (x) => r.calls[0][x.i] });
  cols.push({ id: 'calls_exp', label: 'Experiment calls', header: 'Calls E', type: 'number', unit: 'count', width: 70, get: (x) => r.calls[1][x.i] });
  for (const [field, id, name, short] of PAIRS) {
    const t = r[field];
    const hidden = id.endsWith('_self');
    const us = { type: 'number', unit: 'us', unitInHeader: true, format: formatUsCell, width: hidden ? 112 : 96 } as const;
    cols.push({ ...us, id: `${id}_base_us`, label: `Baseline ${name.toLowerCase()}`, header: `${short} B`, defaultHidden: hidden, get: (x) => t[0][x.i] });
    cols.push({ ...us, id: `${id}_exp_us`, label: `Experiment ${name.toLowerCase()}`, header: `${short} E`, defaultHidden: hidden, get: (x) => t[1][x.i] });
    cols.push({
      ...us,
      id: `${id}_diff_us`,
      label: `${name} difference (experiment − baseline)`,
      header: `${short} Δ`,
      format: (v) => (Number(v) > 0 ? '+' : '') + formatUsCell(v),
      get: (x) => t[2][x.i],
    });
  }
  const rows: OpRow[] = Array.from({ length: r.rowCount }, (_, i) => ({ i }));
  return rowsModel(rows, (x) => r.name[x.i], cols);
}

const DEFAULT_SORT = { column: 'device_total_diff_us', dir: 'desc' as const };

export function DiffView({
  self,
  traces,
  ask,
  fileName,
  link,
  onPlace,
  onBaseline,
  onPair,
}: {
  /**
   * Says which trace is the experiment (null: none), so the app keeps its model loaded in the
   * baseline's worker (the core diffs two Sessions of one wasm module: app/loader.ts reads the
   * experiment into the baseline's worker, or moves it there).
   */
  onPair?: (experiment: number | null) => void;
  /** The card's trace (the baseline). */
  self: DiffTrace;
  /** Every trace of the page, the card's included. */
  traces: readonly DiffTrace[];
  ask: Ask;
  fileName: string;
  link?: TablePlace;
  onPlace: (p: TablePlace) => void;
  /** Show the Diff view of trace `key` as the baseline against `experiment` (swap, or another baseline). */
  onBaseline: (key: number, experiment: DiffTrace) => void;
}) {
  const others = traces.filter((t) => t.key !== self.key);
  const [expKey, setExpKey] = useState<number | null>(() => (traceOfLink(others, link) ?? defaultExperiment(traces, self.key))?.key ?? null);
  // A trace opened later (or a link's, once it is open) becomes the experiment when none is chosen.
  useEffect(() => {
    if (expKey != null && others.some((t) => t.key === expKey)) return;
    const t = traceOfLink(others, link) ?? defaultExperiment(traces, self.key);
    setExpKey(t?.key ?? null);
  }, [traces, expKey]);
  const exp = others.find((t) => t.key === expKey);
  useEffect(() => onPair?.(exp?.key ?? null), [exp?.key]);
  useEffect(() => () => onPair?.(null), []);
  const [path, setPath] = useState(link?.node ?? '0');
  const table = useRef<TableState | null>(null);

  const ready = exp && exp.status === 'done' && exp.session != null && self.session != null;
  const sameWorker = ready && exp.gen === self.gen;
  // The two models not (yet) side by side in one worker: the app is reading them there.
  const pairing = !!exp && exp.status === 'done' && !sameWorker;
  const q =
    ready && sameWorker
      ? ({ what: 'diff', experiment: exp.session!, baselineName: self.name, experimentName: exp.name } as const)
      : null;
  const answer = useQuery(ask, q);
  const data = answer.status === 'ready' ? answer.data : null;
  const diff = useMemo(() => (data ? openDiff(openAnswer('diff', data.tree), openAnswer('diff_operators', data.operators)) : null), [data]);
  const node = diff ? nodeAt(diff, path) : null;
  const crumbs = diff ? trail(diff, path) : [];

  // The link: the experiment, the node zoomed into, and the table's state.
  const report = () => {
    const e = exp?.place;
    const p: TablePlace = {
      ...tablePlace('', '', table.current, DEFAULT_SORT),
      ...(exp ? (e ? { ...(e.run ? { vs_run: e.run } : {}), vs_worker: e.worker, ...(e.span ? { vs_span: e.span } : {}) } : { vs_file: exp.name }) : {}),
      ...(diff && node != null && node !== 0 ? { node: diff.path[node] } : {}),
    };
    onPlace(p);
  };
  const nodePath = diff && node != null ? diff.path[node] : null;
  useEffect(report, [expKey, nodePath]);

  const pick = (
    <div class="diff-pick" data-testid="diff-pick">
      <label>
        <span>Baseline</span>
        <select
          data-testid="diff-baseline"
          value={String(self.key)}
          onChange={(ev) => {
            const key = Number((ev.currentTarget as HTMLSelectElement).value);
            if (key !== self.key && exp) onBaseline(key, key === exp.key ? self : exp);
          }}
        >
          {traces.map((t) => (
            <option key={t.key} value={String(t.key)} title={t.name}>
              {traceTitle(t)}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        class="diff-swap"
        data-testid="diff-swap"
        title="Swap baseline and experiment"
        aria-label="Swap baseline and experiment"
        disabled={!exp}
        onClick={() => exp && onBaseline(exp.key, self)}
      >
        ⇄
      </button>
      <label>
        <span>Experiment</span>
        <select
          data-testid="diff-experiment"
          value={exp ? String(exp.key) : ''}
          onChange={(ev) => {
            setExpKey(Number((ev.currentTarget as HTMLSelectElement).value));
            setPath('0');
          }}
        >
          {others.map((t) => (
            <option key={t.key} value={String(t.key)} title={t.name}>
              {traceTitle(t)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );

  if (!others.length)
    return (
      <section class="diff-view" data-testid="diff-view" data-state="alone">
        <p class="muted">Open a second trace (another span, run or rank) to compare this one with it.</p>
      </section>
    );

  let body;
  if (!exp || exp.status !== 'done') {
    body = (
      <p class="muted" data-testid="diff-waiting" role="status">
        {exp && (exp.status === 'failed' || exp.status === 'cancelled') ? `${exp.name} did not load: pick another experiment.` : `Waiting for ${exp?.name ?? 'the experiment'} to load…`}
      </p>
    );
  } else if (pairing) {
    body = (
      <p class="muted" data-testid="diff-pairing" role="status">
        Reading {self.session == null ? `${self.name} and ` : ''}
        {exp.name} into one analysis worker to compare them (models of traces not shown are closed to save memory)…
      </p>
    );
  } else if (answer.status !== 'ready') {
    body = <QueryStatus state={answer} stem="diff" what="diff" loading={`Comparing ${self.name} with ${exp.name}…`} />;
  } else if (diff && node != null) {
    body = <DiffBody tree={diff} node={node} crumbs={crumbs} onZoom={setPath} fileName={fileName} link={link} table={table} report={report} />;
  }
  return (
    <section
      class="diff-view"
      data-testid="diff-view"
      data-state={diff ? 'ready' : pairing ? 'pairing' : answer.status}
      data-experiment={exp?.name ?? ''}
      data-node={nodePath ?? ''}
    >
      {pick}
      {body}
    </section>
  );
}

function DiffBody({
  tree: t,
  node,
  crumbs,
  onZoom,
  fileName,
  link,
  table,
  report,
}: {
  tree: DiffTree;
  /** The node shown: its row in the diff answer. */
  node: number;
  /** The rows from the root down to it. */
  crumbs: number[];
  onZoom: (path: string) => void;
  fileName: string;
  link?: TablePlace;
  table: { current: TableState | null };
  report: () => void;
}) {
  const b = useMemo(() => bars(t, node), [t, node]);
  const rows = useMemo(() => operatorRows(t, node), [t, node]);
  const model = useMemo(() => operatorModel(rows), [rows]);
  const [hover, setHover] = useState<number | null>(null);
  const n = b.labels.length;
  const kids = t.children[node];
  const zoomable = kids.length > 0;
  const path = t.path[node];
  const name = label(t, node);
  const zoom = (i: number | null | undefined) => {
    if (i == null || !zoomable || i < 0 || i >= n) return;
    onZoom(b.paths[i]);
  };
  // The charts' data, made once per node: the Chart remakes its uPlot for new data, and a hover
  // re-renders this body (the readout), so data made on each render remade the chart under the
  // mouse, whose new cursor had no pair: the readout never showed and a click could find none.
  const x = useMemo(() => b.labels.map((_, i) => i), [b]);
  const barData = useMemo(() => [x, b.baselineUs, b.experimentUs] as uPlot.AlignedData, [x, b]);
  const lineData = useMemo(() => [x, b.deltaUs, b.cumulativeUs] as uPlot.AlignedData, [x, b]);
  const xAxis = (t: ChartTheme, width: number): uPlot.Axis => {
    const every = Math.max(1, Math.ceil((n * 90) / Math.max(1, width - 80)));
    const short = (s: string) => (s.length > 14 ? `${s.slice(0, 13)}…` : s);
    return {
      ...axisStyle(t),
      grid: { show: false },
      splits: () => x,
      values: (_u, splits) => splits.map((i) => (i % every === 0 ? short(b.labels[i] ?? '') : '')),
    };
  };
  const yAxis = (t: ChartTheme): uPlot.Axis => ({ ...axisStyle(t), size: fitLabels(72), values: (_u, vals) => vals.map((v) => fmt(v)) });
  const clickHook = (u: uPlot) => u.over.addEventListener('click', () => zoom(u.cursor.idx));
  const barOptions = (width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
    scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] } },
    axes: [xAxis(t, width), yAxis(t)],
    series: [
      {},
      { label: 'Baseline', ...barSeries(BASE_COLOR, [0.36, 40], -1) },
      { label: 'Experiment', ...barSeries(EXP_COLOR, [0.36, 40], 1) },
    ],
    legend: { show: false },
    cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false },
    hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)], ready: [clickHook] },
  });
  const lineOptions = (width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
    scales: { x: { time: false, range: [-0.5, n - 0.5] } },
    axes: [xAxis(t, width), yAxis(t)],
    series: [
      {},
      { label: 'Difference', stroke: DELTA_COLOR, width: 2, points: { show: true, size: 6, fill: DELTA_COLOR } },
      { label: 'Cumulative difference', stroke: t.accent, width: 2, points: { show: true, size: 6, fill: t.accent } },
    ],
    legend: { show: false },
    cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false },
    hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)], ready: [clickHook] },
  });
  const h = hover != null && hover >= 0 && hover < n ? hover : null;
  return (
    <>
      <nav class="diff-crumbs" aria-label="Diff tree" data-testid="diff-crumbs" data-depth={crumbs.length}>
        {crumbs.map((c, i) =>
          i < crumbs.length - 1 ? (
            <span key={t.path[c]}>
              <button type="button" class="diff-crumb" data-testid="diff-crumb" data-path={t.path[c]} onClick={() => onZoom(t.path[c])}>
                {i === 0 ? 'All' : label(t, c)}
              </button>
              <span class="muted" aria-hidden="true">
                {' › '}
              </span>
            </span>
          ) : (
            <strong key={t.path[c]} data-testid="diff-crumb-current" data-path={t.path[c]}>
              {i === 0 ? 'All' : label(t, c)}
            </strong>
          ),
        )}
      </nav>
      <div class="diff-totals" data-testid="diff-totals">
        <Total what="Host" a={t.baseline.durationUs[node]} b={t.experiment.durationUs[node]} id="host" />
        <Total
          what="Device"
          title="Kernels, memory copies and sets launched by the operators compared (in the steps, on every thread at the top)"
          a={t.baseline.deviceDurationUs[node]}
          b={t.experiment.deviceDurationUs[node]}
          id="device"
        />
        <Total what="Total (device, else host)" a={t.baseline.totalDurationUs[node]} b={t.experiment.totalDurationUs[node]} id="total" />
        {t.role[node] && (
          <div class="diff-total" data-testid="diff-threads">
            <span class="muted">Threads</span>
            <span>{threadsText(t, node)}</span>
          </div>
        )}
      </div>
      {kids.some((c) => t.role[c]) && <RoleTable tree={t} node={node} onZoom={onZoom} />}
      <div class="diff-charts" onMouseLeave={() => setHover(null)}>
        <ul class="ov-legend" aria-label="Legend">
          <li>
            <span class="ov-swatch" style={{ background: BASE_COLOR }} />
            Baseline
          </li>
          <li>
            <span class="ov-swatch" style={{ background: EXP_COLOR }} />
            Experiment
          </li>
          <li>
            <span class="ov-swatch" style={{ background: DELTA_COLOR }} />
            Difference
          </li>
          <li>
            <span class="ov-swatch" style={{ background: 'var(--accent)' }} />
            Cumulative difference
          </li>
        </ul>
        <div class={zoomable ? 'diff-chart zoomable' : 'diff-chart'} data-testid="diff-bars" data-columns={n} data-zoomable={zoomable ? 'yes' : 'no'}>
          <Chart
            key={path}
            options={barOptions}
            data={barData}
            height={200}
            testid="diff-bar-chart"
            label={`Time of each part of ${name}, baseline against experiment`}
          />
        </div>
        <div class={zoomable ? 'diff-chart zoomable' : 'diff-chart'} data-testid="diff-lines">
          <Chart
            key={path}
            options={lineOptions}
            data={lineData}
            height={130}
            testid="diff-line-chart"
            label="The experiment's difference per part and its running sum"
          />
        </div>
        <div class="ov-readout diff-readout" data-testid="diff-hover" aria-live="polite">
          {h != null ? (
            <span data-testid="diff-hover-text" data-index={h}>
              <strong>{b.labels[h]}</strong>
              {kids[h] != null && t.role[kids[h]] ? ` (${threadsText(t, kids[h])})` : ''}: baseline {fmt(b.baselineUs[h])}, experiment {fmt(b.experimentUs[h])}, difference {signed(b.deltaUs[h])} (
              {signed(b.cumulativeUs[h])} so far){zoomable && t.children[kids[h]].length ? ' — click to zoom in' : ''}
            </span>
          ) : (
            <span class="muted">
              {zoomable
                ? kids.some((c) => t.role[c])
                  ? 'Each pair of bars is one role of thread (the steps\' main thread, the autograd engine\'s backward pass, communication, …); click one to zoom into it.'
                  : 'Each pair of bars is a part of this node (matched dataloader, optimizer, module and step ranges, and what lies between them); click one to zoom into it.'
                : 'This part has no matched parts inside it: its operators are listed below.'}
            </span>
          )}
        </div>
      </div>
      <p class="muted diff-table-note" data-testid="diff-table-note">
        Operators under {path === '0' ? 'the whole comparison' : name}: times in µs; B baseline, E experiment, Δ experiment − baseline. The
        self times of each side are in the Columns menu and the CSV.
      </p>
      <DataTable
        key={path}
        model={model}
        stem="diff"
        csvName={`${fileName.replace(/\.json(\.gz)?$/, '')}-diff-${path}.csv`}
        label={`Operators of ${name}, baseline against experiment`}
        initialSort={knownSort(model, link?.sort, DEFAULT_SORT)}
        initialSearch={link?.q ?? ''}
        initialSelected={link?.row ?? null}
        searchPlaceholder="Search operators"
        emptyText="No operators under this part."
        onState={(s) => {
          table.current = s;
          report();
        }}
      />
    </>
  );
}

/** The change from a to b: "+6.0 µs (+1.9 %)". */
function change(a: number, b: number): string {
  const d = b - a;
  return `${signed(d)}${a > 0 ? ` (${d >= 0 ? '+' : '−'}${Math.abs((d / a) * 100).toFixed(1)} %)` : ''}`;
}

/**
 * The root of a comparison of several threads: one row per role (the main thread, the autograd
 * engine's, the process groups', DataLoaders', others), with both sides' threads, host and device
 * time: where two ranks' steps differ, by what kind of thread. A row opens its role.
 */
function RoleTable({ tree: t, node, onZoom }: { tree: DiffTree; node: number; onZoom: (path: string) => void }) {
  const roles = t.children[node].filter((c) => t.role[c]);
  return (
    <table class="table diff-roles" data-testid="diff-roles" aria-label="Time by thread role, baseline against experiment">
      <caption class="ov-caption">Every thread, merged by role (device: kernels, copies and sets they launched in the steps)</caption>
      <thead>
        <tr>
          <th>Role</th>
          <th class="num">Threads B → E</th>
          <th class="num">Host B</th>
          <th class="num">Host E</th>
          <th class="num">Device B</th>
          <th class="num">Device E</th>
          <th class="num">Device Δ</th>
        </tr>
      </thead>
      <tbody>
        {roles.map((c) => {
          const bd = t.baseline.deviceDurationUs[c], ed = t.experiment.deviceDurationUs[c];
          const d = ed - bd;
          return (
            <tr key={t.path[c]} data-testid="diff-role" data-role={t.role[c]!} data-path={t.path[c]}>
              <td>
                <button type="button" class="link-button" data-testid="diff-role-open" onClick={() => onZoom(t.path[c])} title={`Zoom into ${label(t, c)}`}>
                  {label(t, c)}
                </button>
              </td>
              <td class="num" data-testid="diff-role-threads">
                {t.baseline.threads[c]} → {t.experiment.threads[c]}
              </td>
              <td class="num">{fmt(t.baseline.durationUs[c])}</td>
              <td class="num">{fmt(t.experiment.durationUs[c])}</td>
              <td class="num" data-testid="diff-role-device-b" data-us={bd}>
                {fmt(bd)}
              </td>
              <td class="num" data-testid="diff-role-device-e" data-us={ed}>
                {fmt(ed)}
              </td>
              <td class={`num ${d > 0 ? 'diff-worse' : d < 0 ? 'diff-better' : 'muted'}`}>{change(bd, ed)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Total({ what, a, b, id, title }: { what: string; a: number; b: number; id: string; title?: string }) {
  const d = b - a;
  const pct = a > 0 ? ` (${d >= 0 ? '+' : '−'}${Math.abs((d / a) * 100).toFixed(1)} %)` : '';
  return (
    <div class="diff-total" data-testid={`diff-total-${id}`} data-baseline={a} data-experiment={b} title={title}>
      <span class="muted">{what}</span>
      <span>
        {fmt(a)} → {fmt(b)}
      </span>
      <span class={d > 0 ? 'diff-worse' : d < 0 ? 'diff-better' : 'muted'}>
        {signed(d)}
        {pct}
      </span>
    </div>
  );
}
