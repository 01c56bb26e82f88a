// The Overview: the step-time breakdown (Session.stepBreakdownJson), the GPU metrics
// (Session.gpuMetricsJson) and the rest of Session.overviewJson (Tensor Core share per GPU,
// recommendations), typed, plus the pure maths the view draws with.
import { Reader } from './json-check';

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
}

export interface GpuInfo {
  device: number;
  name: string;
  memory_bytes: number | null;
  compute_capability: string;
  utilization_pct: number | null;
  sm_efficiency_pct: number | null;
  achieved_occupancy_pct: number | null;
  /** Share of kernel time on Tensor Cores, 0..100; null when unknown. */
  tensor_core_pct: number | null;
}

/** What overviewJson adds to the step breakdown and GPU metrics. */
export interface OverviewInfo {
  gpus: GpuInfo[];
  recommendations: Recommendation[];
}

export function parseOverviewInfo(json: string): OverviewInfo {
  const root = Reader.parse('overviewJson', json);
  const gpus = root
    .field('gpus')
    .items()
    .map((it) => {
      const g = it.object();
      return {
        device: g.num('device'),
        name: g.strOrNull('name') ?? '',
        memory_bytes: g.numOrNull('memory_bytes'),
        compute_capability: g.strOrNull('compute_capability') ?? '',
        utilization_pct: g.numOrNull('utilization_pct'),
        sm_efficiency_pct: g.numOrNull('sm_efficiency_pct'),
        achieved_occupancy_pct: g.numOrNull('achieved_occupancy_pct'),
        tensor_core_pct: g.numOrNull('tensor_core_pct'),
      };
    });
  const recommendations = root
    .field('recommendations')
    .items()
    .map((it) => {
      const r = it.object();
      return { id: r.str('id'), text: r.str('text'), view: r.strOrNull('view') ?? 'overview' };
    });
  return { gpus, recommendations };
}

export interface Overview {
  steps: StepBreakdown | null;
  gpus: GpuMetrics | null;
  /** Tensor Core share and recommendations (null when the core has no overviewJson). */
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

/** A percentage with two decimals: "12.34 %"; "—" when unknown. */
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

export interface TimelinePlot {
  /** SVG polyline points, "x,y x,y ...". */
  points: string;
  /** The x axis in ms from the window start. */
  x0Ms: number;
  x1Ms: number;
}

/**
 * The utilization timeline as a polyline in a w x h box: x in ms from `windowStartUs` (spanning
 * the first to the last sample), y 0..100 % bottom to top.
 */
export function timelinePlot(timeline: [number, number][], windowStartUs: number, w: number, h: number): TimelinePlot {
  if (!timeline.length) return { points: '', x0Ms: 0, x1Ms: 0 };
  const xs = timeline.map(([t]) => (t - windowStartUs) / 1000);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const span = x1 > x0 ? x1 - x0 : 1;
  const pts = timeline.map(([, u], i) => {
    const x = ((xs[i] - x0) / span) * w;
    const y = h - Math.min(1, Math.max(0, u)) * h;
    return `${round2(x)},${round2(y)}`;
  });
  return { points: pts.join(' '), x0Ms: x0, x1Ms: x1 };
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
