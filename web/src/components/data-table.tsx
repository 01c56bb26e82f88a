import type { ComponentChild } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  allRows,
  cellText,
  filterRows,
  headerLabel,
  keyFromText,
  moveSelection,
  nextSort,
  positionOfKey,
  scrollToShow,
  sortRows,
  toCsv,
  visibleWindow,
  type Column,
  type RowKey,
  type SortState,
  type TableModel,
} from '../lib/data-table';
import type { TableState } from '../lib/deep-link';
import { downloadText } from '../lib/download';
import { formatCount } from '../lib/format';

interface Props {
  model: TableModel;
  /** Test id stem: `<stem>-table`, `-search`, `-export`, `-status`, `-header-<col>`, `-row`, `-cell-<col>`. */
  stem: string;
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
}

// Above this many rows the search waits for a pause in typing; below, it filters per keystroke.
const DEBOUNCE_ROWS = 20_000;

/**
 * The one data table: sortable headers, a search box, windowed rows in a scroll container, CSV of
 * what is shown, and a selection kept by row key. Only the rows in view (plus a few) are in the
 * DOM; two spacer rows stand in for the rest so the scrollbar is true to the whole table.
 * A "ks-deselect" event at its root (Esc, sent by the file card) clears the selection.
 */
export function DataTable({
  model,
  stem,
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

  useEffect(() => {
    if (model.rowCount < DEBOUNCE_ROWS) {
      setQuery(text);
      return;
    }
    const t = setTimeout(() => setQuery(text), 150);
    return () => clearTimeout(t);
  }, [text, model]);

  const sorted = useMemo(() => sortRows(model, allRows(model.rowCount), sort), [model, sort]);
  const shown = useMemo(() => filterRows(model, sorted, query), [model, sorted, query]);

  // A new search starts at the top of its results, not somewhere in the middle of them.
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollTop) {
      el.scrollTop = 0;
      setScrollTop(0);
    }
  }, [query]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => {
      // A table in a hidden tab measures 0: it renders as if at its full height, so it is whole when shown.
      setViewport(el.clientHeight || maxHeight);
      if (head.current) setHeaderHeight(head.current.offsetHeight);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // What the table shows, for the page's deep link; the search counts once it filters the rows.
  useEffect(() => {
    onState?.({ sort, search: query, selected });
    // onState is the owner's callback, often a new function each render: the state is what counts.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sort, query, selected]);

  // Esc in the card (app.tsx) clears the selection, which closes what shows the selected row.
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const onDeselect = () => select(null);
    el.addEventListener('ks-deselect', onDeselect);
    return () => el.removeEventListener('ks-deselect', onDeselect);
  });

  const onKeyDown = (ev: KeyboardEvent) => {
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
  const cols = model.columns;
  const rows: ComponentChild[] = [];
  for (let pos = win.start; pos < win.end; pos++) {
    const i = shown[pos];
    const key = model.rowKey(i);
    const isSel = key === selected;
    rows.push(
      <tr
        key={key}
        data-testid={`${stem}-row`}
        data-name={String(key)}
        aria-rowindex={pos + 2}
        aria-selected={isSel ? 'true' : 'false'}
        class={`${pos % 2 ? 'odd' : ''}${isSel ? ' selected' : ''}`}
        style={{ height: `${rowHeight}px` }}
        onClick={() => {
          select(key);
          scroller.current?.focus({ preventScroll: true });
        }}
      >
        {cols.map((c) => {
          const t = cellText(c, i);
          return (
            <td key={c.id} class={c.type === 'number' ? 'num' : ''} data-testid={cellTestId ? cellTestId(c, i) : `${stem}-cell-${c.id}`} title={c.type === 'text' ? t : undefined}>
              {renderCell ? renderCell(c, i, t) : t}
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
          {shown.length === total ? `${formatCount(total)} rows` : `${formatCount(shown.length)} of ${formatCount(total)} rows`}
        </span>
        <button type="button" data-testid={`${stem}-export`} onClick={() => downloadText(toCsv(model, shown), csvName)}>
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
        <table class="table dt" role="grid" aria-label={label} aria-rowcount={shown.length + 1} data-testid={`${stem}-table`}>
          <colgroup>
            {cols.map((c) => (
              <col key={c.id} style={c.width ? { width: c.width } : undefined} />
            ))}
          </colgroup>
          <thead ref={head}>
            <tr aria-rowindex={1}>
              {cols.map((c) => (
                <th
                  key={c.id}
                  class={c.type === 'number' ? 'num' : ''}
                  data-testid={`${stem}-header-${c.id}`}
                  aria-sort={sort?.column === c.id ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  <button type="button" class="dt-sort" title={headerLabel(c)} onClick={() => setSort(nextSort(sort, c))}>
                    {headerLabel(c)}
                    <span aria-hidden="true" class="dt-arrow">
                      {sort?.column === c.id ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
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
