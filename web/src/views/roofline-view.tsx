// The Roofline tab (issue 25): the counted operator groups (the roofline view's answer,
// docs/contracts.md "roofline") on a log-log scatter, arithmetic intensity against achieved
// TFLOP/s, under the device's compute roofs (one per dtype with a dense peak) and its memory
// bandwidth roof; point size by device time, colour by dtype, hover for the group, click to open
// it in Operators (grouped by input shape, that row selected). Beside it, the groups with their
// verdict: memory-bound, compute-bound, or far from both (overhead or small shapes). The peak row
// is the trace's choice (components/peak-choice.tsx), the step the one chosen above the views.
import uPlot from 'uplot';
import { useMemo, useRef, useState } from 'preact/hooks';
import { alpha, axisStyle, Chart, fitLabels, type ChartTheme } from '../components/chart';
import { peakParam, PeakPicker, usePeak } from '../components/peak-choice';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import type { Answer } from '../generated/views';
import { formatFlopCell } from '../lib/flop-columns';
import { QueryStatus } from './view-status';
import './flops.css';

type Group = 'op+shape' | 'op';

/** The colour of each dtype's points and roof. */
export const DTYPE_COLORS: Record<string, string> = {
  fp32: '#e8590c',
  tf32: '#9c36b5',
  bf16: '#1c7ed6',
  fp16: '#0ca678',
  fp8_e4m3: '#2b8a3e',
  fp8_e5m2: '#5c940d',
  int8: '#a61e4d',
  fp64: '#495057',
  unknown: '#868e96',
};
const ROOF_DTYPES: { key: 'fp32' | 'tf32' | 'bf16' | 'fp16' | 'fp8' | 'int8'; label: string; color: string }[] = [
  { key: 'fp32', label: 'FP32', color: DTYPE_COLORS.fp32 },
  { key: 'tf32', label: 'TF32', color: DTYPE_COLORS.tf32 },
  { key: 'bf16', label: 'BF16', color: DTYPE_COLORS.bf16 },
  { key: 'fp16', label: 'FP16', color: DTYPE_COLORS.fp16 },
  { key: 'fp8', label: 'FP8', color: DTYPE_COLORS.fp8_e4m3 },
];

/** One point: a row of the answer. */
export interface RoofPoint {
  row: number;
  name: string;
  shape: string | null;
  dtype: string;
  calls: number;
  flops: number;
  deviceUs: number;
  tflops: number;
  intensity: number;
  roof: number;
  pctOfRoof: number;
  verdict: string | null;
}

export function roofPoints(a: Answer<'roofline'>): RoofPoint[] {
  const c = a.columns;
  const str = (col: Uint32Array | undefined, i: number) => (col && col[i] !== 0xffffffff ? a.strings[col[i]] : null);
  const out: RoofPoint[] = [];
  for (let i = 0; i < a.rowCount; i++) {
    out.push({
      row: i,
      name: str(c.name, i) ?? '',
      shape: str(c.input_shape, i),
      dtype: str(c.dtype, i) ?? 'unknown',
      calls: c.calls[i],
      flops: c.flops[i],
      deviceUs: c.device_us[i],
      tflops: c.tflops_per_s[i],
      intensity: c.intensity[i],
      roof: c.roof_tflops[i],
      pctOfRoof: c.pct_of_roof[i],
      verdict: str(c.verdict, i),
    });
  }
  return out;
}

/** The Operators row a point opens: its key as the table names it (name, or name and shape). */
export function operatorRowKey(p: RoofPoint): string {
  return p.shape == null ? p.name : `${p.name} ${p.shape}`;
}

const num2 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const num1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const pctFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const show = (f: Intl.NumberFormat, v: number) => (Number.isFinite(v) ? f.format(v) : '—');

/** A log axis's tick labels: 0.01, 1, 100, 10k ("" for the ticks uPlot leaves unlabelled: null). */
function logTick(v: number | null): string {
  if (v == null || !Number.isFinite(v)) return '';
  if (v >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  return `${+v.toPrecision(3)}`;
}

export function RooflineView({ ask, step, onOpenOperator }: { ask: Ask; step: string | null; onOpenOperator?: (group: Group, row: string) => void }) {
  const [group, setGroup] = useState<Group>('op+shape');
  const { peak } = usePeak();
  const answer = useAnswer(ask, 'roofline', { group_by: group, ...(step ? { step } : {}), ...peakParam(peak) });
  return (
    <section class="view" data-testid="roofline-view" aria-label="Roofline">
      <div class="view-toolbar">
        <label class="ov-select">
          Points{' '}
          <select data-testid="roofline-group-by" value={group} onChange={(e) => setGroup((e.currentTarget as HTMLSelectElement).value as Group)}>
            <option value="op+shape">Operator + input shape</option>
            <option value="op">Operator</option>
          </select>
        </label>
        <PeakPicker ask={ask} testid="roofline-peak-picker" />
        <span class="muted step-scope">{step ? `step ${step}` : 'all steps'}</span>
      </div>
      {answer.status !== 'ready' ? (
        <QueryStatus state={answer} stem="roofline" what="roofline" loading="Placing the counted operators on the roofline…" />
      ) : (
        <RooflineBody a={answer.data} onOpen={onOpenOperator ? (p) => onOpenOperator(group, operatorRowKey(p)) : undefined} />
      )}
    </section>
  );
}

function RooflineBody({ a, onOpen }: { a: Answer<'roofline'>; onOpen?: (p: RoofPoint) => void }) {
  const points = useMemo(() => roofPoints(a), [a]);
  const device = a.meta.device;
  const [hover, setHover] = useState<RoofPoint | null>(null);
  return (
    <>
      <p class="muted ov-footnote" data-testid="roofline-device" data-row={device?.peak_row ?? ''}>
        {device?.peak_name
          ? `Roofs of ${device.peak_name} (${device.matched_by}): dense peaks per dtype and ${num1.format(device.memory_bandwidth_gbs ?? NaN)} GB/s memory bandwidth.`
          : 'No roofs: no peak row for this device.'}{' '}
        Intensity is the least traffic of each call (each input read once, each result written once), so a point sits at or left of its true place.
      </p>
      {a.meta.note && (
        <p class="muted" data-testid="roofline-note">
          {a.meta.note}.
        </p>
      )}
      {points.length > 0 && (
        <div class="roofline-layout">
          <div>
            {points.some((p) => p.intensity > 0 && p.tflops > 0) ? (
              <RooflineChart a={a} points={points} onHover={setHover} onOpen={onOpen} />
            ) : (
              <p class="muted" data-testid="roofline-no-time">
                No counted call has device time (its kernels were not linked to it): nothing to place.
              </p>
            )}
            <p class="roofline-hover" data-testid="roofline-hover">
              {hover
                ? `${operatorRowKey(hover)} (${hover.dtype}): ${show(num2, hover.intensity)} FLOP/byte, ${show(num2, hover.tflops)} TFLOP/s` +
                  (Number.isFinite(hover.pctOfRoof) ? `, ${pctFmt.format(hover.pctOfRoof)} % of its roof` : '') +
                  `, ${num1.format(hover.deviceUs)} us in ${hover.calls} call${hover.calls === 1 ? '' : 's'}` +
                  (onOpen ? ' — click to open it in Operators' : '')
                : 'Hover a point for its operator; click it to open it in Operators.'}
            </p>
            <div class="roofline-key">
              {[...new Set(points.map((p) => p.dtype))].map((d) => (
                <span key={d} style={{ '--swatch': DTYPE_COLORS[d] ?? DTYPE_COLORS.unknown }}>
                  {d}
                </span>
              ))}
            </div>
          </div>
          <VerdictTable points={points} onOpen={onOpen} />
        </div>
      )}
    </>
  );
}

function VerdictTable({ points, onOpen }: { points: RoofPoint[]; onOpen?: (p: RoofPoint) => void }) {
  return (
    <div class="roofline-scroll">
      <table class="table ov-detail roofline-table" data-testid="roofline-table">
        <thead>
          <tr>
            <th>Operator</th>
            <th class="num" title="Arithmetic intensity: FLOPs per byte read and written">Intensity</th>
            <th class="num">TFLOP/s</th>
            <th class="num" title="Achieved TFLOP/s as a share of the roof at its intensity (the lower of its dtype's dense peak and bandwidth × intensity)">
              % of roof
            </th>
            <th class="num">Device (us)</th>
            <th title="At least 50 % of its roof: memory-bound (left of the ridge point) or compute-bound; below: far from both, its time goes to overhead or shapes too small to fill the GPU">
              Verdict
            </th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr
              key={p.row}
              data-testid="roofline-row"
              data-name={p.name}
              data-shape={p.shape ?? ''}
              data-dtype={p.dtype}
              data-flops={p.flops}
              data-intensity={p.intensity}
              data-tflops={Number.isFinite(p.tflops) ? p.tflops : ''}
              data-pct-of-roof={Number.isFinite(p.pctOfRoof) ? p.pctOfRoof : ''}
              data-verdict={p.verdict ?? ''}
              tabIndex={onOpen ? 0 : undefined}
              title={onOpen ? 'Open it in Operators' : undefined}
              onClick={() => onOpen?.(p)}
              onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onOpen && (e.preventDefault(), onOpen(p))}
            >
              <td class="roofline-op">
                <code>{p.name}</code> <span class="muted">{p.dtype}</span>
                {p.shape != null && (
                  <span class="muted roofline-shape" title={p.shape}>
                    {p.shape}
                  </span>
                )}
              </td>
              <td class="num">{show(num2, p.intensity)}</td>
              <td class="num">{show(num2, p.tflops)}</td>
              <td class="num">{Number.isFinite(p.pctOfRoof) ? pctFmt.format(p.pctOfRoof) : '—'}</td>
              <td class="num">{num1.format(p.deviceUs)}</td>
              <td class={p.verdict ? `verdict-${p.verdict.replace(/ /g, '-')}` : undefined}>
                {p.verdict === 'far from both' ? 'far from both: overhead or small shapes' : p.verdict ?? '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The roofs: one horizontal line per dtype with a peak (from its ridge point on), and the bandwidth line below them. */
function roofsOf(device: Answer<'roofline'>['meta']['device']) {
  const bw = device?.memory_bandwidth_gbs ?? null;
  const peaks = device?.peaks_tflops;
  const roofs: { label: string; color: string; tflops: number }[] = [];
  if (peaks) {
    for (const d of ROOF_DTYPES) {
      const v = peaks[d.key];
      // BF16 and FP16 share one figure on every device here: one line, both named.
      if (v == null || !(v > 0)) continue;
      const same = roofs.find((r) => r.tflops === v);
      if (same) same.label += `/${d.label}`;
      else roofs.push({ label: d.label, color: d.color, tflops: v });
    }
  }
  return { bw: bw && bw > 0 ? bw : null, roofs };
}

function RooflineChart({
  a,
  points,
  onHover,
  onOpen,
}: {
  a: Answer<'roofline'>;
  points: RoofPoint[];
  onHover: (p: RoofPoint | null) => void;
  onOpen?: (p: RoofPoint) => void;
}) {
  const { bw, roofs } = roofsOf(a.meta.device);
  const placed = points.filter((p) => p.intensity > 0 && p.tflops > 0);
  // The ranges: every point and every roof's ridge, with a decade of room.
  const xs = placed.map((p) => p.intensity);
  const ys = placed.map((p) => p.tflops);
  const topRoof = Math.max(0, ...roofs.map((r) => r.tflops));
  const ridges = bw ? roofs.map((r) => (r.tflops * 1e3) / bw) : [];
  const xMin = Math.min(...xs, ...ridges) / 4;
  const xMax = Math.max(...xs, ...ridges) * 4;
  const yMin = Math.min(...ys, bw ? (bw * xMin) / 1e3 : Infinity) / 3;
  const yMax = Math.max(...ys, topRoof) * 2.5;
  const maxUs = Math.max(...placed.map((p) => p.deviceUs), 1e-9);
  const radius = (p: RoofPoint) => 4 + 14 * Math.sqrt(p.deviceUs / maxUs);
  const where = useRef<{ x: number; y: number; r: number; p: RoofPoint }[]>([]);
  const data = useMemo((): uPlot.AlignedData => [[xMin, xMax], [yMin, yMax]], [a, xMin, xMax, yMin, yMax]);
  const options = (_width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { show: false }, x: false, y: false },
    scales: { x: { time: false, distr: 3, log: 10, range: () => [xMin, xMax] }, y: { distr: 3, log: 10, range: () => [yMin, yMax] } },
    axes: [
      { ...axisStyle(t), label: 'Arithmetic intensity (FLOP/byte)', labelSize: 18, values: (_u, v) => v.map(logTick) },
      { ...axisStyle(t), label: 'Achieved TFLOP/s', labelSize: 18, size: fitLabels(44), values: (_u, v) => v.map(logTick) },
    ],
    series: [{}, { show: true, stroke: 'transparent', points: { show: false } }],
    hooks: {
      draw: [
        (u) => {
          const ctx = u.ctx;
          const px = (x: number) => u.valToPos(x, 'x', true);
          const py = (y: number) => u.valToPos(y, 'y', true);
          const dpr = devicePixelRatio || 1;
          ctx.save();
          ctx.beginPath();
          ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
          ctx.clip();
          ctx.font = `${11 * dpr}px system-ui, sans-serif`;
          ctx.lineWidth = 2 * dpr;
          // The bandwidth roof: TFLOP/s = GB/s × intensity / 1000, up to the highest compute roof.
          if (bw) {
            const xEnd = topRoof > 0 ? (topRoof * 1e3) / bw : xMax;
            ctx.strokeStyle = t.muted;
            ctx.setLineDash([]);
            ctx.beginPath();
            ctx.moveTo(px(xMin), py((bw * xMin) / 1e3));
            ctx.lineTo(px(xEnd), py((bw * xEnd) / 1e3));
            ctx.stroke();
            ctx.fillStyle = t.muted;
            const lx = xMin * 8;
            ctx.save();
            ctx.translate(px(lx), py((bw * lx) / 1e3) - 6 * dpr);
            ctx.rotate(-Math.atan2(py((bw * xMin) / 1e3) - py((bw * xMin * 10) / 1e3), px(xMin * 10) - px(xMin)));
            ctx.fillText(`memory ${num1.format(bw)} GB/s`, 0, 0);
            ctx.restore();
          }
          // A compute roof per dtype, from its ridge point (where it meets the bandwidth roof) on.
          for (const r of roofs) {
            const ridge = bw ? (r.tflops * 1e3) / bw : xMin;
            ctx.strokeStyle = r.color;
            ctx.setLineDash([6 * dpr, 4 * dpr]);
            ctx.beginPath();
            ctx.moveTo(px(ridge), py(r.tflops));
            ctx.lineTo(px(xMax), py(r.tflops));
            ctx.stroke();
            // Its label at the right end, on the card's colour so the bandwidth line does not cross it.
            const text = `${r.label} ${num1.format(r.tflops)}`;
            const w = ctx.measureText(text).width;
            const lx = px(xMax) - w - 4 * dpr;
            const ly = py(r.tflops) - 4 * dpr;
            ctx.fillStyle = t.card;
            ctx.fillRect(lx - 2 * dpr, ly - 11 * dpr, w + 4 * dpr, 13 * dpr);
            ctx.fillStyle = r.color;
            ctx.fillText(text, lx, ly);
          }
          ctx.setLineDash([]);
          // The points, largest first so small ones stay on top.
          const drawn: { x: number; y: number; r: number; p: RoofPoint }[] = [];
          for (const p of [...placed].sort((q, s) => s.deviceUs - q.deviceUs)) {
            const x = px(p.intensity);
            const y = py(p.tflops);
            const r = radius(p) * dpr;
            const color = DTYPE_COLORS[p.dtype] ?? DTYPE_COLORS.unknown;
            ctx.beginPath();
            ctx.arc(x, y, r, 0, 2 * Math.PI);
            ctx.fillStyle = alpha(color, 0.45);
            ctx.fill();
            ctx.strokeStyle = color;
            ctx.lineWidth = 1.5 * dpr;
            ctx.stroke();
            drawn.push({ x: x / dpr, y: y / dpr, r: r / dpr, p });
          }
          ctx.restore();
          where.current = drawn;
          // Where each point is over the plot (CSS px from its top left), for tests and tools.
          const holder = u.root.closest<HTMLElement>('[data-testid=roofline-chart]');
          if (holder) {
            const left = u.bbox.left / dpr;
            const top = u.bbox.top / dpr;
            holder.dataset.at = drawn.map((d) => `${d.p.row}:${Math.round(d.x - left)},${Math.round(d.y - top)}`).join(' ');
          }
        },
      ],
    },
  });
  // The point under the pointer (CSS px over the plot area): the smallest one that holds it.
  const pick = (u: uPlot, ev: MouseEvent): RoofPoint | null => {
    const rect = u.over.getBoundingClientRect();
    const x = ev.clientX - rect.left + u.bbox.left / (devicePixelRatio || 1);
    const y = ev.clientY - rect.top + u.bbox.top / (devicePixelRatio || 1);
    let best: { r: number; p: RoofPoint } | null = null;
    for (const d of where.current) {
      const dist = Math.hypot(d.x - x, d.y - y);
      if (dist <= Math.max(d.r, 5) && (!best || d.r < best.r)) best = { r: d.r, p: d.p };
    }
    return best?.p ?? null;
  };
  return (
    <div class="roofline-chart" data-testid="roofline-chart" data-points={placed.length} data-roofs={roofs.map((r) => `${r.label}:${r.tflops}`).join(' ')} data-bandwidth={bw ?? ''}>
      <Chart
        options={options}
        data={data}
        height={460}
        label="Roofline: each counted operator group's arithmetic intensity against its achieved TFLOP/s, under the device's compute and memory bandwidth roofs"
        onReady={(u) => {
          u.over.addEventListener('mousemove', (ev) => {
            const p = pick(u, ev);
            u.over.style.cursor = p && onOpen ? 'pointer' : '';
            onHover(p);
          });
          u.over.addEventListener('mouseleave', () => onHover(null));
          u.over.addEventListener('click', (ev) => {
            const p = pick(u, ev);
            if (p && onOpen) onOpen(p);
          });
        }}
      />
    </div>
  );
}
