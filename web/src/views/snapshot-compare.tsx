// "Compare two snapshots" on the Snapshot page (issue 26): this snapshot and another one open
// (two runs, or two ranks of one), A and B, as `kinetoscope snapshot --compare A B` compares them:
// both peaks and the difference, the allocation sites that grew (most grown first; a sortable
// table), the categories at each peak, and both active memory curves on one axis of time since
// each one's first entry. Each snapshot is asked in its own Session (lib/snapshot-compare.ts pairs
// the answers); the app keeps the other one's Session loaded while it is picked (onPair).
import { useEffect, useMemo, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { axisStyle, Chart, fitLabels } from '../components/chart';
import { DataTable } from '../components/data-table';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import { csvStem } from '../lib/download';
import { formatBytes, formatCount, formatDurationUs } from '../lib/format';
import { compareSideOf, compareSides, curveOf, joinCurves, type Comparison, type CompareSite } from '../lib/snapshot-compare';
import { rowsModel } from '../lib/table-model';
import { shortSite } from '../lib/snapshot';
import type { DiffTrace } from './diff-view';
import type { RunQuery } from './trace-page';
import { QueryStatus } from './view-status';
import './snapshot-compare.css';

const A_COLOR = '#7c8aa5';
const B_COLOR = '#e8833a';
const CURVE_COLUMNS = 600;

/** An Ask of another open file's Session (null while it is not loaded). */
export function askOf(t: DiffTrace | undefined, run: RunQuery): Ask | null {
  if (!t || t.session == null || t.gen == null) return null;
  const session = t.session;
  const gen = t.gen;
  return ((q) => run(session, gen, q)) as Ask;
}

const signedBytes = (n: number) => (n > 0 ? '+' : n < 0 ? '−' : '') + formatBytes(Math.abs(n));

export function SnapshotCompare({
  ask,
  self,
  snapshots,
  run,
  devices,
  onPair,
}: {
  ask: Ask;
  /** This snapshot's card. */
  self: DiffTrace;
  /** Every snapshot open, this one included, in the navigator's order. */
  snapshots: readonly DiffTrace[];
  run: RunQuery;
  /** This snapshot's devices. */
  devices: readonly number[];
  /** Says which snapshot is the other one (null: none), so the app keeps its Session loaded. */
  onPair?: (other: number | null) => void;
}) {
  const others = snapshots.filter((t) => t.key !== self.key);
  const [otherKey, setOtherKey] = useState<number | null>(null);
  const other = others.find((t) => t.key === otherKey) ?? others.find((t) => t.status === 'done') ?? others[0];
  // This snapshot is A (the other B) until swapped.
  const [selfIsA, setSelfIsA] = useState(true);
  const [device, setDevice] = useState(devices[0] ?? 0);
  useEffect(() => {
    onPair?.(other?.key ?? null);
  }, [other?.key]);
  useEffect(() => () => onPair?.(null), []);
  const otherAsk = useMemo(() => askOf(other, run), [other?.session, other?.gen, run]);
  if (!others.length) return null;
  const askA = selfIsA ? ask : otherAsk;
  const askB = selfIsA ? otherAsk : ask;
  const nameA = selfIsA ? self.name : other!.name;
  const nameB = selfIsA ? other!.name : self.name;
  return (
    <div class="ov-panel snap-compare" data-testid="snapshot-compare" data-a={nameA} data-b={nameB} data-device={device}>
      <div class="ov-panel-head">
        <h3>Compare two snapshots</h3>
        <div class="snap-compare-pick">
          <span class="snap-compare-side" data-testid="snapshot-compare-a" title={nameA}>
            <i class="snap-key" style={{ background: A_COLOR }} /> A: {nameA}
          </span>
          <button type="button" class="diff-swap" data-testid="snapshot-compare-swap" title="Swap A and B" aria-label="Swap A and B" onClick={() => setSelfIsA((x) => !x)}>
            ⇄
          </button>
          <label class="ov-select">
            <span>
              <i class="snap-key" style={{ background: selfIsA ? B_COLOR : A_COLOR }} /> {selfIsA ? 'B' : 'A'}
            </span>
            <select data-testid="snapshot-compare-other" value={other ? String(other.key) : ''} onChange={(ev) => setOtherKey(Number((ev.currentTarget as HTMLSelectElement).value))}>
              {others.map((t) => (
                <option key={t.key} value={String(t.key)}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          {devices.length > 1 && (
            <label class="ov-select">
              <span>Device</span>
              <select data-testid="snapshot-compare-device" value={device} onChange={(ev) => setDevice(Number((ev.currentTarget as HTMLSelectElement).value))}>
                {devices.map((d) => (
                  <option key={d} value={d}>
                    cuda:{d}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
      </div>
      {other && other.status !== 'done' ? (
        <p class="muted" data-testid="snapshot-compare-waiting" role="status">
          {other.status === 'failed' || other.status === 'cancelled' ? `${other.name} did not load: pick another snapshot.` : `Waiting for ${other.name} to load…`}
        </p>
      ) : !askA || !askB ? (
        <p class="muted" data-testid="snapshot-compare-waiting" role="status">
          Reading {other!.name} again to compare (snapshots not shown are closed to save memory)…
        </p>
      ) : (
        <CompareBody key={`${nameA}|${nameB}|${device}`} askA={askA} askB={askB} nameA={nameA} nameB={nameB} device={device} />
      )}
    </div>
  );
}

function CompareBody({ askA, askB, nameA, nameB, device }: { askA: Ask; askB: Ask; nameA: string; nameB: string; device: number }) {
  const params = { device: String(device) };
  const sideA = useAnswer(askA, 'snapshot-compare-side', params);
  const sideB = useAnswer(askB, 'snapshot-compare-side', params);
  const c = useMemo(
    () => (sideA.status === 'ready' && sideB.status === 'ready' ? compareSides(compareSideOf(sideA.data), compareSideOf(sideB.data)) : null),
    [sideA, sideB],
  );
  if (!c) {
    const pending = sideA.status !== 'ready' ? sideA : sideB;
    return <QueryStatus state={pending} stem="snapshot-compare" what="comparison" loading={`Comparing ${nameA} with ${nameB}…`} />;
  }
  return (
    <div data-testid="snapshot-compare-body" data-state="ready">
      <Peaks c={c} />
      <Curves askA={askA} askB={askB} device={device} hasA={c.a.traceEntries > 0} hasB={c.b.traceEntries > 0} />
      <h4>Allocation sites at each peak, most grown first</h4>
      <SitesTable c={c} nameA={nameA} nameB={nameB} />
      <h4>Kinds of memory at each peak</h4>
      <Categories c={c} />
    </div>
  );
}

function Peaks({ c }: { c: Comparison }) {
  const when = (s: Comparison['a']) => (s.peakEntry < 0 ? 'before the first entry' : `entry ${formatCount(s.peakEntry)}`);
  return (
    <table class="snap-table snap-compare-peaks" data-testid="snapshot-compare-peaks">
      <thead>
        <tr>
          <th />
          <th>A</th>
          <th>B</th>
          <th>B − A</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">Peak allocated</th>
          <td class="num" data-testid="cmp-peak-a" data-value={c.a.peakAllocatedBytes} title={`${formatCount(c.a.peakAllocatedBytes)} bytes`}>
            {formatBytes(c.a.peakAllocatedBytes)}
          </td>
          <td class="num" data-testid="cmp-peak-b" data-value={c.b.peakAllocatedBytes} title={`${formatCount(c.b.peakAllocatedBytes)} bytes`}>
            {formatBytes(c.b.peakAllocatedBytes)}
          </td>
          <td class="num" data-testid="cmp-peak-growth" data-value={c.peak_growth_bytes} title={`${formatCount(c.peak_growth_bytes)} bytes`}>
            {signedBytes(c.peak_growth_bytes)}
          </td>
        </tr>
        <tr>
          <th scope="row">Peak reserved</th>
          <td class="num" data-testid="cmp-reserved-a" data-value={c.a.peakReservedBytes}>
            {formatBytes(c.a.peakReservedBytes)}
          </td>
          <td class="num" data-testid="cmp-reserved-b" data-value={c.b.peakReservedBytes}>
            {formatBytes(c.b.peakReservedBytes)}
          </td>
          <td class="num">{signedBytes(c.b.peakReservedBytes - c.a.peakReservedBytes)}</td>
        </tr>
        <tr>
          <th scope="row">Peak at</th>
          <td data-testid="cmp-peak-entry-a" data-value={c.a.peakEntry}>
            {when(c.a)}
          </td>
          <td data-testid="cmp-peak-entry-b" data-value={c.b.peakEntry}>
            {when(c.b)}
          </td>
          <td />
        </tr>
        <tr>
          <th scope="row">History entries · OOMs</th>
          <td>
            {formatCount(c.a.traceEntries)} · {formatCount(c.a.ooms)}
          </td>
          <td>
            {formatCount(c.b.traceEntries)} · {formatCount(c.b.ooms)}
          </td>
          <td />
        </tr>
      </tbody>
    </table>
  );
}

function SitesTable({ c, nameA, nameB }: { c: Comparison; nameA: string; nameB: string }) {
  const model = useMemo(
    () =>
      rowsModel<CompareSite>(c.sites, (s) => s.frame, [
        { id: 'frame', label: 'Site (innermost Python frame)', type: 'text', get: (s) => s.frame, format: (v) => shortSite(String(v)), title: (i) => c.sites[i].frame, grow: 1, minWidth: 260 },
        { id: 'a_bytes', label: 'A', type: 'number', unit: 'bytes', get: (s) => s.a_bytes, width: 110, headerTitle: `Bytes at A's peak (${nameA})` },
        { id: 'b_bytes', label: 'B', type: 'number', unit: 'bytes', get: (s) => s.b_bytes, width: 110, headerTitle: `Bytes at B's peak (${nameB})` },
        { id: 'growth_bytes', label: 'Growth', type: 'number', unit: 'bytes', get: (s) => s.growth_bytes, format: (v) => signedBytes(v as number), headerTitle: 'B − A', width: 110 },
        { id: 'a_allocations', label: 'A allocs', type: 'number', unit: 'count', get: (s) => s.a_allocations, width: 90 },
        { id: 'b_allocations', label: 'B allocs', type: 'number', unit: 'count', get: (s) => s.b_allocations, width: 90 },
      ]),
    [c],
  );
  return (
    <DataTable
      model={model}
      stem="snapshot-compare-sites"
      label="Allocation sites at each peak, A against B"
      csvName={`${csvStem(nameA)}-vs-${csvStem(nameB)}-cuda${c.device}-sites.csv`}
      initialSort={null}
      searchPlaceholder="Search sites"
      maxHeight={320}
    />
  );
}

function Categories({ c }: { c: Comparison }) {
  return (
    <table class="snap-table" data-testid="snapshot-compare-categories">
      <thead>
        <tr>
          <th>Kind</th>
          <th>A</th>
          <th>B</th>
          <th>B − A</th>
        </tr>
      </thead>
      <tbody>
        {c.categories.map((k) => (
          <tr key={k.category} data-testid="cmp-category" data-category={k.category} data-a={k.a_bytes} data-b={k.b_bytes}>
            <td>{k.category.replace('_', ' ')}</td>
            <td class="num">{formatBytes(k.a_bytes)}</td>
            <td class="num">{formatBytes(k.b_bytes)}</td>
            <td class="num">{signedBytes(k.b_bytes - k.a_bytes)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Curves({ askA, askB, device, hasA, hasB }: { askA: Ask; askB: Ask; device: number; hasA: boolean; hasB: boolean }) {
  const params = { device: String(device), axis: 'time', width: String(CURVE_COLUMNS), height: '300' };
  const a = useAnswer(askA, 'snapshot-timeline-columns', hasA ? params : null);
  const b = useAnswer(askB, 'snapshot-timeline-columns', hasB ? params : null);
  const ca = a.status === 'ready' ? curveOf(a.data) : null;
  const cb = b.status === 'ready' ? curveOf(b.data) : null;
  const data = useMemo(() => joinCurves(ca, cb) as unknown as uPlot.AlignedData, [a, b]);
  if ((hasA && a.status === 'loading') || (hasB && b.status === 'loading')) return <p class="muted">Drawing both timelines…</p>;
  if (!ca && !cb)
    return (
      <p class="muted" data-testid="snapshot-compare-no-curves">
        Neither history has times (time_us): no curves to put on one time axis.
      </p>
    );
  const options = (_w: number, t: Parameters<typeof axisStyle>[0]) => ({
    scales: { x: { time: false } },
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'time since the first entry', value: (_u: uPlot, v: number | null) => (v == null ? '—' : formatDurationUs(v)) },
      { label: 'A allocated', stroke: A_COLOR, width: 1.5, spanGaps: true, value: (_u: uPlot, v: number | null) => (v == null ? '—' : formatBytes(v)) },
      { label: 'B allocated', stroke: B_COLOR, width: 1.5, spanGaps: true, value: (_u: uPlot, v: number | null) => (v == null ? '—' : formatBytes(v)) },
    ],
    axes: [
      { ...axisStyle(t), values: (_u: uPlot, vs: number[]) => vs.map((v) => formatDurationUs(v)) },
      { ...axisStyle(t), size: fitLabels(60), values: (_u: uPlot, vs: number[]) => vs.map((v) => formatBytes(v)) },
    ],
  });
  return (
    <div data-testid="snapshot-compare-curves" data-a-points={ca?.t.length ?? 0} data-b-points={cb?.t.length ?? 0}>
      <h4>Active memory, A and B, on one time axis (time since each one's first entry)</h4>
      {(!ca || !cb) && <p class="muted">{!ca ? 'A' : 'B'}'s history has no times: only the other curve is drawn.</p>}
      <Chart options={options} data={data} height={240} testid="snapshot-compare-chart" label="Allocated memory of A and B over time since each one's first entry" />
    </div>
  );
}
