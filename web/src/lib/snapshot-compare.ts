// Two memory snapshots side by side (issue 26, "Compare two snapshots"), as `kinetoscope snapshot
// --compare A B --json` prints them (core/snapshot/snapshot_compare.h): each snapshot lives in its
// own worker Session, so the page asks each for its side (the snapshot-compare-side view: its peak,
// every site alive at it, the categories at it) and pairs the two here, in compare_snapshots'
// order; and asks each for its active memory curve (snapshot-timeline-columns on the time axis),
// drawn on one axis of time since each one's first entry.
import type { Answer } from '../generated/views';

export interface SideSite {
  frame: string;
  bytes: number;
  allocations: number;
}

export interface CompareSide {
  device: number;
  hasDevice: boolean;
  traceEntries: number;
  peakAllocatedBytes: number;
  peakEntry: number;
  peakAtUs: number | null;
  peakReservedBytes: number;
  ooms: number;
  sites: SideSite[];
  categories: { category: string; bytes: number; allocations: number }[];
}

export function compareSideOf(a: Answer<'snapshot-compare-side'>): CompareSide {
  const c = a.columns;
  const m = a.meta;
  return {
    device: m.device,
    hasDevice: m.has_device,
    traceEntries: m.trace_entries,
    peakAllocatedBytes: m.peak_allocated_bytes,
    peakEntry: m.peak_entry,
    peakAtUs: m.peak_at_us,
    peakReservedBytes: m.peak_reserved_bytes,
    ooms: m.ooms,
    sites: Array.from({ length: a.rowCount }, (_, i) => ({ frame: a.strings[c.frame[i]], bytes: c.bytes[i], allocations: c.allocations[i] })),
    categories: m.categories,
  };
}

/** A site of either peak, as --compare's `sites`. */
export interface CompareSite {
  frame: string;
  a_bytes: number;
  b_bytes: number;
  growth_bytes: number;
  a_allocations: number;
  b_allocations: number;
}

export interface Comparison {
  device: number;
  a: CompareSide;
  b: CompareSide;
  peak_growth_bytes: number;
  /** Every site alive at either peak, most grown first (then the largest in B, then by name). */
  sites: CompareSite[];
  categories: { category: string; a_bytes: number; b_bytes: number }[];
}

/** Strings in the order of C++'s std::string < (UTF-8 bytes, i.e. code points), not UTF-16 units. */
export function byCodePoint(x: string, y: string): number {
  if (x === y) return 0;
  const a = x[Symbol.iterator]();
  const b = y[Symbol.iterator]();
  for (;;) {
    const p = a.next();
    const q = b.next();
    if (p.done || q.done) return p.done ? (q.done ? 0 : -1) : 1;
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d) return d;
  }
}

/** Sides A and B of one device paired as compare_snapshots pairs them. */
export function compareSides(a: CompareSide, b: CompareSide): Comparison {
  const at = new Map<string, CompareSite>();
  const row = (frame: string) => {
    let r = at.get(frame);
    if (!r) at.set(frame, (r = { frame, a_bytes: 0, b_bytes: 0, growth_bytes: 0, a_allocations: 0, b_allocations: 0 }));
    return r;
  };
  for (const s of a.sites) Object.assign(row(s.frame), { a_bytes: s.bytes, a_allocations: s.allocations });
  for (const s of b.sites) Object.assign(row(s.frame), { b_bytes: s.bytes, b_allocations: s.allocations });
  const sites = [...at.values()];
  for (const s of sites) s.growth_bytes = s.b_bytes - s.a_bytes;
  sites.sort((x, y) => y.growth_bytes - x.growth_bytes || y.b_bytes - x.b_bytes || byCodePoint(x.frame, y.frame));
  const bOf = new Map(b.categories.map((c) => [c.category, c.bytes]));
  return {
    device: a.device,
    a,
    b,
    peak_growth_bytes: b.peakAllocatedBytes - a.peakAllocatedBytes,
    sites,
    categories: a.categories.map((c) => ({ category: c.category, a_bytes: c.bytes, b_bytes: bOf.get(c.category) ?? 0 })),
  };
}

/** A snapshot's active memory curve: time since its first entry (µs) and the bytes allocated then. */
export interface Curve {
  t: number[];
  bytes: number[];
}

/** The curve of a snapshot-timeline-columns answer asked on the time axis (null: no times). */
export function curveOf(a: Answer<'snapshot-timeline-columns'>): Curve | null {
  const first = a.meta.first_us;
  if (a.meta.axis !== 'time' || first == null) return null;
  const c = a.columns;
  const t: number[] = [];
  const bytes: number[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    const x = c.time_us[i] - first;
    if (!Number.isFinite(x)) continue;
    // Columns drawn at one state share its time: keep the most allocated of them.
    if (t.length && t[t.length - 1] === x) bytes[bytes.length - 1] = Math.max(bytes[bytes.length - 1], c.allocated_bytes[i]);
    else t.push(x), bytes.push(c.allocated_bytes[i]);
  }
  return { t, bytes };
}

/** Two curves on one x axis (the union of their times; null where a curve has no point). */
export function joinCurves(a: Curve | null, b: Curve | null): [number[], (number | null)[], (number | null)[]] {
  const xs = [...new Set([...(a?.t ?? []), ...(b?.t ?? [])])].sort((x, y) => x - y);
  const at = (c: Curve | null) => {
    const m = new Map(c ? c.t.map((t, i) => [t, c.bytes[i]]) : []);
    return xs.map((x) => m.get(x) ?? null);
  };
  return [xs, at(a), at(b)];
}
