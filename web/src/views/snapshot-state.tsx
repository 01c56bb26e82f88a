// The allocator's state at a moment (issue 26), a panel of the Snapshot page: the segments and
// their blocks (allocated, awaiting their free, inactive) as pytorch.org/memory_viz's segment
// view draws them, from the snapshot-state and snapshot-state-segments answers (the history undone
// back to the moment by the core: core/snapshot/allocator_state.h), equal to `kinetoscope
// snapshot --segments --json`. The moment follows the timeline (the column hovered, else the one
// clicked), or an entry or time typed here; the dump by default. Each segment is a bar as wide as
// its size against the largest; only the rows scrolled into view are drawn (a snapshot may hold
// thousands of segments).
import { useEffect, useRef, useState } from 'preact/hooks';
import { canvasContext, readCanvasColors, useSchemeChanges, type CanvasColors } from '../components/canvas';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import { useResize } from '../components/use-resize';
import type { Answer } from '../generated/views';
import { formatBytes, formatCount, formatTimestampUs } from '../lib/format';
import type { SnapshotDevice } from '../lib/snapshot';

/** A moment of the timeline: the state after `entry` (-1: before the first entry). */
export interface SnapshotMoment {
  entry: number;
  /** hover: the column under the pointer; pin: the column clicked. */
  from: 'hover' | 'pin';
}

const ROW_H = 20;
const LABEL_W = 190;
const MAX_H = 440;

type Typed = { entry: string } | { at_us: string };

const exact = (n: number) => `${formatCount(n)} bytes`;

function Num({ n, testId }: { n: number; testId: string }) {
  return (
    <span data-testid={testId} data-value={n} title={exact(n)}>
      {formatBytes(n)}
    </span>
  );
}

/** The params asked, `delay` ms after they last changed (hovering the timeline asks once it rests). */
function useSettled<T>(value: T, key: string, delay: number): T {
  const [held, setHeld] = useState({ value, key });
  useEffect(() => {
    if (key === held.key) return;
    if (delay <= 0) return setHeld({ value, key });
    const t = setTimeout(() => setHeld({ value, key }), delay);
    return () => clearTimeout(t);
  }, [key, delay]);
  return held.value;
}

export function SnapshotStatePanel({ ask, device, moment }: { ask: Ask; device: SnapshotDevice; moment: SnapshotMoment | null }) {
  const [typed, setTyped] = useState<Typed | null>(null);
  const [kind, setKind] = useState<'entry' | 'at_us'>('entry');
  const [text, setText] = useState('');
  // The timeline's moment wins when it changes; a typed one until the timeline moves again.
  useEffect(() => {
    if (moment) setTyped(null);
  }, [moment?.entry, moment?.from]);
  const picked: Record<string, string> = typed ?? (moment ? { entry: String(moment.entry) } : {});
  const wanted = { device: String(device.device), ...picked };
  const params = useSettled(wanted, JSON.stringify(wanted), moment?.from === 'hover' && !typed ? 120 : 0);
  const blocks = useAnswer(ask, 'snapshot-state', params);
  const segments = useAnswer(ask, 'snapshot-state-segments', params);
  const b = blocks.status === 'ready' ? blocks.data : null;
  const s = segments.status === 'ready' ? segments.data : null;
  const same = !!b && !!s && b.meta.entry === s.meta.entry && b.meta.device === s.meta.device;
  const error = blocks.status === 'error' ? blocks.message : segments.status === 'error' ? segments.message : null;
  const source = typed ? 'typed' : moment ? moment.from : 'dump';
  const m = same ? b!.meta : null;
  return (
    <div class="ov-panel snap-state" data-testid="snapshot-state" data-source={source} data-entry={m?.entry ?? ''} data-ready={same ? 'true' : 'false'}>
      <div class="ov-panel-head">
        <h3>Allocator state {m ? <span class="muted">{momentText(m)}</span> : null}</h3>
        <form
          class="snap-tools"
          onSubmit={(ev) => {
            ev.preventDefault();
            const v = text.trim();
            if (v) setTyped(kind === 'entry' ? { entry: v } : { at_us: v });
          }}
        >
          <label class="ov-select">
            <span>At</span>
            <select data-testid="snapshot-state-kind" value={kind} onChange={(ev) => setKind((ev.target as HTMLSelectElement).value as 'entry' | 'at_us')}>
              <option value="entry">entry</option>
              <option value="at_us">time (µs)</option>
            </select>
          </label>
          <input
            class="snap-state-input"
            data-testid="snapshot-state-input"
            type="text"
            inputMode="numeric"
            placeholder={kind === 'entry' ? `-1 to ${formatCount(device.trace_entries - 1)}` : 'time_us'}
            value={text}
            onInput={(ev) => setText((ev.target as HTMLInputElement).value)}
            aria-label={kind === 'entry' ? 'Entry of the history' : 'Time in microseconds (time_us)'}
          />
          <button type="submit" data-testid="snapshot-state-show">
            Show
          </button>
          <button type="button" data-testid="snapshot-state-dump" disabled={source === 'dump'} onClick={() => (setTyped({ entry: String(device.trace_entries - 1) }), setText(''))}>
            Dump
          </button>
        </form>
      </div>
      <p class="muted snap-state-how">
        {source === 'typed'
          ? 'At the moment typed; hovering or clicking the timeline moves it.'
          : source === 'dump'
            ? 'At the dump; hover the timeline to follow it, click it to hold a moment, or type an entry or time.'
            : source === 'pin'
              ? 'At the moment clicked on the timeline (click it again to let go).'
              : 'Following the timeline under the pointer.'}
      </p>
      {error ? (
        <p class="error" data-testid="snapshot-state-error" role="alert">
          {error}
        </p>
      ) : !same ? (
        <p class="muted" data-testid="snapshot-state-loading">
          Replaying the allocator's history to that moment…
        </p>
      ) : (
        <StateBody blocks={b!} segments={s!} />
      )}
    </div>
  );
}

function momentText(m: Answer<'snapshot-state'>['meta']): string {
  if (m.entries === 0) return 'at the dump (no history)';
  const e = m.entry < 0 ? 'before the first entry' : `after entry ${formatCount(m.entry)}${m.dump ? ' (the dump)' : ''}`;
  return m.at_us == null ? e : `${e}, ${formatTimestampUs(m.at_us)}`;
}

function StateBody({ blocks: b, segments: s }: { blocks: Answer<'snapshot-state'>; segments: Answer<'snapshot-state-segments'> }) {
  const m = b.meta;
  const alive = m.allocated_blocks + m.awaiting_free_blocks;
  return (
    <>
      <p class="snap-state-summary" data-testid="snapshot-state-summary">
        <span data-testid="snapshot-state-segments" data-value={m.segments}>
          {formatCount(m.segments)} segment{m.segments === 1 ? '' : 's'}
        </span>
        , <Num n={m.reserved_bytes} testId="snapshot-state-reserved" /> reserved: <Num n={m.allocated_bytes} testId="snapshot-state-allocated" /> allocated in{' '}
        <span data-testid="snapshot-state-allocated-blocks" data-value={m.allocated_blocks}>
          {formatCount(m.allocated_blocks)}
        </span>{' '}
        block{m.allocated_blocks === 1 ? '' : 's'}, <Num n={m.awaiting_free_bytes} testId="snapshot-state-awaiting" /> awaiting free in{' '}
        <span data-testid="snapshot-state-awaiting-blocks" data-value={m.awaiting_free_blocks}>
          {formatCount(m.awaiting_free_blocks)}
        </span>
        , <Num n={m.inactive_bytes} testId="snapshot-state-inactive" /> inactive (cached, free) in{' '}
        <span data-testid="snapshot-state-inactive-blocks" data-value={m.inactive_blocks}>
          {formatCount(m.inactive_blocks)}
        </span>
        ; the largest free block <Num n={m.largest_inactive_bytes} testId="snapshot-state-largest" />.
      </p>
      <p class="snap-state-frag" data-testid="snapshot-state-frag">
        Fragmentation: <Num n={m.inactive_bytes} testId="snapshot-state-frag-inactive" /> free in cached segments, the largest free block{' '}
        <Num n={m.largest_inactive_bytes} testId="snapshot-state-frag-largest" />; {formatCount(alive)} block{alive === 1 ? '' : 's'} alive holding{' '}
        <Num n={m.allocated_bytes + m.awaiting_free_bytes} testId="snapshot-state-frag-alive" />
        {m.requested_bytes > 0 ? <span class="muted"> ({formatBytes(m.requested_bytes)} asked for)</span> : null}.
      </p>
      {m.inconsistencies.length > 0 && (
        <p class="warn" data-testid="snapshot-state-inconsistent">
          Not replayed (skipped): {m.inconsistencies.map((x) => `${formatCount(x.count)} ${x.what}`).join(', ')}.
        </p>
      )}
      {s.rowCount === 0 ? (
        <p class="muted" data-testid="snapshot-state-empty">
          No segment was reserved then.
        </p>
      ) : (
        <SegmentBars blocks={b} segments={s} />
      )}
      <p class="muted snap-legend">
        Each segment a bar, as wide as its size against the largest ({formatBytes(largest(s))}), its blocks by address:{' '}
        <span class="snap-key snap-key-alloc" /> allocated, <span class="snap-key snap-key-await" /> awaiting free (freed, a stream still using it),{' '}
        <span class="snap-key snap-key-free" /> inactive (cached, free). A block put back by the replay has the allocator's rounding of its request. Hover a block for
        its allocation.
      </p>
    </>
  );
}

function largest(s: Answer<'snapshot-state-segments'>): number {
  let most = 1;
  for (let i = 0; i < s.rowCount; i++) most = Math.max(most, s.columns.size[i]);
  return most;
}

interface Palette extends CanvasColors {
  alloc: string[];
  await: string;
  free: string;
  freeEdge: string;
}

function palette(el: Element): Palette {
  const c = readCanvasColors(el);
  const dark = c.dark;
  // Allocated blocks in a few blues told apart by their site, as memory_viz colours by allocation.
  const alloc = [0, 1, 2, 3, 4, 5].map((k) => (dark ? `hsl(${205 + k * 9}, 55%, ${44 + (k % 3) * 6}%)` : `hsl(${205 + k * 9}, 62%, ${56 + (k % 3) * 7}%)`));
  return {
    ...c,
    alloc,
    await: dark ? 'hsl(32, 80%, 50%)' : 'hsl(32, 90%, 58%)',
    free: dark ? 'rgba(160,170,190,0.14)' : 'rgba(120,130,150,0.10)',
    freeEdge: dark ? 'rgba(160,170,190,0.45)' : 'rgba(110,120,140,0.45)',
  };
}

function SegmentBars({ blocks: b, segments: s }: { blocks: Answer<'snapshot-state'>; segments: Answer<'snapshot-state-segments'> }) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [top, setTop] = useState(0);
  const [hover, setHover] = useState<number | null>(null);
  const scheme = useSchemeChanges();
  useResize(box, (el) => setWidth(Math.floor(el.clientWidth)));
  useEffect(() => {
    setHover(null);
    if (box.current) box.current.scrollTop = 0;
    setTop(0);
  }, [b]);
  const rows = s.rowCount;
  const height = Math.min(MAX_H, rows * ROW_H);
  const most = largest(s);
  const barW = Math.max(1, width - LABEL_W - 8);
  const first = Math.floor(top / ROW_H);
  const last = Math.min(rows - 1, Math.ceil((top + height) / ROW_H));
  useEffect(() => {
    const cv = canvas.current;
    if (!cv || !width) return;
    const ctx = canvasContext(cv, width, height);
    if (!ctx) return;
    const p = palette(cv);
    ctx.font = '11px ui-monospace, SFMono-Regular, Menlo, monospace';
    ctx.textBaseline = 'middle';
    const c = s.columns;
    const k = b.columns;
    const free = b.strings.indexOf('inactive');
    const awaiting = b.strings.indexOf('awaiting_free');
    for (let r = first; r <= last; r++) {
      const y = r * ROW_H - top;
      ctx.fillStyle = p.muted;
      ctx.fillText(`${s.strings[c.address[r]]}  ${formatBytes(c.size[r])}`, 4, y + ROW_H / 2);
      const w = Math.max(2, (c.size[r] / most) * barW);
      const x0 = LABEL_W;
      const scale = w / c.size[r];
      for (let i = c.first_block[r]; i < c.first_block[r] + c.blocks[r]; i++) {
        const bx = x0 + k.offset_bytes[i] * scale;
        const bw = Math.max(k.size[i] * scale, 0.75);
        const st = k.state[i];
        ctx.fillStyle = st === free ? p.free : st === awaiting ? p.await : p.alloc[(k.site[i] === 0xffffffff ? 0 : k.site[i]) % p.alloc.length];
        ctx.fillRect(bx, y + 3, bw, ROW_H - 6);
        if (bw >= 3 && st !== free) {
          ctx.strokeStyle = 'rgba(0,0,0,0.18)';
          ctx.strokeRect(bx + 0.5, y + 3.5, bw - 1, ROW_H - 7);
        }
      }
      ctx.strokeStyle = p.freeEdge;
      ctx.strokeRect(x0 + 0.5, y + 2.5, w - 1, ROW_H - 5);
    }
    if (hover != null) {
      const r = b.columns.segment[hover];
      if (r >= first && r <= last) {
        const w = Math.max(2, (c.size[r] / most) * barW);
        const scale = w / c.size[r];
        ctx.strokeStyle = p.fg;
        ctx.lineWidth = 2;
        ctx.strokeRect(LABEL_W + k.offset_bytes[hover] * scale, r * ROW_H - top + 2, Math.max(k.size[hover] * scale, 2), ROW_H - 4);
        ctx.lineWidth = 1;
      }
    }
  }, [b, s, width, height, top, hover, scheme]);

  /** The block under (x, y) of the canvas, or null. */
  const hit = (x: number, y: number): number | null => {
    const r = Math.floor((y + top) / ROW_H);
    if (r < 0 || r >= rows || x < LABEL_W) return null;
    const c = s.columns;
    const w = Math.max(2, (c.size[r] / most) * barW);
    const at = ((x - LABEL_W) / w) * c.size[r];
    if (at < 0 || at > c.size[r]) return null;
    const k = b.columns;
    let best: number | null = null;
    for (let i = c.first_block[r]; i < c.first_block[r] + c.blocks[r]; i++) {
      if (k.offset_bytes[i] <= at) best = i;
      else break;
    }
    return best;
  };
  return (
    <>
      <div
        class="snap-segments"
        ref={box}
        style={{ height: `${height}px` }}
        data-testid="snapshot-state-bars"
        data-rows={rows}
        data-first={first}
        onScroll={(ev) => setTop((ev.target as HTMLDivElement).scrollTop)}
      >
        <div style={{ height: `${rows * ROW_H}px`, position: 'relative' }}>
          <canvas
            ref={canvas}
            role="img"
            aria-label={`${rows} segments, each a bar of its blocks: allocated, awaiting free, inactive`}
            data-testid="snapshot-state-canvas"
            style={{ position: 'sticky', top: 0, width: `${width}px`, height: `${height}px`, display: 'block' }}
            onPointerMove={(ev) => {
              const r = (ev.target as HTMLCanvasElement).getBoundingClientRect();
              setHover(hit(ev.clientX - r.left, ev.clientY - r.top));
            }}
            onPointerLeave={() => setHover(null)}
          />
        </div>
      </div>
      <BlockInfo blocks={b} segments={s} block={hover} />
    </>
  );
}

function BlockInfo({ blocks: b, segments: s, block }: { blocks: Answer<'snapshot-state'>; segments: Answer<'snapshot-state-segments'>; block: number | null }) {
  if (block == null)
    return (
      <div class="snap-info" data-testid="snapshot-state-hover" data-state="none">
        <p class="muted">Hover a block for its size, request, state, address and stack.</p>
      </div>
    );
  const k = b.columns;
  const state = b.strings[k.state[block]];
  const seg = k.segment[block];
  const stack = k.stack[block] === 0xffffffff ? null : b.strings[k.stack[block]];
  const site = k.site[block] === 0xffffffff ? null : b.strings[k.site[block]];
  return (
    <div class="snap-info" data-testid="snapshot-state-hover" data-state={state} data-size={k.size[block]} data-address={b.strings[k.address[block]]}>
      <p>
        <strong data-testid="snapshot-state-hover-size">{formatBytes(k.size[block])}</strong> <span class="muted">({exact(k.size[block])})</span>{' '}
        <span data-testid="snapshot-state-hover-state">{state.replace('_', ' ')}</span> at <code>{b.strings[k.address[block]]}</code>, in segment{' '}
        <code>{s.strings[s.columns.address[seg]]}</code> ({formatBytes(s.columns.size[seg])}, stream {s.columns.stream[seg]})
      </p>
      {state !== 'inactive' && (
        <p>
          Asked for <span data-testid="snapshot-state-hover-requested">{exact(k.requested_bytes[block])}</span>
          {k.size_from_dump[block] ? '' : ' (its size the allocator\'s rounding: the history put it back)'};{' '}
          {Number.isNaN(k.alloc_entry[block]) ? 'allocated before the history began' : `allocated at entry ${formatCount(k.alloc_entry[block])}`}
          {site ? (
            <>
              {' '}
              at <code data-testid="snapshot-state-hover-site">{site}</code>
            </>
          ) : null}
        </p>
      )}
      {stack && (
        <pre class="snap-stack" data-testid="snapshot-state-hover-stack">
          {stack}
        </pre>
      )}
    </div>
  );
}
