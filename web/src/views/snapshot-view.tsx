// The Snapshot page: a CUDA allocator snapshot (torch.cuda.memory._dump_snapshot's pickle) read by
// the worker's SnapshotSession, shown from its views' answers (docs/contracts.md "Memory
// snapshots"): the numbers per device (as `kinetoscope snapshot` prints them), each out-of-memory
// event with the stack that failed, the active memory timeline (memory_viz's stacked bands, the
// core picking per pixel column what is drawn: the page holds one window's bands, never the
// history) and what is alive at the peak, by site and as a flame graph of bytes by stack.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { canvasContext, readCanvasColors, useSchemeChanges } from '../components/canvas';
import { FlameGraph, type FlameNodes } from '../components/flame-graph';
import { HealthTable } from '../components/health-table';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import { useResize } from '../components/use-resize';
import { SNAPSHOT_PEAK_COLUMNS, type Answer } from '../generated/views';
import { answerTable } from '../lib/answer-table';
import { csvStem } from '../lib/download';
import { colorIndex } from '../lib/flame';
import { formatBytes, formatCount, formatDurationUs, formatTimestampUs } from '../lib/format';
import type { SnapshotDevice, SnapshotInfo } from '../lib/snapshot';
import { SnapshotCategoriesPanel, type PairedTimeline } from './snapshot-categories';
import { SnapshotStatePanel, type SnapshotMoment } from './snapshot-state';
import { QueryStatus } from './view-status';
import './snapshot-view.css';

const exact = (n: number) => `${formatCount(n)} bytes`;

function Bytes({ n, testId }: { n: number; testId: string }) {
  return (
    <span data-testid={testId} data-value={n} title={exact(n)}>
      {formatBytes(n)}
    </span>
  );
}

function when(us: number | null, entry: number): string {
  const e = entry < 0 ? 'before the first entry' : `entry ${formatCount(entry)}`;
  return us == null ? e : `${formatTimestampUs(us)} (${e})`;
}

/** A moment to show (the trace's Memory view's range): the timeline on the time axis over it. */
export interface SnapshotFocus {
  device: number;
  fromUs: number;
  toUs: number;
  /** A new link each time, even to the same range. */
  seq: number;
}

export function SnapshotView({ ask, snapshot, name, focus = null }: { ask: Ask; snapshot: SnapshotInfo; name: string; focus?: SnapshotFocus | null }) {
  const devices = snapshot.devices;
  const [device, setDevice] = useState(devices[0]?.device ?? 0);
  useEffect(() => {
    if (focus && devices.some((x) => x.device === focus.device)) setDevice(focus.device);
  }, [focus?.seq]);
  const d = devices.find((x) => x.device === device) ?? devices[0];
  // The timeline's moment (hovered or clicked) the allocator state follows; the paired export_memory_timeline.
  const [moment, setMoment] = useState<SnapshotMoment | null>(null);
  const [paired, setPaired] = useState<PairedTimeline | null>(null);
  return (
    <section class="view snapshot-view" data-testid="snapshot-view" aria-label="Memory snapshot">
      <p class="meta" data-testid="snapshot-kind">
        CUDA memory snapshot · {devices.length} device{devices.length === 1 ? '' : 's'} ·{' '}
        {snapshot.hasHistory ? "with the allocator's history" : 'no history (recorded without _record_memory_history)'}
      </p>
      {snapshot.health.length > 0 && (
        <div class="ov-panel" data-testid="snapshot-health">
          <h3>What could not be read</h3>
          <HealthTable rows={snapshot.health} />
        </div>
      )}
      <DevicesPanel devices={devices} />
      <SettingsPanel snapshot={snapshot} />
      <OomPanel ask={ask} />
      {devices.length > 1 && (
        <label class="ov-select snap-device-pick">
          <span>Device</span>
          <select data-testid="snapshot-device" value={device} onChange={(ev) => setDevice(Number((ev.target as HTMLSelectElement).value))}>
            {devices.map((x) => (
              <option key={x.device} value={x.device}>
                cuda:{x.device}
              </option>
            ))}
          </select>
        </label>
      )}
      {d && d.trace_entries > 0 && (
        <TimelinePanel key={`t${d.device}-${focus?.seq ?? 0}`} ask={ask} device={d} onMoment={setMoment} focus={focus?.device === d.device ? focus : null} />
      )}
      {d && d.trace_entries === 0 && (
        <p class="muted" data-testid="snapshot-no-history">
          Device {d.device} has no allocator history: no timeline (what was alive at the dump is its peak).
        </p>
      )}
      {d && <SnapshotStatePanel key={`s${d.device}`} ask={ask} device={d} moment={d.trace_entries > 0 ? moment : null} />}
      {d && <SnapshotCategoriesPanel key={`c${d.device}`} ask={ask} name={name} device={d} paired={paired} onPaired={setPaired} />}
      {d && <PeakPanel key={`p${d.device}`} ask={ask} device={d} name={name} />}
    </section>
  );
}

const DEVICE_FIELDS: { key: keyof SnapshotDevice; label: string; bytes?: boolean; title: string }[] = [
  { key: 'trace_entries', label: 'History entries', title: "Entries of the allocator's history (device_traces)" },
  { key: 'allocations', label: 'Allocations', title: 'alloc entries' },
  { key: 'frees', label: 'Frees', title: 'free_completed entries' },
  { key: 'peak_allocated_bytes', label: 'Peak allocated', bytes: true, title: 'The most memory allocated at once, the blocks alive before the history included (as memory_viz)' },
  { key: 'peak_reserved_bytes', label: 'Peak reserved', bytes: true, title: 'The most memory the segments held at once' },
  { key: 'before_history_bytes', label: 'Before the history', bytes: true, title: 'Allocated before the first entry' },
  { key: 'allocated_at_dump_bytes', label: 'Allocated at dump', bytes: true, title: "The segments' allocated_size at the dump (rounded blocks)" },
  { key: 'reserved_at_dump_bytes', label: 'Reserved at dump', bytes: true, title: "The segments' total_size at the dump" },
  { key: 'segments', label: 'Segments', title: 'Segments at the dump' },
  { key: 'oom_count', label: 'OOMs', title: 'Out-of-memory events in the history' },
];

function DevicesPanel({ devices }: { devices: SnapshotDevice[] }) {
  return (
    <div class="ov-panel" data-testid="snapshot-devices">
      <h3>Per device</h3>
      <div class="snap-table-wrap">
        <table class="snap-table">
          <thead>
            <tr>
              <th>Device</th>
              {DEVICE_FIELDS.map((f) => (
                <th key={f.key} title={f.title}>
                  {f.label}
                </th>
              ))}
              <th title="The entry after which the peak was first reached, and its time">Peak at</th>
            </tr>
          </thead>
          <tbody>
            {devices.map((d) => (
              <tr key={d.device} data-testid="snapshot-device-row" data-device={d.device}>
                <td>cuda:{d.device}</td>
                {DEVICE_FIELDS.map((f) => (
                  <td key={f.key} class="num">
                    {f.bytes ? (
                      <Bytes n={d[f.key] as number} testId={`snap-${f.key}`} />
                    ) : (
                      <span data-testid={`snap-${f.key}`} data-value={d[f.key] as number}>
                        {formatCount(d[f.key] as number)}
                      </span>
                    )}
                  </td>
                ))}
                <td class="snap-when" data-testid="snap-peak_at" data-us={d.peak_at_us ?? ''} data-entry={d.peak_entry}>
                  {d.trace_entries ? when(d.peak_at_us, d.peak_entry) : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

// allocator_settings and external_annotations, folded: they explain a run (expandable_segments,
// max_split_size change how memory fragments) but are read once, not compared.
function SettingsPanel({ snapshot }: { snapshot: SnapshotInfo }) {
  const settings = snapshot.allocatorSettings;
  const notes = snapshot.annotations;
  if (settings.length === 0 && notes.length === 0) return null;
  return (
    <details class="ov-panel snap-settings" data-testid="snapshot-settings">
      <summary>
        Allocator settings ({settings.length}) · {notes.length} external annotation{notes.length === 1 ? '' : 's'}
      </summary>
      {settings.length > 0 && (
        <table class="snap-table" data-testid="snapshot-settings-table">
          <tbody>
            {settings.map(([k, v]) => (
              <tr key={k} data-testid="snapshot-setting" data-key={k} data-value={v}>
                <th scope="row">
                  <code>{k}</code>
                </th>
                <td>
                  <code>{v === '' ? "''" : v}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {notes.length > 0 && (
        <table class="snap-table" data-testid="snapshot-annotations">
          <thead>
            <tr>
              <th>Range (record_function)</th>
              <th>Stage</th>
              <th>Device</th>
              <th>At</th>
            </tr>
          </thead>
          <tbody>
            {notes.map((n, i) => (
              <tr key={i} data-testid="snapshot-annotation">
                <td>
                  <code>{n.name}</code>
                </td>
                <td>{n.stage}</td>
                <td>cuda:{n.device}</td>
                <td class="snap-when">{n.time_us == null ? '—' : formatTimestampUs(n.time_us)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
}

function OomPanel({ ask }: { ask: Ask }) {
  const ooms = useAnswer(ask, 'snapshot-ooms', {});
  if (ooms.status !== 'ready') return <QueryStatus state={ooms} stem="snapshot-ooms" what="out-of-memory events" loading="Reading the out-of-memory events…" />;
  const a = ooms.data;
  const c = a.columns;
  const text = (ids: Uint32Array, i: number) => (ids[i] === 0xffffffff ? null : a.strings[ids[i]]);
  return (
    <div class="ov-panel" data-testid="snapshot-ooms" data-count={a.rowCount}>
      <h3>Out of memory</h3>
      {a.rowCount === 0 && (
        <p class="muted" data-testid="snapshot-no-oom">
          No out-of-memory event in the history.
        </p>
      )}
      {Array.from({ length: a.rowCount }, (_, i) => {
        const gap = c.requested_bytes[i] - c.device_free_bytes[i];
        const stack = text(c.stack, i);
        return (
          <div class="snap-oom" key={i} data-testid="snap-oom" data-device={c.device[i]} data-entry={c.entry[i]}>
            <p class="snap-oom-head">
              <strong>cuda:{c.device[i]}</strong> at {when(Number.isNaN(c.at_us[i]) ? null : c.at_us[i], c.entry[i])}: asked for{' '}
              <Bytes n={c.requested_bytes[i]} testId="snap-oom-requested" />, the allocator saw <Bytes n={c.device_free_bytes[i]} testId="snap-oom-free" /> free
              on the device{gap > 0 ? <span class="muted"> ({formatBytes(gap)} short)</span> : null}.
            </p>
            <p class="snap-oom-state">
              Then: <Bytes n={c.allocated_bytes[i]} testId="snap-oom-allocated" /> allocated, <Bytes n={c.reserved_bytes[i]} testId="snap-oom-reserved" /> reserved
              {c.reserved_bytes[i] > c.allocated_bytes[i] ? <span class="muted"> ({formatBytes(c.reserved_bytes[i] - c.allocated_bytes[i])} reserved but not allocated)</span> : null}.
            </p>
            <p class="snap-oom-frag" data-testid="snap-oom-frag">
              Fragmentation then (the segments replayed to that moment): <Bytes n={c.inactive_bytes[i]} testId="snap-oom-inactive" /> free in cached
              segments, the largest free block <Bytes n={c.largest_inactive_bytes[i]} testId="snap-oom-largest" />
              {c.requested_bytes[i] > c.largest_inactive_bytes[i] ? ' (smaller than the request, so it needed a new segment)' : ''}; {formatCount(c.alive_blocks[i])}{' '}
              block{c.alive_blocks[i] === 1 ? '' : 's'} alive holding <Bytes n={c.alive_block_bytes[i]} testId="snap-oom-alive-blocks" />.
            </p>
            <p class="snap-oom-site">
              Failing allocation: <code data-testid="snap-oom-site">{text(c.site, i)}</code>
            </p>
            {stack ? (
              <pre class="snap-stack" data-testid="snap-oom-stack">
                {stack}
              </pre>
            ) : (
              <p class="muted">No stack recorded.</p>
            )}
          </div>
        );
      })}
    </div>
  );
}

// ---- the active memory timeline ---------------------------------------------------------------

const PLOT_H = 320;
const HUES = 24;

/** A band's bottom at column c: its last point at or before c. */
function bottomAt(a: Answer<'snapshot-timeline'>, row: number, c: number): number {
  const ends = a.ends.bottom;
  const v = a.columns.bottom;
  let y = NaN;
  for (let p = row ? ends[row - 1] : 0; p < ends[row]; p++) {
    if (v[2 * p] > c) break;
    y = v[2 * p + 1];
  }
  return y;
}

interface Win {
  from: number;
  to: number;
}

function TimelinePanel({
  ask,
  device,
  onMoment,
  focus,
}: {
  ask: Ask;
  device: SnapshotDevice;
  onMoment: (m: SnapshotMoment | null) => void;
  focus: SnapshotFocus | null;
}) {
  const wrap = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  useResize(wrap, (el) => setWidth(Math.floor(el.clientWidth)));
  const [axis, setAxis] = useState<'entry' | 'time'>(focus ? 'time' : 'entry');
  const [win, setWin] = useState<Win | null>(focus ? { from: focus.fromUs, to: Math.max(focus.toUs, focus.fromUs + 1) } : null);
  const [hover, setHover] = useState<{ band: number; column: number } | null>(null);
  const [pinned, setPinned] = useState<number | null>(null);
  const [pinnedColumn, setPinnedColumn] = useState<number | null>(null);
  const cols = Math.max(1, width);
  const params = width
    ? {
        device: String(device.device),
        axis,
        width: String(cols),
        height: String(PLOT_H),
        ...(win ? { from: String(win.from), to: String(win.to) } : {}),
      }
    : null;
  const bands = useAnswer(ask, 'snapshot-timeline', params);
  const columns = useAnswer(ask, 'snapshot-timeline-columns', params);
  const b = bands.status === 'ready' ? bands.data : null;
  const k = columns.status === 'ready' ? columns.data : null;
  // One window drawn: both answers of the same question.
  const same = !!b && !!k && b.meta.from === k.meta.from && b.meta.to === k.meta.to && k.rowCount === cols;
  const meta = k?.meta ?? null;
  const whole: Win | null = meta ? (meta.axis === 'time' && meta.first_us != null && meta.last_us != null ? { from: meta.first_us, to: meta.last_us } : { from: 0, to: meta.entries + 1 }) : null;
  const shown: Win | null = meta ? { from: meta.from, to: meta.to } : null;
  useEffect(() => {
    setHover(null);
    setPinned(null);
    setPinnedColumn(null);
  }, [b]);
  // The moment under the pointer, else the one clicked, for the allocator state (a column's entry
  // position p is the state after entry p - 1).
  const momentColumn = hover?.column ?? pinnedColumn;
  const momentEntry = k && momentColumn != null && momentColumn < k.rowCount ? k.columns.entry[momentColumn] - 1 : null;
  const momentFrom = hover ? 'hover' : 'pin';
  useEffect(() => onMoment(momentEntry == null ? null : { entry: momentEntry, from: momentFrom }), [momentEntry, momentFrom]);
  const scheme = useSchemeChanges();

  const yMax = Math.max(1, meta?.y_max ?? 1);
  const scale = (PLOT_H - 8) / yMax;
  const colW = width / cols;
  useEffect(() => {
    const cv = canvas.current;
    if (!cv || !width || !same || !b || !k) return;
    const ctx = canvasContext(cv, width, PLOT_H);
    if (!ctx) return;
    const col = readCanvasColors(cv);
    const y = (bytes: number) => PLOT_H - bytes * scale;
    // Reserved memory (the segments) behind everything.
    ctx.fillStyle = col.dark ? 'rgba(140,150,170,0.16)' : 'rgba(120,130,150,0.13)';
    for (let c = 0; c < k.rowCount; c++) ctx.fillRect(c * colW, y(k.columns.reserved_bytes[c]), colW, k.columns.reserved_bytes[c] * scale);
    // The bottom band: allocations under a pixel (or past the band limit).
    ctx.fillStyle = col.dark ? 'rgba(150,155,165,0.45)' : 'rgba(120,125,135,0.35)';
    for (let c = 0; c < k.rowCount; c++) ctx.fillRect(c * colW, y(k.columns.others_bytes[c]), colW, k.columns.others_bytes[c] * scale);
    const site = b.columns.site;
    const size = b.columns.size;
    const ends = b.ends.bottom;
    const pts = b.columns.bottom;
    for (let r = 0; r < b.rowCount; r++) {
      const h = (colorIndex(b.strings[site[r]], HUES) * 360) / HUES;
      ctx.fillStyle = b.columns.before[r] ? (col.dark ? 'hsl(220, 10%, 38%)' : 'hsl(220, 12%, 72%)') : col.dark ? `hsl(${h}, 45%, 42%)` : `hsl(${h}, 60%, 68%)`;
      const last = b.columns.last_column[r];
      for (let p = r ? ends[r - 1] : 0; p < ends[r]; p++) {
        const c0 = pts[2 * p];
        const c1 = p + 1 < ends[r] ? pts[2 * p + 2] : last + 1;
        const bottom = pts[2 * p + 1];
        ctx.fillRect(c0 * colW, y(bottom + size[r]), (c1 - c0) * colW, Math.max(size[r] * scale, 0.5));
      }
    }
    // The total allocated as a line.
    ctx.strokeStyle = col.fg;
    ctx.lineWidth = 1.25;
    ctx.beginPath();
    for (let c = 0; c < k.rowCount; c++) {
      const yy = y(k.columns.allocated_bytes[c]);
      if (c === 0) ctx.moveTo(0, yy);
      else ctx.lineTo(c * colW, yy);
      ctx.lineTo((c + 1) * colW, yy);
    }
    ctx.stroke();
    // The band hovered or pinned, outlined.
    for (const r of [pinned, hover?.band]) {
      if (r == null || r < 0) continue;
      ctx.strokeStyle = col.fg;
      ctx.lineWidth = r === pinned ? 2 : 1;
      const last = b.columns.last_column[r];
      for (let p = r ? ends[r - 1] : 0; p < ends[r]; p++) {
        const c0 = pts[2 * p];
        const c1 = p + 1 < ends[r] ? pts[2 * p + 2] : last + 1;
        ctx.strokeRect(c0 * colW + 0.5, y(pts[2 * p + 1] + size[r]) + 0.5, (c1 - c0) * colW - 1, Math.max(size[r] * scale - 1, 1));
      }
    }
  }, [b, k, same, width, pinned, hover?.band, scheme]);

  const at = (ev: MouseEvent) => {
    const r = canvas.current!.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  };
  /** The band under (x, y) in the drawn window, -1: the bottom band, null: none. */
  const hit = (x: number, y: number): { band: number; column: number } | null => {
    if (!b || !k || !same) return null;
    const c = Math.min(k.rowCount - 1, Math.max(0, Math.floor(x / colW)));
    const bytes = (PLOT_H - y) / scale;
    for (let r = 0; r < b.rowCount; r++) {
      if (c < b.columns.first_column[r] || c > b.columns.last_column[r]) continue;
      const bottom = bottomAt(b, r, c);
      if (bytes >= bottom && bytes < bottom + b.columns.size[r]) return { band: r, column: c };
    }
    if (bytes >= 0 && bytes < k.columns.others_bytes[c]) return { band: -1, column: c };
    return { band: -2, column: c };
  };
  const zoomBy = (factor: number, frac = 0.5) => {
    if (!shown || !whole) return;
    const span = shown.to - shown.from;
    const least = axis === 'time' ? 2 : 4;
    const next = Math.min(whole.to - whole.from, Math.max(least, span * factor));
    let from = shown.from + frac * span - frac * next;
    from = Math.max(whole.from, Math.min(from, whole.to - next));
    setWin(next >= whole.to - whole.from ? null : { from, to: from + next });
  };
  const drag = useRef<{ x: number; win: Win; moved: boolean } | null>(null);
  const zoomed = !!win;
  const shownBand = pinned ?? (hover && hover.band >= 0 ? hover.band : null);
  const col = hover?.column ?? null;
  return (
    <div class="ov-panel snap-timeline" data-testid="snapshot-timeline">
      <div class="ov-panel-head">
        <h3>Active memory timeline</h3>
        <div class="snap-tools">
          <label class="ov-select">
            <span>Axis</span>
            <select
              data-testid="snapshot-axis"
              value={axis}
              onChange={(ev) => {
                setAxis((ev.target as HTMLSelectElement).value as 'entry' | 'time');
                setWin(null);
              }}
            >
              <option value="entry">entries</option>
              <option value="time" disabled={meta != null && !meta.has_times}>
                time
              </option>
            </select>
          </label>
          <button type="button" data-testid="snapshot-zoom-in" onClick={() => zoomBy(0.5)}>
            Zoom in
          </button>
          <button type="button" data-testid="snapshot-zoom-out" disabled={!zoomed} onClick={() => zoomBy(2)}>
            Zoom out
          </button>
          <button type="button" data-testid="snapshot-zoom-reset" disabled={!zoomed} onClick={() => setWin(null)}>
            Whole history
          </button>
        </div>
      </div>
      <p class="muted snap-window" data-testid="snapshot-window" data-from={shown?.from ?? ''} data-to={shown?.to ?? ''} data-axis={meta?.axis ?? ''}>
        {meta && shown
          ? meta.axis === 'time'
            ? `${formatDurationUs(shown.to - shown.from)} shown, from ${formatTimestampUs(shown.from)} to ${formatTimestampUs(shown.to)}`
            : `Entries ${formatCount(Math.floor(shown.from))} to ${formatCount(Math.ceil(shown.to) - 1)} shown of ${formatCount(meta.entries)}`
          : 'Drawing the timeline…'}
        {b && (
          <span data-testid="snapshot-band-count" data-bands={b.rowCount} data-folded={b.meta.folded}>
            {' '}
            · {formatCount(b.rowCount)} allocations drawn as bands, {formatCount(b.meta.folded)} under a pixel in the grey bottom band · y-axis to {formatBytes(yMax)}
          </span>
        )}
      </p>
      <div class="snap-plot" ref={wrap} style={{ height: `${PLOT_H}px` }}>
        {(bands.status === 'error' || columns.status === 'error') && (
          <QueryStatus state={bands.status === 'error' ? bands : columns} stem="snapshot-timeline" what="the timeline" loading="" />
        )}
        <canvas
          ref={canvas}
          role="img"
          tabIndex={0}
          aria-label={`Active memory timeline of cuda:${device.device}: each allocation alive a band, stacked; the line the total allocated, the shade behind it the reserved memory`}
          data-testid="snapshot-timeline-canvas"
          data-ready={same ? 'true' : 'false'}
          style={{ width: `${width}px`, height: `${PLOT_H}px` }}
          onWheel={(ev) => {
            if (!ev.deltaY) return;
            ev.preventDefault();
            zoomBy(ev.deltaY < 0 ? 0.8 : 1.25, width ? at(ev).x / width : 0.5);
          }}
          onKeyDown={(ev) => {
            // + / − zoom around the middle, ← → pan by a tenth, 0 shows the whole history.
            if (ev.key === '+' || ev.key === '=') zoomBy(0.5);
            else if (ev.key === '-' || ev.key === '_') zoomBy(2);
            else if (ev.key === '0') setWin(null);
            else if ((ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') && shown && whole && zoomed) {
              const span = shown.to - shown.from;
              const from = Math.max(whole.from, Math.min(shown.from + (ev.key === 'ArrowLeft' ? -0.1 : 0.1) * span, whole.to - span));
              setWin({ from, to: from + span });
            } else return;
            ev.preventDefault();
          }}
          onPointerDown={(ev) => {
            if (ev.button !== 0 || !shown) return;
            drag.current = { x: ev.clientX, win: shown, moved: false };
          }}
          onPointerMove={(ev) => {
            const d = drag.current;
            if (d && ev.buttons & 1 && whole) {
              const dx = ev.clientX - d.x;
              if (Math.abs(dx) > 3) d.moved = true;
              if (d.moved && width && zoomed) {
                const span = d.win.to - d.win.from;
                let from = d.win.from - (dx / width) * span;
                from = Math.max(whole.from, Math.min(from, whole.to - span));
                setWin({ from, to: from + span });
              }
              return;
            }
            const p = at(ev);
            setHover(hit(p.x, p.y));
          }}
          onPointerUp={(ev) => {
            const d = drag.current;
            drag.current = null;
            if (d?.moved) return;
            const p = at(ev);
            const h = hit(p.x, p.y);
            setPinned(h && h.band >= 0 && h.band !== pinned ? h.band : null);
            setPinnedColumn(h && h.column !== pinnedColumn ? h.column : null);
          }}
          onPointerLeave={() => setHover(null)}
        />
      </div>
      <BandInfo bands={same ? b : null} columns={same ? k : null} band={shownBand} column={col} bottom={hover?.band === -1} pinned={pinned != null} />
      <p class="muted snap-legend">
        Each allocation alive is a band, stacked on those allocated before it (those from before the history at the bottom, in grey); the line is the
        total allocated, the shade behind it the reserved memory. Each pixel column is drawn at its entry of most memory. Wheel, + / − or the buttons
        zoom, a drag or ← → pans, 0 shows the whole history; hover a band for its allocation, click to pin it; the allocator state below follows the column hovered, else the one clicked.
      </p>
    </div>
  );
}

function BandInfo({
  bands: b,
  columns: k,
  band,
  column,
  bottom,
  pinned,
}: {
  bands: Answer<'snapshot-timeline'> | null;
  columns: Answer<'snapshot-timeline-columns'> | null;
  band: number | null;
  column: number | null;
  bottom: boolean;
  pinned: boolean;
}) {
  if (!b || !k) return <div class="snap-info" data-testid="snapshot-hover" data-state="none" />;
  const colLine =
    column != null ? (
      <p class="muted" data-testid="snapshot-hover-column">
        Entry {formatCount(k.columns.entry[column])}
        {Number.isNaN(k.columns.time_us[column]) ? '' : ` (${formatTimestampUs(k.columns.time_us[column])})`}: {formatBytes(k.columns.allocated_bytes[column])} allocated,{' '}
        {formatBytes(k.columns.reserved_bytes[column])} reserved
      </p>
    ) : null;
  if (band == null) {
    return (
      <div class="snap-info" data-testid="snapshot-hover" data-state={bottom ? 'bottom' : 'none'}>
        {colLine}
        {bottom && column != null && (
          <p>
            The grey bottom band: {formatBytes(k.columns.others_bytes[column])} in allocations under a pixel tall here.
          </p>
        )}
        {!colLine && <p class="muted">Hover a band to see its allocation.</p>}
      </div>
    );
  }
  const c = b.columns;
  const fromUs = c.from_us[band];
  const toUs = c.to_us[band];
  const fromE = c.from_entry[band];
  const toE = c.to_entry[band];
  const before = c.before[band] === 1;
  const age = !Number.isNaN(fromUs) && !Number.isNaN(toUs) ? formatDurationUs(toUs - fromUs) : null;
  const stack = c.stack[band] === 0xffffffff ? null : b.strings[c.stack[band]];
  return (
    <div class="snap-info" data-testid="snapshot-hover" data-state={pinned ? 'pinned' : 'hover'} data-size={c.size[band]} data-address={b.strings[c.address[band]]}>
      <p>
        <strong data-testid="snapshot-hover-size">{formatBytes(c.size[band])}</strong> <span class="muted">({exact(c.size[band])})</span> at{' '}
        <code data-testid="snapshot-hover-address">{b.strings[c.address[band]]}</code>
        {pinned ? <span class="snap-pin"> · pinned (click it again to unpin)</span> : null}
      </p>
      <p data-testid="snapshot-hover-life">
        {before ? 'Allocated before the history began' : `Allocated at entry ${formatCount(fromE)}${Number.isNaN(fromUs) ? '' : ` (${formatTimestampUs(fromUs)})`}`}
        {'; '}
        {Number.isNaN(toE) ? 'alive at the dump' : `freed at entry ${formatCount(toE)}${Number.isNaN(toUs) ? '' : ` (${formatTimestampUs(toUs)})`}`}
        {age ? `; alive ${age}` : !Number.isNaN(fromE) && !Number.isNaN(toE) ? `; alive ${formatCount(toE - fromE)} entries` : ''}
      </p>
      <p>
        Site: <code data-testid="snapshot-hover-site">{b.strings[c.site[band]]}</code>
      </p>
      {stack && (
        <pre class="snap-stack" data-testid="snapshot-hover-stack">
          {stack}
        </pre>
      )}
      {colLine}
    </div>
  );
}

// ---- the peak ---------------------------------------------------------------------------------

function PeakPanel({ ask, device, name }: { ask: Ask; device: SnapshotDevice; name: string }) {
  const [depth, setDepth] = useState(1);
  const peak = useAnswer(ask, 'snapshot-peak', { device: String(device.device), depth: String(depth) });
  const tree = useAnswer(ask, 'snapshot-peak-tree', { device: String(device.device) });
  const [selected, setSelected] = useState(-1);
  const a = peak.status === 'ready' ? peak.data : null;
  const model = useMemo(
    () =>
      a &&
      answerTable(
        a,
        SNAPSHOT_PEAK_COLUMNS,
        [
          { name: 'site', label: 'Allocation site (innermost Python frames first)', grow: 1 },
          { name: 'bytes', label: 'Bytes at the peak', width: 150 },
          { name: 'allocations', label: 'Allocations', width: 110 },
          { name: 'largest_bytes', label: 'Largest', width: 120 },
        ],
        (row) => a.strings[a.columns.site[row]],
      ),
    [a],
  );
  const t = tree.status === 'ready' ? tree.data : null;
  const nodes = useMemo((): FlameNodes | null => {
    if (!t) return null;
    const n = t.rowCount;
    const end = new Float64Array(n);
    for (let i = 0; i < n; i++) end[i] = t.columns.start_bytes[i] + t.columns.bytes[i];
    return {
      rowCount: n,
      kind: new Array<string>(n).fill('module'),
      startUs: t.columns.start_bytes,
      endUs: end,
      parent: t.columns.parent,
      // Frames read best with their file's base name (the table above has the full paths).
      name: Array.from(t.columns.name, (id) => t.strings[id].replace(/\(([^()]*\/)([^/()]+:\d+)\)$/, '($2)')),
      hostTotalUs: t.columns.bytes,
      hostSelfUs: t.columns.self_bytes,
      deviceTotalUs: new Float64Array(n),
      row: new Int32Array(n).fill(-1),
    };
  }, [t]);
  return (
    <div class="ov-panel snap-peak" data-testid="snapshot-peak">
      <div class="ov-panel-head">
        <h3>
          Alive at the peak: <Bytes n={device.peak_allocated_bytes} testId="snapshot-peak-bytes" />{' '}
          <span class="muted">at {when(device.peak_at_us, device.peak_entry)}</span>
        </h3>
        <label class="ov-select">
          <span>Site</span>
          <select data-testid="snapshot-depth" value={depth} onChange={(ev) => setDepth(Number((ev.target as HTMLSelectElement).value))}>
            {[1, 2, 3, 4, 6, 8].map((x) => (
              <option key={x} value={x}>
                {x === 1 ? 'innermost Python frame' : `${x} Python frames`}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!a || !model ? (
        <QueryStatus state={peak} stem="snapshot-peak" what="the peak's allocation sites" loading="Grouping the peak's allocations…" />
      ) : (
        <DataTable
          model={model}
          stem="snapshot-peak"
          label="Allocation sites at the peak"
          csvName={`${csvStem(name)}-cuda${device.device}-peak-sites.csv`}
          initialSort={null}
          searchPlaceholder="Search sites"
          maxHeight={300}
        />
      )}
      <h4>Bytes at the peak by stack (outermost frame on top)</h4>
      {!nodes ? (
        <QueryStatus state={tree} stem="snapshot-peak-tree" what="the peak's stacks" loading="Building the peak's stacks…" />
      ) : (
        <FlameGraph nodes={nodes} selected={selected} highlightRow={-1} onPick={setSelected} label="Bytes alive at the peak by stack" format={formatBytes} />
      )}
    </div>
  );
}
