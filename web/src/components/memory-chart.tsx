// The Memory view's curve (views/memory-view.tsx): allocated and reserved memory of one device over
// time as a stepped uPlot chart, with the steps' boundaries, the peak and the alive list's moment
// drawn on its canvas. Dragging selects a range (onRange), a click picks a moment (onAt), a
// double-click goes back to the whole trace (onRange(null)). Times are µs from the trace's origin
// (shown as ms); one uPlot per device and series layout, fed each new range's curve.
import uPlot from 'uplot';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { alpha, axisStyle, Chart, fitLabels, type ChartTheme } from './chart';
import { byteSplits, formatMemBytes, formatMemMs, type MemoryCurve } from '../lib/memory';
import type { Step } from '../lib/overview';

/** The curve's height in CSS pixels (the view's placeholder keeps it while the curve comes). */
export const CURVE_HEIGHT = 260;

type Range = [number, number];

export function MemoryChart({
  curve,
  win,
  steps,
  originUs,
  aliveAt,
  onRange,
  onAt,
  onDrawn,
}: {
  curve: MemoryCurve;
  win: Range | null;
  steps: readonly Step[];
  originUs: number;
  aliveAt: number | null;
  onRange: (r: Range | null) => void;
  onAt: (us: number) => void;
  onDrawn: () => void;
}) {
  const [readout, setReadout] = useState<number | null>(null);
  const data = useMemo(() => {
    const x = new Float64Array(curve.t.length);
    for (let i = 0; i < x.length; i++) x[i] = curve.t[i] / 1000;
    const hasReserved = curve.reserved.some((v) => Number.isFinite(v));
    const reserved = Array.from(curve.reserved, (v) => (Number.isFinite(v) ? v : null));
    return { aligned: (hasReserved ? [x, curve.allocated, reserved] : [x, curve.allocated]) as uPlot.AlignedData, hasReserved };
  }, [curve]);
  const peak = useMemo(() => {
    let k = -1;
    for (let i = 0; i < curve.allocated.length; i++) if (k < 0 || curve.allocated[i] > curve.allocated[k]) k = i;
    return k;
  }, [curve]);
  // One uPlot per device and series layout: a new range's curve is handed to it (setData), which
  // redraws without building the chart again; its hooks read the current curve through `latest`.
  const latest = useRef({ onRange, onAt, aliveAt, curve, peak, win, aligned: data.aligned });
  latest.current = { onRange, onAt, aliveAt, curve, peak, win, aligned: data.aligned };
  const plot = useRef<uPlot | null>(null);
  const shape = `${curve.device}|${data.hasReserved}`;
  // The data the chart is made with: made again only for a new device or series layout.
  const first = useMemo(() => data.aligned, [shape]);
  useEffect(() => {
    const u = plot.current;
    if (u && u.data !== data.aligned && first !== data.aligned) u.setData(data.aligned);
  }, [data.aligned, first]);
  useEffect(() => {
    plot.current?.redraw(false, false); // the alive marker moved
  }, [aliveAt]);
  const options = (_w: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => {
    const reservedColor = t.muted;
    return {
      scales: {
        // The whole trace starts at its time origin; a range is shown as selected.
        x: {
          time: false,
          range: (_u, min, max) => {
            const w = latest.current.win;
            return w ? [w[0] / 1000, w[1] / 1000] : [Math.min(0, min), max > 0 ? max : 1];
          },
        },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.12 : 1] },
      },
      axes: [
        { ...axisStyle(t), values: (_u, vals) => vals.map((v) => `${+v.toFixed(3)} ms`) },
        {
          ...axisStyle(t),
          size: fitLabels(76),
          splits: (_u, _i, _min, max) => byteSplits(max).ticks,
          values: (_u, vals) => {
            const { unit, name } = byteSplits(Math.max(...vals));
            return vals.map((v) => `${+(v / unit).toFixed(2)} ${name}`);
          },
        },
      ],
      series: [
        {},
        { label: 'Allocated', stroke: t.accent, fill: alpha(t.accent, 0.18), width: 1.5, points: { show: false }, paths: uPlot.paths.stepped!({ align: 1 }) },
        ...(data.hasReserved
          ? [{ label: 'Reserved', stroke: reservedColor, width: 1, dash: [4, 3], points: { show: false }, paths: uPlot.paths.stepped!({ align: 1 }), spanGaps: true }]
          : []),
      ],
      legend: { show: false },
      cursor: { points: { show: false }, drag: { x: true, y: false, setScale: false }, y: false },
      select: { show: true, left: 0, top: 0, width: 0, height: 0 },
      hooks: {
        setCursor: [(u) => setReadout(u.cursor.idx ?? null)],
        setSelect: [
          (u) => {
            const s = u.select;
            if (s.width < 3) return;
            const a = u.posToVal(s.left, 'x') * 1000, b = u.posToVal(s.left + s.width, 'x') * 1000;
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            latest.current.onRange([Math.max(0, a), b]);
          },
        ],
        ready: [
          (u) => {
            plot.current = u;
            // A chart made again (resize, scheme) starts from the data it was made with.
            if (u.data !== latest.current.aligned) u.setData(latest.current.aligned);
            let downX = 0;
            u.over.addEventListener('mousedown', (e) => (downX = e.clientX));
            u.over.addEventListener('click', (e) => {
              if (Math.abs(e.clientX - downX) > 2) return; // that was a drag
              const rect = u.over.getBoundingClientRect();
              latest.current.onAt(u.posToVal(e.clientX - rect.left, 'x') * 1000);
            });
            u.over.addEventListener('dblclick', () => latest.current.onRange(null));
          },
        ],
        draw: [
          (u) => {
            const ctx = u.ctx;
            const { top, height, left, width } = u.bbox;
            ctx.save();
            ctx.beginPath();
            ctx.rect(left, top, width, height);
            ctx.clip();
            // Step boundaries: a dashed line at each step's start (and the last one's end), named.
            ctx.strokeStyle = alpha(t.muted, 0.7);
            ctx.fillStyle = t.muted;
            ctx.setLineDash([3, 4]);
            ctx.lineWidth = 1;
            ctx.font = `${Math.round(10 * devicePixelRatio)}px system-ui, sans-serif`;
            ctx.textAlign = 'left'; // uPlot leaves the last axis' alignment set
            ctx.textBaseline = 'alphabetic';
            const marks = steps.map((s) => ({ x: (s.start_us - originUs) / 1000, label: s.name }));
            if (steps.length) marks.push({ x: (steps[steps.length - 1].end_us - originUs) / 1000, label: '' });
            let lastLabel = -Infinity;
            for (const m of marks) {
              const px = u.valToPos(m.x, 'x', true);
              if (px < left || px > left + width) continue;
              ctx.beginPath();
              ctx.moveTo(px, top);
              ctx.lineTo(px, top + height);
              ctx.stroke();
              if (m.label && px - lastLabel > 40 * devicePixelRatio) {
                ctx.fillText(m.label, px + 3 * devicePixelRatio, top + 11 * devicePixelRatio);
                lastLabel = px;
              }
            }
            ctx.setLineDash([]);
            // The alive list's moment.
            if (latest.current.aliveAt != null) {
              const px = u.valToPos(latest.current.aliveAt / 1000, 'x', true);
              if (px >= left && px <= left + width) {
                ctx.strokeStyle = alpha(t.fg, 0.55);
                ctx.beginPath();
                ctx.moveTo(px, top);
                ctx.lineTo(px, top + height);
                ctx.stroke();
              }
            }
            // The peak, with its value.
            const { peak, curve } = latest.current;
            if (peak >= 0) {
              const x = u.valToPos(curve.t[peak] / 1000, 'x', true), y = u.valToPos(curve.allocated[peak], 'y', true);
              ctx.fillStyle = t.accent;
              ctx.beginPath();
              ctx.arc(x, y, 4 * devicePixelRatio, 0, Math.PI * 2);
              ctx.fill();
              const text = `peak ${formatMemBytes(curve.allocated[peak])}`;
              ctx.font = `600 ${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
              const w = ctx.measureText(text).width;
              const tx = Math.min(Math.max(x - w / 2, left + 2), left + width - w - 2);
              ctx.fillStyle = t.fg;
              ctx.fillText(text, tx, Math.max(top + 12 * devicePixelRatio, y - 8 * devicePixelRatio));
            }
            ctx.restore();
          },
        ],
        drawAxes: [() => onDrawn()],
      },
    };
  };
  const i = readout;
  const text =
    i != null && i < curve.t.length
      ? `At ${formatMemMs(curve.t[i])}: allocated ${formatMemBytes(curve.allocated[i])}${Number.isFinite(curve.reserved[i]) ? `, reserved ${formatMemBytes(curve.reserved[i])}` : ''}`
      : '';
  return (
    <div onMouseLeave={() => setReadout(null)} data-testid="memory-chart" data-peak={peak >= 0 ? curve.allocated[peak] : ''} data-peak-us={peak >= 0 ? curve.t[peak] : ''} data-t1={curve.t.length ? curve.t[curve.t.length - 1] : ''}>
      <Chart options={options} data={first} height={CURVE_HEIGHT} label={`Memory allocated${data.hasReserved ? ' and reserved' : ''} over time on ${curve.device}`} />
      <p class="mem-legend">
        <span class="mem-key mem-key-alloc" /> Allocated {data.hasReserved && <><span class="mem-key mem-key-res" /> Reserved</>}
        <span class="muted mem-readout" data-testid="memory-readout">
          {text}
        </span>
      </p>
    </div>
  );
}
