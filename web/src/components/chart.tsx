// One chart of the page, drawn by uPlot (a small, fast, maintained canvas chart library): this
// wrapper only creates it at the width its box has, follows resizes and the light/dark scheme,
// and destroys it. What a chart shows (series, scales, axes, hooks) is the caller's options.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

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

/** Axis settings in the page's colours and font. */
export function axisStyle(t: ChartTheme): Pick<uPlot.Axis, 'stroke' | 'grid' | 'ticks' | 'font'> {
  return {
    stroke: t.muted,
    grid: { stroke: t.grid, width: 1 },
    ticks: { stroke: t.grid, width: 1 },
    font: '11px system-ui, sans-serif',
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

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setWidth(Math.floor(el.clientWidth));
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [data, width, height, scheme]);

  return <div class="chart" ref={box} data-testid={testid} role="img" aria-label={label} />;
}
