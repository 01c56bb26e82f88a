// Top-N pies (Operators, Kernels): the N largest values as slices and the rest summed as "Other",
// and the SVG arcs that draw them. Pure maths, tested on its own.

export interface Slice {
  label: string;
  value: number;
  /** Share of the sum of every positive value, in %. */
  pct: number;
  color: string;
  /** The slice of everything outside the top N. */
  other: boolean;
}

/** Ten distinguishable colors (Tableau 10), repeated past ten; "Other" is grey. */
export const PIE_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
export const OTHER_COLOR = '#8a8f98';
export const DEFAULT_TOP_N = 10;

/** The N the user typed, as a whole number from 1 to `max`; the default when it is not a number. */
export function clampTopN(input: string | number, max = 100): number {
  const n = typeof input === 'number' ? input : Number(String(input).trim());
  if (!Number.isFinite(n) || String(input).trim() === '') return DEFAULT_TOP_N;
  return Math.min(max, Math.max(1, Math.floor(n)));
}

/**
 * The `n` largest positive values (ties keep source order) as slices, then one "Other" slice with
 * the sum of the rest when the rest is positive. Zero, negative and missing (NaN) values take no
 * part: they would be invisible slices, and a negative one would bend the total.
 */
export function topSlices(count: number, label: (i: number) => string, value: (i: number) => number, n: number): Slice[] {
  // One pass keeping the top `n` in order (n is small, rows may be 100k): no full sort.
  const k = Math.max(1, n);
  const top: number[] = [];
  const vals: number[] = [];
  let total = 0;
  let positives = 0;
  for (let i = 0; i < count; i++) {
    const v = value(i);
    if (!(v > 0) || !Number.isFinite(v)) continue;
    total += v;
    positives++;
    if (top.length === k && v <= vals[k - 1]) continue;
    // After every value >= v: equal values keep source order.
    let at = top.length;
    while (at > 0 && vals[at - 1] < v) at--;
    top.splice(at, 0, i);
    vals.splice(at, 0, v);
    if (top.length > k) {
      top.pop();
      vals.pop();
    }
  }
  if (!top.length) return [];
  const out: Slice[] = top.map((i, j) => ({
    label: label(i),
    value: vals[j],
    pct: (vals[j] / total) * 100,
    color: PIE_COLORS[j % PIE_COLORS.length],
    other: false,
  }));
  const others = positives - top.length;
  const left = Math.max(0, total - vals.reduce((a, v) => a + v, 0));
  if (others > 0 && left > 0) out.push({ label: 'Other', value: left, pct: (left / total) * 100, color: OTHER_COLOR, other: true });
  return out;
}

/** Fixed parts of a whole (e.g. Tensor Cores: used, unknown, not used) as slices; empty parts are left out. */
export function partSlices(parts: readonly { label: string; value: number; color?: string }[]): Slice[] {
  const total = parts.reduce((a, p) => a + Math.max(0, p.value), 0);
  if (!(total > 0)) return [];
  return parts
    .map((p, k) => ({
      label: p.label,
      value: Math.max(0, p.value),
      pct: (Math.max(0, p.value) / total) * 100,
      color: p.color ?? PIE_COLORS[k % PIE_COLORS.length],
      other: false,
    }))
    .filter((s) => s.value > 0);
}

export interface Arc {
  /** SVG path `d`: a wedge from the centre, or a full circle drawn as two half arcs. */
  d: string;
  /** Where the slice starts and ends, as fractions of the turn (0 at 12 o'clock, clockwise). */
  from: number;
  to: number;
}

function point(cx: number, cy: number, r: number, frac: number): string {
  const a = frac * 2 * Math.PI - Math.PI / 2;
  return `${round3(cx + r * Math.cos(a))} ${round3(cy + r * Math.sin(a))}`;
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

/** The arcs of the slices around a circle of radius r centred at (cx, cy), in slice order. */
export function pieArcs(slices: readonly Slice[], cx: number, cy: number, r: number): Arc[] {
  const total = slices.reduce((a, s) => a + s.value, 0);
  if (!(total > 0)) return [];
  let at = 0;
  return slices.map((s) => {
    const from = at;
    const to = at + s.value / total;
    at = to;
    let d: string;
    if (to - from >= 1 - 1e-9) {
      // One slice is the whole pie: an arc cannot start and end at the same point.
      d = `M ${point(cx, cy, r, 0)} A ${r} ${r} 0 1 1 ${point(cx, cy, r, 0.5)} A ${r} ${r} 0 1 1 ${point(cx, cy, r, 0)} Z`;
    } else {
      const large = to - from > 0.5 ? 1 : 0;
      d = `M ${cx} ${cy} L ${point(cx, cy, r, from)} A ${r} ${r} 0 ${large} 1 ${point(cx, cy, r, to)} Z`;
    }
    return { d, from, to };
  });
}

/** The hover text of a slice: "aten::conv2d: 1,234.5 us (12.34 %)". */
export function sliceText(s: Slice, format: (v: number) => string): string {
  return `${s.label}: ${format(s.value)} (${s.pct.toFixed(2)} %)`;
}

/** How many characters a pie legend's label shows before it is shortened (the full name is its hover text). */
export const LEGEND_CHARS = 40;

/**
 * Legend labels of at most `max` characters that tell the slices apart. Cutting the end alone
 * makes names that differ only late (cuBLAS's `nvjet_sm90_tst_192x192_64x4_…` and `…_64x3_…`,
 * C++ kernels whose template arguments differ) read the same; so a label that shares its first
 * `max - 1` characters with another keeps a head, then the part from where it first differs from
 * the most alike other label: its end when that fits, else that part with "…" on both sides.
 * Labels that fit are left as they are; a label unlike the others in its first `max - 1`
 * characters is cut at the end.
 */
export function legendLabels(labels: readonly string[], max = LEGEND_CHARS): string[] {
  const common = (a: string, b: string) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  return labels.map((label, k) => {
    if (label.length <= max) return label;
    let d = 0;
    labels.forEach((other, j) => {
      if (j !== k && other !== label) d = Math.max(d, common(label, other));
    });
    d = Math.min(d, label.length - 1);
    if (d < max - 1) return label.slice(0, max - 1) + '…';
    const head = Math.max(4, Math.floor(max * 0.35));
    const rest = max - head - 1;
    // The shown part starts a few characters before the difference, on a "_" or "," when one is near.
    if (label.length - d <= rest) return label.slice(0, head) + '…' + label.slice(label.length - rest);
    let from = d;
    for (let back = 1; back <= 6 && from - back > head; back++) {
      if (/[_,:<( ]/.test(label[d - back])) {
        from = d - back + 1;
        break;
      }
    }
    return label.slice(0, head) + '…' + label.slice(from, from + rest - 1) + '…';
  });
}
