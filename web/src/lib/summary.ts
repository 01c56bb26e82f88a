// The summary of a trace (the summary view's answer, docs/contracts.md), as the views use it: its
// metadata, and its trace-health rows read from the answer's columns.
import type { Answer } from '../generated/views';
import { stringColumn } from './answer';

export type Severity = 'error' | 'warning' | 'info';

export interface HealthRow {
  reason: string;
  severity: Severity;
  count: number;
  sample_offset: number | null;
  message: string;
}

export interface Device {
  id: number;
  name: string;
  memory_bytes: number | null;
  /** NVIDIA's major.minor; "" (or null) on AMD, where HIP's major.minor is not one. */
  compute_capability: string | null;
  /** SMs, or compute units on AMD. */
  sms: number | null;
  vendor?: 'nvidia' | 'amd' | '';
  /** "sm_90", "gfx90a", or "". */
  arch?: string;
}

/** What ran the trace's GPU work, as the core tells it. */
export type Accelerator = 'nvidia' | 'amd' | 'mtia' | 'none' | 'unknown';

export interface Distributed {
  rank: number;
  world_size: number;
  backend: string;
}

export interface Schema {
  schema_version: number | null;
  display_time_unit: string;
  trace_name: string;
  base_time_ns: number | null;
  framework: string;
  naming: 'pytorch-2' | 'pytorch-1.8' | string;
}

export interface Summary {
  file?: string;
  ok: boolean;
  error: string;
  format: 'object' | 'array' | string;
  schema: Schema | null;
  events: number;
  categories: Record<string, number>;
  phases: Record<string, number>;
  kinds: Record<string, number>;
  devices: Device[];
  accelerator?: Accelerator;
  distributed: Distributed | null;
  start_us: number | null;
  end_us: number | null;
  span_us: number | null;
  bytes: number;
  truncated: boolean;
  health: HealthRow[];
}

/** Entries of a count map, largest first, ties by name: a stable order for tables. */
export function sortedCounts(m: Record<string, number> | null | undefined): [string, number][] {
  return Object.entries(m ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

export function namingLabel(naming: string | undefined): string {
  if (naming === 'pytorch-2') return 'PyTorch 2.x naming';
  if (naming === 'pytorch-1.8') return 'PyTorch 1.8 naming';
  return naming ? `${naming} naming` : 'unknown naming';
}

export function formatLabel(format: string | undefined): string {
  if (format === 'object') return 'Kineto JSON object';
  if (format === 'array') return 'Chrome trace array';
  return format || 'unknown format';
}

/** "sm_90" / "gfx942": a device's architecture as the header and tables name it; '' when unknown. */
export function archLabel(d: Device): string {
  if (d.arch) return d.arch;
  return d.compute_capability ? `compute capability ${d.compute_capability}` : '';
}

/** The page's summary from the summary view's answer (`file`: the name the page shows). */
export function summaryOf(a: Answer<'summary'>, file?: string): Summary {
  const c = a.columns;
  const reason = stringColumn(c.reason, a.strings);
  const severity = stringColumn(c.severity, a.strings);
  const message = stringColumn(c.message, a.strings);
  const health: HealthRow[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    health.push({
      reason: reason[i] ?? '',
      severity: (severity[i] ?? 'info') as Severity,
      count: c.count[i],
      sample_offset: Number.isNaN(c.sample_offset[i]) ? null : c.sample_offset[i],
      message: message[i] ?? '',
    });
  }
  const m = a.meta;
  return {
    file: file ?? m.file,
    ok: m.ok,
    error: m.error,
    format: m.format,
    schema: m.schema,
    events: m.events,
    categories: m.categories,
    phases: m.phases,
    kinds: m.kinds,
    devices: m.devices.map((d) => ({ ...d, vendor: d.vendor as Device['vendor'] })),
    accelerator: m.accelerator as Accelerator,
    distributed: m.distributed,
    start_us: m.start_us,
    end_us: m.end_us,
    span_us: m.span_us,
    bytes: m.bytes,
    truncated: m.truncated,
    health,
  };
}
