// The kinds of memory (issue 26), a panel of the Snapshot page: parameters, optimizer state,
// activations, gradients, temporaries and unknown at the peak and over the history, by the rule
// on the allocations' stacks and lifetimes of docs/snapshots.md (the snapshot-categories and
// snapshot-categories-series answers, equal to `kinetoscope snapshot --categories --json`); with
// the same run's export_memory_timeline paired (picked or dropped on this panel, told by its
// content: lib/memory-timeline.ts), PyTorch's own categories instead (snapshot-memory-timeline*).
import type uPlot from 'uplot';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { axisStyle, Chart, fitLabels, type ChartTheme } from '../components/chart';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import { formatBytes, formatCount, formatDurationUs, formatTimestampUs } from '../lib/format';
import { isMemoryTimeline, memoryTimelineText, PAIR_TIMELINE_EVENT, type PairTimelineDetail } from '../lib/memory-timeline';
import type { SnapshotDevice } from '../lib/snapshot';

/** The export_memory_timeline paired with the snapshot (its file's name), or none. */
export interface PairedTimeline {
  file: string;
  samples: number;
}

// One colour per kind, the rule's six and PyTorch's eight alike.
const COLORS: Record<string, string> = {
  parameters: '#4c6ef5',
  optimizer_state: '#7950f2',
  activations: '#f59f00',
  gradients: '#e8590c',
  temporaries: '#20c997',
  unknown: '#868e96',
  inputs: '#15aabf',
  autograd_detail: '#d6336c',
};
const label = (c: string) => c.replace('_', ' ');
const RULE_KINDS = ['parameters', 'optimizer_state', 'activations', 'gradients', 'temporaries', 'unknown'] as const;
const TORCH_KINDS = ['parameters', 'optimizer_state', 'inputs', 'temporaries', 'activations', 'gradients', 'autograd_detail', 'unknown'] as const;

export function SnapshotCategoriesPanel({
  ask,
  name,
  device,
  paired,
  onPaired,
}: {
  ask: Ask;
  /** The snapshot's file name: a timeline dropped on the page for it (app.tsx) names it. */
  name: string;
  device: SnapshotDevice;
  paired: PairedTimeline | null;
  onPaired: (p: PairedTimeline) => void;
}) {
  const [pairError, setPairError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [over, setOver] = useState(false);
  const pair = async (file: File) => {
    setPairError(null);
    setBusy(true);
    try {
      const text = await memoryTimelineText(file);
      if (!isMemoryTimeline(new TextEncoder().encode(text.slice(0, 64))))
        throw new Error(`${file.name} is not an export_memory_timeline file: it does not begin with its list of times ([[t, ...], [[...], ...]]).`);
      const r = await ask({ what: 'pairMemoryTimeline', name: file.name, text });
      onPaired({ file: r.file, samples: r.samples });
    } catch (e) {
      setPairError((e as Error)?.message || String(e));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    const on = (ev: Event) => {
      const d = (ev as CustomEvent<PairTimelineDetail>).detail;
      if (d?.snapshot === name) void pair(d.file);
    };
    window.addEventListener(PAIR_TIMELINE_EVENT, on);
    return () => window.removeEventListener(PAIR_TIMELINE_EVENT, on);
  });
  return (
    <div
      class={`ov-panel snap-cats${over ? ' snap-drop' : ''}`}
      data-testid="snapshot-categories"
      data-source={paired ? 'memory_timeline' : 'rule'}
      onDragOver={(ev) => {
        if (!ev.dataTransfer?.types.includes('Files')) return;
        ev.preventDefault();
        ev.stopPropagation();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(ev) => {
        const f = ev.dataTransfer?.files?.[0];
        if (!f) return;
        ev.preventDefault();
        ev.stopPropagation();
        setOver(false);
        void pair(f);
      }}
    >
      <div class="ov-panel-head">
        <h3>Memory by kind</h3>
        <label class="snap-pair">
          <span class="button-like">{paired ? 'Pair another export_memory_timeline…' : 'Pair export_memory_timeline…'}</span>
          <input
            type="file"
            accept=".json,.gz,application/json,application/gzip"
            data-testid="snapshot-pair-input"
            disabled={busy}
            onChange={(ev) => {
              const f = (ev.target as HTMLInputElement).files?.[0];
              (ev.target as HTMLInputElement).value = '';
              if (f) void pair(f);
            }}
          />
        </label>
      </div>
      <p class="muted snap-cats-how" data-testid="snapshot-pair-how">
        The same run's <code>export_memory_timeline</code> (.json or .json.gz), told by its content (a list of times, then one of sizes per kind), is paired with
        this snapshot when picked here or dropped on this panel, or dropped anywhere while this is the one snapshot open; with several open, pick or drop it here.
      </p>
      {pairError && (
        <p class="error" role="alert" data-testid="snapshot-pair-error">
          {pairError}
        </p>
      )}
      {paired ? <TorchKinds ask={ask} device={device} paired={paired} /> : <RuleKinds ask={ask} device={device} />}
    </div>
  );
}

function RuleKinds({ ask, device }: { ask: Ask; device: SnapshotDevice }) {
  const at = useAnswer(ask, 'snapshot-categories', { device: String(device.device) });
  const series = useAnswer(ask, 'snapshot-categories-series', device.trace_entries > 0 ? { device: String(device.device), points: '1000' } : null);
  const a = at.status === 'ready' ? at.data : null;
  const s = series.status === 'ready' ? series.data : null;
  const rows = a ? Array.from({ length: a.rowCount }, (_, i) => ({ kind: a.strings[a.columns.category[i]], bytes: a.columns.bytes[i], allocations: a.columns.allocations[i] })) : [];
  const chart = useMemo(() => {
    if (!s || s.rowCount === 0) return null;
    const c = s.columns;
    const times = s.meta.has_times && s.rowCount > 0 && !Number.isNaN(c.at_us[s.rowCount - 1]);
    let t0 = NaN;
    for (let i = 0; i < s.rowCount && times; i++) if (!Number.isNaN(c.at_us[i])) { t0 = c.at_us[i]; break; }
    const x = Float64Array.from({ length: s.rowCount }, (_, i) => (times ? (Number.isNaN(c.at_us[i]) ? 0 : c.at_us[i] - t0) : c.entry[i]));
    return { x, layers: RULE_KINDS.map((k) => c[k]), axis: times ? 'time' : 'entry', t0 } as const;
  }, [s]);
  return (
    <>
      <p class="snap-cats-rule" data-testid="snapshot-categories-rule">
        Inferred per allocation from its stacks and lifetime (a snapshot holds no tensor identities): an optimizer's <code>_init_group</code> makes optimizer state, module
        construction and <code>.to()</code> parameters, what <code>zero_grad</code> frees or <code>AccumulateGrad</code> allocates gradients, what a module's forward allocates
        and backward frees activations, the rest of what is freed temporaries; docs/snapshots.md gives the whole rule and its limits.
      </p>
      {!a ? (
        <p class="muted">{at.status === 'error' ? at.message : 'Sorting the allocations by kind…'}</p>
      ) : (
        <KindTable
          title={`At the peak, ${a.meta.entry < 0 ? 'before the first entry' : `after entry ${formatCount(a.meta.entry)}`}${a.meta.at_us == null ? '' : ` (${formatTimestampUs(a.meta.at_us)})`}`}
          rows={rows}
          total={a.meta.total_bytes}
          testid="snapshot-categories-peak"
        />
      )}
      {chart && (
        <KindChart
          x={chart.x}
          layers={chart.layers}
          kinds={RULE_KINDS}
          xLabel={chart.axis === 'time' ? 'from the first entry' : 'entry'}
          testid="snapshot-categories-chart"
          label={`Memory of cuda:${device.device} by kind over the history, stacked`}
        />
      )}
    </>
  );
}

function TorchKinds({ ask, device, paired }: { ask: Ask; device: SnapshotDevice; paired: PairedTimeline }) {
  const at = useAnswer(ask, 'snapshot-memory-timeline', { device: String(device.device), file: paired.file });
  const series = useAnswer(ask, 'snapshot-memory-timeline-series', { points: '1000', file: paired.file });
  const a = at.status === 'ready' ? at.data : null;
  const s = series.status === 'ready' ? series.data : null;
  const rows = a ? Array.from({ length: a.rowCount }, (_, i) => ({ kind: a.strings[a.columns.category[i]], bytes: a.columns.bytes[i] })) : [];
  const total = rows.reduce((x, r) => x + r.bytes, 0);
  const chart = useMemo(() => {
    if (!s || s.rowCount === 0) return null;
    const t0 = s.columns.time_us[0];
    return { x: Float64Array.from(s.columns.time_us, (t) => t - t0), layers: TORCH_KINDS.map((k) => s.columns[k]) };
  }, [s]);
  const m = a?.meta;
  return (
    <>
      <p class="snap-cats-rule" data-testid="snapshot-categories-source">
        From <code data-testid="snapshot-paired-file">{paired.file}</code>: PyTorch's own memory profiler's categories ({formatCount(paired.samples)} samples
        {m && m.first_us != null && m.last_us != null ? `, ${formatDurationUs(m.last_us - m.first_us)} from ${formatTimestampUs(m.first_us)}` : ''}), used instead of the
        rule on the stacks.
      </p>
      {!a || !m ? (
        <p class="muted">{at.status === 'error' ? at.message : 'Reading the memory timeline…'}</p>
      ) : (
        <>
          {!m.matched && (
            <p class="warn" data-testid="snapshot-paired-unmatched">
              It does not cover the snapshot's peak ({m.at_us == null ? 'no time' : formatTimestampUs(m.at_us)}): the profiler ran on other steps. Shown: its own peak, at{' '}
              {formatTimestampUs(m.sample_us)}, to compare.
            </p>
          )}
          <KindTable
            title={m.matched ? `At the snapshot's peak (its sample at ${formatTimestampUs(m.sample_us)})` : `At its own peak (${formatTimestampUs(m.sample_us)})`}
            rows={rows}
            total={total}
            testid="snapshot-paired-peak"
            matched={m.matched}
          />
        </>
      )}
      {chart && (
        <KindChart
          x={chart.x}
          layers={chart.layers}
          kinds={TORCH_KINDS}
          xLabel="from its first sample"
          testid="snapshot-paired-chart"
          label={`Memory by PyTorch's categories over ${paired.file}, stacked`}
        />
      )}
    </>
  );
}

function KindTable({
  title,
  rows,
  total,
  testid,
  matched,
}: {
  title: string;
  rows: { kind: string; bytes: number; allocations?: number }[];
  total: number;
  testid: string;
  matched?: boolean;
}) {
  return (
    <div class="snap-table-wrap">
      <h4>{title}</h4>
      <table class="snap-table snap-kinds" data-testid={testid} data-total={total} data-matched={matched == null ? '' : String(matched)}>
        <thead>
          <tr>
            <th>Kind</th>
            <th class="num">Bytes</th>
            <th class="num">Share</th>
            {rows[0]?.allocations != null && <th class="num">Allocations</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.kind} data-testid="snapshot-kind" data-kind={r.kind} data-bytes={r.bytes} data-allocations={r.allocations ?? ''}>
              <td>
                <span class="ov-swatch" style={{ background: COLORS[r.kind] ?? '#888' }} /> {label(r.kind)}
              </td>
              <td class="num" title={`${formatCount(r.bytes)} bytes`}>
                {formatBytes(r.bytes)}
              </td>
              <td class="num">{total > 0 ? `${((100 * r.bytes) / total).toFixed(1)} %` : '—'}</td>
              {r.allocations != null && <td class="num">{formatCount(r.allocations)}</td>}
            </tr>
          ))}
          <tr class="snap-kinds-total">
            <td>total</td>
            <td class="num" title={`${formatCount(total)} bytes`}>
              {formatBytes(total)}
            </td>
            <td />
            {rows[0]?.allocations != null && <td />}
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/** The kinds stacked over time: each series the running sum up to its kind, drawn top first. */
function KindChart({
  x,
  layers,
  kinds,
  xLabel,
  testid,
  label: aria,
}: {
  x: Float64Array;
  layers: Float64Array[];
  kinds: readonly string[];
  xLabel: string;
  testid: string;
  label: string;
}) {
  const [hover, setHover] = useState<number | null>(null);
  const data = useMemo(() => {
    const sums: Float64Array[] = [];
    let run = new Float64Array(x.length);
    for (const l of layers) {
      const next = new Float64Array(x.length);
      for (let i = 0; i < x.length; i++) next[i] = run[i] + l[i];
      sums.push(next);
      run = next;
    }
    return [x, ...sums.reverse()] as unknown as uPlot.AlignedData;
  }, [x, layers]);
  const top = [...kinds].reverse();
  const options = (_w: number, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] } },
    axes: [
      { ...axisStyle(t), label: xLabel, labelSize: 18, labelFont: '11px system-ui, sans-serif', ...(xLabel === 'entry' ? {} : { values: (_u: uPlot, vals: number[]) => vals.map((v) => formatDurationUs(v)) }) },
      { ...axisStyle(t), size: fitLabels(64), values: (_u, vals) => vals.map((v) => formatBytes(v)) },
    ],
    series: [{}, ...top.map((k) => ({ label: label(k), fill: COLORS[k], stroke: COLORS[k], width: 0, points: { show: false } }))],
    legend: { show: false },
    cursor: { points: { show: false }, drag: { x: false, y: false, setScale: false }, y: false },
    hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
  });
  return (
    <div class="snap-cats-chart">
      <ul class="ov-legend" aria-label="Legend">
        {kinds.map((k) => (
          <li key={k}>
            <span class="ov-swatch" style={{ background: COLORS[k] }} />
            {label(k)}
          </li>
        ))}
      </ul>
      <div onMouseLeave={() => setHover(null)}>
        <Chart options={options} data={data} height={220} testid={testid} label={aria} />
      </div>
      <p class="muted snap-cats-readout" data-testid={`${testid}-hover`}>
        {hover != null && hover < x.length
          ? `${xLabel === 'entry' ? `Entry ${formatCount(x[hover])}` : formatDurationUs(x[hover])}: ` +
            kinds.map((k, i) => `${label(k)} ${formatBytes(layers[i][hover])}`).join(', ')
          : `${formatCount(x.length)} moments, each the highest of its stretch. Hover the chart to read one.`}
      </p>
    </div>
  );
}
