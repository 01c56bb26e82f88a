// The trace's Memory view linked to a memory snapshot of the same run (issue 26, "Linked to the
// trace"): for the range the Memory view shows (the selected range, the chosen step, or the whole
// trace), what the snapshot's allocator history held then (the snapshot-window view: allocations
// alive in the range by site, with their stacks) and a way to the Snapshot page at that moment.
// The clocks (docs/snapshots.md): the trace's time in Unix µs is its ts plus baseTimeNanoseconds
// / 1000 (ts alone when the trace has no baseTimeNanoseconds), the snapshot's time_us is Unix µs;
// a snapshot whose history falls outside the trace's span is refused by the core in one sentence.
import { createContext, type ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { useAnswer } from '../components/use-answer';
import type { Ask } from '../components/use-query';
import { NULL_STRING, SNAPSHOT_WINDOW_COLUMNS } from '../generated/views';
import { answerTable } from '../lib/answer-table';
import { csvStem } from '../lib/download';
import { formatBytes, formatCount, formatTimestampUs } from '../lib/format';
import { shortSite } from '../lib/snapshot';
import type { DiffTrace } from './diff-view';
import { askOf } from './snapshot-compare';
import type { RunQuery } from './trace-page';
import { QueryStatus } from './view-status';

/**
 * What the Memory view shows below its alive list for its device and range (the trace's ts, µs;
 * null: the whole trace): the card gives this panel when snapshots are open.
 */
export const MemoryBelow = createContext<((device: string, fromUs: number | null, toUs: number | null) => ComponentChildren) | null>(null);

/** Where the trace's clock stands against Unix time. */
export interface TraceSpan {
  /** The trace's first and last ts (µs, its own clock). */
  startUs: number;
  endUs: number;
  /** baseTimeNanoseconds (null: the trace's ts are Unix µs already). */
  baseTimeNs: number | null;
}

/** µs to add to a trace's ts for Unix µs (the snapshot's time_us). */
export function unixOffsetUs(span: TraceSpan): number {
  return span.baseTimeNs != null && span.baseTimeNs > 0 ? span.baseTimeNs / 1000 : 0;
}

/** The CUDA device of a Memory view device ("GPU0" → 0; null: not a GPU). */
export function cudaDevice(label: string): number | null {
  const m = /^GPU\s*(\d+)$/.exec(label);
  return m ? Number(m[1]) : null;
}

/** Asks nothing (params are null whenever it is used). */
const NEVER = (() => new Promise(() => {})) as Ask;

export function MemorySnapshotLink({
  snapshots,
  run,
  span,
  device,
  fromUs,
  toUs,
  onShow,
}: {
  /** The snapshots open (may be none). */
  snapshots: readonly DiffTrace[];
  run: RunQuery;
  span: TraceSpan;
  /** The Memory view's device ("GPU0"). */
  device: string;
  /** The range shown, in the trace's ts (µs). */
  fromUs: number;
  toUs: number;
  /** Shows snapshot `key`'s page at this range (Unix µs) of its device. */
  onShow?: (key: number, device: number, fromUs: number, toUs: number) => void;
}) {
  const done = snapshots.filter((t) => t.status === 'done');
  const [picked, setPicked] = useState<number | null>(null);
  // Without a pick: the first snapshot, then the next while the core says its clock does not match.
  const [tryIndex, setTryIndex] = useState(0);
  const snap = done.find((t) => t.key === picked) ?? done[Math.min(tryIndex, done.length - 1)];
  const ask = useMemo(() => askOf(snap, run), [snap?.session, snap?.gen, run]);
  const off = unixOffsetUs(span);
  const cuda = cudaDevice(device);
  const from = Math.round(fromUs + off);
  const to = Math.round(toUs + off);
  const params =
    ask && cuda != null
      ? { device: String(cuda), from_us: String(from), to_us: String(to), span_from_us: String(Math.floor(span.startUs + off)), span_to_us: String(Math.ceil(span.endUs + off)) }
      : null;
  const w = useAnswer(ask ?? NEVER, 'snapshot-window', params);
  const refused = w.status === 'error' && /clocks cannot be matched/.test(w.message);
  useEffect(() => {
    if (picked == null && refused && tryIndex + 1 < done.length) setTryIndex(tryIndex + 1);
  }, [refused, picked, tryIndex, done.length]);
  const [row, setRow] = useState<number | null>(null);
  const a = w.status === 'ready' ? w.data : null;
  useEffect(() => setRow(null), [a]);
  const model = useMemo(
    () =>
      a
        ? answerTable(
            a,
            SNAPSHOT_WINDOW_COLUMNS,
            [
              { name: 'site', label: 'Site (innermost Python frame)', grow: 1, minWidth: 240, format: (v) => shortSite(String(v)), title: (i) => a.strings[a.columns.site[i]] },
              { name: 'bytes', label: 'Alive in range' },
              { name: 'allocations', label: 'Allocations' },
              { name: 'allocated_bytes', label: 'Allocated in range' },
              { name: 'allocated', label: 'Allocs in range' },
              { name: 'freed', label: 'Freed in range' },
              { name: 'largest_bytes', label: 'Largest' },
            ],
            (i) => i,
          )
        : null,
    [a],
  );
  if (!snapshots.length) return null;
  const stack = a && row != null && a.columns.stack[row] !== NULL_STRING ? a.strings[a.columns.stack[row]] : null;
  return (
    <div class="ov-panel mem-snapshot" data-testid="memory-snapshot" data-snapshot={snap?.name ?? ''} data-state={a ? 'ready' : w.status} data-from-us={from} data-to-us={to}>
      <div class="ov-panel-head">
        <h3>Memory snapshot of this range</h3>
        {done.length > 1 && (
          <label class="ov-select">
            <span>Snapshot</span>
            <select data-testid="memory-snapshot-pick" value={snap ? String(snap.key) : ''} onChange={(ev) => setPicked(Number((ev.currentTarget as HTMLSelectElement).value))}>
              {done.map((t) => (
                <option key={t.key} value={String(t.key)}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {!snap ? (
        <p class="muted">Waiting for the snapshot to load…</p>
      ) : cuda == null ? (
        <p class="muted" data-testid="memory-snapshot-cpu">
          A CUDA allocator snapshot holds GPU memory only: pick a GPU device to see {snap.name}'s allocations.
        </p>
      ) : !ask ? (
        <p class="muted" role="status">
          {snap.name} is closed to save memory (only the files shown last stay loaded): show its page once to load it again.
        </p>
      ) : w.status === 'error' && !w.gone ? (
        <p class="muted" role="status" data-testid="memory-snapshot-error">
          {w.message}
        </p>
      ) : !a ? (
        <QueryStatus state={w} stem="memory-snapshot" what="snapshot's allocations" loading={`Reading ${snap.name}'s allocations in this range…`} />
      ) : (
        <>
          <p class="mem-snapshot-head" data-testid="memory-snapshot-summary" data-entries={a.meta.entries} data-level={a.meta.level_at_from_bytes} data-peak={a.meta.peak_bytes}>
            cuda:{a.meta.device} of <strong>{snap.name}</strong> from {formatTimestampUs(a.meta.from_us)} to {formatTimestampUs(a.meta.to_us)}:{' '}
            {formatCount(a.meta.entries)} history entr{a.meta.entries === 1 ? 'y' : 'ies'}, {formatBytes(a.meta.level_at_from_bytes)} allocated at the start, at
            most {formatBytes(a.meta.peak_bytes)}; {formatCount(a.rowCount)} site{a.rowCount === 1 ? '' : 's'} held memory then.{' '}
            {onShow && (
              <button type="button" class="link-button" data-testid="memory-snapshot-show" onClick={() => onShow(snap.key, a.meta.device, a.meta.from_us, a.meta.to_us)}>
                Show in the Snapshot page
              </button>
            )}
          </p>
          {model && (
            <DataTable
              model={model}
              stem="memory-snapshot-sites"
              label={`Allocations of ${snap.name} alive in the range, by site`}
              csvName={`${csvStem(snap.name)}-cuda${a.meta.device}-range-sites.csv`}
              initialSort={null}
              searchPlaceholder="Search sites"
              maxHeight={260}
              onSelect={(k) => setRow(k == null ? null : Number(k))}
            />
          )}
          {row != null &&
            (stack ? (
              <pre class="snap-stack" data-testid="memory-snapshot-stack">
                {stack}
              </pre>
            ) : (
              <p class="muted">No stack of its own (allocated before the history began, or none recorded).</p>
            ))}
        </>
      )}
    </div>
  );
}
