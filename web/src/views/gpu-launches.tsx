// The GPU time tab's fourth to sixth parts (issue 24 §4-§6), below the kernel breakdown: Holistic
// Trace Analysis's communication/computation overlap beside the Distributed view's own, its kernel
// launch statistics (the three durations described, a histogram of the launch delays, the short
// kernels and outliers, the launches per operator linked to the Operators view) and its counters
// (each stream's queue length as a step chart, with its summary and time at CUDA's limit; the
// memory bandwidth of each copy kind). The core's answers (core/session/views/gpu_overlap.cpp,
// gpu_launches.cpp, gpu_queue.cpp) read in place; the charts are drawn from gpu-counter-series, a
// few hundred columns the core reduces each series to, never from every change of it.
import uPlot from 'uplot';
import { useMemo, useState } from 'preact/hooks';
import { alpha, axisStyle, barSeries, Chart, type ChartTheme } from '../components/chart';
import { DataTable } from '../components/data-table';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import {
  GPU_LAUNCH_OPERATORS_COLUMNS,
  GPU_MEMORY_BANDWIDTH_COLUMNS,
  GPU_QUEUE_COLUMNS,
  type Answer,
} from '../generated/views';
import { answerTable } from '../lib/answer-table';
import type { Place } from '../lib/deep-link';
import { csvStem } from '../lib/download';
import { formatCount, formatDurationUs } from '../lib/format';
import { formatPct } from '../lib/overview';
import type { TableModel } from '../lib/table-model';
import { QueryStatus } from './view-status';
import type { CounterKind } from '../lib/counter-tracks';

const NO_PARAMS = {};
// The streams drawn as charts (the busiest); the table lists them all.
const MAX_QUEUE_CHARTS = 6;
// Columns a counter is reduced to: about one per two pixels of a 1440-px-wide page.
const SERIES_COLUMNS = '600';
const KIND_COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948'];

// en-US grouping as formatCount's (a queue's max of 1,030 launches, not 1030), fixed digits.
const fixed = (digits: number) => {
  const f = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return (v: string | number) => (typeof v === 'number' && Number.isFinite(v) ? f.format(v) : '');
};

/** HTA's overlap of communication by computation, beside the Distributed view's. */
export function GpuOverlapSection({ ask }: { ask: Ask }) {
  const state = useAnswer(ask, 'gpu-comm-overlap', NO_PARAMS);
  if (state.status !== 'ready') return <QueryStatus state={state} stem="gpu-comm-overlap" what="communication overlap" loading="Measuring the communication overlap…" />;
  const m = state.data.meta;
  const parts = m.comm_comp_overlap;
  return (
    <section class="gpu-part" data-testid="gpu-overlap" data-ready="true" aria-label="Communication overlap">
      <h3>Communication overlapped by computation</h3>
      {m.comm_comp_overlap_pct == null ? (
        <p class="muted" data-testid="gpu-overlap-none">
          {m.comm_comp_overlap_note}
        </p>
      ) : (
        <div class="gpu-time-summary" style={{ display: 'flex', flexWrap: 'wrap', gap: '4px 24px', margin: '4px 0 8px' }}>
          <span>
            HTA: <b data-testid="gpu-overlap-pct">{formatPct(m.comm_comp_overlap_pct)}</b> of {formatDurationUs(parts.communication_us)} of
            communication ({formatCount(parts.communication_kernels)} kernels) ran under computation ({formatDurationUs(parts.overlap_us)})
          </span>
          <span>
            Distributed view: <b data-testid="gpu-overlap-distributed">{m.distributed_overlap_pct == null ? 'none' : formatPct(m.distributed_overlap_pct)}</b>
          </span>
        </div>
      )}
      <p class="muted" data-testid="gpu-overlap-definitions">
        HTA’s share is the communication kernels’ time (NCCL, gloo) during which a computation kernel also ran, over all their time in HTA’s
        scope; the Distributed view’s (tb_plugin’s) sums each step’s window, counting every kernel that is not a collective’s — copies
        included — as computation, so the two differ when copies run beside communication or work falls outside the steps.
      </p>
    </section>
  );
}

function operatorsTable(a: Answer<'gpu-launch-operators'>): TableModel {
  const c = a.columns;
  return answerTable(
    a,
    GPU_LAUNCH_OPERATORS_COLUMNS,
    [
      { name: 'operator', label: 'Operator', grow: 1 },
      { name: 'launches', label: 'Launches', width: 100 },
      { name: 'short_kernels', label: 'Short kernels', width: 120, title: () => 'Calls of at most the runtime cutoff that took longer than their GPU work' },
      { name: 'mean_cpu_duration_us', label: 'Mean call', width: 110 },
      { name: 'mean_gpu_duration_us', label: 'Mean GPU', width: 110 },
      { name: 'mean_launch_delay_us', label: 'Mean delay', width: 110 },
      { name: 'launch_delay_us', label: 'Total delay', width: 120 },
    ],
    (row) => (c.operator[row] === 0xffffffff ? '(none)' : a.strings[c.operator[row]]),
  );
}

/** The launch delays' histogram: a bar per bin, bins doubling from 1 µs. */
function DelayHistogram({ a }: { a: Answer<'gpu-launch-stats'> }) {
  const c = a.columns;
  const n = a.rowCount;
  const labels = useMemo(
    () => Array.from({ length: n }, (_, i) => (i === 0 ? '<1 µs' : `${formatDurationUs(c.bin_start_us[i])}`)),
    [a],
  );
  const data = useMemo(() => [Float64Array.from({ length: n }, (_, i) => i), Array.from(c.launches)] as uPlot.AlignedData, [a]);
  const options = (_width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
    scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.05)] } },
    axes: [
      { ...axisStyle(t), grid: { show: false }, splits: () => labels.map((_, i) => i), values: (_u, ticks) => ticks.map((i) => labels[i] ?? '') },
      { ...axisStyle(t), size: 56, values: (_u, vals) => vals.map((v) => formatCount(v)) },
    ],
    series: [{}, { label: 'Launches', ...barSeries(alpha(t.accent, 0.75), [0.8, 48], 0, t.accent) }],
    legend: { show: false },
    cursor: { show: false },
  });
  return (
    <Chart
      options={options}
      data={data}
      height={170}
      testid="gpu-launch-histogram"
      label={`Launch delays of ${formatCount(a.meta.launches.count)} launches, in bins doubling from 1 µs: ${labels.map((l, i) => `${l}: ${c.launches[i]}`).join(', ')}`}
    />
  );
}

type Describe = Answer<'gpu-launch-stats'>['meta']['launches']['cpu_duration_us'];
const DESCRIBE_ROWS = [
  { key: 'cpu_duration_us', label: 'Runtime call (CPU)' },
  { key: 'gpu_duration_us', label: 'GPU event' },
  { key: 'launch_delay_us', label: 'Launch delay' },
] as const;
const STATS = ['mean', 'p25', 'p50', 'p75', 'max'] as const;
const STAT_LABELS: Record<(typeof STATS)[number], string> = { mean: 'Mean', p25: '25 %', p50: 'Median', p75: '75 %', max: 'Max' };
const us = (v: number | null) => (v == null ? '–' : formatDurationUs(v));

/** HTA's kernel launch statistics, with their launches per operator. */
export function GpuLaunchesSection({ ask, fileName, onOpenPlace }: { ask: Ask; fileName: string; onOpenPlace?: (p: Place) => void }) {
  const stats = useAnswer(ask, 'gpu-launch-stats', NO_PARAMS);
  const ops = useAnswer(ask, 'gpu-launch-operators', NO_PARAMS);
  const opsData = ops.status === 'ready' ? ops.data : null;
  const model = useMemo(() => (opsData ? operatorsTable(opsData) : null), [opsData]);
  const [selected, setSelected] = useState<string | null>(null);
  if (stats.status !== 'ready') return <QueryStatus state={stats} stem="gpu-launch-stats" what="launch statistics" loading="Matching launches to their kernels…" />;
  const l = stats.data.meta.launches;
  if (l.count === 0)
    return (
      <section class="gpu-part" data-testid="gpu-launches" data-ready="true" aria-label="Kernel launches">
        <h3>Kernel launches</h3>
        <p class="muted" data-testid="gpu-launches-none">
          {l.note}
        </p>
      </section>
    );
  const openOperator = (name: string) => onOpenPlace?.({ view: 'operators', group: 'op', q: name, row: name });
  return (
    <section class="gpu-part" data-testid="gpu-launches" data-ready="true" aria-label="Kernel launches">
      <h3>Kernel launches</h3>
      <p class="muted" data-testid="gpu-launches-intro">
        <b data-testid="gpu-launches-count">{formatCount(l.count)}</b> launches: each runtime call matched to its kernel, copy or memset by
        correlation id, as Holistic Trace Analysis’s launch statistics. The <b>launch delay</b> is the GPU event’s start less the call’s end (0
        when the GPU started it first).
        {l.calls_without_gpu_event > 0 && ` ${formatCount(l.calls_without_gpu_event)} launch call${l.calls_without_gpu_event === 1 ? ' has' : 's have'} no recorded GPU event and no row.`}
      </p>
      <table class="gpu-describe" data-testid="gpu-launches-describe">
        <thead>
          <tr>
            <th scope="col">Duration</th>
            {STATS.map((s) => (
              <th scope="col" key={s}>
                {STAT_LABELS[s]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {DESCRIBE_ROWS.map((r) => {
            const d: Describe = l[r.key];
            return (
              <tr key={r.key} data-testid={`gpu-launches-${r.key}`}>
                <th scope="row">{r.label}</th>
                {STATS.map((s) => (
                  <td key={s} data-stat={s} data-value={d[s] ?? ''}>
                    {us(d[s])}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      <ul class="gpu-launch-flags" data-testid="gpu-launches-flags">
        <li data-testid="gpu-launches-short" data-value={l.short_kernels} title="Calls of at most the runtime cutoff that took longer than their GPU work: launching cost more than running">
          <b>{formatCount(l.short_kernels)}</b> short kernel{l.short_kernels === 1 ? '' : 's'} (the call, ≤ {formatDurationUs(l.runtime_cutoff_us)}, longer than the GPU work)
        </li>
        <li data-testid="gpu-launches-runtime-outliers" data-value={l.runtime_outliers}>
          <b>{formatCount(l.runtime_outliers)}</b> runtime outlier{l.runtime_outliers === 1 ? '' : 's'} (calls over {formatDurationUs(l.runtime_cutoff_us)})
        </li>
        <li data-testid="gpu-launches-delay-outliers" data-value={l.launch_delay_outliers}>
          <b>{formatCount(l.launch_delay_outliers)}</b> launch delay outlier{l.launch_delay_outliers === 1 ? '' : 's'} (over {formatDurationUs(l.launch_delay_cutoff_us)})
        </li>
      </ul>
      <h4>Launch delays <span class="muted">(each bar from its label to the next: &lt;1 µs, 1–2 µs, 2–4 µs, …)</span></h4>
      <DelayHistogram a={stats.data} />
      <h4>Launches per operator</h4>
      {!model ? (
        <QueryStatus state={ops} stem="gpu-launch-operators" what="launches per operator" loading="Counting each operator's launches…" />
      ) : (
        <DataTable
          model={model}
          stem="gpu-launch-operators"
          label="Launches per operator"
          csvName={`${csvStem(fileName)}-gpu-launch-operators.csv`}
          initialSort={null}
          searchPlaceholder="Search operators"
          maxHeight={320}
          onSelect={(k) => setSelected(k == null || k === '(none)' ? null : String(k))}
        />
      )}
      {onOpenPlace && (
        <p class="muted" data-testid="gpu-launch-operator-link">
          {selected ? (
            <button type="button" class="link-button" onClick={() => openOperator(selected)}>
              Show {selected} in the Operators view
            </button>
          ) : (
            'Select a row to open its operator in the Operators view.'
          )}
        </p>
      )}
    </section>
  );
}

/** One counter's series as a step chart: per column its greatest value (and its least, shaded). */
function CounterChart({ ask, counter, seriesKey, testid, label, color, unit }: { ask: Ask; counter: 'queue' | 'bandwidth'; seriesKey: string; testid: string; label: string; color: string; unit: string }) {
  const params = useMemo(() => ({ counter, key: seriesKey, columns: SERIES_COLUMNS }), [counter, seriesKey]);
  const state = useAnswer(ask, 'gpu-counter-series', params);
  const a = state.status === 'ready' ? state.data : null;
  const data = useMemo(() => (a ? ([Array.from(a.columns.t_us, (t) => t / 1e3), Array.from(a.columns.max), Array.from(a.columns.min)] as uPlot.AlignedData) : null), [a]);
  if (!a || !data) return <QueryStatus state={state} stem="gpu-counter-series" what={label} loading={`Drawing ${label}…`} />;
  const options = (_width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { ...axisStyle(t), values: (_u, vals) => vals.map((v) => `${v} ms`) },
      { ...axisStyle(t), size: unit ? 80 : 48, values: (_u, vals) => vals.map((v) => `${v}${unit}`) },
    ],
    series: [
      {},
      { label: 'max', stroke: color, width: 1.25, fill: alpha(color, 0.18), points: { show: false }, paths: uPlot.paths.stepped!({ align: 1 }) },
      { label: 'min', stroke: alpha(color, 0.55), width: 1, points: { show: false }, paths: uPlot.paths.stepped!({ align: 1 }) },
    ],
    legend: { show: false },
    cursor: { show: false },
  });
  return <Chart options={options} data={data} height={120} testid={testid} label={`${label}, ${a.meta.points} changes drawn over ${a.rowCount} columns`} />;
}

function queueTable(a: Answer<'gpu-queue'>): TableModel {
  return answerTable(
    a,
    GPU_QUEUE_COLUMNS,
    [
      { name: 'stream', label: 'Stream', width: 80 },
      { name: 'launches', label: 'Launches', width: 100 },
      { name: 'count', label: 'Changes', width: 90 },
      { name: 'mean', label: 'Mean', width: 90, format: fixed(2) },
      { name: 'p25', label: '25 %', width: 80, format: fixed(2) },
      { name: 'p50', label: 'Median', width: 80, format: fixed(2) },
      { name: 'p75', label: '75 %', width: 80, format: fixed(2) },
      { name: 'max', label: 'Max', width: 80, format: fixed(0) },
      { name: 'time_at_limit_us', label: 'At the limit', width: 120, title: () => 'Time with 1024 launches queued: the host blocks on the next launch' },
      { name: 'std', label: 'Std dev', width: 90, format: fixed(2), defaultHidden: true },
      { name: 'min', label: 'Min', width: 70, format: fixed(0), defaultHidden: true },
    ],
    (row) => a.columns.stream[row],
  );
}

function bandwidthTable(a: Answer<'gpu-memory-bandwidth'>): TableModel {
  return answerTable(
    a,
    GPU_MEMORY_BANDWIDTH_COLUMNS,
    [
      { name: 'kind', label: 'Copy kind', grow: 1 },
      { name: 'events', label: 'Events', width: 90 },
      { name: 'bytes', label: 'Bytes', width: 120 },
      { name: 'busy_us', label: 'Busy', width: 110 },
      { name: 'mean', label: 'Mean GB/s', width: 110, format: fixed(2) },
      { name: 'p50', label: 'Median GB/s', width: 120, format: fixed(2) },
      { name: 'max', label: 'Max GB/s', width: 110, format: fixed(2) },
      { name: 'count', label: 'Points', width: 80, defaultHidden: true },
      { name: 'p25', label: '25 % GB/s', width: 110, format: fixed(2), defaultHidden: true },
      { name: 'p75', label: '75 % GB/s', width: 110, format: fixed(2), defaultHidden: true },
      { name: 'min', label: 'Min GB/s', width: 110, format: fixed(2), defaultHidden: true },
    ],
    (row) => a.strings[a.columns.kind[row]],
  );
}

/** "Add to the Timeline": the counter's tracks go with the trace to Perfetto (the Timeline tab opens). */
function TrackButton({ kind, onCounterTracks }: { kind: CounterKind; onCounterTracks?: (kinds: CounterKind[]) => void }) {
  if (!onCounterTracks) return null;
  return (
    <p class="muted">
      <button type="button" class="link-button" data-testid={`gpu-${kind}-timeline`} onClick={() => onCounterTracks([kind])}>
        Add {kind === 'queue' ? 'each stream’s queue length' : 'each copy kind’s bandwidth'} to the Timeline
      </button>{' '}
      as counter tracks (every change, or each column’s greatest value for a series of more than 5,000).
    </p>
  );
}

/** HTA's queue length per stream and memory bandwidth per copy kind. */
export function GpuQueueSection({ ask, fileName, onCounterTracks }: { ask: Ask; fileName: string; onCounterTracks?: (kinds: CounterKind[]) => void }) {
  const queue = useAnswer(ask, 'gpu-queue', NO_PARAMS);
  const bw = useAnswer(ask, 'gpu-memory-bandwidth', NO_PARAMS);
  const qData = queue.status === 'ready' ? queue.data : null;
  const bwData = bw.status === 'ready' ? bw.data : null;
  const qModel = useMemo(() => (qData ? queueTable(qData) : null), [qData]);
  const bwModel = useMemo(() => (bwData ? bandwidthTable(bwData) : null), [bwData]);
  // The busiest streams get a chart.
  const charted = useMemo(() => {
    if (!qData) return [];
    const rows = Array.from({ length: qData.rowCount }, (_, i) => i).sort((x, y) => qData.columns.launches[y] - qData.columns.launches[x]);
    return rows.slice(0, MAX_QUEUE_CHARTS).sort((x, y) => qData.columns.stream[x] - qData.columns.stream[y]);
  }, [qData]);
  if (!qData || !qModel) return <QueryStatus state={queue} stem="gpu-queue" what="queue length" loading="Following each stream's queue…" />;
  const c = qData.columns;
  const atLimit = Array.from({ length: qData.rowCount }, (_, i) => i).filter((i) => c.time_at_limit_us[i] > 0);
  return (
    <section class="gpu-part" data-testid="gpu-queue" data-ready="true" aria-label="Queue length and memory bandwidth">
      <h3>Queue length</h3>
      {qData.rowCount === 0 ? (
        <p class="muted" data-testid="gpu-queue-none">
          {qData.meta.queue_note}
        </p>
      ) : (
        <>
          <p class="muted" data-testid="gpu-queue-intro">
            The launches each stream has been given and not yet started: +1 when a launch call starts, −1 when its kernel, copy or memset starts,
            as Holistic Trace Analysis’s queue length (its summary counts each change, not time). At CUDA’s limit of{' '}
            {formatCount(qData.meta.queue_limit)} the host blocks on the next launch.
          </p>
          <p data-testid="gpu-queue-limit" class={atLimit.length ? 'warn' : 'muted'}>
            {atLimit.length
              ? atLimit.map((i) => `Stream ${c.stream[i]} sat at the limit for ${formatDurationUs(c.time_at_limit_us[i])}.`).join(' ')
              : 'No stream reached the limit.'}
          </p>
          <div class="gpu-counter-charts">
            {charted.map((i, k) => (
              <div key={c.stream[i]} data-testid="gpu-queue-chart" data-stream={c.stream[i]}>
                <h4>
                  Stream {c.stream[i]} <span class="muted">(max {formatCount(c.max[i])}, mean {c.mean[i].toFixed(2)})</span>
                </h4>
                <CounterChart ask={ask} counter="queue" seriesKey={String(c.stream[i])} testid={`gpu-queue-chart-${c.stream[i]}`} label={`stream ${c.stream[i]}'s queue length`} color={KIND_COLORS[k % KIND_COLORS.length]} unit="" />
              </div>
            ))}
          </div>
          <TrackButton kind="queue" onCounterTracks={onCounterTracks} />
          {qData.rowCount > charted.length && (
            <p class="muted">
              The {charted.length} busiest of {qData.rowCount} streams are drawn; the table lists them all.
            </p>
          )}
          <DataTable model={qModel} stem="gpu-queue" label="Queue length by stream" csvName={`${csvStem(fileName)}-gpu-queue.csv`} initialSort={null} searchPlaceholder="Search streams" maxHeight={260} />
        </>
      )}
      <h3>Memory bandwidth</h3>
      {!bwData || !bwModel ? (
        <QueryStatus state={bw} stem="gpu-memory-bandwidth" what="memory bandwidth" loading="Adding up the copies' bandwidth…" />
      ) : bwData.rowCount === 0 ? (
        <p class="muted" data-testid="gpu-bandwidth-none">
          The trace has no memcpy or memset on a stream.
        </p>
      ) : (
        <div data-testid="gpu-bandwidth">
          <p class="muted">
            The bandwidth of the copies and memsets running at each moment, per kind (each its recorded GB/s while it runs), as Holistic Trace
            Analysis’s memory bandwidth counters; the summary describes the moments with some.
          </p>
          {Array.from({ length: bwData.rowCount }, (_, i) => {
            const kind = bwData.strings[bwData.columns.kind[i]];
            return (
              <div key={kind} data-testid="gpu-bandwidth-chart" data-kind={kind}>
                <h4>{kind}</h4>
                <CounterChart ask={ask} counter="bandwidth" seriesKey={kind} testid={`gpu-bandwidth-chart-${i}`} label={`${kind} bandwidth`} color={KIND_COLORS[i % KIND_COLORS.length]} unit=" GB/s" />
              </div>
            );
          })}
          <TrackButton kind="bandwidth" onCounterTracks={onCounterTracks} />
          <DataTable model={bwModel} stem="gpu-memory-bandwidth" label="Memory bandwidth by copy kind" csvName={`${csvStem(fileName)}-gpu-memory-bandwidth.csv`} initialSort={null} searchPlaceholder="Search kinds" maxHeight={220} />
        </div>
      )}
    </section>
  );
}
