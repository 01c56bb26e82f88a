// The GPU time view (issue 24 §1-3): Holistic Trace Analysis's temporal breakdown — over the span
// of the GPU's work, how much of it some computation kernel ran (compute), only communication,
// copies or syncs ran (non-compute), or nothing ran (idle) — for the trace (HTA's scope, so its
// numbers are HTA's) and for each step, as a table and a stacked column per row; below it the idle
// time and kernel breakdowns (gpu-breakdowns.tsx). Built the new
// way: the core's answer (core/session/views/gpu_time.cpp) read in place, no parser of its own.
import uPlot from 'uplot';
import { useMemo, useState } from 'preact/hooks';
import { axisStyle, barSeries, Chart, type ChartTheme } from '../components/chart';
import { DataTable } from '../components/data-table';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import { GPU_TIME_COLUMNS, type Answer } from '../generated/views';
import { answerTable } from '../lib/answer-table';
import { csvStem } from '../lib/download';
import { GpuIdleSection, GpuKernelsSection } from './gpu-breakdowns';
import { GpuPathSections, type ShowRange } from './gpu-path-sections';
import { GpuLaunchesSection, GpuOverlapSection, GpuQueueSection } from './gpu-launches';
import type { Place } from '../lib/deep-link';
import type { CounterKind } from '../lib/counter-tracks';
import { formatCount, formatDurationUs } from '../lib/format';
import { formatPct, stepAxisSplits } from '../lib/overview';
import type { TableModel } from '../lib/table-model';
import { QueryStatus } from './view-status';

type GpuTime = Answer<'gpu-time'>;

// Compute in the Overview's kernel blue, non-compute in its memcpy orange, idle a neutral grey.
const PARTS = [
  { key: 'compute', label: 'Compute', color: '#4e79a7' },
  { key: 'non_compute', label: 'Non-compute', color: '#f28e2b' },
  { key: 'idle', label: 'Idle', color: '#bab0ac' },
] as const;

const NO_PARAMS = {};

export function GpuTimeView({
  ask,
  fileName,
  onShowRange,
  onOpenPlace,
  onCounterTracks,
}: {
  ask: Ask;
  fileName: string;
  onShowRange?: ShowRange;
  onOpenPlace?: (p: Place) => void;
  onCounterTracks?: (kinds: CounterKind[]) => void;
}) {
  const state = useAnswer(ask, 'gpu-time', NO_PARAMS);
  if (state.status !== 'ready') {
    return (
      <section class="view" data-testid="gpu-time-view" aria-label="GPU time">
        <QueryStatus state={state} stem="gpu-time" what="GPU time breakdown" loading="Computing the GPU's time breakdown…" />
      </section>
    );
  }
  const a = state.data;
  return (
    <section class="view" data-testid="gpu-time-view" data-ready="true" aria-label="GPU time">
      {a.rowCount === 0 ? (
        <p class="muted" data-testid="gpu-time-none">
          {a.meta.note ?? 'The trace has no GPU work: there is no GPU time to break down.'}
        </p>
      ) : (
        <>
          <GpuTimeBody answer={a} fileName={fileName} />
          <GpuIdleSection ask={ask} fileName={fileName} />
          <GpuKernelsSection ask={ask} fileName={fileName} />
          <GpuPathSections ask={ask} fileName={fileName} onShowRange={onShowRange} />
          <GpuOverlapSection ask={ask} />
          <GpuLaunchesSection ask={ask} fileName={fileName} onOpenPlace={onOpenPlace} />
          <GpuQueueSection ask={ask} fileName={fileName} onCounterTracks={onCounterTracks} />
        </>
      )}
    </section>
  );
}

/** A row's name: "Trace" for the trace's row, "Step N" for a step's. */
function rowLabel(a: GpuTime, row: number): string {
  const id = a.columns.step[row];
  return id === 0xffffffff ? 'Trace' : `Step ${a.strings[id]}`;
}

function tableOf(a: GpuTime): TableModel {
  const t = answerTable(
    a,
    GPU_TIME_COLUMNS,
    [
      { name: 'span_us', label: 'Span', width: 110, title: () => 'From the first GPU event’s start to the last one’s end' },
      { name: 'compute_us', label: 'Compute', width: 120, title: () => 'The time some computation kernel ran' },
      { name: 'non_compute_us', label: 'Non-compute', width: 140, title: () => 'The time only communication, copies or syncs ran' },
      { name: 'idle_us', label: 'Idle', width: 110, title: () => 'The time nothing ran on the GPU' },
      { name: 'compute_pct', label: 'Compute', width: 110 },
      { name: 'non_compute_pct', label: 'Non-compute', width: 130 },
      { name: 'idle_pct', label: 'Idle', width: 90 },
      { name: 'events', label: 'GPU events', width: 100 },
    ],
    (row) => (row === 0 ? 'trace' : a.strings[a.columns.step[row]]),
  );
  return { ...t, columns: [{ id: 'row', label: 'Row', type: 'text', value: (i) => rowLabel(a, i), width: 140, grow: 0 }, ...t.columns] };
}

function GpuTimeBody({ answer: a, fileName }: { answer: GpuTime; fileName: string }) {
  const model = useMemo(() => tableOf(a), [a]);
  const m = a.meta;
  const steps = a.rowCount - 1;
  const c = a.columns;
  // The trace's shares, with a swatch each: the chart's legend when they are shown.
  const summary = a.rowCount > 0 && Number.isFinite(c.compute_pct[0]);
  return (
    <>
      <p class="muted gpu-time-intro" data-testid="gpu-time-intro">
        Over the span from the first GPU event’s start to the last one’s end: <b>compute</b> is the time some computation kernel ran,{' '}
        <b>non-compute</b> the time only communication, copies or syncs ran, <b>idle</b> the time nothing ran on the GPU. As Holistic Trace
        Analysis’s temporal breakdown{m.rank != null ? ` (rank ${m.rank})` : ''}.
      </p>
      <p class="muted" data-testid="gpu-time-scope">
        {m.last_step_left_out
          ? `The trace's row is HTA's scope: the GPU work launched before the last step started (${formatDurationUs(m.last_step_start_us ?? 0)} from the trace start), as HTA leaves the last step out; the step rows cover every step, the last included.`
          : 'The trace’s row covers all its GPU work.'}{' '}
        {formatCount(m.events.computation)} computation kernels, {formatCount(m.events.communication)} communication,{' '}
        {formatCount(m.events.memory)} memory, {formatCount(m.events.sync)} syncs in the trace.
      </p>
      {m.negative_when_rounded > 0 && (
        <p class="muted" data-testid="gpu-time-rounding-note">
          {formatCount(m.negative_when_rounded)} GPU event{m.negative_when_rounded === 1 ? ' starts and ends' : 's start and end'} within one µs: HTA’s
          rounding to whole µs gives {m.negative_when_rounded === 1 ? 'it' : 'them'} a negative duration (its temporal breakdown fails
          when that leaves its non-compute time below 0). Here every time is exact to the ns.
        </p>
      )}
      {summary && (
        <div class="gpu-time-summary" data-testid="gpu-time-summary" style={{ display: 'flex', flexWrap: 'wrap', gap: '4px 20px', margin: '4px 0 8px' }}>
          {PARTS.map((p) => (
            <span key={p.key} data-testid={`gpu-time-summary-${p.key}`}>
              <span class="ov-swatch" style={{ background: p.color }} />
              {p.label} <b>{formatPct(c[`${p.key}_pct`][0])}</b> ({formatDurationUs(c[`${p.key}_us`][0])})
            </span>
          ))}
        </div>
      )}
      {steps > 0 && <ShareChart answer={a} legend={!summary} />}
      <DataTable
        model={model}
        stem="gpu-time"
        label="GPU time breakdown"
        csvName={`${csvStem(fileName)}-gpu-time.csv`}
        initialSort={null}
        searchPlaceholder="Search rows"
        maxHeight={420}
      />
    </>
  );
}

/**
 * A stacked column per row (the trace, then each step): compute, non-compute and idle shares of
 * its span, each column 100 %. Hovering one reads it out. `legend`: its own swatches, for when the
 * trace's shares above it (which have them) are not shown.
 */
function ShareChart({ answer: a, legend }: { answer: GpuTime; legend: boolean }) {
  const n = a.rowCount;
  const c = a.columns;
  const labels = useMemo(() => Array.from({ length: n }, (_, i) => (i === 0 ? 'Trace' : a.strings[c.step[i]])), [a]);
  // Drawn tallest first, each over the one before: idle reaches 100 %, non-compute up to compute + non-compute.
  const data = useMemo(() => {
    const x = Float64Array.from({ length: n }, (_, i) => i);
    const cum = (f: (i: number) => number) => Array.from({ length: n }, (_, i) => (Number.isFinite(f(i)) ? f(i) : null));
    return [
      x,
      cum((i) => c.compute_pct[i] + c.non_compute_pct[i] + c.idle_pct[i]),
      cum((i) => c.compute_pct[i] + c.non_compute_pct[i]),
      cum((i) => c.compute_pct[i]),
    ];
  }, [a]);
  const [hover, setHover] = useState<number | null>(null);
  const order = [PARTS[2], PARTS[1], PARTS[0]];
  const options = (width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => {
    const splits = stepAxisSplits(n, width - 70);
    return {
      scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: [0, 100] } },
      axes: [
        { ...axisStyle(t), grid: { show: false }, splits: () => splits, values: (_u, ticks) => ticks.map((i) => labels[i] ?? '') },
        { ...axisStyle(t), size: 48, values: (_u, vals) => vals.map((v) => `${v} %`) },
      ],
      series: [
        {},
        ...order.map((p) => ({ label: p.label, ...barSeries(p.color, [0.7, 64]) })),
      ],
      legend: { show: false },
      cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false, x: false },
      hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
    };
  };
  const h = hover != null && hover >= 0 && hover < n ? hover : null;
  return (
    <div class="gpu-time-chart">
      {legend && (
        <ul class="ov-legend" aria-label="Legend">
          {PARTS.map((p) => (
            <li key={p.key}>
              <span class="ov-swatch" style={{ background: p.color }} />
              {p.label}
            </li>
          ))}
        </ul>
      )}
      <div onMouseLeave={() => setHover(null)}>
        <Chart
          options={options}
          data={data as uPlot.AlignedData}
          height={190}
          testid="gpu-time-chart"
          label={`Compute, non-compute and idle shares of the GPU's span for the trace and its ${n - 1} steps`}
        />
      </div>
      <div class="ov-readout" data-testid="gpu-time-hover" aria-live="polite">
        {h != null ? (
          <>
            <strong>
              {h === 0 ? 'Trace' : `Step ${labels[h]}`}: span {formatDurationUs(c.span_us[h])}
            </strong>
            <ul>
              {PARTS.map((p) => (
                <li key={p.key}>
                  <span class="ov-swatch" style={{ background: p.color }} />
                  {p.label}: {formatDurationUs(c[`${p.key}_us`][h])} ({formatPct(c[`${p.key}_pct`][h])})
                </li>
              ))}
            </ul>
          </>
        ) : (
          <span class="muted">Hover a column to read it.</span>
        )}
      </div>
    </div>
  );
}
