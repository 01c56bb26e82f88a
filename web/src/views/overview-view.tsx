import { useState } from 'preact/hooks';
import { formatDeviceMemory } from '../lib/format';
import {
  formatPct,
  formatStepMs,
  formatStepUs,
  percentOf,
  ROLES,
  segmentTitle,
  stackSegments,
  timelinePlot,
  type GpuMetric,
  type GpuMetrics,
  type Overview,
  type OverviewInfo,
  type Recommendation,
  type StepBreakdown,
  type StepValues,
} from '../lib/overview';
import type { Device, Summary } from '../lib/summary';

/** The views' names as the tabs show them. */
export const VIEW_LABELS: Record<string, string> = {
  overview: 'Overview',
  operators: 'Operators',
  kernels: 'Kernels',
  memory: 'Memory',
  distributed: 'Distributed',
  timeline: 'Timeline',
};

// The Overview tab of a file's card: the step-time breakdown, the GPU summary and the
// recommendations. Every string from the trace or the core (step names, device names,
// recommendation texts) is rendered as text.
export function OverviewView({
  overview,
  summary,
  views = [],
  onShowView,
  step,
  onStep,
  onShowTimeline,
}: {
  overview: Overview;
  summary: Summary;
  /** The views this card has: a recommendation links to its view only when it is one of them. */
  views?: readonly string[];
  onShowView?: (view: string) => void;
  /** The chosen step ('all' or its index), when the card keeps it; else the view keeps its own. */
  step?: string;
  onStep?: (step: string) => void;
  /** Opens the Timeline on a step (its index), or on the whole trace (null). */
  onShowTimeline?: (step: number | null) => void;
}) {
  return (
    <section class="overview" data-testid="overview-card" aria-label="Overview">
      <h3 class="overview-title">Overview</h3>
      {overview.error && (
        <p class="file-error" role="alert" data-testid="overview-error">
          {overview.error}
        </p>
      )}
      {overview.steps && <StepBreakdownView data={overview.steps} sel={step} onSel={onStep} onShowTimeline={onShowTimeline} />}
      {overview.gpus && <GpuSummary data={overview.gpus} devices={summary.devices ?? []} info={overview.info ?? null} />}
      {overview.info && <Recommendations items={overview.info.recommendations} views={views} onShowView={onShowView} />}
    </section>
  );
}

function StepBreakdownView({
  data,
  sel: selProp,
  onSel,
  onShowTimeline,
}: {
  data: StepBreakdown;
  sel?: string;
  onSel?: (s: string) => void;
  onShowTimeline?: (step: number | null) => void;
}) {
  const [own, setOwn] = useState<string>('all');
  const sel = selProp ?? own;
  const setSel = (s: string) => (onSel ?? setOwn)(s);
  const steps = data.steps ?? [];
  if (!steps.length || !data.average) {
    return (
      <div class="ov-steps">
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
  const scale = Math.max(data.average.total_us, ...steps.map((s) => s.total_us));

  return (
    <div class="ov-steps">
      <h4>Step-time breakdown</h4>
      <label class="ov-select">
        Step{' '}
        <select
          data-testid="step-select"
          value={sel}
          onChange={(e) => setSel((e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="all">All steps (average)</option>
          {steps.map((s, i) => (
            <option value={String(i)} key={i}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      {onShowTimeline && (
        <>
          {' '}
          <button type="button" class="link-button" data-testid="step-show-in-timeline" onClick={() => onShowTimeline(chosen ? idx : null)}>
            {chosen ? `Show step ${chosen.name} in timeline` : 'Show in timeline'}
          </button>
        </>
      )}
      <ul class="ov-legend" aria-label="Legend">
        {ROLES.map((r) => (
          <li key={r.key}>
            <span class="ov-swatch" style={{ background: r.color }} />
            {r.label}
          </li>
        ))}
      </ul>
      <div class="ov-bars" data-testid="step-bars">
        {steps.map((s, i) => (
          <StepBar
            key={i}
            label={s.name}
            of={`step ${s.name}`}
            values={s}
            scale={scale}
            selected={i === idx}
            onClick={() => setSel(String(i))}
          />
        ))}
        <StepBar label="Average" of="the average step" values={data.average} scale={scale} selected={idx < 0} onClick={() => setSel('all')} />
      </div>

      <div class="grid2 ov-tables">
        <table class="table" data-testid="step-detail">
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
                <tr key={r.key} title={`${r.label}: ${formatStepMs(us)} of ${shownLabel}`}>
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
        <div class="ov-scroll">
          <table class="table" data-testid="step-table">
            <thead>
              <tr>
                <th>Step</th>
                <th class="num">Total (us)</th>
                <th class="num">Kernel (us)</th>
                <th class="num">Kernel %</th>
              </tr>
            </thead>
            <tbody>
              {steps.map((s, i) => (
                <tr
                  key={i}
                  data-testid={`step-row-${s.name}`}
                  class={i === idx ? 'selected' : undefined}
                  onClick={() => setSel(String(i))}
                >
                  <td>{s.name}</td>
                  <td class="num">{formatStepUs(s.total_us)}</td>
                  <td class="num">{formatStepUs(s.kernel_us)}</td>
                  <td class="num">{formatPct(percentOf(s.kernel_us, s.total_us))}</td>
                </tr>
              ))}
              <tr class={idx < 0 ? 'selected ov-total' : 'ov-total'} data-testid="step-row-average">
                <td>Average</td>
                <td class="num" data-testid="avg-total">
                  {formatStepUs(data.average.total_us)}
                </td>
                <td class="num" data-testid="avg-kernel">
                  {formatStepUs(data.average.kernel_us)}
                </td>
                <td class="num">{formatPct(percentOf(data.average.kernel_us, data.average.total_us))}</td>
              </tr>
            </tbody>
          </table>
        </div>
      </div>
    </div>
  );
}

function StepBar(props: {
  label: string;
  of: string;
  values: StepValues;
  scale: number;
  selected: boolean;
  onClick: () => void;
}) {
  const segs = stackSegments(props.values, props.scale);
  const [hover, setHover] = useState<string | null>(null);
  return (
    <div class={props.selected ? 'ov-bar-row selected' : 'ov-bar-row'} onClick={props.onClick}>
      <span class="ov-bar-label">{props.label}</span>
      <div class="ov-bar" onMouseLeave={() => setHover(null)}>
        {segs
          .filter((s) => s.widthPct > 0)
          .map((s) => (
            <span
              key={s.key}
              class="ov-seg"
              data-role={s.key}
              title={segmentTitle(s, props.of)}
              style={{ left: `${s.offsetPct}%`, width: `${s.widthPct}%`, background: s.color }}
              onMouseEnter={() => setHover(segmentTitle(s, props.of))}
            />
          ))}
      </div>
      <span class="ov-bar-total">{formatStepMs(props.values.total_us)}</span>
      {hover && (
        <span class="ov-hover" data-testid="step-hover">
          {hover}
        </span>
      )}
    </div>
  );
}

function Recommendations({
  items,
  views,
  onShowView,
}: {
  items: Recommendation[];
  views: readonly string[];
  onShowView?: (view: string) => void;
}) {
  return (
    <div class="ov-recs">
      <h4>Recommendations</h4>
      {!items.length ? (
        <p class="muted" data-testid="no-recommendations">
          No recommendations.
        </p>
      ) : (
        <ul class="ov-rec-list" data-testid="recommendations">
          {items.map((r) => (
            <li key={r.id} data-testid="recommendation" data-id={r.id}>
              <span data-testid="recommendation-text">{r.text}</span>
              {r.view !== 'overview' && views.includes(r.view) && onShowView ? (
                <>
                  {' '}
                  <button type="button" class="link-button" data-testid={`recommendation-show-${r.id}`} onClick={() => onShowView(r.view)}>
                    Show in {VIEW_LABELS[r.view] ?? r.view}
                  </button>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function GpuSummary({ data, devices, info }: { data: GpuMetrics; devices: Device[]; info: OverviewInfo | null }) {
  const gpus = data.gpus ?? [];
  return (
    <div class="ov-gpus">
      <h4>GPU summary</h4>
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
          windowStartUs={data.window_start_us ?? 0}
          tensorCorePct={info?.gpus.find((x) => x.device === g.device)?.tensor_core_pct ?? null}
        />
      ))}
    </div>
  );
}

const W = 560;
const H = 110;

function GpuBlock({
  g,
  dev,
  windowStartUs,
  tensorCorePct,
}: {
  g: GpuMetric;
  dev: Device | undefined;
  windowStartUs: number;
  tensorCorePct: number | null;
}) {
  const plot = timelinePlot(g.timeline ?? [], windowStartUs, W, H);
  return (
    <div class="ov-gpu" data-testid={`gpu-${g.device}`}>
      <dl class="stats">
        <div class="wide">
          <dt>GPU {g.device}</dt>
          <dd data-testid={`gpu-name-${g.device}`}>{dev?.name || '—'}</dd>
        </div>
        {dev?.memory_bytes ? (
          <div>
            <dt>Memory</dt>
            <dd data-testid={`gpu-memory-${g.device}`}>{formatDeviceMemory(dev.memory_bytes)}</dd>
          </div>
        ) : null}
        {dev?.compute_capability ? (
          <div>
            <dt>Compute capability</dt>
            <dd data-testid={`gpu-cc-${g.device}`}>{dev.compute_capability}</dd>
          </div>
        ) : null}
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
          <div>
            <dt>Kernel time using Tensor Cores</dt>
            <dd data-testid={`gpu-tc-${g.device}`}>{formatPct(tensorCorePct)}</dd>
          </div>
        )}
      </dl>
      {plot.points && (
        <figure class="ov-chart">
          <svg
            data-testid={`gpu-timeline-${g.device}`}
            viewBox={`-40 -8 ${W + 50} ${H + 28}`}
            role="img"
            aria-label={`GPU ${g.device} utilization over time`}
          >
            <line x1={0} y1={H} x2={W} y2={H} class="ov-axis" />
            <line x1={0} y1={0} x2={0} y2={H} class="ov-axis" />
            <line x1={0} y1={H / 2} x2={W} y2={H / 2} class="ov-grid" />
            <text x={-6} y={4} class="ov-tick" text-anchor="end">100 %</text>
            <text x={-6} y={H / 2 + 4} class="ov-tick" text-anchor="end">50 %</text>
            <text x={-6} y={H + 4} class="ov-tick" text-anchor="end">0 %</text>
            <text x={0} y={H + 16} class="ov-tick">{`${Math.round(plot.x0Ms) || 0} ms`}</text>
            <text x={W} y={H + 16} class="ov-tick" text-anchor="end">{`${Math.round(plot.x1Ms) || 0} ms`}</text>
            <polyline points={plot.points} class="ov-line" fill="none" />
          </svg>
          <figcaption class="muted">GPU utilization over time (ms from the start of the analysis window)</figcaption>
        </figure>
      )}
    </div>
  );
}
