// The model behind every data table (components/data-table.tsx), kept free of the DOM so it can be
// tested on its own.
//
// A table is a row count, a stable key per row and columns that read a raw value by row index.
// Rows are never materialised as objects: a column source (the Int32Array/Float64Array/Uint32Array
// columns plus the string table of docs/contracts.md `columns(kind)` / `strings(0)`) is read in
// place, and what the table shows is an Int32Array of row indices, sorted, then filtered. Row
// objects work the same way through `rowsModel`, which only wraps the array.
import { formatBytes, formatCount, formatDurationUs } from './format';

export type ColumnType = 'text' | 'number';
export type RowKey = string | number;

/** Units a number column can be shown in; the raw value (for sorting and CSV) is in this unit. */
export type NumberUnit = 'count' | 'ns' | 'us' | 'ms' | 'bytes' | 'percent';

export interface Column {
  id: string;
  label: string;
  type: ColumnType;
  /** Raw value of source row i: sorts it, searches it (text) and goes into the CSV unformatted. */
  value: (row: number) => string | number;
  /** Unit of a number column: picks the default formatter and is named in the CSV header. */
  unit?: NumberUnit;
  /** Display text of a raw value; the default comes from `unit` (numbers) or is the text itself. */
  format?(v: string | number, row: number): string;
  /** Text columns are searched unless this is false; number columns never are. */
  searchable?: boolean;
  /**
   * Width in px the column starts with. Without one it shares the room the others leave (by
   * `grow`), so names get what the page has; either way the user may drag it wider or narrower.
   */
  width?: number;
  /** Share of the room left over taken by a column without `width` (default 1). */
  grow?: number;
  /** The narrowest it is laid out or dragged to, px (default MIN_COLUMN_WIDTH; FLEX_MIN_WIDTH without `width`). */
  minWidth?: number;
  /** Hover text of source row i's cell (default: the text itself, for text columns). */
  title?: (row: number) => string;
  /** A shorter header shown on the page ("Est. occupancy (%)"); the full label is its hover text, and the CSV's. */
  header?: string;
  /** The header's hover text instead of the full label (what the column counts, and how). */
  headerTitle?: string;
  /** Hidden until a person shows it (Columns menu); its values are still in the CSV and the detail panel. */
  defaultHidden?: boolean;
  /** Name the unit in the header ("Total (us)") instead of in every cell (give a plain `format`). */
  unitInHeader?: boolean;
}

export interface TableModel {
  rowCount: number;
  /** A key that stays with the row through sorting and filtering (selection is kept by it). */
  rowKey: (row: number) => RowKey;
  columns: readonly Column[];
  /**
   * Rows that form a tree (the Module view): each row's parent row index, -1 at the top; a parent
   * comes before its children. Sorting then orders siblings, a search keeps the rows that match
   * and their ancestors, and a person expands and collapses rows (treeRows). Without it, a flat table.
   */
  tree?: { parent: ArrayLike<number> };
}

export type SortDir = 'asc' | 'desc';
export interface SortState {
  column: string;
  dir: SortDir;
}

// --- sources -----------------------------------------------------------------------------

/** A model over row objects: `get` of each column reads the object, the rest works by index. */
export function rowsModel<R>(
  rows: readonly R[],
  key: (r: R, i: number) => RowKey,
  columns: readonly (Omit<Column, 'value'> & { get: (r: R) => string | number })[],
): TableModel {
  return {
    rowCount: rows.length,
    rowKey: (i) => key(rows[i], i),
    columns: columns.map(({ get, ...c }) => ({ ...c, value: (i: number) => get(rows[i]) })),
  };
}

/** A text column read through a string table: `ids[i]` indexes `strings` (as `columns(kind)`). */
export function stringColumn(ids: ArrayLike<number>, strings: readonly string[]): (row: number) => string {
  return (i) => strings[ids[i]] ?? '';
}

/** A number column read from a typed array. */
export function numberColumn(values: ArrayLike<number>): (row: number) => number {
  return (i) => values[i];
}

// --- formatting --------------------------------------------------------------------------

const pctFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** How a number is shown in a column of this unit: "1,234", "12.5 ms", "1.5 KiB", "12.3%". */
export function formatNumber(v: number, unit: NumberUnit = 'count'): string {
  if (!Number.isFinite(v)) return '—';
  switch (unit) {
    case 'count':
      return formatCount(v);
    case 'ns':
      return formatDurationUs(v / 1000);
    case 'us':
      return formatDurationUs(v);
    case 'ms':
      return formatDurationUs(v * 1000);
    case 'bytes':
      return formatBytes(v);
    case 'percent':
      return `${pctFmt.format(v)}%`;
  }
}

/** What a cell shows for source row i. */
export function cellText(col: Column, row: number): string {
  const v = col.value(row);
  if (col.format) return col.format(v, row);
  if (col.type === 'number') return formatNumber(typeof v === 'number' ? v : Number(v), col.unit);
  return String(v ?? '');
}

// --- sort and filter ---------------------------------------------------------------------

/** 0..n-1: every row, in source order. */
export function allRows(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/**
 * `rows` sorted by one column, as a new array. Stable: equal values keep their order in `rows`,
 * in both directions (so descending is not the reverse of ascending when there are ties).
 * NaN and missing numbers go last in both directions: a gap is never "the largest". Text
 * compares by UTF-16 code units, which is fast, locale-free and reproducible.
 * The values are read once into a flat array, so the comparator touches no accessors.
 */
export function sortRows(model: TableModel, rows: Int32Array, sort: SortState | null): Int32Array {
  const out = Int32Array.from(rows);
  const col = sort && model.columns.find((c) => c.id === sort.column);
  if (!col || out.length < 2) return out;
  const n = out.length;
  const sign = sort!.dir === 'desc' ? -1 : 1;
  // Position in `rows` breaks ties: the stable part does not rely on the engine's sort.
  const pos = new Int32Array(model.rowCount);
  for (let k = 0; k < n; k++) pos[out[k]] = k;
  let cmp: (a: number, b: number) => number;
  if (col.type === 'number') {
    const keys = new Float64Array(model.rowCount);
    for (let k = 0; k < n; k++) {
      const v = col.value(out[k]);
      keys[out[k]] = typeof v === 'number' ? v : v === '' || v == null ? NaN : Number(v);
    }
    cmp = (a, b) => {
      const x = keys[a];
      const y = keys[b];
      const xn = x !== x;
      const yn = y !== y;
      if (xn || yn) return xn && yn ? pos[a] - pos[b] : xn ? 1 : -1;
      return x < y ? -sign : x > y ? sign : pos[a] - pos[b];
    };
  } else {
    const keys: string[] = new Array(model.rowCount);
    for (let k = 0; k < n; k++) keys[out[k]] = String(col.value(out[k]) ?? '');
    cmp = (a, b) => {
      const x = keys[a];
      const y = keys[b];
      return x < y ? -sign : x > y ? sign : pos[a] - pos[b];
    };
  }
  out.sort(cmp);
  return out;
}

/**
 * The rows whose searchable text columns contain `query`, ignoring case, in the order of `rows`.
 * An empty (or all-space) query keeps every row and returns `rows` itself.
 */
export function filterRows(model: TableModel, rows: Int32Array, query: string): Int32Array {
  const q = query.trim().toLowerCase();
  if (!q) return rows;
  const cols = model.columns.filter((c) => c.type === 'text' && c.searchable !== false);
  const out = new Int32Array(rows.length);
  let m = 0;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k];
    for (let c = 0; c < cols.length; c++) {
      if (String(cols[c].value(i) ?? '').toLowerCase().includes(q)) {
        out[m++] = i;
        break;
      }
    }
  }
  return out.slice(0, m);
}

/** The next header click: a new column starts ascending for text, descending for numbers. */
export function nextSort(current: SortState | null, col: Column): SortState {
  if (current?.column === col.id) return { column: col.id, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { column: col.id, dir: col.type === 'number' ? 'desc' : 'asc' };
}

// --- trees ---------------------------------------------------------------------------------

/** The rows a tree table shows, in order, with each one's depth and whether it has children. */
export interface TreeShown {
  rows: Int32Array;
  /** By source row: depth in the tree, and 1 if it has children at all (shown or not). */
  depth: Int32Array;
  hasKids: Uint8Array;
}

/**
 * The shown rows of a tree table: a walk from the top rows, siblings in the order of `sorted`,
 * into the children of expanded rows (`'all'`: every row). With a search, the rows that match
 * and their ancestors, every ancestor of a match open whatever its state: a match is never hidden
 * under a collapsed row.
 */
export function treeRows(model: TableModel, sorted: Int32Array, query: string, expanded: ReadonlySet<RowKey> | 'all'): TreeShown {
  const n = model.rowCount;
  const parent = model.tree!.parent;
  const depth = new Int32Array(n);
  const hasKids = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i];
    if (p >= 0 && p < i) {
      depth[i] = depth[p] + 1;
      hasKids[p] = 1;
    }
  }
  const kids = new Map<number, number[]>();
  for (let k = 0; k < sorted.length; k++) {
    const i = sorted[k];
    const p = parent[i] >= 0 && parent[i] < i ? parent[i] : -1;
    let list = kids.get(p);
    if (!list) kids.set(p, (list = []));
    list.push(i);
  }
  let keep: Uint8Array | null = null;
  if (query.trim()) {
    keep = new Uint8Array(n);
    for (const i of filterRows(model, allRows(n), query)) {
      for (let a = i; a >= 0 && !keep[a]; a = parent[a] >= 0 && parent[a] < a ? parent[a] : -1) keep[a] = 1;
    }
  }
  const out: number[] = [];
  const stack: number[] = [...(kids.get(-1) ?? [])].reverse();
  while (stack.length) {
    const i = stack.pop()!;
    if (keep && !keep[i]) continue;
    out.push(i);
    const open = keep ? true : expanded === 'all' || expanded.has(model.rowKey(i));
    const ks = open ? kids.get(i) : undefined;
    if (ks) for (let k = ks.length - 1; k >= 0; k--) stack.push(ks[k]);
  }
  return { rows: Int32Array.from(out), depth, hasKids };
}

/** The keys of row i's ancestors (to open them so it shows). */
export function ancestorKeys(model: TableModel, row: number): RowKey[] {
  const out: RowKey[] = [];
  const parent = model.tree?.parent;
  if (!parent) return out;
  for (let p = parent[row]; p >= 0 && p < row; row = p, p = parent[p]) out.push(model.rowKey(p));
  return out;
}

// --- selection ---------------------------------------------------------------------------

/** Where the row with `key` is shown, or -1 when it is filtered out (or there is none). */
export function positionOfKey(model: TableModel, shown: Int32Array, key: RowKey | null): number {
  if (key == null) return -1;
  for (let k = 0; k < shown.length; k++) if (model.rowKey(shown[k]) === key) return k;
  return -1;
}

/**
 * The key of the row whose key reads `text` (a link holds keys as text, numbers included), or
 * null when no row has it.
 */
export function keyFromText(model: TableModel, text: string | null | undefined): RowKey | null {
  if (text == null) return null;
  for (let i = 0; i < model.rowCount; i++) {
    const k = model.rowKey(i);
    if (String(k) === text) return k;
  }
  return null;
}

/**
 * The key selected after moving by `delta` (Up = -1, Down = +1) from `key`, clamped to the shown
 * rows. With no selected row shown, Down starts at the first row and Up at the last.
 */
export function moveSelection(model: TableModel, shown: Int32Array, key: RowKey | null, delta: number): RowKey | null {
  if (!shown.length) return key;
  const at = positionOfKey(model, shown, key);
  const next = at < 0 ? (delta > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + delta));
  return model.rowKey(shown[next]);
}

// --- windowing ---------------------------------------------------------------------------

export interface Window {
  /** First shown position to render (inclusive) and the end (exclusive). */
  start: number;
  end: number;
  /** Heights of the empty space above and below the rendered rows. */
  padTop: number;
  padBottom: number;
}

/**
 * Which rows to render in a scroll container of `viewport` px scrolled by `scrollTop`, with rows
 * of a fixed `rowHeight` starting `headerHeight` px into the scrolled content (a sticky header
 * sits above them), plus `overscan` rows each side so fast scrolling shows no blank edge.
 */
export function visibleWindow(
  count: number,
  rowHeight: number,
  scrollTop: number,
  viewport: number,
  overscan = 6,
  headerHeight = 0,
): Window {
  const top = scrollTop - headerHeight; // the rows' own coordinate: 0 is the first row's top
  const first = Math.min(count, Math.max(0, Math.floor(top / rowHeight)));
  const last = Math.min(count, Math.max(0, Math.ceil((top + Math.max(0, viewport)) / rowHeight)));
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, last + overscan);
  return { start, end, padTop: start * rowHeight, padBottom: (count - end) * rowHeight };
}

/**
 * The scrollTop that brings shown position `pos` fully into view below the sticky header,
 * moving as little as possible (unchanged when it is already visible).
 */
export function scrollToShow(pos: number, rowHeight: number, scrollTop: number, viewport: number, headerHeight = 0): number {
  const rowTop = pos * rowHeight; // relative to the first row
  const visibleTop = scrollTop; // the row under the sticky header's bottom edge
  const visibleBottom = scrollTop + viewport - headerHeight;
  if (rowTop < visibleTop) return rowTop;
  if (rowTop + rowHeight > visibleBottom) return rowTop + rowHeight - (viewport - headerHeight);
  return scrollTop;
}

// --- CSV ---------------------------------------------------------------------------------

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF; quotes doubled. */
export function csvField(v: string | number | null | undefined): string {
  if (v == null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** The header label of a column in the CSV: the raw values' unit is named ("Duration (ns)"). */
export function csvHeader(col: Column): string {
  return col.type === 'number' && col.unit && col.unit !== 'count'
    ? `${col.label} (${col.unit === 'percent' ? '%' : col.unit})`
    : col.label;
}

/** The header text on the page: the label, plus the unit when the cells show bare numbers. */
export function headerLabel(col: Column): string {
  return col.unitInHeader ? csvHeader(col) : col.label;
}

/** Exactly the rows shown (every one, not only the rendered ones), in shown order, raw values. */
export function toCsv(model: TableModel, shown: Int32Array): string {
  const lines = [model.columns.map((c) => csvField(csvHeader(c))).join(',')];
  for (let k = 0; k < shown.length; k++) {
    const i = shown[k];
    lines.push(model.columns.map((c) => csvField(c.value(i))).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

// --- column widths and hidden columns (remembered per table) ---------------------------------

export const MIN_COLUMN_WIDTH = 48;
export const FLEX_MIN_WIDTH = 160;
export const MAX_COLUMN_WIDTH = 2400;

/** What a person set for a table's columns: widths dragged (px, by column id) and columns hidden. */
export interface ColumnPrefs {
  widths: Record<string, number>;
  hidden: string[];
}

/** A table's columns as they come: no width dragged, the `defaultHidden` ones hidden. */
export function defaultPrefs(columns: readonly Column[]): ColumnPrefs {
  return { widths: {}, hidden: columns.filter((c) => c.defaultHidden).map((c) => c.id) };
}

/** The narrowest the column may be. */
export function minWidthOf(col: Column): number {
  return col.minWidth ?? (col.width == null ? FLEX_MIN_WIDTH : MIN_COLUMN_WIDTH);
}

/** A width for `col` as a whole number of px within its limits (NaN: its narrowest). */
export function clampWidth(px: number, col: Column): number {
  const min = minWidthOf(col);
  if (!Number.isFinite(px)) return min;
  return Math.min(MAX_COLUMN_WIDTH, Math.max(min, Math.round(px)));
}

/** The columns shown: all but the hidden ones, and never none (then the first). */
export function visibleColumns(columns: readonly Column[], hidden: readonly string[]): Column[] {
  const shown = columns.filter((c) => !hidden.includes(c.id));
  return shown.length ? shown : columns.slice(0, 1);
}

/** Room a cell takes beside its text: its padding (0 8px, styles.css .table.dt td) and 4px to spare. */
export const CELL_PADDING = 20;

/**
 * Number columns widened to show their longest value whole: a column's `width` suits the values of
 * a small trace, and a big one's ("14,089", "6,798,721.36") was cut to "14,0…" with no way to read
 * it but dragging the edge. The longest text of a number column is its largest or its smallest
 * value's (the most digits, or a minus sign), so two cells per column are formatted and measured
 * (`measure`: px of a cell's text). Columns without `width` (names) and text columns are as given;
 * a width a person drags still wins (layoutWidths).
 */
export function fitNumberColumns(model: TableModel, measure: (text: string) => number): Column[] {
  return model.columns.map((c) => {
    if (c.type !== 'number' || c.width == null || model.rowCount === 0) return c;
    let hi = -1;
    let lo = -1;
    let hiV = -Infinity;
    let loV = Infinity;
    for (let i = 0; i < model.rowCount; i++) {
      const v = Number(c.value(i));
      if (!Number.isFinite(v)) continue;
      if (v > hiV) (hiV = v), (hi = i);
      if (v < loV) (loV = v), (lo = i);
    }
    if (hi < 0) return c;
    const need = Math.ceil(Math.max(measure(cellText(c, hi)), measure(cellText(c, lo)))) + CELL_PADDING;
    return need > c.width ? { ...c, width: Math.min(MAX_COLUMN_WIDTH, need) } : c;
  });
}

/**
 * The width in px of each shown column in a scroll box `available` px wide: a column's dragged
 * width, else its own `width`; the columns with neither share what is left by `grow`, each at
 * least its minimum (the box then scrolls sideways). With room to spare and no column to take it,
 * the widths stay as they are: a table narrower than its box is fine.
 */
export function layoutWidths(columns: readonly Column[], widths: Readonly<Record<string, number>>, available: number): number[] {
  const out = columns.map((c) => {
    const set = widths[c.id];
    if (set != null) return clampWidth(set, c);
    return c.width != null ? clampWidth(c.width, c) : NaN;
  });
  const flex = columns.map((c, i) => (Number.isNaN(out[i]) ? i : -1)).filter((i) => i >= 0);
  if (!flex.length) return out;
  const fixed = out.reduce((a, w) => (Number.isNaN(w) ? a : a + w), 0);
  let room = Math.max(0, Math.floor(available) - fixed);
  let pool = flex;
  const grow = (i: number) => columns[i].grow ?? 1;
  // Columns whose share would be under their minimum take the minimum; the rest share what is left.
  for (;;) {
    const weights = pool.reduce((a, i) => a + grow(i), 0);
    const under = pool.filter((i) => (room * grow(i)) / weights < minWidthOf(columns[i]));
    if (!under.length) {
      let given = 0;
      for (const i of pool) given += out[i] = Math.floor((room * grow(i)) / weights);
      out[pool[0]] += room - given; // the pixels rounding left over
      return out;
    }
    for (const i of under) {
      out[i] = minWidthOf(columns[i]);
      room = Math.max(0, room - out[i]);
    }
    pool = pool.filter((i) => !under.includes(i));
    if (!pool.length) return out;
  }
}

/** Where a table's column settings are kept in localStorage: one key per table and grouping. */
export function columnPrefsKey(key: string): string {
  return `kinetoscope.columns.${key}`;
}

/** The settings as stored: versioned, so a later format can tell an old one. */
export function formatColumnPrefs(p: ColumnPrefs): string {
  return JSON.stringify({ v: 1, widths: p.widths, hidden: p.hidden });
}

/**
 * Stored settings read back for `columns`: anything unreadable counts as none (the defaults), and
 * widths and hidden columns of columns the table no longer has are dropped (a trace without the
 * occupancy column keeps the others' settings). Not every column may be hidden. The stored
 * hidden list is the whole set, so a column hidden by default that a person showed stays shown.
 */
export function parseColumnPrefs(text: string | null | undefined, columns: readonly Column[]): ColumnPrefs {
  if (!text) return defaultPrefs(columns);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return defaultPrefs(columns);
  }
  if (!v || typeof v !== 'object' || (v as { v?: unknown }).v !== 1) return defaultPrefs(columns);
  const o = v as { widths?: unknown; hidden?: unknown };
  const byId = new Map(columns.map((c) => [c.id, c]));
  const widths: Record<string, number> = {};
  if (o.widths && typeof o.widths === 'object' && !Array.isArray(o.widths)) {
    for (const [id, w] of Object.entries(o.widths as Record<string, unknown>)) {
      const col = byId.get(id);
      if (col && typeof w === 'number' && Number.isFinite(w)) widths[id] = clampWidth(w, col);
    }
  }
  let hidden = Array.isArray(o.hidden)
    ? [...new Set(o.hidden.filter((id): id is string => typeof id === 'string' && byId.has(id)))]
    : defaultPrefs(columns).hidden;
  if (hidden.length >= columns.length) hidden = [];
  return { widths, hidden };
}

/** `prefs` with column `id` hidden or shown again; the last shown column stays. */
export function toggleColumn(prefs: ColumnPrefs, id: string, columns: readonly Column[]): ColumnPrefs {
  if (prefs.hidden.includes(id)) return { ...prefs, hidden: prefs.hidden.filter((h) => h !== id) };
  if (visibleColumns(columns, prefs.hidden).length <= 1) return prefs;
  return { ...prefs, hidden: [...prefs.hidden, id] };
}

/** `prefs` with `col` set to `px` wide (clamped). */
export function resizeColumn(prefs: ColumnPrefs, col: Column, px: number): ColumnPrefs {
  return { ...prefs, widths: { ...prefs.widths, [col.id]: clampWidth(px, col) } };
}

/** The width change of one key press on a column's resize handle (0: not a resize key). */
export function resizeStep(key: string, shift: boolean): number {
  const step = shift ? 64 : 16;
  return key === 'ArrowRight' ? step : key === 'ArrowLeft' ? -step : 0;
}

/** A table's status line: "1 row", "12 rows", "3 of 12 rows" (`shown` of `total`, counts grouped). */
export function rowCountLabel(shown: number, total: number): string {
  const noun = total === 1 ? 'row' : 'rows';
  return shown === total ? `${formatCount(total)} ${noun}` : `${formatCount(shown)} of ${formatCount(total)} ${noun}`;
}
