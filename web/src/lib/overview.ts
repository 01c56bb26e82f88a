// The Overview: the step-time breakdown (the steps view's answer), the GPU metrics (gpu_metrics)
// and the rest of the overview view's answer (Tensor Core share per GPU, recommendations) as the
// page's models, read from the answers' columns and metadata, plus the pure maths the view draws with.
import type { Answer } from '../generated/views';
import { pairsOf, stringColumn } from './answer';
import type { Place } from './deep-link';
import { parsePlace } from './deep-link';

/** The step-time categories, in tb_plugin's order, with the fixed colors of the bars. */
export const ROLES = [
  { key: 'kernel', label: 'Kernel', color: '#4e79a7' },
  { key: 'memcpy', label: 'Memcpy', color: '#f28e2b' },
  { key: 'memset', label: 'Memset', color: '#e15759' },
  { key: 'communication', label: 'Communication', color: '#76b7b2' },
  { key: 'runtime', label: 'Runtime', color: '#59a14f' },
  { key: 'dataloader', label: 'DataLoader', color: '#edc948' },
  { key: 'cpu_exec', label: 'CPU Exec', color: '#b07aa1' },
  { key: 'other', label: 'Other', color: '#9c755f' },
] as const;

export type RoleKey = (typeof ROLES)[number]['key'];

/** Durations of one step (or the average), in µs: `<role>_us` for each role, and `total_us`. */
export type StepValues = { total_us: number } & { [K in `${RoleKey}_us`]: number };

export interface Step extends StepValues {
  name: string;
  start_us: number;
  end_us: number;
}

export interface StepBreakdown {
  steps: Step[];
  average: StepValues | null;
  roles?: Record<string, { merged: number; sum_us: number }>;
}

export interface GpuMetric {
  device: number;
  utilization_pct: number | null;
  sm_efficiency_pct: number | null;
  achieved_occupancy_pct: number | null;
  /** [t_us, utilization 0..1] */
  timeline: [number, number][];
}

export interface GpuMetrics {
  window_start_us: number | null;
  window_end_us: number | null;
  bucket_us: number | null;
  gpus: GpuMetric[];
}

/** The views a recommendation can point at (only some exist in the page so far). */
export type ViewName = 'overview' | 'operators' | 'kernels' | 'memory' | 'distributed';

export interface Recommendation {
  id: string;
  /** Plain text: shown as text, never as HTML. */
  text: string;
  view: ViewName | string;
  /** Where the evidence is: a place in this trace, as a deep link names one (view, step, table state). */
  evidence?: Place;
}

export interface GpuInfo {
  device: number;
  name: string;
  memory_bytes: number | null;
  compute_capability: string;
  vendor: string;
  arch: string;
  utilization_pct: number | null;
  sm_efficiency_pct: number | null;
  achieved_occupancy_pct: number | null;
  /** Share of kernel time on Tensor Cores, 0..100; null when unknown. */
  tensor_core_pct: number | null;
  /** Share of kernel time in kernels whose name does not tell (Triton, ...), 0..100. */
  tensor_core_unknown_pct: number | null;
}

/** The trace's Tensor Core figures and what each covers (core: overview `tensor_cores`). */
export interface TensorCoreInfo {
  /** "Tensor Cores", or "Matrix Cores" on AMD. */
  term: string;
  kernel_pct: number | null;
  kernel_unknown_pct: number | null;
  eligible_op_kernel_pct: number | null;
  /** One sentence per figure: which kernels it covers. */
  scope: { gpu: string; kernel: string; eligible_op_kernel: string };
  /** What the GPU summary's figure is over: every kernel (the default: the Kernels pie's), or operators' (tb_plugin's). */
  gpu_of: 'all_kernels' | 'operator_kernels';
}

/** What the overview view's answer adds to the step breakdown and GPU metrics. */
export interface OverviewInfo {
  gpus: GpuInfo[];
  recommendations: Recommendation[];
  tensorCores: TensorCoreInfo;
}

/** The steps view's rows as the page's steps, and their average. */
export function stepBreakdownOf(a: Answer<'steps'> | Answer<'overview'>): StepBreakdown {
  const c = a.columns;
  const names = stringColumn(c.name, a.strings);
  const steps: Step[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    steps.push({
      name: names[i] ?? '',
      start_us: c.start_us[i],
      end_us: c.end_us[i],
      total_us: c.total_us[i],
      kernel_us: c.kernel_us[i],
      memcpy_us: c.memcpy_us[i],
      memset_us: c.memset_us[i],
      communication_us: c.communication_us[i],
      runtime_us: c.runtime_us[i],
      dataloader_us: c.dataloader_us[i],
      cpu_exec_us: c.cpu_exec_us[i],
      other_us: c.other_us[i],
    });
  }
  const average = a.meta.average as StepValues;
  return { steps, average, ...('roles' in a.meta ? { roles: a.meta.roles } : {}) };
}

/** The gpu_metrics view's answer as the page's GPU metrics (each GPU's timeline from its pairs). */
export function gpuMetricsOf(a: Answer<'gpu_metrics'>): GpuMetrics {
  const c = a.columns;
  const gpus: GpuMetric[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    gpus.push({
      device: c.device[i],
      utilization_pct: nullIfNaN(c.utilization_pct[i]),
      sm_efficiency_pct: nullIfNaN(c.sm_efficiency_pct[i]),
      achieved_occupancy_pct: nullIfNaN(c.achieved_occupancy_pct[i]),
      timeline: pairsOf(c.timeline, a.ends.timeline, i),
    });
  }
  return { window_start_us: a.meta.window_start_us, window_end_us: a.meta.window_end_us, bucket_us: a.meta.bucket_us, gpus };
}

/** What the overview view's answer adds to the step breakdown and GPU metrics. */
export function overviewInfoOf(a: Answer<'overview'>): OverviewInfo {
  const m = a.meta;
  const gpus: GpuInfo[] = m.gpus.map((g) => ({
    device: g.device,
    name: g.name ?? '',
    memory_bytes: g.memory_bytes,
    compute_capability: g.compute_capability ?? '',
    vendor: g.vendor ?? '',
    arch: g.arch ?? '',
    utilization_pct: g.utilization_pct,
    sm_efficiency_pct: g.sm_efficiency_pct,
    achieved_occupancy_pct: g.achieved_occupancy_pct,
    tensor_core_pct: g.tensor_core_pct,
    tensor_core_unknown_pct: g.tensor_core_unknown_pct,
  }));
  const recommendations = m.recommendations.map((r) => {
    const rec: Recommendation = { id: r.id, text: r.text, view: r.view || 'overview' };
    const ev = evidenceOf(r.evidence);
    if (ev) rec.evidence = ev;
    return rec;
  });
  const tc = m.tensor_cores;
  const tensorCores: TensorCoreInfo = {
    term: tc.term || 'Tensor Cores',
    kernel_pct: tc.kernel_pct,
    kernel_unknown_pct: tc.kernel_unknown_pct,
    eligible_op_kernel_pct: tc.eligible_op_kernel_pct,
    gpu_of: tc.gpu_of,
    scope: { gpu: tc.scope.gpu, kernel: tc.scope.kernel, eligible_op_kernel: tc.scope.eligible_op_kernel },
  };
  return { gpus, recommendations, tensorCores };
}

function nullIfNaN(v: number): number | null {
  return Number.isNaN(v) ? null : v;
}

/**
 * A recommendation's evidence as the core writes it ({view, step?, group?, sort?, q?, row?}, the
 * deep-link fields), read through the deep-link parser so it is checked the same way a link is.
 */
export function evidenceOf(v: unknown): Place | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const params = new URLSearchParams();
  for (const k of ['view', 'step', 'group', 'sort', 'q', 'row']) {
    const x = (v as Record<string, unknown>)[k];
    if (typeof x === 'string' && x) params.set(k, x);
  }
  const p = parsePlace(params.toString());
  // `view: "distributed"` names the run page (runView), which a trace's card opens through the app.
  return p.view || p.runView ? p : null;
}

export interface Overview {
  steps: StepBreakdown | null;
  gpus: GpuMetrics | null;
  /** Tensor Core share and recommendations (null until the overview view's answer came). */
  info?: OverviewInfo | null;
  /** One sentence when the overview could not be computed. */
  error?: string;
}

/** `part` as a percentage of `total`; 0 when the total is not positive. */
export function percentOf(part: number, total: number): number {
  if (!Number.isFinite(part) || !Number.isFinite(total) || total <= 0) return 0;
  return (part / total) * 100;
}

const usFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A step duration as tb_plugin shows it: whole microseconds, grouped: "273,652 us". */
export function formatStepUs(us: number | null | undefined): string {
  if (us == null || !Number.isFinite(us)) return '—';
  return `${usFmt.format(us)} us`;
}

/** The same duration in ms, from the whole µs shown: 273651.5 -> "273.652 ms". */
export function formatStepMs(us: number | null | undefined): string {
  if (us == null || !Number.isFinite(us)) return '—';
  return `${(Math.round(us) / 1000).toFixed(3)} ms`;
}

/**
 * The GPU summary of one step, or of all steps (the gpu_summary view, `kinetoscope gpus --step N
 * --json`): utilization, est. SM efficiency and occupancy over the step's time, the Tensor Core
 * share of the kernels it issued.
 */
export interface GpuSummary {
  step: string | null;
  windowStartUs: number;
  windowEndUs: number;
  scope: { metrics: string; tensorCores: string };
  gpus: { device: number; utilization_pct: number | null; sm_efficiency_pct: number | null; achieved_occupancy_pct: number | null; tensor_core_pct: number | null; tensor_core_unknown_pct: number | null }[];
}

export function gpuSummaryOf(a: Answer<'gpu_summary'>): GpuSummary {
  const c = a.columns;
  const gpus: GpuSummary['gpus'] = [];
  for (let i = 0; i < a.rowCount; i++) {
    gpus.push({
      device: c.device[i],
      utilization_pct: nullIfNaN(c.utilization_pct[i]),
      sm_efficiency_pct: nullIfNaN(c.sm_efficiency_pct[i]),
      achieved_occupancy_pct: nullIfNaN(c.achieved_occupancy_pct[i]),
      tensor_core_pct: nullIfNaN(c.tensor_core_pct[i]),
      tensor_core_unknown_pct: nullIfNaN(c.tensor_core_unknown_pct[i]),
    });
  }
  const m = a.meta;
  return { step: m.step, windowStartUs: m.window_start_us, windowEndUs: m.window_end_us, scope: { metrics: m.scope.metrics, tensorCores: m.scope.tensor_cores }, gpus };
}

/**
 * A percentage with two decimals: "12.34 %"; "—" when unknown. The one formatter of every
 * percentage metric on the page (GPU utilization, SM efficiency, occupancy, Tensor Core shares,
 * step shares); the CLI and the recommendation texts print the same digits (core/util/format_pct.h).
 */
export function formatPct(p: number | null | undefined): string {
  if (p == null || !Number.isFinite(p)) return '—';
  return `${p.toFixed(2)} %`;
}

export interface Segment {
  key: RoleKey;
  label: string;
  color: string;
  us: number;
  /** Share of the step's total, in %. */
  pct: number;
  /** Where the segment starts along the bar, in % of the bar. */
  offsetPct: number;
  /** Its width along the bar, in % of the bar. */
  widthPct: number;
}

/**
 * The stacked segments of one step's bar. The bar is `scaleUs` long (e.g. the longest step, so
 * bars compare); each segment's share (`pct`) is of the step's own total.
 */
export function stackSegments(v: StepValues, scaleUs: number = v.total_us): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const r of ROLES) {
    const us = Math.max(0, v[`${r.key}_us`] ?? 0);
    const widthPct = percentOf(us, scaleUs);
    out.push({ key: r.key, label: r.label, color: r.color, us, pct: percentOf(us, v.total_us), offsetPct: at, widthPct });
    at += widthPct;
  }
  return out;
}

/** The hover text of a segment: "Kernel: 98,598 us (98.598 ms), 52.46 % of step 5". */
export function segmentTitle(s: Segment, of: string): string {
  return `${s.label}: ${formatStepUs(s.us)} (${formatStepMs(s.us)}), ${formatPct(s.pct)} of ${of}`;
}

/** The step chart's data: one column per step and one for the average (ms). */
export interface StepChart {
  /** Column labels: the step names, then "Average". */
  labels: string[];
  /**
   * uPlot data: x (0..n), then one series per category from the top of the stack down, each the
   * cumulative height (ms) up to and including that category. Drawn in that order, each bar
   * covers the ones below it except for its own segment.
   */
  data: number[][];
  /** The categories of data[1..], top of the stack first. */
  order: (typeof ROLES)[number][];
}

export function stepChart(b: StepBreakdown): StepChart {
  const cols: StepValues[] = b.average ? [...b.steps, b.average] : b.steps;
  const n = cols.length;
  const labels = b.steps.map((s) => s.name);
  if (b.average) labels.push('Average');
  const x = new Array<number>(n);
  for (let i = 0; i < n; i++) x[i] = i;
  // Column by column, the field names made once: a trace of thousands of steps builds 8 series
  // of thousands of columns while the Overview is drawn.
  const fields = ROLES.map((r) => `${r.key}_us` as const);
  const cum = ROLES.map(() => new Array<number>(n));
  for (let i = 0; i < n; i++) {
    const c = cols[i];
    let run = 0;
    for (let k = 0; k < fields.length; k++) {
      run += Math.max(0, c[fields[k]] ?? 0) / 1000;
      cum[k][i] = run;
    }
  }
  return { labels, data: [x, ...cum.reverse()], order: [...ROLES].reverse() };
}

/**
 * The columns of a step chart of `n` columns (the steps, then the average) that get a label and
 * a tick on an axis `width` px wide, at ~34 px per label: every k-th step from the first, and the
 * average. Ticks only where the labels are: thousands of steps would otherwise draw thousands of
 * ticks, a solid band under the chart.
 */
export function stepAxisSplits(n: number, width: number): number[] {
  if (n <= 0) return [];
  const every = Math.max(1, Math.ceil((n * 34) / Math.max(1, width)));
  const out: number[] = [];
  // Thinned out, the last step label keeps a label and a half from "Average", a wider one.
  for (let i = 0; i < n - 1; i += every) if (i === 0 || every === 1 || 2 * (n - 1 - i) >= 3 * every) out.push(i);
  out.push(n - 1);
  return out;
}

/** The readout of one column: "Step 551: 607.312 ms" and a line per category with its share. */
export function stepReadout(label: string, v: StepValues): { title: string; lines: string[] } {
  const of = label === 'Average' ? 'the average step' : `step ${label}`;
  return {
    title: `${label === 'Average' ? 'Average step' : `Step ${label}`}: ${formatStepMs(v.total_us)}`,
    lines: stackSegments(v).map((s) => segmentTitle(s, of)),
  };
}

/**
 * The GPU utilization timeline for a chart: x in ms from `originUs` (the trace's first event), y
 * in % (0..100); each sample holds until the next (the buckets of spec §9.2, then a closing 0).
 */
export function utilizationSeries(timeline: [number, number][], originUs: number): [number[], number[]] {
  return [timeline.map(([t]) => (t - originUs) / 1000), timeline.map(([, u]) => Math.min(1, Math.max(0, u)) * 100)];
}
