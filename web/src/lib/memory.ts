// The Memory view's data as the page holds it, read (and checked) from the core's answers
// (Session.memory*; docs/contracts.md "Memory"). Times are µs from the trace's time origin
// (tb_plugin's: its first kept event), sizes bytes.
import { Reader } from './json-check';

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

function readDevice(r: Reader): MemoryDevice {
  r.object();
  return {
    device: r.str('device'),
    peakAllocatedBytes: r.numOrNull('peak_allocated_bytes'),
    peakReservedBytes: r.numOrNull('peak_reserved_bytes'),
    records: r.num('records'),
    peakUs: r.numOrNull('peak_us'),
    allocatedFromBytes: r.bool('allocated_from_bytes'),
    hasAddresses: r.bool('has_addresses'),
  };
}

export function parseMemoryDevices(json: string): MemoryDevices {
  const root = Reader.parse('memoryDevicesJson', json);
  return {
    originUs: root.num('origin_us'),
    defaultDevice: root.strOrNull('default_device'),
    devices: root.field('devices').items().map(readDevice),
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

export function parseMemoryStats(json: string): MemoryStats {
  const root = Reader.parse('memoryStatsJson', json);
  const rows = root.field('rows').items();
  const n = rows.length;
  const s: MemoryStats = {
    device: readDevice(root.field('device')),
    rowCount: n,
    name: new Array(n),
    calls: new Float64Array(n),
    sizeIncrease: new Float64Array(n),
    selfSizeIncrease: new Float64Array(n),
    allocationCount: new Float64Array(n),
    selfAllocationCount: new Float64Array(n),
    allocationSize: new Float64Array(n),
    selfAllocationSize: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i].object();
    s.name[i] = r.str('name');
    s.calls[i] = r.num('calls');
    s.sizeIncrease[i] = r.num('size_increase_bytes');
    s.selfSizeIncrease[i] = r.num('self_size_increase_bytes');
    s.allocationCount[i] = r.num('allocation_count');
    s.selfAllocationCount[i] = r.num('self_allocation_count');
    s.allocationSize[i] = r.num('allocation_size_bytes');
    s.selfAllocationSize[i] = r.num('self_allocation_size_bytes');
  }
  return s;
}

/** The events table of one device in a window (Session.memoryEvents, checked). NaN: blank side. */
export interface MemoryEvents {
  rowCount: number;
  names: string[];
  op: Uint32Array;
  size: Float64Array;
  allocUs: Float64Array;
  releaseUs: Float64Array;
  durationUs: Float64Array;
  stacks: string[];
  stack: Uint32Array;
  /** Beside each entry of `stacks`: why a row pointing at an empty one has no stack ("" otherwise). */
  stackNotes: string[];
}

export function checkMemoryEvents(v: Record<string, unknown>): MemoryEvents {
  if (typeof v.error === 'string') throw new Error(v.error);
  const arr = <T>(k: string, ctor: new (...a: never[]) => T): T => {
    if (!(v[k] instanceof ctor)) throw new Error(`memoryEvents: ${k} should be a ${ctor.name}`);
    return v[k] as T;
  };
  const strs = (k: string): string[] => {
    const a = v[k];
    if (!Array.isArray(a) || a.some((x) => typeof x !== 'string')) throw new Error(`memoryEvents: ${k} should be strings`);
    return a as string[];
  };
  const op = arr('op', Uint32Array);
  const e: MemoryEvents = {
    rowCount: op.length,
    names: strs('names'),
    op,
    size: arr('size', Float64Array),
    allocUs: arr('alloc_us', Float64Array),
    releaseUs: arr('release_us', Float64Array),
    durationUs: arr('duration_us', Float64Array),
    stacks: strs('stacks'),
    stack: arr('stack', Uint32Array),
    stackNotes: Array.isArray(v.stack_notes) ? strs('stack_notes') : [],
  };
  for (const c of [e.size, e.allocUs, e.releaseUs, e.durationUs, e.stack]) {
    if (c.length !== e.rowCount) throw new Error('memoryEvents: columns of different lengths');
  }
  return e;
}

/** Curve points: time (µs from the origin), allocated and reserved bytes (NaN: not recorded). */
export interface MemoryCurve {
  device: string;
  t: Float64Array;
  allocated: Float64Array;
  reserved: Float64Array;
}

export function parseMemoryCurve(json: string): MemoryCurve {
  const root = Reader.parse('memoryCurveJson', json);
  const pts = root.field('points').items();
  const n = pts.length;
  const c: MemoryCurve = { device: root.str('device'), t: new Float64Array(n), allocated: new Float64Array(n), reserved: new Float64Array(n) };
  for (let i = 0; i < n; i++) {
    const p = pts[i].value;
    if (!Array.isArray(p) || p.length !== 3 || typeof p[0] !== 'number' || typeof p[1] !== 'number' || !(p[2] === null || typeof p[2] === 'number')) {
      throw new Error(`memoryCurveJson: points[${i}] should be [t, allocated, reserved|null]`);
    }
    c.t[i] = p[0];
    c.allocated[i] = p[1];
    c.reserved[i] = p[2] === null ? NaN : p[2];
  }
  return c;
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

export function parseMemoryAlive(json: string): MemoryAlive {
  const root = Reader.parse('memoryAliveJson', json);
  return {
    device: root.str('device'),
    atUs: root.num('at_us'),
    allocatedBytes: root.numOrNull('allocated_bytes'),
    aliveBytes: root.num('alive_bytes'),
    addresses: root.bool('addresses'),
    count: root.num('count'),
    rows: root
      .field('rows')
      .items()
      .map((r) => {
        r.object();
        return { operator: r.str('operator'), sizeBytes: r.num('size_bytes'), allocUs: r.num('alloc_us'), ageUs: r.num('age_us'), callStack: r.str('call_stack'), noStack: r.has('no_stack') ? r.str('no_stack') : '' };
      }),
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
