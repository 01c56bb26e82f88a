// One chart of the page, drawn by uPlot (a small, fast, maintained canvas chart library): this
// wrapper only creates it at the width its box has, follows resizes and the light/dark scheme,
// and destroys it. What a chart shows (series, scales, axes, hooks) is the caller's options.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useResize } from './use-resize';
import { axisWidth } from '../lib/axis-size';
import { pixelColumns } from '../lib/dense-bars';

/** The page's colours for axes and grids, read from the CSS variables of the current scheme. */
export interface ChartTheme {
  fg: string;
  muted: string;
  grid: string;
  accent: string;
  card: string;
}

function readTheme(): ChartTheme {
  const s = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => s.getPropertyValue(name).trim() || fallback;
  return { fg: v('--fg', '#1b1c1f'), muted: v('--muted', '#5f6470'), grid: v('--border', '#dcdee3'), accent: v('--accent', '#3b5bdb'), card: v('--card', '#fff') };
}

/** `color` (#rgb or #rrggbb, as the page's variables are) at opacity `a`, for canvas fills. */
export function alpha(color: string, a: number): string {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return color;
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
  return `rgba(${r}, ${g}, ${b}, ${a})`;
}

const AXIS_FONT = '11px system-ui, sans-serif';

/** Axis settings in the page's colours and font. */
export function axisStyle(t: ChartTheme): Pick<uPlot.Axis, 'stroke' | 'grid' | 'ticks' | 'font'> {
  return {
    stroke: t.muted,
    grid: { stroke: t.grid, width: 1 },
    ticks: { stroke: t.grid, width: 1 },
    font: AXIS_FONT,
  };
}

let measurer: CanvasRenderingContext2D | null | undefined;
function measureAxisText(text: string): number {
  if (measurer === undefined) measurer = document.createElement('canvas').getContext('2d');
  if (!measurer) return text.length * 7;
  measurer.font = AXIS_FONT;
  return measurer.measureText(text).width;
}

/** A value axis's `size`: as wide as its longest tick label (lib/axis-size.ts), at least `min` px. */
export function fitLabels(min: number): uPlot.Axis.Size {
  return (_u, values) => axisWidth(values, min, measureAxisText);
}

/**
 * A series drawn as filled bars (no outline width, no points): uPlot's bars of `size` ([share of
 * the column, most pixels]) and `align` (-1 left of the x value, 0 centred, 1 right).
 */
export function barSeries(fill: string, size: [number, number], align: -1 | 0 | 1 = 0, stroke = fill) {
  return { fill, stroke, width: 0, points: { show: false }, paths: uPlot.paths.bars!({ size, align }) };
}

/**
 * uPlot's bars (`opts`), except when the columns are narrower than a pixel of the canvas: then
 * one bar per pixel column, as tall as the tallest column it holds (lib/dense-bars.ts
 * pixelColumns). uPlot's builder adds a rectangle per column, which for thousands of steps and
 * eight stacked series was most of the time the Overview took to draw; at that density its bars
 * have no gaps and cover the same pixels. The data stay per column, so hovering and clicking
 * still pick a column.
 */
export function denseBars(opts: Parameters<NonNullable<typeof uPlot.paths.bars>>[0]): uPlot.Series.PathBuilder {
  const bars = uPlot.paths.bars!(opts);
  return (u, seriesIdx, idx0, idx1) => {
    const xs = u.data[0];
    const ys = u.data[seriesIdx];
    const count = idx1 - idx0 + 1;
    if (count < 2 || count <= u.bbox.width) return bars(u, seriesIdx, idx0, idx1);
    const xPx = new Float64Array(count);
    const yPx = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const v = ys[idx0 + i];
      xPx[i] = u.valToPos(xs[idx0 + i], 'x', true);
      yPx[i] = v == null ? NaN : u.valToPos(v, 'y', true);
    }
    const base = u.valToPos(0, 'y', true);
    const cols = pixelColumns(xPx, yPx);
    const path = new Path2D();
    for (let k = 0; k < cols.x.length; k++) if (cols.y[k] < base) path.rect(cols.x[k], cols.y[k], 1, base - cols.y[k]);
    return { stroke: path, fill: path, clip: null, band: null, flags: 0 };
  };
}

export function Chart({
  options,
  data,
  height,
  testid,
  label,
  onReady,
}: {
  /** The options for a chart `width` px wide in theme `t` (width and height are set here). */
  options: (width: number, t: ChartTheme) => Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  height: number;
  testid?: string;
  /** What the chart shows, for screen readers (the canvas itself says nothing). */
  label: string;
  /** The chart, each time one is made (tests and callers reach it through this). */
  onReady?: (u: uPlot) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [scheme, setScheme] = useState(0);

  useResize(box, (el) => setWidth(Math.floor(el.clientWidth)));

  // A change of light/dark scheme redraws with the new colours.
  useEffect(() => {
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    if (!mq) return;
    const on = () => setScheme((n) => n + 1);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);

  useEffect(() => {
    const el = box.current;
    // Hidden (a tab not shown): no width to draw at; drawn when it is shown and measured.
    if (!el || width <= 0) return;
    const u = new uPlot({ ...options(width, readTheme()), width, height }, data, el);
    onReady?.(u);
    return () => u.destroy();
    // options is a new function each render: the chart is remade for new data, size or scheme.
  }, [data, width, height, scheme]);

  return <div class="chart" ref={box} data-testid={testid} role="img" aria-label={label} />;
}
