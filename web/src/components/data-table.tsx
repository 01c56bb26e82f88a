import type { ComponentChild } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useResize } from './use-resize';
import {
  allRows,
  ancestorKeys,
  cellText,
  columnPrefsKey,
  filterRows,
  fitNumberColumns,
  formatColumnPrefs,
  headerLabel,
  keyFromText,
  layoutWidths,
  MAX_COLUMN_WIDTH,
  minWidthOf,
  moveSelection,
  nextSort,
  defaultPrefs,
  parseColumnPrefs,
  positionOfKey,
  resizeColumn,
  resizeStep,
  rowCountLabel,
  scrollToShow,
  sortRows,
  toCsv,
  toggleColumn,
  treeRows,
  visibleColumns,
  visibleWindow,
  type Column,
  type ColumnPrefs,
  type RowKey,
  type SortState,
  type TableModel,
} from '../lib/table-model';
import type { TableState } from '../lib/deep-link';
import { downloadText } from '../lib/download';
import './data-table.css';

interface Props {
  model: TableModel;
  /**
   * Test id stem: `<stem>-table`, `-search`, `-export`, `-status`, `-header-<col>`, `-row`,
   * `-cell-<col>`, `-resize-<col>`, `-columns` (the menu's button), `-columns-menu`,
   * `-column-toggle-<col>`, `-columns-reset`.
   */
  stem: string;
  /**
   * Which table this is for the column widths and hidden columns a person sets, kept in
   * localStorage per browser (default: the stem). Tables whose columns differ (a view's
   * groupings) take one each.
   */
  columnsKey?: string;
  /** Name of the exported file, e.g. "rank-0-categories.csv". */
  csvName: string;
  /** Accessible name of the table. */
  label: string;
  initialSort?: SortState | null;
  /** Fixed row height in px: the windowing relies on every row having exactly this height. */
  rowHeight?: number;
  /** Height of the scroll container at most; smaller tables shrink to fit. */
  maxHeight?: number;
  searchPlaceholder?: string;
  emptyText?: string;
  /** Cell content other than the plain text (still JSX: trace strings stay text nodes). */
  renderCell?: (col: Column, row: number, text: string) => ComponentChild;
  /** Test id of a cell; default `<stem>-cell-<column id>`. */
  cellTestId?: (col: Column, row: number) => string;
  onSelect?: (key: RowKey | null) => void;
  /** The search the table starts with (a deep link's). */
  initialSearch?: string;
  /**
   * The row selected from the start, by its key as text (a deep link's): it is scrolled into view
   * and reported to `onSelect` as a click would be. A key no row has is ignored.
   */
  initialSelected?: string | null;
  /** Called with the sorting, the search in force and the selection, at first and on each change. */
  onState?: (s: TableState) => void;
  /** Tree tables (model.tree): rows shallower than this start expanded (default 1: the top rows). */
  initialExpandDepth?: number;
  /**
   * Select the row with this key as a click would (and open its ancestors and scroll to it), each
   * time `seq` changes: how another part of the page (a flame graph) picks a row.
   */
  reveal?: { key: RowKey; seq: number } | null;
}

// Above this many rows the search waits for a pause in typing; below, it filters per keystroke.
const DEBOUNCE_ROWS = 20_000;

function loadPrefs(key: string, columns: readonly Column[]): ColumnPrefs {
  try {
    return parseColumnPrefs(localStorage.getItem(key), columns);
  } catch {
    return defaultPrefs(columns); // storage refused (a privacy mode): the defaults, every time
  }
}

function savePrefs(key: string, prefs: ColumnPrefs | null): void {
  try {
    if (prefs) localStorage.setItem(key, formatColumnPrefs(prefs));
    else localStorage.removeItem(key);
  } catch {
    // Not kept across visits, but still applied on this page.
  }
}

let measureContext: CanvasRenderingContext2D | null | undefined;

/**
 * The width in px of a cell's text in the tables' font (styles.css .table: 0.92rem of the page's
 * font), measured on a canvas; 8px a character where there is none.
 */
function measureCellText(text: string): number {
  if (measureContext === undefined) {
    measureContext = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
    if (measureContext) {
      const rootPx = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
      measureContext.font = `${0.92 * rootPx}px ${getComputedStyle(document.body).fontFamily}`;
    }
  }
  return measureContext ? measureContext.measureText(text).width : text.length * 8;
}

/**
 * The one data table: sortable headers, a search box, windowed rows in a scroll container, CSV of
 * what is shown, and a selection kept by row key. Only the rows in view (plus a few) are in the
 * DOM; two spacer rows stand in for the rest so the scrollbar is true to the whole table.
 * A "ks-deselect" event at its root (Esc, sent by the file card) clears the selection.
 *
 * Columns fill the width the table gets: those with a width keep it, the others (names) share the
 * rest. A person can drag a header's right edge (or focus it and press the arrow keys) and hide
 * columns in the "Columns" menu; both are remembered per table (`columnsKey`) in this browser.
 * Export CSV keeps every column, hidden or not: hiding is about room on the screen.
 */
export function DataTable({
  model,
  stem,
  columnsKey,
  csvName,
  label,
  initialSort = null,
  rowHeight = 30,
  maxHeight = 480,
  searchPlaceholder = 'Search names',
  emptyText = 'No rows.',
  renderCell,
  cellTestId,
  onSelect,
  initialSearch = '',
  initialSelected = null,
  onState,
  initialExpandDepth = 1,
  reveal = null,
}: Props) {
  const [sort, setSort] = useState<SortState | null>(initialSort);
  const [text, setText] = useState(initialSearch);
  const [query, setQuery] = useState(initialSearch);
  const [selected, setSelected] = useState<RowKey | null>(() => keyFromText(model, initialSelected));
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(maxHeight);
  const [headerHeight, setHeaderHeight] = useState(rowHeight);
  const scroller = useRef<HTMLDivElement>(null);
  const head = useRef<HTMLTableSectionElement>(null);
  const root = useRef<HTMLDivElement>(null);
  const [available, setAvailable] = useState(0);
  const storageKey = columnPrefsKey(columnsKey ?? stem);
  const [prefs, setPrefs] = useState(() => loadPrefs(storageKey, model.columns));
  const prefsRef = useRef(prefs);
  prefsRef.current = prefs;
  // Another table in the same place (a view's other grouping) has its own settings.
  const loadedKey = useRef(storageKey);
  useEffect(() => {
    if (loadedKey.current === storageKey) return;
    loadedKey.current = storageKey;
    setPrefs(loadPrefs(storageKey, model.columns));
  }, [storageKey, model.columns]);
  // Number columns as wide as their longest value (a big trace's counts and times).
  const fitted = useMemo(() => fitNumberColumns(model, measureCellText), [model]);
  const cols = visibleColumns(fitted, prefs.hidden);
  const widths = layoutWidths(cols, prefs.widths, available);
  const tableWidth = widths.reduce((a, w) => a + w, 0);
  const change = (p: ColumnPrefs, keep = true) => {
    setPrefs(p);
    if (keep) savePrefs(storageKey, p);
  };

  useEffect(() => {
    if (model.rowCount < DEBOUNCE_ROWS) {
      setQuery(text);
      return;
    }
    const t = setTimeout(() => setQuery(text), 150);
    return () => clearTimeout(t);
  }, [text, model]);

  // Tree tables: the rows a person opened (by key), starting with the shallow ones.
  const [expanded, setExpanded] = useState<Set<RowKey>>(() => {
    const open = new Set<RowKey>();
    if (model.tree) {
      const t = treeRows(model, allRows(model.rowCount), '', 'all');
      for (let i = 0; i < model.rowCount; i++) if (t.hasKids[i] && t.depth[i] < initialExpandDepth) open.add(model.rowKey(i));
      // A row a link selects is shown, however deep.
      const sel = keyFromText(model, initialSelected);
      if (sel != null) for (let i = 0; i < model.rowCount; i++) if (model.rowKey(i) === sel) ancestorKeys(model, i).forEach((k) => open.add(k));
    }
    return open;
  });
  const sorted = useMemo(() => sortRows(model, allRows(model.rowCount), sort), [model, sort]);
  const tree = useMemo(() => (model.tree ? treeRows(model, sorted, query, expanded) : null), [model, sorted, query, expanded]);
  const shown = useMemo(() => (tree ? tree.rows : filterRows(model, sorted, query)), [model, sorted, query, tree]);
  const toggle = (key: RowKey, open?: boolean) =>
    setExpanded((e) => {
      const isOpen = e.has(key);
      if (open === isOpen) return e;
      const next = new Set(e);
      if (isOpen) next.delete(key);
      else next.add(key);
      return next;
    });

  // A new search starts at the top of its results, not somewhere in the middle of them.
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollTop) {
      el.scrollTop = 0;
      setScrollTop(0);
    }
  }, [query]);

  useResize(scroller, (el) => {
    // A table in a hidden tab measures 0: it renders as if at its full height, so it is whole
    // when shown, and keeps the width it had (its columns would otherwise shrink to their minimums).
    setViewport(el.clientHeight || maxHeight);
    if (el.clientWidth) setAvailable(el.clientWidth);
  });
  // Headers wrap: new widths may change their height, which the windowing counts. Observed, not
  // read after each render: a read there laid the page out again (useResize).
  useResize(head, (el) => setHeaderHeight(el.offsetHeight));

  const select = (key: RowKey | null) => {
    setSelected(key);
    onSelect?.(key);
  };

  // A row selected from the start (a deep link) is told to the owner, as a click is, and scrolled
  // into view. After the search effect above, which would scroll back to the top; the header's
  // height is read off the DOM, its state is not measured yet.
  useEffect(() => {
    if (selected == null) return;
    onSelect?.(selected);
    const el = scroller.current;
    const pos = positionOfKey(model, shown, selected);
    if (!el || pos < 0) return;
    const top = scrollToShow(pos, rowHeight, el.scrollTop, el.clientHeight, head.current?.offsetHeight ?? rowHeight);
    if (top !== el.scrollTop) {
      el.scrollTop = top;
      setScrollTop(top);
    }
    // The table may sit below the fold of a long card: bring it on screen too.
    el.scrollIntoView?.({ block: 'nearest' });
    // Once, at mount: later selections come from clicks and keys, which scroll themselves.
  }, []);

  // What the table shows, for the page's deep link; the search counts once it filters the rows.
  useEffect(() => {
    onState?.({ sort, search: query, selected });
    // onState is the owner's callback, often a new function each render: the state is what counts.
  }, [sort, query, selected]);

  // Esc in the trace page (app/app.tsx) clears the selection, which closes what shows the selected row.
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const onDeselect = () => select(null);
    el.addEventListener('ks-deselect', onDeselect);
    return () => el.removeEventListener('ks-deselect', onDeselect);
  });

  // Another part of the page picks a row: open its ancestors, select it, bring it into view.
  const revealSeq = useRef(reveal?.seq ?? 0);
  const pendingScroll = useRef<RowKey | null>(null);
  useEffect(() => {
    if (!reveal || reveal.seq === revealSeq.current) return;
    revealSeq.current = reveal.seq;
    let row = -1;
    for (let i = 0; i < model.rowCount && row < 0; i++) if (model.rowKey(i) === reveal.key) row = i;
    if (row < 0) return;
    const up = ancestorKeys(model, row);
    if (up.some((k) => !expanded.has(k))) setExpanded((e) => new Set([...e, ...up]));
    select(reveal.key);
    pendingScroll.current = reveal.key;
  });
  useEffect(() => {
    const key = pendingScroll.current;
    const el = scroller.current;
    if (key == null || !el) return;
    const pos = positionOfKey(model, shown, key);
    if (pos < 0) return;
    pendingScroll.current = null;
    const top = scrollToShow(pos, rowHeight, el.scrollTop, el.clientHeight, head.current?.offsetHeight ?? rowHeight);
    if (top !== el.scrollTop) {
      el.scrollTop = top;
      setScrollTop(top);
    }
  }, [shown]);

  const onKeyDown = (ev: KeyboardEvent) => {
    // Tree tables: → opens the selected row (or goes to its first child), ← closes it (or goes to its parent).
    if (tree && selected != null && (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft')) {
      const pos = positionOfKey(model, shown, selected);
      if (pos < 0) return;
      ev.preventDefault();
      const i = shown[pos];
      const parent = model.tree!.parent[i];
      if (ev.key === 'ArrowRight') {
        if (tree.hasKids[i] && !expanded.has(selected)) toggle(selected, true);
        else if (tree.hasKids[i] && pos + 1 < shown.length) select(model.rowKey(shown[pos + 1]));
      } else if (tree.hasKids[i] && expanded.has(selected) && !query.trim()) {
        toggle(selected, false);
      } else if (parent >= 0 && parent < i) {
        select(model.rowKey(parent));
        pendingScroll.current = model.rowKey(parent);
      }
      return;
    }
    // Enter (or Space) on the focused table: opens the first row when none is selected (its
    // details show), and opens or closes a selected tree row.
    if ((ev.key === 'Enter' || ev.key === ' ') && shown.length) {
      ev.preventDefault();
      if (selected == null || positionOfKey(model, shown, selected) < 0) {
        select(model.rowKey(shown[0]));
        return;
      }
      const i = shown[positionOfKey(model, shown, selected)];
      if (tree && tree.hasKids[i] && !query.trim()) toggle(selected, !expanded.has(selected));
      return;
    }
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    ev.preventDefault();
    const key = moveSelection(model, shown, selected, ev.key === 'ArrowDown' ? 1 : -1);
    select(key);
    const el = scroller.current;
    const pos = positionOfKey(model, shown, key);
    if (el && pos >= 0) {
      const top = scrollToShow(pos, rowHeight, el.scrollTop, el.clientHeight, headerHeight);
      if (top !== el.scrollTop) {
        el.scrollTop = top;
        setScrollTop(top);
      }
    }
  };

  const win = visibleWindow(shown.length, rowHeight, scrollTop, viewport, 8, headerHeight);
  const rows: ComponentChild[] = [];
  for (let pos = win.start; pos < win.end; pos++) {
    const i = shown[pos];
    const key = model.rowKey(i);
    const isSel = key === selected;
    const open = tree && tree.hasKids[i] ? (expanded.has(key) || !!query.trim() ? 'true' : 'false') : undefined;
    rows.push(
      <tr
        key={key}
        data-testid={`${stem}-row`}
        data-name={String(key)}
        aria-rowindex={pos + 2}
        aria-level={tree ? tree.depth[i] + 1 : undefined}
        aria-expanded={open}
        aria-selected={isSel ? 'true' : 'false'}
        class={`${pos % 2 ? 'odd' : ''}${isSel ? ' selected' : ''}`}
        style={{ height: `${rowHeight}px` }}
        onClick={() => {
          select(key);
          scroller.current?.focus({ preventScroll: true });
        }}
      >
        {cols.map((c, k) => {
          const t = cellText(c, i);
          const content = renderCell ? renderCell(c, i, t) : t;
          return (
            <td
              key={c.id}
              class={c.type === 'number' ? 'num' : tree && k === 0 ? 'dt-tree-cell' : ''}
              data-testid={cellTestId ? cellTestId(c, i) : `${stem}-cell-${c.id}`}
              title={c.title ? c.title(i) : c.type === 'text' ? t : undefined}
            >
              {tree && k === 0 ? (
                <span class="dt-tree" style={{ paddingLeft: `${tree.depth[i] * 16}px` }}>
                  {tree.hasKids[i] ? (
                    <button
                      type="button"
                      class={open === 'true' ? 'dt-toggle open' : 'dt-toggle'}
                      tabIndex={-1}
                      aria-label={open === 'true' ? 'Collapse' : 'Expand'}
                      data-testid={`${stem}-toggle`}
                      onClick={(ev) => {
                        ev.stopPropagation();
                        if (!query.trim()) toggle(key);
                      }}
                    >
                    </button>
                  ) : (
                    <span class="dt-toggle-space" aria-hidden="true" />
                  )}
                  {content}
                </span>
              ) : (
                content
              )}
            </td>
          );
        })}
      </tr>,
    );
  }

  const total = model.rowCount;
  return (
    <div class="data-table" ref={root} data-testid={`${stem}-data-table`}>
      <div class="dt-toolbar">
        <input
          type="search"
          class="dt-search"
          placeholder={searchPlaceholder}
          aria-label={`${searchPlaceholder} in ${label}`}
          data-testid={`${stem}-search`}
          value={text}
          onInput={(ev) => setText((ev.currentTarget as HTMLInputElement).value)}
        />
        <span class="muted dt-status" data-testid={`${stem}-status`} aria-live="polite">
          {/* A tree's collapsed rows are not filtered out: only a search makes it "n of m". */}
          {rowCountLabel(tree && !query.trim() ? total : shown.length, total)}
        </span>
        <ColumnsMenu
          stem={stem}
          label={label}
          columns={model.columns}
          prefs={prefs}
          onToggle={(id) => change(toggleColumn(prefs, id, model.columns))}
          onReset={() => {
            change(defaultPrefs(model.columns), false);
            savePrefs(storageKey, null);
          }}
        />
        <button type="button" data-testid={`${stem}-export`} title="Every column, hidden ones too; the rows shown, in their order" onClick={() => downloadText(toCsv(model, tree ? treeRows(model, sorted, query, 'all').rows : shown), csvName)}>
          Export CSV
        </button>
      </div>
      <div
        class="dt-scroll"
        ref={scroller}
        tabIndex={0}
        style={{ maxHeight: `${maxHeight}px` }}
        onScroll={(ev) => setScrollTop((ev.currentTarget as HTMLDivElement).scrollTop)}
        onKeyDown={onKeyDown}
      >
        <table
          class="table dt"
          role={tree ? 'treegrid' : 'grid'}
          aria-label={label}
          aria-rowcount={shown.length + 1}
          aria-colcount={cols.length}
          data-testid={`${stem}-table`}
          style={{ width: `${tableWidth}px` }}
        >
          <colgroup>
            {cols.map((c, k) => (
              <col key={c.id} style={{ width: `${widths[k]}px` }} />
            ))}
          </colgroup>
          <thead ref={head}>
            <tr aria-rowindex={1}>
              {cols.map((c, k) => (
                <th
                  key={c.id}
                  class={c.type === 'number' ? 'num' : ''}
                  data-testid={`${stem}-header-${c.id}`}
                  aria-sort={sort?.column === c.id ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  <button type="button" class="dt-sort" title={c.headerTitle ?? headerLabel(c)} onClick={() => setSort(nextSort(sort, c))}>
                    {c.header ?? headerLabel(c)}
                    <span aria-hidden="true" class="dt-arrow">
                      {sort?.column === c.id ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                  <ResizeHandle
                    stem={stem}
                    col={c}
                    width={widths[k]}
                    onResize={(px, keep) => change(resizeColumn(prefsRef.current, c, px), keep)}
                    onDone={() => savePrefs(storageKey, prefsRef.current)}
                  />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {win.padTop > 0 && (
              <tr class="dt-pad" aria-hidden="true" style={{ height: `${win.padTop}px` }}>
                <td colSpan={cols.length} />
              </tr>
            )}
            {rows}
            {win.padBottom > 0 && (
              <tr class="dt-pad" aria-hidden="true" style={{ height: `${win.padBottom}px` }}>
                <td colSpan={cols.length} />
              </tr>
            )}
            {shown.length === 0 && (
              <tr>
                <td colSpan={cols.length} class="muted" data-testid={`${stem}-empty`}>
                  {total ? 'No rows match the search.' : emptyText}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * The right edge of a header: drag it to set the column's width (kept when the pointer is let
 * go), or focus it and press ← / → (Shift: larger steps). A separator with its value, for
 * assistive software.
 */
function ResizeHandle({
  stem,
  col,
  width,
  onResize,
  onDone,
}: {
  stem: string;
  col: Column;
  width: number;
  /** A new width; `keep`: remember it now (a key press), else when the drag ends (onDone). */
  onResize: (px: number, keep: boolean) => void;
  onDone: () => void;
}) {
  const drag = useRef<{ x: number; w: number } | null>(null);
  return (
    <span
      class="dt-resize"
      role="separator"
      aria-orientation="vertical"
      aria-label={`Width of ${headerLabel(col)}`}
      aria-valuenow={width}
      aria-valuemin={minWidthOf(col)}
      aria-valuemax={MAX_COLUMN_WIDTH}
      tabIndex={0}
      title="Drag to resize (or focus and press ← →)"
      data-testid={`${stem}-resize-${col.id}`}
      onClick={(ev) => ev.stopPropagation()}
      onPointerDown={(ev) => {
        if (ev.button !== 0) return;
        ev.preventDefault();
        ev.stopPropagation();
        (ev.currentTarget as HTMLElement).setPointerCapture(ev.pointerId);
        drag.current = { x: ev.clientX, w: width };
      }}
      onPointerMove={(ev) => {
        const d = drag.current;
        if (d) onResize(d.w + ev.clientX - d.x, false);
      }}
      onPointerUp={() => {
        if (!drag.current) return;
        drag.current = null;
        onDone();
      }}
      onLostPointerCapture={() => {
        if (!drag.current) return;
        drag.current = null;
        onDone();
      }}
      onKeyDown={(ev) => {
        const step = resizeStep(ev.key, ev.shiftKey);
        if (!step) return;
        ev.preventDefault();
        ev.stopPropagation(); // not a row move of the table
        onResize(width + step, true);
      }}
    />
  );
}

/** "Columns": a checkbox per column to show or hide it, and "Reset columns" (widths too). */
function ColumnsMenu({
  stem,
  label,
  columns,
  prefs,
  onToggle,
  onReset,
}: {
  stem: string;
  label: string;
  columns: readonly Column[];
  prefs: ColumnPrefs;
  onToggle: (id: string) => void;
  onReset: () => void;
}) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // A click anywhere else closes it, as menus do.
  useEffect(() => {
    if (!open) return;
    const onDown = (ev: PointerEvent) => {
      if (!root.current?.contains(ev.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);
  const shown = visibleColumns(columns, prefs.hidden);
  const hidden = columns.length - shown.length;
  const defaults = defaultPrefs(columns).hidden;
  const changed = Object.keys(prefs.widths).length > 0 || prefs.hidden.length !== defaults.length || prefs.hidden.some((h) => !defaults.includes(h));
  const menuId = `${stem}-columns-menu`;
  return (
    <div
      class="dt-columns"
      ref={root}
      onKeyDown={(ev) => {
        // Esc closes the menu only (not the selected row, as it would elsewhere in the card).
        if (ev.key !== 'Escape' || !open) return;
        ev.stopPropagation();
        setOpen(false);
        button.current?.focus();
      }}
    >
      <button
        type="button"
        ref={button}
        aria-expanded={open ? 'true' : 'false'}
        aria-controls={menuId}
        data-testid={`${stem}-columns`}
        onClick={() => setOpen((o) => !o)}
      >
        Columns{hidden ? ` (${hidden} hidden)` : ''}
      </button>
      {open && (
        <div class="dt-columns-menu" id={menuId} role="group" aria-label={`Columns of ${label}`} data-testid={menuId}>
          {columns.map((c) => {
            const on = !prefs.hidden.includes(c.id);
            return (
              <label key={c.id}>
                <input
                  type="checkbox"
                  checked={on}
                  disabled={on && shown.length <= 1}
                  data-testid={`${stem}-column-toggle-${c.id}`}
                  onChange={() => onToggle(c.id)}
                />{' '}
                {headerLabel(c)}
              </label>
            );
          })}
          <button type="button" data-testid={`${stem}-columns-reset`} disabled={!changed} onClick={onReset}>
            Reset columns
          </button>
          <p class="muted dt-columns-note">Drag a header’s right edge to resize it (or focus the edge and press ← →). Export CSV keeps every column.</p>
        </div>
      )}
    </div>
  );
}
