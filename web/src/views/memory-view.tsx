import { Fragment } from 'preact';
import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { MemoryBelow } from './memory-snapshot-link';
import { DataTable } from '../components/data-table';
import { CURVE_HEIGHT, MemoryChart } from '../components/memory-chart';
import { DetailPanel, rowFields, useSelectedRow } from '../components/detail-panel';
import { sameQuery, useQuery, useQueryKeeping, type Ask } from '../components/use-query';
import type { SortState } from '../lib/table-model';
import { knownSort, type TablePlace } from '../lib/deep-link';
import { csvStem } from '../lib/download';
import { formatCount } from '../lib/format';
import { openAnswer } from '../lib/answer';
import {
  formatMemBytes,
  formatMemMs,
  linkRange,
  memoryAlive,
  memoryCurve,
  memoryDevices,
  memoryEvents,
  memoryStats,
  type MemoryCurve,
  type MemoryDevices,
  type MemoryEvents,
  type MemoryStats,
} from '../lib/memory';
import { eventsModel, statsModel } from '../lib/memory-tables';
import { framesOf } from '../lib/operators';
import type { Step } from '../lib/overview';
import { Frames } from './operators-view';
import { QueryStatus } from './view-status';
import './memory-view.css';

// The Memory view (tb_plugin's, spec §13, plus what it never answered): per device, the memory
// curve (allocated and reserved over time, the steps and the peak marked), the allocations alive
// at a moment (the peak by default; click the curve for another), and the events and statistics
// tables. Dragging over the curve selects a range: the curve zooms to it (the core sends it again,
// down-sampled to the chart's pixel columns) and both tables count only it, with tb_plugin's
// inclusive bounds; double-click or Reset returns to the whole trace (or the chosen step). The
// device and the range are part of the page's link. Times are ms from the trace's time origin.

const ALIVE_LIMIT = 200;

export function MemoryView({
  ask,
  fileName,
  hasMemory,
  steps,
  step = null,
  link,
  onPlace,
}: {
  ask: Ask;
  fileName: string;
  /** The trace has [memory] events (else the view says how to record them). */
  hasMemory: boolean;
  /** The steps (absolute µs), marked on the curve. */
  steps: readonly Step[];
  /** The step chosen above the views: without a range, the view covers that step. */
  step?: string | null;
  /** A deep link's part (device, mem_from, mem_to), read when the view mounts. */
  link?: TablePlace;
  onPlace?: (p: TablePlace) => void;
}) {
  if (!hasMemory) {
    return (
      <section class="view memory-view" data-testid="memory-view" data-state="none" aria-label="Memory">
        <div class="mem-none" data-testid="memory-none">
          <p>
            <strong>This trace has no memory events.</strong> The Memory view needs the allocator's <code>[memory]</code> events, which PyTorch
            records when the profiler is created with <code>profile_memory=True</code>:
          </p>
          <pre>
            <code>{'torch.profiler.profile(..., profile_memory=True, record_shapes=True, with_stack=True)'}</code>
          </pre>
          <p class="muted">
            <code>with_stack=True</code> adds the call stack of each allocating operator; PyTorch 1.10 or later records addresses, which pair
            allocations with their releases and tell which allocations are alive at the peak.
          </p>
        </div>
      </section>
    );
  }
  return <MemoryBody ask={ask} fileName={fileName} steps={steps} step={step} link={link} onPlace={onPlace} />;
}

function MemoryBody({
  ask,
  fileName,
  steps,
  step,
  link,
  onPlace,
}: {
  ask: Ask;
  fileName: string;
  steps: readonly Step[];
  step: string | null;
  link?: TablePlace;
  onPlace?: (p: TablePlace) => void;
}) {
  const devicesState = useQuery(ask, { what: 'memoryDevices' });
  const answer = devicesState.status === 'ready' ? devicesState.data.answer : null;
  const info = useMemo(() => (answer ? memoryDevices(openAnswer('memory_devices', answer)) : null), [answer]);
  if (!info) {
    return (
      <section class="view memory-view" data-testid="memory-view" data-state="loading" aria-label="Memory">
        <QueryStatus state={devicesState} stem="memory" what="memory view" loading="Attributing the memory events to operators…" />
      </section>
    );
  }
  if (!info.devices.length) {
    return (
      <section class="view memory-view" data-testid="memory-view" data-state="none" aria-label="Memory">
        <p class="muted" data-testid="memory-none">
          The memory events of this trace name no CPU or GPU device, so there is nothing to show.
        </p>
      </section>
    );
  }
  return <MemoryDeviceView ask={ask} fileName={fileName} info={info} steps={steps} step={step} link={link} onPlace={onPlace} />;
}

type Range = [number, number];

function MemoryDeviceView({
  ask,
  fileName,
  info,
  steps,
  step,
  link,
  onPlace,
}: {
  ask: Ask;
  fileName: string;
  info: MemoryDevices;
  steps: readonly Step[];
  step: string | null;
  link?: TablePlace;
  onPlace?: (p: TablePlace) => void;
}) {
  const fallback = info.defaultDevice ?? info.devices[0].device;
  const [device, setDevice] = useState(() => (link?.device && info.devices.some((d) => d.device === link.device) ? link.device : fallback));
  const [range, setRange] = useState<Range | null>(() => linkRange(link?.mem_from, link?.mem_to));
  const [at, setAt] = useState<number | null>(null); // alive list: null = the peak of what is shown
  const dev = info.devices.find((d) => d.device === device)!;
  // The step chosen above the views, as a window (µs from the origin), when no range is selected.
  const stepInfo = step != null ? steps.find((s) => s.name === step) : undefined;
  const stepWindow: Range | null = stepInfo ? [stepInfo.start_us - info.originUs, stepInfo.end_us - info.originUs] : null;
  const win = range ?? stepWindow;
  const below = useContext(MemoryBelow);

  // The link: the device when not the default one, and the range.
  useEffect(() => {
    onPlace?.({
      ...(device !== fallback ? { device } : {}),
      ...(range ? { mem_from: String(+range[0].toFixed(3)), mem_to: String(+range[1].toFixed(3)) } : {}),
    });
    // When the device or the range's bounds change; onPlace is the owner's callback, often new each render.
  }, [device, range?.[0], range?.[1]]);

  const tablesQ = { what: 'memory' as const, device, ...(win ? { fromUs: win[0], toUs: win[1] } : {}) };
  // The last tables stay (dimmed) while another range's are counted, so nothing jumps.
  const { state: tables, shown, fresh } = useQueryKeeping(ask, tablesQ, (asked) => asked.device === device);
  const shownData = shown?.data;
  const opened = useMemo(
    () => (shownData ? { stats: memoryStats(openAnswer('memory_stats', shownData.stats)), events: memoryEvents(openAnswer('memory_events', shownData.events)) } : null),
    [shownData],
  );
  const ready = fresh && opened ? opened : null;
  const peakUs = ready ? ready.stats.device.peakUs : win ? null : dev.peakUs;
  const aliveAt = at ?? peakUs;

  const choose = (d: string) => {
    setDevice(d);
    setAt(null);
  };
  const select = (r: Range | null) => {
    setRange(r);
    setAt(null);
  };
  const rangeText = range ? `${formatMemMs(range[0])} – ${formatMemMs(range[1])}` : stepWindow ? `step ${step}` : 'whole trace';

  return (
    <section
      class="view memory-view"
      data-testid="memory-view"
      data-state={ready ? 'ready' : 'loading'}
      data-device={device}
      data-range={range ? `${range[0]},${range[1]}` : ''}
      data-stats-rows={ready ? ready.stats.rowCount : ''}
      data-events-rows={ready ? ready.events.rowCount : ''}
      aria-label="Memory"
    >
      <div class="view-toolbar mem-toolbar">
        <label class="ov-select">
          Device{' '}
          <select data-testid="memory-device" value={device} onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value)}>
            {info.devices.map((d) => (
              <option key={d.device} value={d.device}>
                {d.device}
              </option>
            ))}
          </select>
        </label>
        <RangeInputs range={range} onRange={select} />
        <span class="table-step" data-testid="memory-scope" title="What the curve, the alive list and both tables cover">
          {rangeText}
        </span>
        <button type="button" class="link-button" data-testid="memory-reset" disabled={!range} onClick={() => select(null)} title="Back to the whole trace (or the chosen step); double-clicking the curve does the same">
          Reset
        </button>
      </div>
      <DevicePeaks dev={dev} stats={ready?.stats ?? null} />
      <CurvePanel ask={ask} device={device} win={win} steps={steps} originUs={info.originUs} aliveAt={aliveAt} onRange={select} onAt={setAt} />
      <AlivePanel ask={ask} device={device} atUs={aliveAt} isPeak={at == null} hasAddresses={dev.hasAddresses} onPeak={() => setAt(null)} onAt={setAt} />
      {below?.(device, win ? info.originUs + win[0] : null, win ? info.originUs + win[1] : null)}
      {!shown && <QueryStatus state={tables} stem="memory-tables" what="memory tables" loading="Counting the memory of each operator…" />}
      {opened && (
        <div class={fresh ? undefined : 'stale'}>
          <MemoryTables
            stats={opened.stats}
            events={opened.events}
            fileName={fileName}
            device={device}
            win={win}
            link={link}
            hasAddresses={dev.hasAddresses}
          />
        </div>
      )}
    </section>
  );
}

/** From/To inputs (ms): the keyboard's way to select a range. Enter or Apply sets it. */
function RangeInputs({ range, onRange }: { range: Range | null; onRange: (r: Range | null) => void }) {
  const [from, setFrom] = useState(range ? String(+(range[0] / 1000).toFixed(3)) : '');
  const [to, setTo] = useState(range ? String(+(range[1] / 1000).toFixed(3)) : '');
  const [bad, setBad] = useState(false);
  useEffect(() => {
    setFrom(range ? String(+(range[0] / 1000).toFixed(3)) : '');
    setTo(range ? String(+(range[1] / 1000).toFixed(3)) : '');
  }, [range?.[0], range?.[1]]);
  const apply = (e: Event) => {
    e.preventDefault();
    const a = Number(from), b = Number(to);
    if (from.trim() === '' && to.trim() === '') {
      setBad(false);
      onRange(null);
      return;
    }
    if (from.trim() === '' || to.trim() === '' || !Number.isFinite(a) || !Number.isFinite(b) || a > b) {
      setBad(true);
      return;
    }
    setBad(false);
    onRange([a * 1000, b * 1000]);
  };
  return (
    <form class="mem-range" onSubmit={apply} data-testid="memory-range-form">
      <label>
        From <input data-testid="memory-from" inputMode="decimal" size={8} value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} aria-invalid={bad} />
      </label>
      <label>
        to <input data-testid="memory-to" inputMode="decimal" size={8} value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} aria-invalid={bad} /> ms
      </label>
      <button type="submit" data-testid="memory-apply">
        Apply
      </button>
      {bad && (
        <span class="warn" role="alert" data-testid="memory-range-error">
          Give two times in ms, the first not after the second.
        </span>
      )}
    </form>
  );
}

function DevicePeaks({ dev, stats }: { dev: MemoryDevices['devices'][number]; stats: MemoryStats | null }) {
  const d = stats?.device ?? dev;
  return (
    <p class="mem-peaks" data-testid="memory-peaks">
      <span>
        Peak allocated <strong data-testid="memory-peak-allocated" data-bytes={d.peakAllocatedBytes ?? ''}>{d.peakAllocatedBytes != null ? formatMemBytes(d.peakAllocatedBytes) : '—'}</strong>
        {d.peakUs != null && <span class="muted"> at {formatMemMs(d.peakUs)}</span>}
      </span>
      <span>
        Peak reserved <strong data-testid="memory-peak-reserved">{d.peakReservedBytes != null ? formatMemBytes(d.peakReservedBytes) : 'not recorded'}</strong>
      </span>
      <span class="muted">
        <span data-testid="memory-records">{formatCount(d.records)}</span> memory events
      </span>
      {dev.allocatedFromBytes && (
        <span class="muted" data-testid="memory-from-bytes" title="Traces from PyTorch before 1.10 record no Total Allocated: the curve counts the Bytes of every allocation and release from the first event on, so memory held before profiling started is not in it">
          Allocated is the running sum of the events' Bytes (the trace records no totals).
        </span>
      )}
    </p>
  );
}

// --- the curve ------------------------------------------------------------------------------------

function CurvePanel({
  ask,
  device,
  win,
  steps,
  originUs,
  aliveAt,
  onRange,
  onAt,
}: {
  ask: Ask;
  device: string;
  win: Range | null;
  steps: readonly Step[];
  originUs: number;
  aliveAt: number | null;
  onRange: (r: Range | null) => void;
  onAt: (us: number) => void;
}) {
  const box = useRef<HTMLElement>(null);
  const [columns, setColumns] = useState(0);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setColumns(Math.max(100, Math.floor(el.clientWidth)));
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // The chart's pixel columns, in steps of 100 px so a resize by a few pixels asks nothing new.
  const cols = Math.ceil(columns / 100) * 100;
  const q = cols > 0 ? { what: 'memoryCurve' as const, device, columns: cols, ...(win ? { fromUs: win[0], toUs: win[1] } : {}) } : null;
  const state = useQuery(ask, q);
  const answer = state.status === 'ready' && sameQuery(state.asked, q) ? state.data.answer : null;
  const curve = useMemo(() => (answer ? memoryCurve(openAnswer('memory_curve', answer)) : null), [answer]);
  // The last curve of this device stays drawn while the next range's comes: no blank flash.
  const last = useRef<MemoryCurve | null>(null);
  if (curve) last.current = curve;
  if (last.current && last.current.device !== device) last.current = null;
  const drawnCurve = curve ?? last.current;
  // The range the drawn curve was asked for (its x scale), until the next one is in.
  const drawnWin = useRef<Range | null>(null);
  if (curve) drawnWin.current = win;
  const t0 = useRef(0);
  const drawn = useRef<number | null>(null);
  useEffect(() => {
    if (curve) t0.current = performance.now();
  }, [curve]);
  return (
    <figure
      ref={box}
      class="mem-curve"
      data-testid="memory-curve"
      data-state={curve ? 'ready' : 'loading'}
      data-points={curve ? curve.t.length : ''}
      data-from={win ? win[0] : ''}
      data-to={win ? win[1] : ''}
      data-draw-ms={drawn.current ?? ''}
    >
      {state.status === 'error' && <QueryStatus state={state} stem="memory-curve" what="memory curve" loading="" />}
      {drawnCurve && drawnCurve.t.length === 0 ? (
        <p class="muted" data-testid="memory-curve-empty">
          No memory total was recorded on {device} {win ? 'in this range' : ''}: there is no curve to draw.
        </p>
      ) : drawnCurve ? (
        <MemoryChart
          curve={drawnCurve}
          win={curve ? win : drawnWin.current}
          steps={steps}
          originUs={originUs}
          aliveAt={aliveAt}
          onRange={onRange}
          onAt={onAt}
          onDrawn={() => {
            drawn.current = Math.round((performance.now() - t0.current) * 10) / 10;
            box.current?.setAttribute('data-draw-ms', String(drawn.current));
          }}
        />
      ) : (
        <div class="mem-curve-wait" style={{ height: `${CURVE_HEIGHT}px` }}>
          <p class="muted" data-testid="memory-curve-loading">
            Drawing the memory curve…
          </p>
        </div>
      )}
      <figcaption class="muted">
        Allocated and reserved memory on {device}, ms from the trace's first event; dashed lines: the steps. Drag to select a range (the
        tables follow), double-click to go back, click to list what is alive at that moment.
      </figcaption>
    </figure>
  );
}

// --- alive at a moment ---------------------------------------------------------------------------

function AlivePanel({
  ask,
  device,
  atUs,
  isPeak,
  hasAddresses,
  onPeak,
  onAt,
}: {
  ask: Ask;
  device: string;
  atUs: number | null;
  isPeak: boolean;
  hasAddresses: boolean;
  onPeak: () => void;
  /** Another moment (µs from the origin), typed in: the keyboard's way to pick a point. */
  onAt: (us: number) => void;
}) {
  const q = atUs != null && hasAddresses ? { what: 'memoryAlive' as const, device, atUs, limit: ALIVE_LIMIT } : null;
  const state = useQuery(ask, q);
  const answer = state.status === 'ready' && sameQuery(state.asked, q) ? state.data.answer : null;
  const alive = useMemo(() => (answer ? memoryAlive(openAnswer('memory_alive', answer)) : null), [answer]);
  const [open, setOpen] = useState<number | null>(null);
  useEffect(() => setOpen(null), [device, atUs]);
  if (!hasAddresses) {
    return (
      <div class="ov-panel mem-alive" data-testid="memory-alive" data-state="no-addresses">
        <h4>What holds the memory</h4>
        <p class="muted">This trace's memory events carry no addresses (PyTorch before 1.10), so allocations cannot be paired with their releases.</p>
      </div>
    );
  }
  if (atUs == null) return null;
  return (
    <div class="ov-panel mem-alive" data-testid="memory-alive" data-state={alive ? 'ready' : 'loading'} data-at={atUs} data-count={alive ? alive.count : ''}>
      <div class="ov-panel-head">
        <h4>
          Alive at {formatMemMs(atUs)} {isPeak ? '(the peak)' : ''}
        </h4>
        <form
          class="mem-range"
          data-testid="memory-alive-form"
          onSubmit={(e) => {
            e.preventDefault();
            const v = Number((e.currentTarget.elements.namedItem('at') as HTMLInputElement).value);
            if (Number.isFinite(v)) onAt(v * 1000);
          }}
        >
          <label>
            At <input name="at" data-testid="memory-alive-at" inputMode="decimal" size={8} /> ms
          </label>
          <button type="submit">List</button>
          {!isPeak && (
            <button type="button" class="link-button" data-testid="memory-alive-peak" onClick={onPeak}>
              Show the peak
            </button>
          )}
        </form>
      </div>
      {state.status === 'error' && <QueryStatus state={state} stem="memory-alive" what="list of live allocations" loading="" />}
      {alive && (
        <>
          <p class="muted" data-testid="memory-alive-summary">
            {formatCount(alive.count)} allocation{alive.count === 1 ? '' : 's'} holding {formatMemBytes(alive.aliveBytes)}
            {alive.allocatedBytes != null ? ` of the ${formatMemBytes(alive.allocatedBytes)} the allocator counted` : ''}
            {alive.count > alive.rows.length ? `; the ${alive.rows.length} largest:` : ', largest first:'}
            {alive.allocatedBytes != null && alive.allocatedBytes > alive.aliveBytes
              ? ' the rest was allocated before the profiler started.'
              : ''}
          </p>
          {alive.rows.length > 0 && (
            <table class="mem-alive-table" data-testid="memory-alive-table">
              <thead>
                <tr>
                  <th class="num">Size</th>
                  <th>Allocated by</th>
                  <th class="num">At</th>
                  <th class="num">Age</th>
                  <th>Call stack</th>
                </tr>
              </thead>
              <tbody>
                {alive.rows.map((r, i) => (
                  <Fragment key={i}>
                    <tr data-testid="memory-alive-row" data-bytes={r.sizeBytes} data-operator={r.operator}>
                      <td class="num">{formatMemBytes(r.sizeBytes)}</td>
                      <td class="mem-op" title={r.operator}>
                        {r.operator}
                      </td>
                      <td class="num">{formatMemMs(r.allocUs)}</td>
                      <td class="num">{formatMemMs(r.ageUs)}</td>
                      <td>
                        {r.callStack ? (
                          <button
                            type="button"
                            class="link-button"
                            data-testid="memory-alive-stack-toggle"
                            aria-expanded={open === i}
                            onClick={() => setOpen(open === i ? null : i)}
                          >
                            {open === i ? 'Hide' : `${framesOf(r.callStack).length} frames`}
                          </button>
                        ) : (
                          <span class="muted" data-testid="memory-alive-no-stack" title={r.noStack || undefined}>
                            {r.noStack.startsWith('No Python frames on the autograd thread') ? 'none (autograd thread)' : r.noStack.startsWith('No Python frames') ? 'no Python frames' : 'not recorded'}
                          </span>
                        )}
                      </td>
                    </tr>
                    {open === i && (
                      <tr class="mem-alive-stack">
                        <td colSpan={5}>
                          <Frames frames={framesOf(r.callStack)} testid="memory-alive-frames" />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </div>
  );
}

// --- the two tables -------------------------------------------------------------------------------

const STATS_SORT: SortState = { column: 'self_size_increase', dir: 'desc' };
const EVENTS_SORT: SortState = { column: 'size', dir: 'desc' };

function MemoryTables({
  stats,
  events,
  fileName,
  device,
  win,
  link,
  hasAddresses,
}: {
  stats: MemoryStats;
  events: MemoryEvents;
  fileName: string;
  device: string;
  win: Range | null;
  link?: TablePlace;
  hasAddresses: boolean;
}) {
  const sModel = useMemo(() => statsModel(stats), [stats]);
  const eModel = useMemo(() => eventsModel(events), [events]);
  const keys = useMemo(() => Array.from({ length: events.rowCount }, (_, i) => String(i)), [events]);
  const { row, onSelect, box, close } = useSelectedRow(keys);
  const suffix = `${device}${win ? `-${Math.round(win[0])}-${Math.round(win[1])}us` : ''}`;
  const stem = csvStem(fileName);
  const where = win ? ' in this range' : '';
  return (
    <>
      <div class="mem-table" ref={box}>
        <h4>
          Memory events <span class="muted">({formatCount(events.rowCount)})</span>
        </h4>
        <p class="muted mem-note">
          Each allocation paired with its release by address. A side outside the range is blank; an allocation never released has no release
          time.
        </p>
        <DataTable
          model={eModel}
          stem="mem-event"
          columnsKey="memory.events"
          label="Memory events"
          csvName={`${stem}-memory-events-${suffix}.csv`}
          initialSort={EVENTS_SORT}
          searchPlaceholder="Search operators"
          emptyText={
            hasAddresses
              ? `No memory event on ${device}${where}.`
              : 'The memory events carry no addresses (PyTorch before 1.10): allocations cannot be paired with releases, so there are no rows (nor in tb_plugin).'
          }
          onSelect={onSelect}
        />
        {row != null && (
          <DetailPanel
            stem="mem-event"
            label="Memory event details"
            name={<code>{events.strings[events.op[row]]}</code>}
            fields={rowFields(eModel, row, ['operator'])}
            onClose={close}
          >
            <h5>Call stack of the allocating operator</h5>
            {events.strings[events.stack[row]] ? (
              <Frames frames={framesOf(events.strings[events.stack[row]])} testid="mem-event-detail-frames" />
            ) : (
              <p class="muted" data-testid="mem-event-detail-no-stack">
                {events.strings[events.op[row]] === '<unknown>'
                  ? 'Not recorded: no operator was running when it was allocated.'
                  : events.strings[events.noStack[row]] || 'Not recorded (profile with with_stack=True).'}
              </p>
            )}
          </DetailPanel>
        )}
      </div>
      <div class="mem-table">
        <h4>
          Memory statistics per operator <span class="muted">({formatCount(stats.rowCount)})</span>
        </h4>
        <p class="muted mem-note">
          “Self”: the operator's own allocations and releases; the others include the operators it called. Size increase counts releases
          too; allocation size does not.
        </p>
        <DataTable
          model={sModel}
          stem="mem-stat"
          columnsKey="memory.stats"
          label="Memory statistics"
          csvName={`${stem}-memory-stats-${suffix}.csv`}
          initialSort={knownSort(sModel, link?.sort, STATS_SORT)}
          searchPlaceholder="Search operators"
          emptyText={`No operator allocated or released memory on ${device}${where}.`}
        />
      </div>
    </>
  );
}
