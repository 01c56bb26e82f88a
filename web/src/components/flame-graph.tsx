// The Module view's flame graph: one thread's module frames over time as an icicle (outermost on
// top), drawn on a canvas. The layout, hit testing, zoom and key moves are lib/flame.ts; this only
// paints and listens. Wheel or +/− zooms around the pointer (or the middle), a drag pans, a click
// selects a box, a double click (or Enter) zooms to it, 0 shows the whole thread again; the arrow
// keys move the selection box to box.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useResize } from './use-resize';
import { buildFlame, colorIndex, fitLabel, focus, hit, layout, pan, step, zoom, type Box, type FlameSource, type Move, type Span } from '../lib/flame';
import { formatDurationUs } from '../lib/format';
import { shortName } from '../lib/modules';

export interface FlameNodes extends FlameSource {
  name: readonly string[];
  hostTotalUs: ArrayLike<number>;
  hostSelfUs: ArrayLike<number>;
  deviceTotalUs: ArrayLike<number>;
  row: ArrayLike<number>;
}

const ROW_PX = 22;
const CHAR_PX = 6.6;
const HUES = 12;
const KEY_MOVES: Record<string, Move> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };

interface Colors {
  fg: string;
  muted: string;
  card: string;
  accent: string;
  dark: boolean;
}

function readColors(el: Element): Colors {
  const s = getComputedStyle(el);
  const v = (n: string, f: string) => s.getPropertyValue(n).trim() || f;
  const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  return { fg: v('--fg', '#1b1c1f'), muted: v('--muted', '#5f6470'), card: v('--card', '#fff'), accent: v('--accent', '#3b5bdb'), dark };
}

/** A box's fill: a hue per module name; backward passes paler (light) or darker (dark). */
function fill(name: string, kind: string, c: Colors): string {
  const h = (colorIndex(shortName(name).replace(/\.backward$/, ''), HUES) * 360) / HUES;
  const back = kind === 'backward';
  if (kind === 'pl_profile') return c.dark ? 'hsl(220, 8%, 30%)' : 'hsl(220, 10%, 86%)';
  return c.dark ? `hsl(${h}, ${back ? 25 : 45}%, ${back ? 24 : 34}%)` : `hsl(${h}, ${back ? 45 : 60}%, ${back ? 88 : 76}%)`;
}

export function FlameGraph({
  nodes,
  selected,
  highlightRow,
  onPick,
  label,
  format = formatDurationUs,
}: {
  nodes: FlameNodes;
  /** The tree node selected (a box outlined), -1 for none. */
  selected: number;
  /** Boxes of this table row (every call of the selected module) are marked; -1 for none. */
  highlightRow: number;
  onPick: (node: number) => void;
  label: string;
  /** How a box's extent reads (default: a duration; a memory snapshot's flame graph: bytes). */
  format?: (v: number) => string;
}) {
  const flame = useMemo(() => buildFlame(nodes), [nodes]);
  const whole: Span = useMemo(() => ({ from: flame.startUs, to: flame.endUs > flame.startUs ? flame.endUs : flame.startUs + 1 }), [flame]);
  const [view, setView] = useState<Span>(whole);
  useEffect(() => setView(whole), [whole]);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<{ k: number; x: number; y: number } | null>(null);
  const [scheme, setScheme] = useState(0);
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const drag = useRef<{ x: number; view: Span; moved: boolean } | null>(null);
  const height = Math.max(1, flame.levels) * ROW_PX;
  const boxes: Box[] = useMemo(() => layout(flame, nodes, view, width, ROW_PX), [flame, nodes, view, width]);
  const selectedK = selected >= 0 && selected < flame.at.length ? flame.at[selected] : -1;

  useResize(wrap, (el) => el.clientWidth && setWidth(el.clientWidth));
  // Light/dark follows the system while the page is open.
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const mq = matchMedia('(prefers-color-scheme: dark)');
    const on = () => setScheme((s) => s + 1);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);

  useEffect(() => {
    const cv = canvas.current;
    if (!cv || !width) return;
    const dpr = window.devicePixelRatio || 1;
    cv.width = Math.round(width * dpr);
    cv.height = Math.round(height * dpr);
    const ctx = cv.getContext('2d');
    if (!ctx) return;
    const c = readColors(cv);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (const b of boxes) {
      const i = flame.nodes[b.k];
      ctx.fillStyle = fill(nodes.name[i], nodes.kind[i], c);
      ctx.fillRect(b.x, b.y + 1, Math.max(1, b.w - 1), b.h - 2);
      if (highlightRow >= 0 && nodes.row[i] === highlightRow && nodes.kind[i] !== 'pl_profile') {
        ctx.strokeStyle = c.accent;
        ctx.lineWidth = 1;
        ctx.setLineDash(nodes.kind[i] === 'backward' ? [3, 2] : []);
        ctx.strokeRect(b.x + 0.5, b.y + 1.5, Math.max(1, b.w - 2), b.h - 3);
        ctx.setLineDash([]);
      }
      const text = fitLabel(shortName(nodes.name[i]), b.w, CHAR_PX);
      if (text) {
        ctx.fillStyle = c.fg;
        ctx.fillText(text, b.x + 3, b.y + b.h / 2);
      }
    }
    const sel = boxes.find((b) => b.k === selectedK);
    if (sel) {
      ctx.strokeStyle = c.accent;
      ctx.lineWidth = 2;
      ctx.strokeRect(sel.x + 1, sel.y + 2, Math.max(1, sel.w - 2), sel.h - 4);
    }
    const hv = hover && boxes.find((b) => b.k === hover.k);
    if (hv && hv !== sel) {
      ctx.strokeStyle = c.fg;
      ctx.lineWidth = 1;
      ctx.strokeRect(hv.x + 0.5, hv.y + 1.5, Math.max(1, hv.w - 1), hv.h - 3);
    }
  }, [boxes, width, height, selectedK, highlightRow, hover?.k, scheme]);

  const at = (ev: MouseEvent) => {
    const r = canvas.current!.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  };
  const pick = (k: number) => {
    if (k >= 0) onPick(flame.nodes[k]);
  };
  const zoomBy = (factor: number, frac = 0.5) => setView((v) => zoom(v, frac, factor, whole));

  const onKeyDown = (ev: KeyboardEvent) => {
    const move = KEY_MOVES[ev.key];
    if (move) {
      ev.preventDefault();
      const k = step(flame, selectedK, move);
      if (k >= 0) {
        pick(k);
        // Keep the box on screen: a box out of the window brings the window to it.
        const i = flame.nodes[k];
        if (nodes.endUs[i] <= view.from || nodes.startUs[i] >= view.to) setView(focus(flame, nodes, k, whole));
      }
    } else if (ev.key === '+' || ev.key === '=') {
      ev.preventDefault();
      zoomBy(0.5);
    } else if (ev.key === '-' || ev.key === '_') {
      ev.preventDefault();
      zoomBy(2);
    } else if (ev.key === '0') {
      ev.preventDefault();
      setView(whole);
    } else if (ev.key === 'Enter' && selectedK >= 0) {
      ev.preventDefault();
      setView(focus(flame, nodes, selectedK, whole));
    }
  };

  const hv = hover ? flame.nodes[hover.k] : -1;
  const zoomed = view.from > whole.from || view.to < whole.to;
  return (
    <div class="flame" data-testid="module-flame">
      <div class="flame-tools">
        <button type="button" data-testid="flame-zoom-in" onClick={() => zoomBy(0.5)} title="Zoom in (+)">
          Zoom in
        </button>
        <button type="button" data-testid="flame-zoom-out" onClick={() => zoomBy(2)} disabled={!zoomed} title="Zoom out (−)">
          Zoom out
        </button>
        <button type="button" data-testid="flame-reset" onClick={() => setView(whole)} disabled={!zoomed} title="Show the whole thread (0)">
          Whole thread
        </button>
        <span class="muted flame-window" data-testid="flame-window">
          {format(view.to - view.from)} shown of {format(whole.to - whole.from)}
        </span>
        <span class="muted flame-hint" title="Wheel or + / − zoom around the pointer, a drag pans, a click selects a module, a double click or Enter zooms to it, 0 shows the whole thread, the arrow keys move box to box.">
          Wheel or +/− zooms · drag pans · click selects · Enter zooms to it · arrows move
        </span>
      </div>
      {flame.nodes.length === 0 && (
        <p class="muted" data-testid="flame-empty">
          No module frames on this thread: pick another thread above.
        </p>
      )}
      <div class="flame-canvas-wrap" ref={wrap} style={{ height: `${height}px` }} hidden={flame.nodes.length === 0}>
        <canvas
          ref={canvas}
          tabIndex={0}
          role="img"
          aria-label={`${label}: ${flame.nodes.length} module frames over ${format(whole.to - whole.from)}${selectedK >= 0 ? `; selected ${shortName(nodes.name[selected])}` : ''}`}
          data-testid="module-flame-canvas"
          data-boxes={JSON.stringify(boxes.slice(0, 400).map((b) => [shortName(nodes.name[flame.nodes[b.k]]), Math.round(b.x), b.y, Math.round(b.w)]))}
          data-box-count={boxes.length}
          data-levels={flame.levels}
          data-selected={selectedK >= 0 ? nodes.name[selected] : ''}
          data-zoomed={zoomed ? 'true' : 'false'}
          style={{ width: `${width}px`, height: `${height}px` }}
          onKeyDown={onKeyDown}
          onWheel={(ev) => {
            if (!ev.deltaY) return;
            ev.preventDefault();
            const p = at(ev);
            zoomBy(ev.deltaY < 0 ? 0.8 : 1.25, width ? p.x / width : 0.5);
          }}
          onPointerDown={(ev) => {
            if (ev.button !== 0) return;
            drag.current = { x: ev.clientX, view, moved: false };
          }}
          onPointerMove={(ev) => {
            const d = drag.current;
            if (d && (ev.buttons & 1)) {
              const dx = ev.clientX - d.x;
              if (Math.abs(dx) > 3) d.moved = true;
              if (d.moved && width) {
                (ev.currentTarget as HTMLElement).setPointerCapture?.(ev.pointerId);
                setView(pan(d.view, -dx / width, whole));
              }
              return;
            }
            const p = at(ev);
            const k = hit(boxes, p.x, p.y);
            setHover(k >= 0 ? { k, x: p.x, y: p.y } : null);
          }}
          onPointerUp={(ev) => {
            const d = drag.current;
            drag.current = null;
            if (d && !d.moved) {
              const p = at(ev);
              pick(hit(boxes, p.x, p.y));
            }
          }}
          onPointerLeave={() => setHover(null)}
          onDblClick={(ev) => {
            const p = at(ev);
            const k = hit(boxes, p.x, p.y);
            if (k >= 0) setView(focus(flame, nodes, k, whole));
          }}
        />
        {hv >= 0 && hover && (
          <div
            class="flame-tip"
            data-testid="flame-tip"
            role="tooltip"
            style={{ left: `${Math.min(hover.x + 12, Math.max(0, width - 300))}px`, top: `${hover.y + 16}px` }}
          >
            <strong>{shortName(nodes.name[hv])}</strong>
            <span class="muted"> {nodes.kind[hv] === 'backward' ? 'backward pass' : nodes.kind[hv].replace('_', ' ')}</span>
            <br />
            {format(nodes.endUs[hv] - nodes.startUs[hv])} at {format(nodes.startUs[hv])}; self {format(nodes.hostSelfUs[hv])}
            {nodes.deviceTotalUs[hv] > 0 && <>; device {format(nodes.deviceTotalUs[hv])}</>}
          </div>
        )}
      </div>
    </div>
  );
}
