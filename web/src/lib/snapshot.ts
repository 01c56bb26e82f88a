// A CUDA allocator snapshot as the page holds it once loaded: the snapshot-summary view's answer
// (docs/contracts.md "Memory snapshots"), its rows as devices, and a Summary for the card's
// header, navigator and failure message, as a trace's summary is. What was skipped or lost (a
// truncated pickle) is a health row.
import type { Answer } from '../generated/views';
import type { HealthRow, Summary } from './summary';

export interface SnapshotDevice {
  device: number;
  trace_entries: number;
  allocations: number;
  frees: number;
  peak_allocated_bytes: number;
  peak_at_us: number | null;
  peak_entry: number;
  peak_reserved_bytes: number;
  before_history_bytes: number;
  allocated_at_dump_bytes: number;
  reserved_at_dump_bytes: number;
  alive_at_dump_bytes: number;
  segments: number;
  oom_count: number;
}

export interface SnapshotInfo {
  file: string;
  ok: boolean;
  /** Why nothing could be read, or what was lost; null when read whole. */
  error: string | null;
  bytes: number;
  hasHistory: boolean;
  health: HealthRow[];
  devices: SnapshotDevice[];
  /** allocator_settings as the snapshot wrote them (each value as Python writes it). */
  allocatorSettings: [string, string][];
  /** external_annotations: record_function ranges' START and END. */
  annotations: { stage: string; name: string; device: number; time_us: number | null }[];
}

const nullable = (v: number) => (Number.isNaN(v) ? null : v);

export function snapshotOf(a: Answer<'snapshot-summary'>): SnapshotInfo {
  const c = a.columns;
  const devices: SnapshotDevice[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    devices.push({
      device: c.device[i],
      trace_entries: c.trace_entries[i],
      allocations: c.allocations[i],
      frees: c.frees[i],
      peak_allocated_bytes: c.peak_allocated_bytes[i],
      peak_at_us: nullable(c.peak_at_us[i]),
      peak_entry: c.peak_entry[i],
      peak_reserved_bytes: c.peak_reserved_bytes[i],
      before_history_bytes: c.before_history_bytes[i],
      allocated_at_dump_bytes: c.allocated_at_dump_bytes[i],
      reserved_at_dump_bytes: c.reserved_at_dump_bytes[i],
      alive_at_dump_bytes: c.alive_at_dump_bytes[i],
      segments: c.segments[i],
      oom_count: c.oom_count[i],
    });
  }
  const m = a.meta;
  const health: HealthRow[] = m.health.map((h) => ({ reason: h.what, severity: 'warning', count: h.count, sample_offset: null, message: `skipped: ${h.what}` }));
  // Loaded in part: the reader's sentence says what was lost and where.
  if (m.ok && m.error) health.unshift({ reason: 'truncated', severity: 'warning', count: 1, sample_offset: null, message: m.error });
  return {
    file: m.file,
    ok: m.ok,
    error: m.error,
    bytes: m.bytes,
    hasHistory: m.has_history,
    health,
    devices,
    allocatorSettings: Object.entries(m.allocator_settings ?? {}),
    annotations: m.external_annotations ?? [],
  };
}

/** The card's Summary of a snapshot: its sentence when it did not read, its health, its size. */
export function snapshotSummary(s: SnapshotInfo): Summary {
  const entries = s.devices.reduce((n, d) => n + d.trace_entries, 0);
  return {
    file: s.file,
    ok: s.ok,
    error: s.ok ? '' : s.error ?? 'This file is not a CUDA memory snapshot.',
    format: 'snapshot',
    schema: null,
    events: entries,
    categories: {},
    phases: {},
    kinds: {},
    devices: [],
    distributed: null,
    start_us: null,
    end_us: null,
    span_us: null,
    bytes: s.bytes,
    truncated: s.ok && !!s.error,
    health: s.health,
  };
}

/**
 * A site label (file:line:function, snapshot_site's) short enough for a table column: the file's
 * last two path parts after "…/" ("…/modules/linear.py:125:forward"), since the end is what tells
 * sites apart and a cell cut at its end showed only "/opt/torch/.venv/lib/python3.12/s…". Labels
 * without a path (<...> labels, "model.py:7:forward") are kept whole.
 */
export function shortSite(label: string): string {
  const m = /^(.*?)((?::\d+)?(?::[^:/]*)?)$/.exec(label);
  const file = m ? m[1] : label;
  const rest = m ? m[2] : '';
  const parts = file.split('/');
  if (label.startsWith('<') || parts.length <= 3) return label;
  return `…/${parts.slice(-2).join('/')}${rest}`;
}
