// The GPU time tab's second and third parts (issue 24 §2, §3), below the temporal breakdown:
// Holistic Trace Analysis's idle time breakdown per stream (host wait / kernel wait / other, with
// the statistics of the gaps) and its kernel breakdown (time by kernel type and their overlaps,
// the top kernels of each type). Four answers of the core (core/session/views/gpu_idle.cpp,
// gpu_kernels.cpp) read in place, as the temporal breakdown's.
import { useMemo } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import {
  GPU_IDLE_COLUMNS,
  GPU_IDLE_INTERVALS_COLUMNS,
  GPU_KERNEL_TYPES_COLUMNS,
  GPU_TOP_KERNELS_COLUMNS,
  type Answer,
} from '../generated/views';
import { answerTable } from '../lib/answer-table';
import { csvStem } from '../lib/download';
import { formatDurationUs } from '../lib/format';
import { formatPct } from '../lib/overview';
import type { TableModel } from '../lib/table-model';
import { QueryStatus } from './view-status';

const NO_PARAMS = {};

// Host wait in a warning amber (the host is the cause), kernel wait in the compute blue, other grey.
const IDLE_PARTS = [
  { key: 'host_wait', label: 'Host wait', color: '#e15759', title: 'The next event was launched after the previous one ended: the GPU waited on the host' },
  { key: 'kernel_wait', label: 'Kernel wait', color: '#4e79a7', title: 'A gap under the threshold between kernels launched in time: launch overhead' },
  { key: 'other', label: 'Other', color: '#bab0ac', title: 'The rest: waiting on an event, a sync or another stream' },
] as const;

const ratioCell = (v: string | number) => (typeof v === 'number' && Number.isFinite(v) ? (100 * v).toFixed(1) : '');

function idleTable(a: Answer<'gpu-idle'>): TableModel {
  return answerTable(
    a,
    GPU_IDLE_COLUMNS,
    [
      { name: 'stream', label: 'Stream', width: 80 },
      { name: 'events', label: 'GPU events', width: 100 },
      { name: 'idle_us', label: 'Idle', width: 110 },
      ...IDLE_PARTS.map((p) => ({ name: `${p.key}_us`, label: p.label, width: 120, title: () => p.title })),
      ...IDLE_PARTS.map((p) => ({ name: `${p.key}_ratio`, label: `${p.label} (%)`, width: 120, format: ratioCell })),
    ],
    (row) => a.columns.stream[row],
  );
}

function intervalsTable(a: Answer<'gpu-idle-intervals'>): TableModel {
  const c = a.columns;
  return answerTable(
    a,
    GPU_IDLE_INTERVALS_COLUMNS,
    [
      { name: 'stream', label: 'Stream', width: 80 },
      { name: 'category', label: 'Category', width: 120 },
      { name: 'count', label: 'Gaps', width: 80 },
      { name: 'total_us', label: 'Total', width: 110 },
      { name: 'mean_us', label: 'Mean', width: 100 },
      { name: 'std_us', label: 'Std dev', width: 100 },
      { name: 'min_us', label: 'Min', width: 90 },
      { name: 'p25_us', label: '25 %', width: 90 },
      { name: 'p50_us', label: 'Median', width: 90 },
      { name: 'p75_us', label: '75 %', width: 90 },
      { name: 'max_us', label: 'Max', width: 100 },
    ],
    (row) => `${c.stream[row]}/${a.strings[c.category[row]]}`,
  );
}

function kernelTypesTable(a: Answer<'gpu-kernel-types'>): TableModel {
  return answerTable(
    a,
    GPU_KERNEL_TYPES_COLUMNS,
    [
      { name: 'type', label: 'Kernel type', grow: 1 },
      { name: 'us', label: 'Time', width: 130 },
      { name: 'pct', label: 'Share of busy time', width: 160 },
    ],
    (row) => a.strings[a.columns.type[row]],
  );
}

function topKernelsTable(a: Answer<'gpu-top-kernels'>): TableModel {
  const c = a.columns;
  return answerTable(
    a,
    GPU_TOP_KERNELS_COLUMNS,
    [
      { name: 'type', label: 'Type', width: 140 },
      { name: 'name', label: 'Kernel', grow: 1 },
      { name: 'calls', label: 'Calls', width: 80 },
      { name: 'sum_us', label: 'Sum', width: 110 },
      { name: 'max_us', label: 'Max', width: 100 },
      { name: 'min_us', label: 'Min', width: 100 },
      { name: 'mean_us', label: 'Mean', width: 100 },
      { name: 'stddev_us', label: 'Std dev', width: 100 },
      { name: 'kernels', label: 'Kernels', width: 80, defaultHidden: true },
    ],
    (row) => `${a.strings[c.type[row]]}/${a.strings[c.name[row]]}`,
  );
}

/** A stream's idle time as one bar of its three shares. */
function IdleBar({ a, row }: { a: Answer<'gpu-idle'>; row: number }) {
  const c = a.columns;
  return (
    <div class="gpu-share-bar" role="img" aria-label={`Stream ${c.stream[row]}: ${IDLE_PARTS.map((p) => `${p.label} ${formatPct(100 * c[`${p.key}_ratio`][row])}`).join(', ')}`}>
      {IDLE_PARTS.map((p) => {
        const r = c[`${p.key}_ratio`][row];
        return Number.isFinite(r) && r > 0 ? <span key={p.key} style={{ width: `${100 * r}%`, background: p.color }} title={`${p.label}: ${formatDurationUs(c[`${p.key}_us`][row])}`} /> : null;
      })}
    </div>
  );
}

export function GpuIdleSection({ ask, fileName }: { ask: Ask; fileName: string }) {
  const idle = useAnswer(ask, 'gpu-idle', NO_PARAMS);
  const intervals = useAnswer(ask, 'gpu-idle-intervals', NO_PARAMS);
  const idleModel = useMemo(() => (idle.status === 'ready' ? idleTable(idle.data) : null), [idle.status === 'ready' ? idle.data : null]);
  const intervalModel = useMemo(() => (intervals.status === 'ready' ? intervalsTable(intervals.data) : null), [intervals.status === 'ready' ? intervals.data : null]);
  if (idle.status !== 'ready') return <QueryStatus state={idle} stem="gpu-idle" what="idle time breakdown" loading="Breaking down the GPU's idle time…" />;
  const a = idle.data;
  if (a.rowCount === 0) return null;
  return (
    <section class="gpu-part" data-testid="gpu-idle" data-ready="true" aria-label="Idle time by stream">
      <h3>Idle time by stream</h3>
      <p class="muted" data-testid="gpu-idle-intro">
        The gaps between the kernels, copies and memsets of each stream, as Holistic Trace Analysis’s idle time breakdown:{' '}
        <b>host wait</b> when the next event was launched after the previous one ended, else <b>kernel wait</b> when the gap is under{' '}
        {formatDurationUs(a.meta.kernel_wait_us)}, else <b>other</b>.
      </p>
      <ul class="ov-legend" aria-label="Legend">
        {IDLE_PARTS.map((p) => (
          <li key={p.key} title={p.title}>
            <span class="ov-swatch" style={{ background: p.color }} />
            {p.label}
          </li>
        ))}
      </ul>
      <div class="gpu-share-bars" data-testid="gpu-idle-bars">
        {Array.from({ length: a.rowCount }, (_, i) => (
          <div class="gpu-share-row" key={a.columns.stream[i]}>
            <span class="gpu-share-label">Stream {a.columns.stream[i]}</span>
            <IdleBar a={a} row={i} />
            <span class="gpu-share-total">{formatDurationUs(a.columns.idle_us[i])}</span>
          </div>
        ))}
      </div>
      {idleModel && (
        <DataTable model={idleModel} stem="gpu-idle" label="Idle time by stream" csvName={`${csvStem(fileName)}-gpu-idle.csv`} initialSort={null} searchPlaceholder="Search streams" maxHeight={260} />
      )}
      <h4>Gaps by category</h4>
      {intervals.status !== 'ready' || !intervalModel ? (
        <QueryStatus state={intervals} stem="gpu-idle-intervals" what="idle interval statistics" loading="Computing the gaps' statistics…" />
      ) : (
        <DataTable
          model={intervalModel}
          stem="gpu-idle-intervals"
          label="Idle interval statistics"
          csvName={`${csvStem(fileName)}-gpu-idle-intervals.csv`}
          initialSort={null}
          searchPlaceholder="Search categories"
          maxHeight={300}
        />
      )}
    </section>
  );
}

export function GpuKernelsSection({ ask, fileName }: { ask: Ask; fileName: string }) {
  const types = useAnswer(ask, 'gpu-kernel-types', NO_PARAMS);
  const top = useAnswer(ask, 'gpu-top-kernels', NO_PARAMS);
  const typesModel = useMemo(() => (types.status === 'ready' ? kernelTypesTable(types.data) : null), [types.status === 'ready' ? types.data : null]);
  const topModel = useMemo(() => (top.status === 'ready' ? topKernelsTable(top.data) : null), [top.status === 'ready' ? top.data : null]);
  if (types.status !== 'ready') return <QueryStatus state={types} stem="gpu-kernel-types" what="kernel breakdown" loading="Breaking down the kernels…" />;
  const a = types.data;
  if (a.rowCount === 0) return null;
  return (
    <section class="gpu-part" data-testid="gpu-kernels" data-ready="true" aria-label="Kernel breakdown">
      <h3>Kernel types</h3>
      <p class="muted" data-testid="gpu-kernels-intro">
        The GPU’s busy time ({formatDurationUs(a.meta.busy_us)}) by what ran: computation, communication (NCCL, gloo) and memory
        (memcpy, memset) kernels, and the time they overlapped, as Holistic Trace Analysis’s kernel breakdown.
      </p>
      {typesModel && (
        <DataTable model={typesModel} stem="gpu-kernel-types" label="Kernel types" csvName={`${csvStem(fileName)}-gpu-kernel-types.csv`} initialSort={null} searchPlaceholder="Search types" maxHeight={260} />
      )}
      <h4>Top kernels per type</h4>
      {top.status !== 'ready' || !topModel ? (
        <QueryStatus state={top} stem="gpu-top-kernels" what="top kernels" loading="Ranking the kernels…" />
      ) : (
        <DataTable
          model={topModel}
          stem="gpu-top-kernels"
          label="Top kernels per type"
          csvName={`${csvStem(fileName)}-gpu-top-kernels.csv`}
          initialSort={null}
          searchPlaceholder="Search kernels"
          maxHeight={420}
        />
      )}
    </section>
  );
}
