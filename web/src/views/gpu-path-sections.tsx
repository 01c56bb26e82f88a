// The GPU time tab's last parts (issue 24 §2 end, §7, §8, §9), below the kernel breakdown: what
// the analyses recommend (each linked to its evidence below), the largest idle gaps of each stream
// (each opening the Timeline at that moment), the critical path of a step (its time by what bounds
// it and its parts in order, the step a click away on the Timeline) and the most frequent kernel
// sequences (fusion candidates). Four answers of the core (core/session/views/gpu_idle_gaps.cpp,
// gpu_critical_path.cpp, gpu_kernel_sequences.cpp, gpu_recommendations.cpp) read in place.
import { useMemo, useRef, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import { GPU_CRITICAL_PATH_COLUMNS, GPU_IDLE_GAPS_COLUMNS, GPU_KERNEL_SEQUENCES_COLUMNS, NULL_STRING, type Answer } from '../generated/views';
import { answerTable } from '../lib/answer-table';
import { csvStem } from '../lib/download';
import { formatDurationUs } from '../lib/format';
import { formatPct } from '../lib/overview';
import type { TableModel } from '../lib/table-model';
import { QueryStatus } from './view-status';

const NO_PARAMS = {};

/** Opens the Timeline on [fromMs, toMs] after the trace start. */
export type ShowRange = (fromMs: number, toMs: number, label: string) => void;

// What bounds the path: the host in warm colours, the GPU in the Overview's kernel blue and its
// communication green, the gaps between kernels grey.
const BOUNDS = [
  { key: 'cpu', label: 'CPU', color: '#e15759' },
  { key: 'data_loading', label: 'Data loading', color: '#b07aa1' },
  { key: 'launch_overhead', label: 'Launch overhead', color: '#f28e2b' },
  { key: 'gpu_compute', label: 'GPU compute', color: '#4e79a7' },
  { key: 'gpu_comm', label: 'GPU communication', color: '#59a14f' },
  { key: 'kernel_kernel', label: 'Kernel-kernel gaps', color: '#bab0ac' },
] as const;

const EVIDENCE: Record<string, { testid: string; label: string }> = {
  'gpu-idle': { testid: 'gpu-idle', label: 'Idle time by stream' },
  'gpu-queue': { testid: 'gpu-queue', label: 'Queue length' },
  'gpu-critical-path': { testid: 'gpu-critical-path', label: 'Critical path' },
  'gpu-kernel-sequences': { testid: 'gpu-kernel-sequences', label: 'Frequent kernel sequences' },
};

const str = (a: { strings: readonly string[] }, id: number) => (id === NULL_STRING ? '' : a.strings[id]);

export function GpuPathSections({ ask, fileName, onShowRange }: { ask: Ask; fileName: string; onShowRange?: ShowRange }) {
  const root = useRef<HTMLDivElement>(null);
  /** Scrolls to an evidence section of this tab. */
  const show = (testid: string) => {
    const view = root.current?.closest('[data-testid="gpu-time-view"]');
    const el = view?.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
    el?.scrollIntoView({ block: 'start' });
    el?.focus({ preventScroll: true });
  };
  return (
    <div ref={root} class="gpu-path-sections">
      <RecommendationsSection ask={ask} onEvidence={show} />
      <IdleGapsSection ask={ask} fileName={fileName} onShowRange={onShowRange} />
      <CriticalPathSection ask={ask} fileName={fileName} onShowRange={onShowRange} />
      <SequencesSection ask={ask} fileName={fileName} />
    </div>
  );
}

function RecommendationsSection({ ask, onEvidence }: { ask: Ask; onEvidence: (testid: string) => void }) {
  const recs = useAnswer(ask, 'gpu-recommendations', NO_PARAMS);
  if (recs.status !== 'ready') return <QueryStatus state={recs} stem="gpu-recommendations" what="recommendations" loading="Reading the analyses for recommendations…" />;
  const a = recs.data;
  const c = a.columns;
  return (
    <section class="gpu-part" data-testid="gpu-recommendations" data-ready="true" aria-label="Recommendations">
      <h3>Recommendations</h3>
      {a.rowCount === 0 ? (
        <p class="muted" data-testid="gpu-recommendations-none">
          {a.meta.note}
        </p>
      ) : (
        <ul class="gpu-recs">
          {Array.from({ length: a.rowCount }, (_, i) => {
            const ev = EVIDENCE[str(a, c.evidence[i])];
            return (
              <li key={i} data-testid="gpu-recommendation" data-kind={str(a, c.kind[i])}>
                {str(a, c.text[i])}{' '}
                {ev && (
                  <button type="button" class="link-button" data-testid="gpu-recommendation-evidence" onClick={() => onEvidence(ev.testid)}>
                    See {ev.label}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function gapsTable(a: Answer<'gpu-idle-gaps'>): TableModel {
  return answerTable(
    a,
    GPU_IDLE_GAPS_COLUMNS,
    [
      { name: 'stream', label: 'Stream', width: 80 },
      { name: 'gap_us', label: 'Gap', width: 110 },
      { name: 'start_us', label: 'From', width: 120, title: () => 'The previous event’s end, from the trace start' },
      { name: 'category', label: 'Category', width: 110 },
      { name: 'event', label: 'Next GPU event', grow: 1 },
      { name: 'launch', label: 'Launched by', width: 160 },
      { name: 'operator', label: 'Operator', width: 200 },
      { name: 'launch_us', label: 'Launch at', width: 120, defaultHidden: true },
      { name: 'event_start_us', label: 'Event at', width: 120, defaultHidden: true },
    ],
    (row) => String(row),
  );
}

function IdleGapsSection({ ask, fileName, onShowRange }: { ask: Ask; fileName: string; onShowRange?: ShowRange }) {
  const gaps = useAnswer(ask, 'gpu-idle-gaps', NO_PARAMS);
  const model = useMemo(() => (gaps.status === 'ready' ? gapsTable(gaps.data) : null), [gaps.status === 'ready' ? gaps.data : null]);
  const [selected, setSelected] = useState<number>(-1);
  if (gaps.status !== 'ready' || !model) return <QueryStatus state={gaps} stem="gpu-idle-gaps" what="largest idle gaps" loading="Finding the largest idle gaps…" />;
  const a = gaps.data;
  if (a.rowCount === 0) return null;
  const c = a.columns;
  const row = selected >= 0 && selected < a.rowCount ? selected : -1;
  return (
    <section class="gpu-part" data-testid="gpu-idle-gaps" data-ready="true" aria-label="Largest idle gaps">
      <h3>Largest idle gaps</h3>
      <p class="muted">
        The {a.meta.gaps} longest gaps of each stream, as the idle time breakdown classifies them, with the GPU event after each, the call that
        launched it and the operator that made the call. Select a gap to open the Timeline on it.
      </p>
      <DataTable
        model={model}
        stem="gpu-idle-gaps"
        label="Largest idle gaps"
        csvName={`${csvStem(fileName)}-gpu-idle-gaps.csv`}
        initialSort={null}
        searchPlaceholder="Search gaps"
        maxHeight={300}
        onSelect={(key) => setSelected(key == null ? -1 : Number(key))}
      />
      {row >= 0 && (
        <p class="gpu-gap-detail" data-testid="gpu-idle-gap-detail">
          Stream {c.stream[row]}: {formatDurationUs(c.gap_us[row])} idle before {str(a, c.event[row])}
          {c.operator[row] !== NULL_STRING ? `, launched from ${str(a, c.operator[row])}` : ''}.{' '}
          {onShowRange && (
            <button
              type="button"
              class="link-button"
              data-testid="gpu-idle-gap-show-in-timeline"
              title="Open the Timeline on this gap (only that window is sent to Perfetto)"
              onClick={() => {
                const pad = Math.max(c.gap_us[row] * 0.1, 10);
                onShowRange((c.start_us[row] - pad) / 1000, (c.event_start_us[row] + pad) / 1000, `gap before ${str(a, c.event[row])}`);
              }}
            >
              Show in timeline
            </button>
          )}
        </p>
      )}
    </section>
  );
}

function pathTable(a: Answer<'gpu-critical-path'>): TableModel {
  return answerTable(
    a,
    GPU_CRITICAL_PATH_COLUMNS,
    [
      { name: 'name', label: 'Part', grow: 1 },
      { name: 'bound', label: 'Bound by', width: 140 },
      { name: 'time_us', label: 'Time', width: 110 },
      { name: 'pct', label: 'Share', width: 90 },
      { name: 'stream', label: 'Stream', width: 80 },
      { name: 'start_us', label: 'From', width: 120 },
      { name: 'end_us', label: 'To', width: 120, defaultHidden: true },
    ],
    (row) => String(row),
  );
}

function CriticalPathSection({ ask, fileName, onShowRange }: { ask: Ask; fileName: string; onShowRange?: ShowRange }) {
  const path = useAnswer(ask, 'gpu-critical-path', NO_PARAMS);
  const model = useMemo(() => (path.status === 'ready' ? pathTable(path.data) : null), [path.status === 'ready' ? path.data : null]);
  if (path.status !== 'ready' || !model) return <QueryStatus state={path} stem="gpu-critical-path" what="critical path" loading="Finding the step's critical path…" />;
  const a = path.data;
  const m = a.meta;
  const total = m.total_us;
  return (
    <section class="gpu-part" data-testid="gpu-critical-path" data-ready="true" aria-label="Critical path" tabIndex={-1}>
      <h3>Critical path{m.step != null ? ` of step ${m.step}` : ''}</h3>
      {total == null || !m.by_bound ? (
        <p class="muted" data-testid="gpu-critical-path-none">
          {m.note}
        </p>
      ) : (
        <>
          <p class="muted">
            The chain of host operators, launches, GPU work and synchronizations that bounds the step (Holistic Trace Analysis’s critical
            path): shortening anything off it does not shorten the step.{' '}
            {onShowRange && m.step_start_us != null && m.step_end_us != null && (
              <button
                type="button"
                class="link-button"
                data-testid="gpu-critical-path-show-in-timeline"
                onClick={() => onShowRange(m.step_start_us! / 1000, m.step_end_us! / 1000, `step ${m.step}`)}
              >
                Show step {m.step} on timeline
              </button>
            )}
          </p>
          {m.note && <p class="muted" data-testid="gpu-critical-path-note">{m.note}</p>}
          <p data-testid="gpu-critical-path-total">
            Total <b>{formatDurationUs(total)}</b> of a {formatDurationUs((m.step_end_us ?? 0) - (m.step_start_us ?? 0))} step
          </p>
          <div class="gpu-share-bar gpu-path-bar" role="img" aria-label={BOUNDS.map((b) => `${b.label} ${formatPct(total > 0 ? (100 * m.by_bound![`${b.key}_us`]) / total : 0)}`).join(', ')}>
            {BOUNDS.map((b) => {
              const v = m.by_bound![`${b.key}_us`];
              return v > 0 && total > 0 ? <span key={b.key} style={{ width: `${(100 * v) / total}%`, background: b.color }} title={`${b.label}: ${formatDurationUs(v)}`} /> : null;
            })}
          </div>
          <ul class="ov-legend gpu-path-bounds" aria-label="Critical path by bound">
            {BOUNDS.map((b) => (
              <li key={b.key} data-testid={`gpu-critical-path-${b.key}`} data-us={m.by_bound![`${b.key}_us`]}>
                <span class="ov-swatch" style={{ background: b.color }} />
                {b.label} <b>{formatDurationUs(m.by_bound![`${b.key}_us`])}</b> ({formatPct(total > 0 ? (100 * m.by_bound![`${b.key}_us`]) / total : 0)})
              </li>
            ))}
          </ul>
          <DataTable
            model={model}
            stem="gpu-critical-path"
            label="The critical path's parts in order"
            csvName={`${csvStem(fileName)}-gpu-critical-path.csv`}
            initialSort={null}
            searchPlaceholder="Search the path"
            maxHeight={360}
          />
        </>
      )}
    </section>
  );
}

function sequencesTable(a: Answer<'gpu-kernel-sequences'>): TableModel {
  return answerTable(
    a,
    GPU_KERNEL_SEQUENCES_COLUMNS,
    [
      { name: 'operator', label: 'Operator', width: 200 },
      { name: 'count', label: 'Count', width: 80 },
      { name: 'length', label: 'Kernels', width: 80 },
      { name: 'gpu_us', label: 'GPU time', width: 110 },
      { name: 'mean_event_us', label: 'Mean kernel', width: 110 },
      { name: 'cpu_us', label: 'Host time', width: 110 },
      { name: 'kernels', label: 'Sequence', grow: 1 },
      { name: 'stack', label: 'Called under', width: 220 },
    ],
    (row) => String(row),
  );
}

function SequencesSection({ ask, fileName }: { ask: Ask; fileName: string }) {
  const seq = useAnswer(ask, 'gpu-kernel-sequences', NO_PARAMS);
  const model = useMemo(() => (seq.status === 'ready' ? sequencesTable(seq.data) : null), [seq.status === 'ready' ? seq.data : null]);
  if (seq.status !== 'ready' || !model) return <QueryStatus state={seq} stem="gpu-kernel-sequences" what="frequent kernel sequences" loading="Counting kernel sequences…" />;
  const a = seq.data;
  return (
    <section class="gpu-part" data-testid="gpu-kernel-sequences" data-ready="true" aria-label="Frequent kernel sequences" tabIndex={-1}>
      <h3>Frequent kernel sequences</h3>
      <p class="muted">
        The GPU work launched under one call of an operator whose name contains “{a.meta.operator}” (the outermost such call), counted when
        it is {a.meta.min_kernels} kernels or more, most frequent first: a repeated sequence of short kernels is a fusion candidate (Holistic
        Trace Analysis’s frequent CUDA kernel sequences). {a.meta.roots} calls, {a.meta.counted} long enough, {a.meta.patterns} patterns.
      </p>
      {a.rowCount === 0 ? (
        <p class="muted" data-testid="gpu-kernel-sequences-none">
          {a.meta.note}
        </p>
      ) : (
        <DataTable
          model={model}
          stem="gpu-kernel-sequences"
          label="Frequent kernel sequences"
          csvName={`${csvStem(fileName)}-gpu-kernel-sequences.csv`}
          initialSort={null}
          searchPlaceholder="Search sequences"
          maxHeight={320}
        />
      )}
    </section>
  );
}
