import uPlot from 'uplot';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useQuery, type Ask } from '../components/use-query';
import { useResize } from '../components/use-resize';
import { alpha, axisStyle, Chart, denseBars, fitLabels, type ChartTheme } from '../components/chart';
import { scrollToShow, visibleWindow } from '../lib/table-model';
import type { Place } from '../lib/deep-link';
import { formatDeviceMemory } from '../lib/format';
import { openAnswer } from '../lib/answer';
import { FlopsCard } from './flops-card';
import {
  formatPct,
  formatStepUs,
  gpuSummaryOf,
  percentOf,
  ROLES,
  stepAxisSplits,
  stepChart,
  stepReadout,
  utilizationSeries,
  type GpuMetric,
  type GpuMetrics,
  type GpuSummary as GpuSummaryData,
  type Overview,
  type OverviewInfo,
  type Recommendation,
  type StepBreakdown,
  type StepValues,
} from '../lib/overview';
import type { Device, Summary } from '../lib/summary';
import { formatMemBytes, formatMemMs, memoryDevices, type MemoryDevice, type MemoryDevices } from '../lib/memory';

/** The views' names as the tabs show them. */
export const VIEW_LABELS: Record<string, string> = {
  overview: 'Overview',
  operators: 'Operators',
  kernels: 'Kernels',
  modules: 'Modules',
  ranges: 'Ranges',
  roofline: 'Roofline',
  trace: 'Trace',
  memory: 'Memory',
  distributed: 'Distributed',
  timeline: 'Timeline',
  diff: 'Diff',
};

// The Overview tab of a trace: the step-time breakdown (a chart of every step and the average,
// and the chosen step's table), the GPU summary with its utilization over time, and the
// recommendations, each with a link to its evidence. Laid out so the step chart, the breakdown
// and the recommendations are on the first screen at 1440x900. Every string from the trace or the
// core (step names, device names, recommendation texts) is rendered as text.
export function OverviewView({
  overview,
  summary,
  views = [],
  onShowView,
  onEvidence,
  step,
  onStep,
  onShowTimeline,
  memory = null,
  ask,
  onRoofline,
  testId = 'overview-card',
}: {
  /** Opens the Roofline tab (absent: the trace has none). */
  onRoofline?: () => void;
  /** Asks the trace's worker: the GPU summary and peak memory of a chosen step (absent: they stay the whole run's). */
  ask?: Ask;
  overview: Overview;
  summary: Summary;
  /** The views this trace has: a recommendation links to its view only when it is one of them. */
  views?: readonly string[];
  onShowView?: (view: string) => void;
  /** Opens the place a recommendation's evidence is (view, step, table state). */
  onEvidence?: (place: Place) => void;
  /** The chosen step ('all' or its index), kept by the card. */
  step: string;
  onStep: (step: string) => void;
  /** Opens the Timeline on a step (its index), or on the whole trace (null). */
  onShowTimeline?: (step: number | null) => void;
  /** Peak memory per device (the Memory view's devices), when the trace recorded memory. */
  memory?: MemoryDevices | null;
  /** The section's test id: the card's first part, shown while the rest is computed, has its own. */
  testId?: string;
}) {
  // The step chosen above the views: the GPU summary and peak memory follow it (issue 22 §6).
  const stepList = overview.steps?.steps ?? [];
  const chosen = step !== 'all' && Number(step) >= 0 && Number(step) < stepList.length ? stepList[Number(step)] : null;
  return (
    <section class="overview" data-testid={testId} aria-label="Overview">
      {overview.error && (
        <p class="file-error" role="alert" data-testid="overview-error">
          {overview.error}
        </p>
      )}
      <div class="ov-row ov-top">
        {overview.steps ? (
          <StepBreakdownView data={overview.steps} sel={step} onSel={onStep} onShowTimeline={onShowTimeline} />
        ) : (
          <div class="ov-panel" />
        )}
        {overview.info ? <Recommendations items={overview.info.recommendations} views={views} onShowView={onShowView} onEvidence={onEvidence} /> : <div />}
      </div>
      {memory && memory.devices.length > 0 && (
        <MemoryPeaks memory={memory} ask={ask} step={chosen} onShowView={views.includes('memory') ? onShowView : undefined} />
      )}
      {overview.gpus && (
        <GpuSummary data={overview.gpus} devices={summary.devices ?? []} info={overview.info ?? null} traceStartUs={summary.start_us ?? null} ask={ask} step={chosen} />
      )}
      {ask && overview.gpus && <FlopsCard ask={ask} step={chosen?.name ?? null} onRoofline={onRoofline} />}
      {overview.steps && overview.steps.steps?.length > 0 && overview.steps.average && <StepTable data={overview.steps} sel={step} onSel={onStep} />}
    </section>
  );
}

function StepBreakdownView({
  data,
  sel,
  onSel,
  onShowTimeline,
}: {
  data: StepBreakdown;
  sel: string;
  onSel: (s: string) => void;
  onShowTimeline?: (step: number | null) => void;
}) {
  const steps = data.steps ?? [];
  if (!steps.length || !data.average) {
    return (
      <div class="ov-panel ov-steps">
        <h4>Step-time breakdown</h4>
        <p class="muted" data-testid="no-steps">
          This trace has no profiler steps (no ProfilerStep annotations), so there is no step-time breakdown.
        </p>
      </div>
    );
  }
  const idx = sel === 'all' ? -1 : Number(sel);
  const chosen = idx >= 0 && idx < steps.length ? steps[idx] : null;
  const shown: StepValues = chosen ?? data.average;
  const shownLabel = chosen ? `step ${chosen.name}` : 'the average step';

  return (
    <div class="ov-panel ov-steps">
      <div class="ov-panel-head">
        <h4>Step-time breakdown</h4>
        {onShowTimeline && (
          <button type="button" class="link-button" data-testid="step-show-in-timeline" onClick={() => onShowTimeline(chosen ? idx : null)}>
            {chosen ? `Show step ${chosen.name} in timeline` : 'Show in timeline'}
          </button>
        )}
      </div>
      <div class="ov-steps-body">
        <StepChartView data={data} sel={idx} onSel={onSel} />
        <table class="table ov-detail" data-testid="step-detail">
          <caption class="ov-caption">{chosen ? <>Step {chosen.name}</> : 'Average over all steps'}</caption>
          <thead>
            <tr>
              <th>Category</th>
              <th class="num">Time (us)</th>
              <th class="num">% of step</th>
            </tr>
          </thead>
          <tbody>
            {ROLES.map((r) => {
              const us = shown[`${r.key}_us`];
              return (
                <tr
                  key={r.key}
                  title={
                    `${r.label}: ${formatStepUs(us)} of ${shownLabel}` +
                    (r.key === 'kernel'
                      ? ' — the share of the step time only kernels run in (communication kernels are Communication); GPU utilization, in the GPU summary, is the time any kernel runs'
                      : '')
                  }
                >
                  <td>
                    <span class="ov-swatch" style={{ background: r.color }} />
                    {r.label}
                  </td>
                  <td class="num" data-testid={`step-value-${r.key}`}>
                    {formatStepUs(us)}
                  </td>
                  <td class="num" data-testid={`step-pct-${r.key}`}>
                    {formatPct(percentOf(us, shown.total_us))}
                  </td>
                </tr>
              );
            })}
            <tr class="ov-total">
              <td>Total</td>
              <td class="num" data-testid="step-value-total">
                {formatStepUs(shown.total_us)}
              </td>
              <td class="num">{formatPct(percentOf(shown.total_us, shown.total_us))}</td>
            </tr>
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * The steps and the average as stacked columns (uPlot bars drawn tallest-first so each shows its
 * own segment); hovering a column reads it out, clicking chooses that step.
 */
function StepChartView({ data, sel, onSel }: { data: StepBreakdown; sel: number; onSel: (s: string) => void }) {
  const chart = useMemo(() => stepChart(data), [data]);
  const n = chart.labels.length;
  const steps = data.steps;
  const [hover, setHover] = useState<number | null>(null);
  const selCol = sel >= 0 && sel < steps.length ? sel : n - 1;
  const readout = hover != null && hover >= 0 && hover < n ? stepReadout(chart.labels[hover], hover < steps.length ? steps[hover] : data.average!) : null;
  const options = (width: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => {
    // Column labels that would collide are thinned out (the first, every k-th and the average stay).
    const splits = stepAxisSplits(n, width - 70);
    return {
      scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.04 : 1] } },
      axes: [
        { ...axisStyle(t), grid: { show: false }, splits: () => splits, values: (_u, ticks) => ticks.map((i) => chart.labels[i] ?? '') },
        { ...axisStyle(t), size: fitLabels(64), values: (_u, vals) => vals.map((v) => `${+v.toFixed(3)} ms`) },
      ],
      series: [
        {},
        ...chart.order.map((r) => ({
          label: r.label,
          fill: r.color,
          stroke: r.color,
          width: 0,
          points: { show: false },
          paths: denseBars({ size: [0.72, 72], align: 0 }),
        })),
      ],
      legend: { show: false },
      cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false, x: false },
      hooks: {
        setCursor: [(u) => setHover(u.cursor.idx ?? null)],
        ready: [
          (u) =>
            u.over.addEventListener('click', () => {
              const i = u.cursor.idx;
              if (i != null) onSel(i < steps.length ? String(i) : 'all');
            }),
        ],
        // The chosen column stands out: a band behind it, at least 2 px wide (thousands of steps
        // make columns narrower than a pixel).
        drawClear: [
          (u) => {
            const x0 = u.valToPos(selCol - 0.5, 'x', true);
            const x1 = u.valToPos(selCol + 0.5, 'x', true);
            const w = Math.max(x1 - x0, 2 * (window.devicePixelRatio || 1));
            u.ctx.save();
            u.ctx.fillStyle = alpha(t.accent, 0.16);
            u.ctx.fillRect((x0 + x1 - w) / 2, u.bbox.top, w, u.bbox.height);
            u.ctx.restore();
          },
        ],
      },
    };
  };
  return (
    <div class="ov-step-chart">
      <ul class="ov-legend" aria-label="Legend">
        {ROLES.map((r) => (
          <li key={r.key}>
            <span class="ov-swatch" style={{ background: r.color }} />
            {r.label}
          </li>
        ))}
      </ul>
      <div class="ov-chart-wrap" data-testid="step-bars" data-columns={n} data-selected={selCol} onMouseLeave={() => setHover(null)}>
        <Chart
          key={selCol}
          options={options}
          data={chart.data as uPlot.AlignedData}
          height={210}
          testid="step-chart"
          label={`Step-time breakdown of ${steps.length} steps and their average, stacked by category`}
        />
      </div>
      <div class="ov-readout" data-testid="step-hover" aria-live="polite">
        {readout ? (
          <>
            <strong data-testid="step-hover-title">{readout.title}</strong>
            <ul>
              {readout.lines.map((l, i) => (
                <li key={i} data-testid="step-hover-line" data-role={ROLES[i].key}>
                  <span class="ov-swatch" style={{ background: ROLES[i].color }} />
                  {l}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <span class="muted">Hover a column to read it; click one to show that step everywhere.</span>
        )}
      </div>
    </div>
  );
}

// The step table's rows are windowed: a trace of thousands of steps (a 10 GiB trace has ~3,400)
// would otherwise put thousands of rows in the page at once, and building and laying them out
// held the main thread for ~0.4 s each time the Overview was drawn. Only the rows in the scroll
// box (plus a few each side) are rendered; two spacer rows stand in for the rest, so the scrollbar
// is true to the whole table. The average's row stays the table's last row, always rendered.
const STEP_OVERSCAN = 8;
/** Height of a step row at the page's font before it is measured (.table rows: 31 px). */
const STEP_ROW_HEIGHT = 31;
/** The scroll box's height at most (.ov-scroll max-height): the viewport while it is not measured. */
const STEP_TABLE_MAX_HEIGHT = 320;

function StepTable({ data, sel, onSel }: { data: StepBreakdown; sel: string; onSel: (s: string) => void }) {
  const steps = data.steps;
  const idx = sel === 'all' ? -1 : Number(sel);
  const scroller = useRef<HTMLDivElement>(null);
  const head = useRef<HTMLTableSectionElement>(null);
  const firstRow = useRef<HTMLTableRowElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(STEP_TABLE_MAX_HEIGHT);
  const [rowHeight, setRowHeight] = useState(STEP_ROW_HEIGHT);
  const [headerHeight, setHeaderHeight] = useState(STEP_ROW_HEIGHT);

  // The box's height and the rows' height as laid out (the font may differ): the windowing counts
  // in them. A table in a hidden tab measures 0 and keeps what it had.
  useResize(scroller, (el) => {
    if (el.clientHeight) setViewport(el.clientHeight);
    const rh = firstRow.current?.getBoundingClientRect().height;
    if (rh) setRowHeight(rh);
    const hh = head.current?.getBoundingClientRect().height;
    if (hh) setHeaderHeight(hh);
  });

  // A step chosen elsewhere (the chart, the step select, a link) is scrolled into the box, as
  // little as needed; the page itself does not move.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || idx < 0 || idx >= steps.length) return;
    const top = scrollToShow(idx, rowHeight, el.scrollTop, el.clientHeight || viewport, headerHeight);
    if (top !== el.scrollTop) {
      el.scrollTop = top;
      setScrollTop(el.scrollTop);
    }
    // Only when the choice changes (or the rows' height once measured), not on every scroll.
  }, [idx, steps, rowHeight]);

  const win = visibleWindow(steps.length, rowHeight, scrollTop, viewport, STEP_OVERSCAN, headerHeight);
  const rows = [];
  for (let i = win.start; i < win.end; i++) {
    const s = steps[i];
    rows.push(
      <tr
        key={i}
        ref={i === win.start ? firstRow : undefined}
        data-testid={`step-row-${s.name}`}
        data-index={i}
        class={stepRowClass(i, i === idx)}
        tabIndex={0}
        onClick={() => onSel(String(i))}
        onKeyDown={(ev) => (ev.key === 'Enter' || ev.key === ' ') && (ev.preventDefault(), onSel(String(i)))}
      >
        <td>{s.name}</td>
        <td class="num">{formatStepUs(s.total_us)}</td>
        <td class="num">{formatStepUs(s.kernel_us)}</td>
        <td class="num">{formatPct(percentOf(s.kernel_us, s.total_us))}</td>
        <td class="num">{formatStepUs(s.cpu_exec_us)}</td>
        <td class="num">{formatStepUs(s.dataloader_us)}</td>
        <td class="num">{formatStepUs(s.communication_us)}</td>
      </tr>,
    );
  }
  const avg = data.average!;
  return (
    <div class="ov-panel">
      <h4>Steps</h4>
      <div class="ov-scroll" ref={scroller} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}>
        <table class="table ov-tables" data-testid="step-table" data-rows={steps.length} data-rendered={win.end - win.start}>
          <thead ref={head}>
            <tr>
              <th>Step</th>
              <th class="num">Total (us)</th>
              <th class="num">Kernel (us)</th>
              <th
                class="num"
                data-testid="steps-kernel-pct-head"
                title="The step time only kernels run in, as a share of the step (communication kernels count as Communication). Not GPU utilization: that is the time any kernel runs over the steps' time, in the GPU summary."
              >
                Kernel % of step
              </th>
              <th class="num">CPU Exec (us)</th>
              <th class="num">DataLoader (us)</th>
              <th class="num">Communication (us)</th>
            </tr>
          </thead>
          <tbody>
            {win.padTop > 0 && (
              <tr class="ov-pad" aria-hidden="true">
                <td colSpan={7} style={{ height: `${win.padTop}px` }} />
              </tr>
            )}
            {rows}
            {win.padBottom > 0 && (
              <tr class="ov-pad" aria-hidden="true">
                <td colSpan={7} style={{ height: `${win.padBottom}px` }} />
              </tr>
            )}
            <tr
              class={`${stepRowClass(steps.length, idx < 0)} ov-total`}
              data-testid="step-row-average"
              tabIndex={0}
              onClick={() => onSel('all')}
              onKeyDown={(ev) => (ev.key === 'Enter' || ev.key === ' ') && (ev.preventDefault(), onSel('all'))}
            >
              <td>Average</td>
              <td class="num" data-testid="avg-total">
                {formatStepUs(avg.total_us)}
              </td>
              <td class="num" data-testid="avg-kernel">
                {formatStepUs(avg.kernel_us)}
              </td>
              <td class="num">{formatPct(percentOf(avg.kernel_us, avg.total_us))}</td>
              <td class="num">{formatStepUs(avg.cpu_exec_us)}</td>
              <td class="num">{formatStepUs(avg.dataloader_us)}</td>
              <td class="num">{formatStepUs(avg.communication_us)}</td>
            </tr>
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The class of the step table's row at position `i`: striped by position, whatever is rendered. */
function stepRowClass(i: number, selected: boolean): string | undefined {
  return [i % 2 ? 'odd' : '', selected ? 'selected' : ''].filter(Boolean).join(' ') || undefined;
}

function Recommendations({
  items,
  views,
  onShowView,
  onEvidence,
}: {
  items: Recommendation[];
  views: readonly string[];
  onShowView?: (view: string) => void;
  onEvidence?: (place: Place) => void;
}) {
  return (
    <div class="ov-panel ov-recs">
      <h4>Recommendations</h4>
      {!items.length ? (
        <p class="muted" data-testid="no-recommendations">
          No recommendations.
        </p>
      ) : (
        <ul class="ov-rec-list" data-testid="recommendations">
          {items.map((r) => {
            const label = evidenceLabel(r, views);
            return (
              <li key={r.id} data-testid="recommendation" data-id={r.id}>
                <span data-testid="recommendation-text">{r.text}</span>
                {label && (onEvidence || onShowView) ? (
                  <>
                    {' '}
                    <button
                      type="button"
                      class="link-button"
                      data-testid={`recommendation-show-${r.id}`}
                      title="Open where the numbers behind this come from"
                      onClick={() => (r.evidence && onEvidence ? onEvidence(r.evidence) : onShowView?.(r.view))}
                    >
                      {label}
                    </button>
                  </>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/**
 * The button a recommendation's evidence gets: another view this trace has ("Show in
 * Operators"), or a step of the Overview ("Show step 7"); none when the evidence is a view the
 * page does not have yet (memory, distributed) or the Overview as it is.
 */
export function evidenceLabel(r: Recommendation, views: readonly string[]): string | null {
  const target = r.evidence?.view ?? r.view;
  if (target !== 'overview') return views.includes(target) ? `Show in ${VIEW_LABELS[target] ?? target}` : null;
  return r.evidence?.step != null ? `Show step ${r.evidence.step}` : null;
}

/** A chosen step as the Overview's cards need it: its name and absolute µs range. */
interface ChosenStep {
  name: string;
  start_us: number;
  end_us: number;
}

function GpuSummary({
  data,
  devices,
  info,
  traceStartUs,
  ask,
  step,
}: {
  data: GpuMetrics;
  devices: Device[];
  info: OverviewInfo | null;
  traceStartUs: number | null;
  ask?: Ask;
  step: ChosenStep | null;
}) {
  const gpus = data.gpus ?? [];
  // A chosen step's numbers (`kinetoscope gpus --step N`); the whole run's come with the Overview.
  const answer = useQuery(ask ?? (() => new Promise(() => {})), ask && step ? { what: 'gpuSummary' as const, step: step.name } : null);
  // The answer's columns as the summary's GPUs, opened once per answer.
  const stepSummary = useMemo(() => (answer.status === 'ready' ? gpuSummaryOf(openAnswer('gpu_summary', answer.data.answer)) : null), [answer]);
  const stepData = step && stepSummary && stepSummary.step === step.name ? stepSummary : null;
  const state = !step ? 'all' : stepData ? 'step' : answer.status === 'error' ? 'error' : 'loading';
  return (
    <div class="ov-panel ov-gpus" data-testid="gpu-summary" data-step={step?.name ?? ''} data-state={state}>
      <h4>
        GPU summary{' '}
        <span class="muted ov-scope" data-testid="gpu-summary-scope">
          {step ? `— step ${step.name}` : '— all steps'}
        </span>
      </h4>
      {state === 'loading' && (
        <p class="muted" role="status">
          Computing step {step!.name}'s numbers…
        </p>
      )}
      {state === 'error' && answer.status === 'error' && (
        <p class="file-error" role="alert">
          Step {step!.name}'s GPU numbers could not be computed ({answer.message}).
        </p>
      )}
      {!gpus.length && (
        <p class="muted" data-testid="no-gpus">
          This trace has no GPU kernels, so there is no GPU summary.
        </p>
      )}
      {gpus.map((g) => (
        <GpuBlock
          key={g.device}
          g={g}
          dev={devices.find((d) => d.id === g.device)}
          data={data}
          originUs={traceStartUs ?? g.timeline?.[0]?.[0] ?? 0}
          info={info}
          stepData={stepData}
        />
      ))}
      {gpus.length > 0 && (
        <p class="muted ov-footnote" data-testid="gpu-footnote">
          {stepData ? (
            <>
              Utilization, SM efficiency and occupancy are <span data-testid="gpu-scope-metrics">{stepData.scope.metrics}</span> (the shaded part of each chart).{' '}
              “Kernel time using {info?.tensorCores.term ?? 'Tensor Cores'}”: <span data-testid="tc-scope-gpu">{stepData.scope.tensorCores}</span>
            </>
          ) : (
            <>
              Utilization, SM efficiency and occupancy are over the steps (the shaded part of each chart).{' '}
              {info ? (
                <>
                  “Kernel time using {info.tensorCores.term}”: <span data-testid="tc-scope-gpu">{info.tensorCores.scope.gpu}</span>
                  {info.tensorCores.gpu_of !== 'all_kernels' && (
                    <>
                      {' '}
                      The Kernels view's pie: <span data-testid="tc-scope-kernel">{info.tensorCores.scope.kernel}</span>
                      {info.tensorCores.kernel_pct != null && (
                        <>
                          {' '}
                          (there <span data-testid="tc-kernel-pct">{formatPct(info.tensorCores.kernel_pct)}</span>
                          {info.tensorCores.kernel_unknown_pct ? <>, and {formatPct(info.tensorCores.kernel_unknown_pct)} in kernels whose name does not tell</> : null}.)
                        </>
                      )}
                    </>
                  )}
                </>
              ) : null}
            </>
          )}
        </p>
      )}
    </div>
  );
}

function GpuBlock({
  g: whole,
  dev,
  data,
  originUs,
  info,
  stepData,
}: {
  g: GpuMetric;
  dev: Device | undefined;
  data: GpuMetrics;
  originUs: number;
  info: OverviewInfo | null;
  /** The chosen step's numbers: they replace the whole run's (the timeline stays the whole trace's). */
  stepData: GpuSummaryData | null;
}) {
  const gi = info?.gpus.find((x) => x.device === whole.device);
  const sg = stepData?.gpus.find((x) => x.device === whole.device) ?? null;
  const g = sg ? { ...whole, utilization_pct: sg.utilization_pct, sm_efficiency_pct: sg.sm_efficiency_pct, achieved_occupancy_pct: sg.achieved_occupancy_pct } : whole;
  const tensorCorePct = stepData ? sg?.tensor_core_pct ?? null : gi?.tensor_core_pct ?? null;
  const unknownPct = stepData ? sg?.tensor_core_unknown_pct ?? null : gi?.tensor_core_unknown_pct ?? null;
  const term = info?.tensorCores.term ?? 'Tensor Cores';
  const arch = dev?.arch || gi?.arch || '';
  const amd = (dev?.vendor || gi?.vendor) === 'amd';
  const series = useMemo(() => utilizationSeries(g.timeline ?? [], originUs), [g, originUs]);
  const [at, setAt] = useState<number | null>(null);
  const ws = (stepData?.windowStartUs ?? data.window_start_us) != null ? ((stepData?.windowStartUs ?? data.window_start_us)! - originUs) / 1000 : null;
  const we = (stepData?.windowEndUs ?? data.window_end_us) != null ? ((stepData?.windowEndUs ?? data.window_end_us)! - originUs) / 1000 : null;
  const options = (_w: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
    scales: { x: { time: false }, y: { range: [0, 100] } },
    // The shaded window follows the step chosen (the key below redraws the chart when it changes).
    axes: [
      { ...axisStyle(t), values: (_u, vals) => vals.map((v) => `${+v.toFixed(3)} ms`) },
      { ...axisStyle(t), size: 48, splits: () => [0, 50, 100], values: (_u, vals) => vals.map((v) => `${v} %`) },
    ],
    series: [
      {},
      {
        label: 'GPU utilization',
        stroke: t.accent,
        fill: alpha(t.accent, 0.22),
        width: 1.5,
        points: { show: false },
        paths: uPlot.paths.stepped!({ align: 1 }),
      },
    ],
    legend: { show: false },
    cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false },
    hooks: {
      setCursor: [(u) => setAt(u.cursor.idx ?? null)],
      // The steps' window, over which the figures above are computed.
      drawClear: [
        (u) => {
          if (ws == null || we == null) return;
          const x0 = u.valToPos(ws, 'x', true);
          const x1 = u.valToPos(we, 'x', true);
          u.ctx.save();
          u.ctx.fillStyle = alpha(t.muted, 0.14);
          u.ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
          u.ctx.restore();
        },
      ],
    },
  });
  return (
    <div class="ov-gpu" data-testid={`gpu-${g.device}`}>
      <div class="ov-gpu-head">
        <strong>GPU {g.device}</strong>{' '}
        {dev?.name ? (
          <span data-testid={`gpu-name-${g.device}`}>{dev.name}</span>
        ) : (
          <span class="muted" data-testid={`gpu-name-${g.device}`} data-unnamed="">
            (the trace does not name this GPU: no deviceProperties)
          </span>
        )}
        {dev?.memory_bytes ? (
          <span class="muted">
            {' · '}
            <span data-testid={`gpu-memory-${g.device}`}>{formatDeviceMemory(dev.memory_bytes)}</span>
          </span>
        ) : null}
        {dev?.compute_capability && !amd ? (
          <span class="muted">
            {' · '}compute capability <span data-testid={`gpu-cc-${g.device}`}>{dev.compute_capability}</span>
          </span>
        ) : null}
        {arch ? (
          <span class="muted">
            {' · '}
            {amd ? 'architecture ' : ''}
            <span data-testid={`gpu-arch-${g.device}`}>{arch}</span>
          </span>
        ) : null}
      </div>
      <dl class="ov-gpu-stats">
        {g.utilization_pct != null && (
          <div>
            <dt>GPU utilization</dt>
            <dd data-testid={`gpu-util-${g.device}`}>{formatPct(g.utilization_pct)}</dd>
          </div>
        )}
        {g.sm_efficiency_pct != null && (
          <div>
            <dt>Est. SM efficiency</dt>
            <dd data-testid={`gpu-sm-eff-${g.device}`}>{formatPct(g.sm_efficiency_pct)}</dd>
          </div>
        )}
        {g.achieved_occupancy_pct != null && (
          <div>
            <dt>Est. achieved occupancy</dt>
            <dd data-testid={`gpu-occupancy-${g.device}`}>{formatPct(g.achieved_occupancy_pct)}</dd>
          </div>
        )}
        {tensorCorePct != null && (
          <div title={info?.tensorCores.scope.gpu}>
            <dt data-testid={`gpu-tc-label-${g.device}`}>Kernel time using {term}</dt>
            <dd>
              <span data-testid={`gpu-tc-${g.device}`}>{formatPct(tensorCorePct)}</span>
              {unknownPct ? (
                <span class="ov-unknown" title="Kernels whose name does not tell whether they use them (Triton, compiled regions): not counted as no">
                  {' '}
                  + <span data-testid={`gpu-tc-unknown-${g.device}`}>{formatPct(unknownPct)}</span> unknown
                </span>
              ) : null}
            </dd>
          </div>
        )}
      </dl>
      {series[0].length > 0 && (
        <figure
          class="ov-chart"
          data-testid={`gpu-timeline-${g.device}`}
          data-points={series[0].length}
          data-x0={series[0][0]}
          data-x1={series[0][series[0].length - 1]}
          data-window={ws != null && we != null ? `${ws},${we}` : ''}
          onMouseLeave={() => setAt(null)}
        >
          <Chart
            key={`${ws},${we}`}
            options={options}
            data={series as uPlot.AlignedData}
            height={120}
            label={`GPU ${g.device} utilization over time`}
          />
          <figcaption class="muted">
            <span>GPU utilization over time, ms from the trace's first event; shaded: {stepData ? `step ${stepData.step}` : 'the steps'}.</span>{' '}
            <span data-testid={`gpu-readout-${g.device}`}>{at != null && at < series[0].length ? `At ${+series[0][at].toFixed(3)} ms: ${series[1][at].toFixed(1)} %` : ''}</span>
          </figcaption>
        </figure>
      )}
    </div>
  );
}

/**
 * Peak memory per device, from the Memory view's numbers, with a link to that view: of the whole
 * trace, or within a chosen step (the Memory view's statistics of that step's window, as
 * `kinetoscope memory --json --from-us --to-us` gives them).
 */
function MemoryPeaks({ memory: whole, ask, step, onShowView }: { memory: MemoryDevices; ask?: Ask; step: ChosenStep | null; onShowView?: (view: string) => void }) {
  const [inStep, setInStep] = useState<{ step: string; devices: MemoryDevice[] } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    setInStep(null);
    setFailed(null);
    if (!ask || !step) return;
    let live = true;
    const from = step.start_us - whole.originUs, to = step.end_us - whole.originUs;
    ask({ what: 'memoryDevices', fromUs: from, toUs: to }).then(
      (r) => live && setInStep({ step: step.name, devices: memoryDevices(openAnswer('memory_devices', r.answer)).devices }),
      (e) => live && setFailed(String((e as Error)?.message ?? e)),
    );
    return () => {
      live = false;
    };
  }, [ask, step?.name, whole]);
  const shown = step && inStep?.step === step.name ? inStep.devices : step ? null : whole.devices;
  const memory = { ...whole, devices: shown ?? whole.devices };
  const state = !step ? 'all' : shown ? 'step' : failed ? 'error' : 'loading';
  return (
    <div class="ov-panel" data-testid="overview-memory" data-step={step?.name ?? ''} data-state={state}>
      <div class="ov-panel-head">
        <h4>
          Peak memory{' '}
          <span class="muted ov-scope" data-testid="overview-memory-scope">
            {step ? `— within step ${step.name}` : '— whole trace'}
          </span>
        </h4>
        {onShowView && (
          <button type="button" class="link-button" data-testid="overview-memory-open" onClick={() => onShowView('memory')}>
            Open Memory view
          </button>
        )}
      </div>
      {state === 'loading' && (
        <p class="muted" role="status">
          Computing step {step!.name}'s peaks…
        </p>
      )}
      {state === 'error' && (
        <p class="file-error" role="alert">
          Step {step!.name}'s peaks could not be computed ({failed}).
        </p>
      )}
      <dl class="ov-gpu-stats ov-mem-peaks" hidden={state === 'loading'}>
        {memory.devices.map((d) => (
          <div key={d.device} title={d.allocatedFromBytes ? 'The trace records no totals: the running sum of allocations and releases since profiling started' : undefined}>
            <dt>{d.device} allocated</dt>
            <dd data-testid={`overview-memory-${d.device}`} data-bytes={d.peakAllocatedBytes ?? ''}>
              {d.peakAllocatedBytes != null ? formatMemBytes(d.peakAllocatedBytes) : '—'}
              {d.peakUs != null && <span class="muted"> at {formatMemMs(d.peakUs)}</span>}
              {d.peakReservedBytes != null && <span class="muted"> · reserved {formatMemBytes(d.peakReservedBytes)}</span>}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
