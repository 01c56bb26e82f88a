// The run navigator: every open trace as run → worker → span, with its state (waiting, loading
// with its progress, ready, health warnings, failed), one selected at a time. Windowed like the
// data tables (only the rows in view are in the DOM) and searchable, so a run of hundreds of rank
// files stays usable. The grouping and ordering are lib/run-tree.ts.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useResize } from './use-resize';
import { visibleWindow } from '../lib/table-model';
import { formatCount } from '../lib/format';
import { flattenRows, parentsOf, type NavRow, type RunNode, type Status } from '../lib/run-tree';
import type { HealthRow } from '../lib/summary';

/** What the navigator shows of a trace's state. */
export interface NavState {
  status: Status;
  /** 0..1 while loading, when the size is known. */
  fraction?: number | null;
  health?: HealthRow[];
  /** The load failed, or the file is not a trace: the sentence why. */
  error?: string | null;
}

const ROW = 30;

/** The worst severity in a health table: what the row's mark says. */
export function healthLevel(rows: HealthRow[] | undefined): 'ok' | 'info' | 'warning' | 'error' {
  if (!rows?.length) return 'ok';
  if (rows.some((r) => r.severity === 'error')) return 'error';
  if (rows.some((r) => r.severity === 'warning')) return 'warning';
  return 'info';
}

export function RunNav({
  runs,
  states,
  selected,
  onSelect,
  selectedRun = null,
  onSelectRun,
}: {
  runs: RunNode[];
  states: Map<number, NavState>;
  selected: number | null;
  onSelect: (key: number) => void;
  /** The run whose page is shown instead of a trace (its name; '' for files opened on their own). */
  selectedRun?: string | null;
  /** Selecting a run row shows its run page; its caret opens and closes it. */
  onSelectRun?: (run: string) => void;
}) {
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const [query, setQuery] = useState('');
  const rows = useMemo(() => flattenRows(runs, collapsed, query), [runs, collapsed, query]);
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const total = useMemo(() => runs.reduce((n, r) => n + r.traceCount, 0), [runs]);

  useResize(scroller, (el) => setViewport(el.clientHeight));

  // The selected trace is always reachable: its run and worker open, its row scrolled into view.
  useEffect(() => {
    if (selected == null) return;
    const closed = parentsOf(runs, selected).filter((id) => collapsed.has(id));
    if (closed.length) {
      setCollapsed((c) => new Set([...c].filter((id) => !closed.includes(id))));
      return;
    }
    const pos = rows.findIndex((r) => r.kind === 'trace' && r.span.trace.key === selected);
    const el = scroller.current;
    if (pos < 0 || !el) return;
    const top = pos * ROW;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW - el.clientHeight;
    setScrollTop(el.scrollTop);
    // Only when the selection or the rows change, not on every scroll.
  }, [selected, rows]);

  const toggle = (id: string) =>
    setCollapsed((c) => {
      const n = new Set(c);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  const traceRows = rows.filter((r): r is Extract<NavRow, { kind: 'trace' }> => r.kind === 'trace');
  const onKeyDown = (ev: KeyboardEvent) => {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp' && ev.key !== 'Home' && ev.key !== 'End') return;
    if (!traceRows.length) return;
    ev.preventDefault();
    const at = traceRows.findIndex((r) => r.span.trace.key === selected);
    const next =
      ev.key === 'Home' ? 0 : ev.key === 'End' ? traceRows.length - 1 : at < 0 ? 0 : Math.min(traceRows.length - 1, Math.max(0, at + (ev.key === 'ArrowDown' ? 1 : -1)));
    onSelect(traceRows[next].span.trace.key);
  };

  const win = visibleWindow(rows.length, ROW, scrollTop, viewport, 10);
  const shown = rows.slice(win.start, win.end);
  const loading = [...states.values()].filter((s) => s.status === 'loading' || s.status === 'queued').length;

  return (
    <nav class="run-nav" aria-label="Runs" data-testid="run-nav">
      <div class="nav-head">
        <span class="nav-title">Runs</span>
        <span class="muted nav-count" data-testid="nav-count">
          {formatCount(total)} trace{total === 1 ? '' : 's'}
          {loading ? ` · ${formatCount(loading)} loading` : ''}
        </span>
      </div>
      <input
        type="search"
        class="nav-search"
        placeholder="Search runs, workers, files, ranks"
        aria-label="Search the open traces"
        data-testid="nav-search"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
      />
      <div
        class="nav-scroll"
        ref={scroller}
        tabIndex={0}
        role="tree"
        aria-label="Open traces by run, worker and span"
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div class="nav-rows" data-rows={rows.length} style={{ height: `${rows.length * ROW}px`, position: 'relative' }}>
          {shown.map((r, i) => (
            <div key={r.id} class="nav-row-slot" data-index={win.start + i} style={{ top: `${(win.start + i) * ROW}px`, height: `${ROW}px` }}>
              <Row row={r} states={states} selected={selectedRun != null ? null : selected} selectedRun={selectedRun} onSelect={onSelect} onSelectRun={onSelectRun} onToggle={toggle} />
            </div>
          ))}
        </div>
        {!rows.length && (
          <p class="muted nav-empty" data-testid="nav-empty">
            {query ? 'No open trace matches the search.' : 'No traces open.'}
          </p>
        )}
      </div>
    </nav>
  );
}

function Row({
  row,
  states,
  selected,
  selectedRun,
  onSelect,
  onSelectRun,
  onToggle,
}: {
  row: NavRow;
  states: Map<number, NavState>;
  selected: number | null;
  selectedRun: string | null;
  onSelect: (key: number) => void;
  onSelectRun?: (run: string) => void;
  onToggle: (id: string) => void;
}) {
  const pad = { paddingLeft: `${8 + row.depth * 16}px` };
  if (row.kind === 'run') {
    const keys = row.run.workers.flatMap((w) => w.spans.map((s) => s.trace.key));
    const failed = keys.filter((k) => states.get(k)?.status === 'failed').length;
    const pending = keys.filter((k) => {
      const s = states.get(k)?.status;
      return s === 'queued' || s === 'loading';
    }).length;
    const isSel = selectedRun === row.run.name;
    return (
      <div
        class={`nav-row nav-group nav-run${isSel ? ' selected' : ''}`}
        role="treeitem"
        aria-level={1}
        aria-expanded={row.collapsed ? 'false' : 'true'}
        aria-selected={onSelectRun ? (isSel ? 'true' : 'false') : undefined}
        data-testid="nav-run"
        data-run={row.run.name}
        style={pad}
        title={`${row.run.name || 'Files opened on their own (not from a folder)'}${onSelectRun ? ' — click for the run page (Distributed view)' : ''}`}
        onClick={() => (onSelectRun ? onSelectRun(row.run.name) : onToggle(row.id))}
      >
        <span
          class="nav-caret"
          aria-hidden="true"
          data-testid="nav-run-caret"
          onClick={(ev) => {
            ev.stopPropagation();
            onToggle(row.id);
          }}
        >
          {row.collapsed ? '▸' : '▾'}
        </span>
        <span class="nav-label">{row.run.name || 'Opened files'}</span>
        <span class="nav-aside muted">
          {pending ? `${row.run.traceCount - pending}/${row.run.traceCount}` : row.run.traceCount}
          {failed ? <span class="nav-bad"> · {failed} failed</span> : null}
        </span>
      </div>
    );
  }
  if (row.kind === 'worker') {
    return (
      <div
        class="nav-row nav-group"
        role="treeitem"
        aria-level={2}
        aria-expanded={row.collapsed ? 'false' : 'true'}
        data-testid="nav-worker"
        data-worker={row.worker.name}
        style={pad}
        title={`worker ${row.worker.name}: ${row.worker.spans.length} spans`}
        onClick={() => onToggle(row.id)}
      >
        <span class="nav-caret" aria-hidden="true">{row.collapsed ? '▸' : '▾'}</span>
        <span class="nav-label">{row.worker.name}</span>
        {row.worker.rank != null && <span class="nav-rank">rank {row.worker.rank}</span>}
        <span class="nav-aside muted">{row.worker.spans.length} spans</span>
      </div>
    );
  }
  const t = row.span.trace;
  const st = states.get(t.key) ?? { status: 'queued' as const };
  const isSel = t.key === selected;
  const level = st.status === 'failed' ? 'error' : healthLevel(st.health);
  const label =
    row.depth === 2 ? (
      <>
        <span class="nav-label">span {row.span.spanRank}</span>
        <span class="nav-sub muted">{t.span}</span>
      </>
    ) : (
      <>
        <span class="nav-label">{t.worker}</span>
        {t.rank != null && <span class="nav-rank">rank {t.rank}</span>}
      </>
    );
  const what =
    st.status === 'failed'
      ? `failed: ${st.error ?? ''}`
      : st.status === 'done'
        ? level === 'ok' || level === 'info'
          ? 'ready'
          : `ready, trace health: ${st.health!.filter((h) => h.severity === level).length} ${level}${level === 'error' ? 's' : ' kinds'}`
        : st.status === 'loading'
          ? 'loading'
          : st.status === 'queued'
            ? 'waiting'
            : 'cancelled';
  return (
    <div
      class={`nav-row nav-trace${isSel ? ' selected' : ''}`}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-selected={isSel ? 'true' : 'false'}
      data-testid="nav-trace"
      data-file={t.name}
      data-run={t.run}
      data-worker={t.worker}
      data-span={row.span.spanRank || ''}
      data-status={st.status}
      data-health={level}
      style={pad}
      title={`${t.name} — ${what}`}
      onClick={() => onSelect(t.key)}
    >
      <StateMark state={st} level={level} />
      {label}
      <span class="nav-aside">
        {st.status === 'loading' && (
          <span class="nav-progress" data-testid="nav-progress">
            {st.fraction != null ? `${Math.floor(st.fraction * 100)} %` : '…'}
          </span>
        )}
        {st.status === 'queued' && <span class="muted">waiting</span>}
        {st.status === 'cancelled' && <span class="muted">cancelled</span>}
      </span>
      {st.status === 'loading' && st.fraction != null && <span class="nav-bar" style={{ width: `${Math.min(100, st.fraction * 100)}%` }} aria-hidden="true" />}
    </div>
  );
}

function StateMark({ state, level }: { state: NavState; level: string }) {
  if (state.status === 'failed') return <span class="nav-mark bad" aria-label="failed">✕</span>;
  if (state.status === 'done') {
    if (level === 'error' || level === 'warning') return <span class={`nav-mark ${level === 'error' ? 'bad' : 'warn'}`} aria-label={`trace health: ${level}`}>⚠</span>;
    return <span class="nav-mark good" aria-label="ready">●</span>;
  }
  if (state.status === 'loading') return <span class="nav-mark busy" aria-label="loading">◐</span>;
  return <span class="nav-mark muted" aria-label={state.status}>○</span>;
}
