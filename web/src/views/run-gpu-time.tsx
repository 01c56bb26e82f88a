// The GPU time tab's run-level part (issue 24 §1, "per rank on the run page"): for each rank of
// the span, how its GPU spent the span of its work — idle, compute and non-compute time and
// shares (HTA's temporal breakdown, over HTA's scope) and HTA's communication/computation overlap
// — and beside it each rank's steps with their step time and the same breakdown. The numbers are
// the reduce's (view distributed_gpu_time): what `kinetoscope gpu-time` prints on each rank's
// trace. Both tables are sortable, searchable and windowed (DataTable), so a run of thousands of
// ranks stays responsive.
import { useMemo } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { csvStem } from '../lib/download';
import type { RankGpuTime } from '../lib/distributed';
import { rowsModel } from '../lib/table-model';

type Columns<R> = Parameters<typeof rowsModel<R>>[2];

const n = (v: number | null) => v ?? NaN;

/** Why a rank has no numbers (its status), in the Status column. */
export const GPU_TIME_STATUS: Record<string, string> = {
  ok: 'ok',
  no_gpu_work: 'no GPU work',
  no_summary: 'no GPU time in its summary',
};

const RANK_COLUMNS: Columns<RankGpuTime> = [
  { id: 'worker', label: 'Worker', type: 'text', get: (r) => r.worker },
  { id: 'rank', label: 'Rank', type: 'number', unit: 'count', width: 72, get: (r) => n(r.rank) },
  { id: 'span_us', label: 'GPU span (first to last GPU event)', header: 'GPU span', type: 'number', unit: 'us', width: 95, get: (r) => n(r.spanUs) },
  { id: 'idle_us', label: 'Idle time', header: 'Idle', type: 'number', unit: 'us', width: 90, get: (r) => n(r.idleUs) },
  { id: 'idle_pct', label: 'Idle share', header: 'Idle %', type: 'number', unit: 'percent', width: 70, get: (r) => n(r.idlePct) },
  { id: 'compute_us', label: 'Compute time', header: 'Comp.', type: 'number', unit: 'us', width: 95, get: (r) => n(r.computeUs) },
  { id: 'compute_pct', label: 'Compute share', header: 'Comp. %', type: 'number', unit: 'percent', width: 95, get: (r) => n(r.computePct) },
  { id: 'non_compute_us', label: 'Non-compute time (communication, copies, syncs not under compute)', header: 'Non-comp.', type: 'number', unit: 'us', width: 110, get: (r) => n(r.nonComputeUs) },
  { id: 'non_compute_pct', label: 'Non-compute share', header: 'Non-comp. %', type: 'number', unit: 'percent', width: 120, get: (r) => n(r.nonComputePct) },
  {
    id: 'overlap_pct',
    label: 'Communication overlapped by computation, HTA',
    header: 'Overlap %',
    headerTitle: "HTA's communication/computation overlap: the share of the communication kernels' time during which computation kernels ran too (the Distributed view's overlap splits each step's window instead)",
    type: 'number',
    unit: 'percent',
    width: 95,
    get: (r) => n(r.overlapPct),
  },
  { id: 'events', label: 'GPU events', type: 'number', unit: 'count', width: 90, defaultHidden: true, get: (r) => n(r.events) },
  { id: 'status', label: 'Status', type: 'text', width: 150, defaultHidden: true, get: (r) => GPU_TIME_STATUS[r.status] ?? r.status },
];

const STEP_COLUMNS: Columns<RankGpuTime> = [
  { id: 'worker', label: 'Worker', type: 'text', get: (r) => r.worker },
  { id: 'rank', label: 'Rank', type: 'number', unit: 'count', width: 60, get: (r) => n(r.rank) },
  { id: 'step', label: 'Step', type: 'text', width: 70, get: (r) => r.step ?? '' },
  { id: 'step_us', label: 'Step time', type: 'number', unit: 'us', width: 105, get: (r) => n(r.stepUs) },
  { id: 'idle_us', label: 'GPU idle time', header: 'Idle', type: 'number', unit: 'us', width: 90, get: (r) => n(r.idleUs) },
  { id: 'idle_pct', label: 'GPU idle share', header: 'Idle %', type: 'number', unit: 'percent', width: 70, get: (r) => n(r.idlePct) },
  { id: 'compute_us', label: 'Compute time', header: 'Comp.', type: 'number', unit: 'us', width: 95, get: (r) => n(r.computeUs) },
  { id: 'compute_pct', label: 'Compute share', header: 'Comp. %', type: 'number', unit: 'percent', width: 95, get: (r) => n(r.computePct) },
  { id: 'non_compute_us', label: 'Non-compute time', header: 'Non-comp.', type: 'number', unit: 'us', width: 110, get: (r) => n(r.nonComputeUs) },
  { id: 'non_compute_pct', label: 'Non-compute share', header: 'Non-comp. %', type: 'number', unit: 'percent', width: 120, get: (r) => n(r.nonComputePct) },
];

/** The span's GPU time per rank and its step table; `stepKey` ("all" or a step) filters the step table. */
export function RunGpuTime({ rows, run, stepKey }: { rows: readonly RankGpuTime[]; run: string; stepKey: string }) {
  const ranks = useMemo(() => rows.filter((r) => r.scope === 'trace'), [rows]);
  const steps = useMemo(() => rows.filter((r) => r.scope === 'step' && (stepKey === 'all' || r.step === stepKey)), [rows, stepKey]);
  const rankModel = useMemo(() => rowsModel(ranks, (r) => r.worker, RANK_COLUMNS), [ranks]);
  const stepModel = useMemo(() => rowsModel(steps, (r) => `${r.worker} ${r.step}`, STEP_COLUMNS), [steps]);
  const missing = ranks.filter((r) => r.status === 'no_summary').length;
  return (
    <div class="run-gpu-time" data-testid="run-gpu-time">
      <section class="ov-panel" data-testid="run-gpu-ranks">
        <h4>GPU time per rank</h4>
        <p class="muted">
          Over each rank's span of GPU work (HTA's scope: with two or more steps, the work launched before the last one), as <code>kinetoscope gpu-time</code> gives it on that rank's trace: idle,
          compute and non-compute time, and the share of its communication overlapped by computation (— where a rank has none: the Columns menu's Status says why).
          {missing ? ` ${missing} rank${missing === 1 ? '' : 's'} ${missing === 1 ? 'has' : 'have'} no GPU time: ${missing === 1 ? 'its summary was' : 'their summaries were'} written by an older kinetoscope.` : ''}
        </p>
        <DataTable
          model={rankModel}
          stem="run-gpu"
          label="GPU time per rank"
          csvName={`${csvStem(run || 'run')}-gpu-time-per-rank.csv`}
          searchPlaceholder="Search workers"
          emptyText="No rank."
          maxHeight={360}
          initialSort={{ column: 'rank', dir: 'asc' }}
        />
      </section>
      <section class="ov-panel" data-testid="run-gpu-steps">
        <h4>Step time per rank{stepKey === 'all' ? '' : `, step ${stepKey}`}</h4>
        <DataTable
          model={stepModel}
          stem="run-steps"
          label="Step time per rank"
          csvName={`${csvStem(run || 'run')}-steps-per-rank.csv`}
          searchPlaceholder="Search workers and steps"
          emptyText="No step: these traces have no ProfilerStep ranges."
          maxHeight={360}
          initialSort={{ column: 'step_us', dir: 'desc' }}
        />
      </section>
    </div>
  );
}
