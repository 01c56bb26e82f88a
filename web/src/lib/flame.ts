// Layout of the Module view's flame graph (an icicle: time left to right, the outermost module on
// top), free of the DOM so it is tested on its own. components/flame-graph.tsx only paints the
// boxes this computes and turns pointer and key events into calls here.

/** What the layout needs of a thread's tree (lib/modules.ts ModuleTree has these). */
export interface FlameSource {
  rowCount: number;
  kind: readonly string[];
  startUs: ArrayLike<number>;
  endUs: ArrayLike<number>;
  parent: ArrayLike<number>;
}

/** The kinds of node drawn: module frames, their .backward nodes and Lightning's ranges. */
export const FLAME_KINDS: ReadonlySet<string> = new Set(['module', 'backward', 'pl_module', 'pl_profile']);

/** The drawn nodes and their level (0 = top row), in tree (pre-)order, which is time order per level. */
export interface Flame {
  nodes: Int32Array;
  level: Int32Array;
  /** Index into `nodes` of each tree node, -1 when it is not drawn. */
  at: Int32Array;
  /** Each drawn node's nearest drawn ancestor, as an index into `nodes` (-1: none). */
  up: Int32Array;
  levels: number;
  startUs: number;
  endUs: number;
}

export function buildFlame(t: FlameSource): Flame {
  const at = new Int32Array(t.rowCount).fill(-1);
  const nodes: number[] = [];
  const level: number[] = [];
  const up: number[] = [];
  let levels = 0;
  let startUs = Infinity;
  let endUs = -Infinity;
  for (let i = 0; i < t.rowCount; i++) {
    if (!FLAME_KINDS.has(t.kind[i])) continue;
    // The nearest drawn ancestor: parents come before children, so it is placed already.
    let p = t.parent[i];
    while (p >= 0 && at[p] < 0) p = t.parent[p];
    const u = p >= 0 ? at[p] : -1;
    const l = u >= 0 ? level[u] + 1 : 0;
    at[i] = nodes.length;
    nodes.push(i);
    level.push(l);
    up.push(u);
    levels = Math.max(levels, l + 1);
    startUs = Math.min(startUs, t.startUs[i]);
    endUs = Math.max(endUs, t.endUs[i]);
  }
  if (!nodes.length) startUs = endUs = 0;
  return { nodes: Int32Array.from(nodes), level: Int32Array.from(level), at, up: Int32Array.from(up), levels, startUs, endUs };
}

/** The time window shown, µs. */
export interface Span {
  from: number;
  to: number;
}

export interface Box {
  /** Index into Flame.nodes. */
  k: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Boxes narrower than this are not drawn (nor hit): a line of sub-pixel slivers says nothing. */
export const MIN_BOX_PX = 0.5;

/** The boxes of the nodes inside `view` on a canvas `width` px wide, rows `rowPx` high. */
export function layout(f: Flame, t: FlameSource, view: Span, width: number, rowPx: number): Box[] {
  const span = view.to - view.from;
  if (!(span > 0) || !(width > 0)) return [];
  const scale = width / span;
  const out: Box[] = [];
  for (let k = 0; k < f.nodes.length; k++) {
    const i = f.nodes[k];
    const s = t.startUs[i];
    const e = t.endUs[i];
    if (e <= view.from || s >= view.to) continue;
    const x0 = Math.max(0, (s - view.from) * scale);
    const x1 = Math.min(width, (e - view.from) * scale);
    if (x1 - x0 < MIN_BOX_PX) continue;
    out.push({ k, x: x0, y: f.level[k] * rowPx, w: x1 - x0, h: rowPx });
  }
  return out;
}

/** The box under (x, y), the innermost (last drawn) when they touch; -1 for none. */
export function hit(boxes: readonly Box[], x: number, y: number): number {
  for (let b = boxes.length - 1; b >= 0; b--) {
    const o = boxes[b];
    if (x >= o.x && x < o.x + o.w && y >= o.y && y < o.y + o.h) return o.k;
  }
  return -1;
}

/** The narrowest window a zoom reaches, µs (a nanosecond). */
export const MIN_SPAN_US = 0.001;

/** `view` zoomed by `factor` (< 1 in, > 1 out) around the point at `frac` (0..1) of its width, kept inside `whole`. */
export function zoom(view: Span, frac: number, factor: number, whole: Span): Span {
  const span = view.to - view.from;
  const wholeSpan = whole.to - whole.from;
  const next = Math.min(wholeSpan, Math.max(MIN_SPAN_US, span * factor));
  const at = view.from + span * Math.min(1, Math.max(0, frac));
  return clamp({ from: at - next * frac, to: at - next * frac + next }, whole);
}

/** `view` moved by `frac` of its width (negative: left), kept inside `whole`. */
export function pan(view: Span, frac: number, whole: Span): Span {
  const d = (view.to - view.from) * frac;
  return clamp({ from: view.from + d, to: view.to + d }, whole);
}

function clamp(v: Span, whole: Span): Span {
  const span = v.to - v.from;
  if (span >= whole.to - whole.from) return { ...whole };
  if (v.from < whole.from) return { from: whole.from, to: whole.from + span };
  if (v.to > whole.to) return { from: whole.to - span, to: whole.to };
  return v;
}

/** The window that shows node k whole, with a margin of a tenth of its width each side. */
export function focus(f: Flame, t: FlameSource, k: number, whole: Span): Span {
  const i = f.nodes[k];
  const w = Math.max(MIN_SPAN_US, t.endUs[i] - t.startUs[i]);
  return clamp({ from: t.startUs[i] - w / 10, to: t.endUs[i] + w / 10 }, whole);
}

export type Move = 'left' | 'right' | 'up' | 'down';

/**
 * The node an arrow key goes to from node k: left/right the previous/next box on the same row
 * (time order), up the enclosing module, down its first inner one. k itself when there is none;
 * with nothing selected (-1), the first top-row node.
 */
export function step(f: Flame, k: number, move: Move): number {
  const n = f.nodes.length;
  if (!n) return -1;
  if (k < 0 || k >= n) return 0;
  switch (move) {
    case 'up':
      return f.up[k] >= 0 ? f.up[k] : k;
    case 'down':
      // Pre-order: the first child, if any, follows right after.
      return k + 1 < n && f.up[k + 1] === k ? k + 1 : k;
    case 'left':
      for (let j = k - 1; j >= 0; j--) if (f.level[j] === f.level[k]) return j;
      return k;
    case 'right':
      for (let j = k + 1; j < n; j++) if (f.level[j] === f.level[k]) return j;
      return k;
  }
}

/** A stable colour index for a name (the same module gets the same colour on every row and run). */
export function colorIndex(name: string, colors: number): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) % colors;
}

/** The text that fits `px` at `charPx` per character: whole, cut with "…", or nothing. */
export function fitLabel(text: string, px: number, charPx: number): string {
  const room = Math.floor((px - 6) / charPx);
  if (room >= text.length) return text;
  if (room < 3) return '';
  return text.slice(0, room - 1) + '…';
}
