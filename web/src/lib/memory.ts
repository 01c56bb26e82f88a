// The Memory view's data as the page holds it: the core's answers (Session.query('memory_devices'
// | 'memory_stats' | 'memory_events' | 'memory_curve' | 'memory_alive'; docs/contracts.md), their
// number columns read in place, their strings through the answer's strings. Times are µs from the
// trace's time origin (tb_plugin's: its first kept event), sizes bytes.
import type { Answer } from '../generated/views';
import { stringColumn } from './answer';

export interface MemoryDevice {
  device: string;
  peakAllocatedBytes: number | null;
  peakReservedBytes: number | null;
  records: number;
  peakUs: number | null;
  /** No "Total Allocated" in the trace (PyTorch 1.9-era): allocated is the running sum of Bytes. */
  allocatedFromBytes: boolean;
  /** Records carry "Addr" (PyTorch >= 1.10): events pair and the alive list can be built. */
  hasAddresses: boolean;
}

export interface MemoryDevices {
  originUs: number;
  defaultDevice: string | null;
  devices: MemoryDevice[];
}

const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** The devices and their peaks (of the whole trace, or of the window the query named). */
export function memoryDevices(a: Answer<'memory_devices'>): MemoryDevices {
  const c = a.columns;
  const names = stringColumn(c.device, a.strings);
  return {
    originUs: a.meta.origin_us,
    defaultDevice: a.meta.default_device,
    devices: names.map((device, i) => ({
      device: device ?? '',
      peakAllocatedBytes: orNull(c.peak_allocated_bytes[i]),
      peakReservedBytes: orNull(c.peak_reserved_bytes[i]),
      records: c.records[i],
      peakUs: orNull(c.peak_us[i]),
      allocatedFromBytes: c.allocated_from_bytes[i] === 1,
      hasAddresses: c.has_addresses[i] === 1,
    })),
  };
}

/** The statistics table (columns) of one device in a window, and that device's peaks there. */
export interface MemoryStats {
  device: MemoryDevice;
  rowCount: number;
  name: string[];
  calls: Float64Array;
  sizeIncrease: Float64Array;
  selfSizeIncrease: Float64Array;
  allocationCount: Float64Array;
  selfAllocationCount: Float64Array;
  allocationSize: Float64Array;
  selfAllocationSize: Float64Array;
}

/** One device's statistics (the query named its device: the metadata holds its peaks in the window). */
export function memoryStats(a: Answer<'memory_stats'>): MemoryStats {
  const d = a.meta.device;
  if (!d) throw new Error('memory_stats: asked without a device');
  const c = a.columns;
  return {
    device: {
      device: d.device,
      peakAllocatedBytes: d.peak_allocated_bytes,
      peakReservedBytes: d.peak_reserved_bytes,
      records: d.records,
      peakUs: d.peak_us,
      allocatedFromBytes: d.allocated_from_bytes,
      hasAddresses: d.has_addresses,
    },
    rowCount: a.rowCount,
    name: stringColumn(c.name, a.strings) as string[],
    calls: c.calls,
    sizeIncrease: c.size_increase_bytes,
    selfSizeIncrease: c.self_size_increase_bytes,
    allocationCount: c.allocation_count,
    selfAllocationCount: c.self_allocation_count,
    allocationSize: c.allocation_size_bytes,
    selfAllocationSize: c.self_allocation_size_bytes,
  };
}

/** The events table of one device in a window. NaN: a blank side. */
export interface MemoryEvents {
  rowCount: number;
  /** The answer's strings: `op`, `stack` and `noStack` index them. */
  strings: string[];
  op: Uint32Array;
  size: Float64Array;
  allocUs: Float64Array;
  releaseUs: Float64Array;
  durationUs: Float64Array;
  /** The allocating operator's call stack ("" : none). */
  stack: Uint32Array;
  /** Why a row has no call stack ("" when it has one). */
  noStack: Uint32Array;
}

export function memoryEvents(a: Answer<'memory_events'>): MemoryEvents {
  const c = a.columns;
  return {
    rowCount: a.rowCount,
    strings: a.strings,
    op: c.operator,
    size: c.size_bytes,
    allocUs: c.alloc_us,
    releaseUs: c.release_us,
    durationUs: c.duration_us,
    stack: c.call_stack,
    noStack: c.no_stack,
  };
}

/** Curve points: time (µs from the origin), allocated and reserved bytes (NaN: not recorded). */
export interface MemoryCurve {
  device: string;
  t: Float64Array;
  allocated: Float64Array;
  reserved: Float64Array;
}

export function memoryCurve(a: Answer<'memory_curve'>): MemoryCurve {
  const c = a.columns;
  return { device: a.meta.device ?? '', t: c.t_us, allocated: c.allocated_bytes, reserved: c.reserved_bytes };
}

export interface AliveRow {
  operator: string;
  sizeBytes: number;
  allocUs: number;
  ageUs: number;
  callStack: string;
  /** Why it has no call stack ("" when it has one). */
  noStack: string;
}

export interface MemoryAlive {
  device: string;
  atUs: number;
  allocatedBytes: number | null;
  aliveBytes: number;
  addresses: boolean;
  count: number;
  rows: AliveRow[];
}

export function memoryAlive(a: Answer<'memory_alive'>): MemoryAlive {
  const c = a.columns, s = a.strings;
  const rows: AliveRow[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    rows.push({ operator: s[c.operator[i]], sizeBytes: c.size_bytes[i], allocUs: c.alloc_us[i], ageUs: c.age_us[i], callStack: s[c.call_stack[i]], noStack: s[c.no_stack[i]] });
  }
  const m = a.meta;
  return { device: m.device, atUs: m.at_us, allocatedBytes: m.allocated_bytes, aliveBytes: m.alive_bytes, addresses: m.addresses, count: m.count, rows };
}

/** A query's window as the memory answers' parameters (µs from the origin; an absent side: open). */
export function windowParams(fromUs?: number, toUs?: number): { from_us?: string; to_us?: string } {
  return {
    ...(fromUs != null && Number.isFinite(fromUs) ? { from_us: String(fromUs) } : {}),
    ...(toUs != null && Number.isFinite(toUs) ? { to_us: String(toUs) } : {}),
  };
}

/** Bytes as the Memory view prints them: B, KB, MB, GB (powers of 1024, as tb_plugin), sign kept. */
export function formatMemBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '';
  const a = Math.abs(bytes);
  const sign = bytes < 0 ? '-' : '';
  if (a < 1024) return `${bytes} B`;
  if (a < 1024 ** 2) return `${sign}${+(a / 1024).toFixed(2)} KB`;
  if (a < 1024 ** 3) return `${sign}${+(a / 1024 ** 2).toFixed(2)} MB`;
  return `${sign}${+(a / 1024 ** 3).toFixed(2)} GB`;
}

/** A time in µs from the origin as ms with up to 3 decimals ("12.345 ms"). */
export function formatMemMs(us: number): string {
  return Number.isFinite(us) ? `${+(us / 1000).toFixed(3)} ms` : '';
}

/** The range of a deep link (`mem_from`, `mem_to`, µs): both finite and ordered, else null. */
export function linkRange(from: string | undefined, to: string | undefined): [number, number] | null {
  if (from == null || to == null) return null;
  const a = Number(from), b = Number(to);
  return Number.isFinite(a) && Number.isFinite(b) && a <= b ? [a, b] : null;
}

/**
 * Round ticks for a bytes axis from 0 to `max`: steps of 1, 2, 2.5 or 5 × 10^n of one unit (B, KB,
 * MB, GB of 1024), at most six intervals, all labelled in that unit.
 */
export function byteSplits(max: number): { ticks: number[]; unit: number; name: string } {
  const names = ['B', 'KB', 'MB', 'GB', 'TB'];
  let k = 0;
  while (k < names.length - 1 && max >= 1024 ** (k + 1)) k++;
  const unit = 1024 ** k;
  const span = Math.max(max / unit, 1e-9);
  const mag = 10 ** Math.floor(Math.log10(span / 6));
  const step = ([1, 2, 2.5, 5, 10].find((m) => span / (m * mag) <= 6) ?? 10) * mag;
  const ticks: number[] = [];
  for (let v = 0; v <= span + 1e-9 && ticks.length < 50; v += step) ticks.push(+(v.toFixed(10)) * unit);
  return { ticks, unit, name: names[k] };
}
