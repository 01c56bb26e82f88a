import { describe, expect, it } from 'vitest';
import {
  allRows,
  cellText,
  clampWidth,
  columnPrefsKey,
  defaultPrefs,
  FLEX_MIN_WIDTH,
  formatColumnPrefs,
  layoutWidths,
  MAX_COLUMN_WIDTH,
  MIN_COLUMN_WIDTH,
  parseColumnPrefs,
  resizeColumn,
  resizeStep,
  toggleColumn,
  visibleColumns,
  type Column,
  csvField,
  filterRows,
  fitNumberColumns,
  CELL_PADDING,
  formatNumber,
  moveSelection,
  nextSort,
  numberColumn,
  positionOfKey,
  rowCountLabel,
  rowsModel,
  scrollToShow,
  sortRows,
  stringColumn,
  toCsv,
  visibleWindow,
  type TableModel,
} from '../../web/src/lib/table-model';
import { csvStem } from '../../web/src/lib/download';
import { kernelColumns, kernelTable } from '../../web/src/lib/kernels';
import { operatorColumns, operatorTable } from '../../web/src/lib/operators';
import { answerOf } from './answer-fixture';

const parseKernels = (json: string) => kernelTable(answerOf('kernels', JSON.parse(json)));
const parseOperators = (json: string) => operatorTable(answerOf('operators', JSON.parse(json)));

// Source rows 0..5; ties on `dur` (rows 1, 3, 5) and a missing value (row 4) on purpose.
type R = { id: number; name: string; dur: number };
const rows: R[] = [
  { id: 10, name: 'aten::mm', dur: 300 },
  { id: 11, name: 'aten::add', dur: 100 },
  { id: 12, name: 'Conv2d', dur: 500 },
  { id: 13, name: 'aten::ADDMM', dur: 100 },
  { id: 14, name: 'cudaLaunchKernel', dur: NaN },
  { id: 15, name: 'sgemm, "quoted"\nkernel', dur: 100 },
];
const model = rowsModel<R>(rows, (r) => r.id, [
  { id: 'name', label: 'Name', type: 'text', get: (r) => r.name },
  { id: 'dur', label: 'Duration', type: 'number', unit: 'ns', get: (r) => r.dur },
]);
const all = allRows(rows.length);
const ids = (shown: Int32Array) => Array.from(shown, (i) => rows[i].id);

describe('sortRows', () => {
  it('sorts numbers ascending with ties in source order and NaN last', () => {
    expect(ids(sortRows(model, all, { column: 'dur', dir: 'asc' }))).toEqual([11, 13, 15, 10, 12, 14]);
  });
  it('sorts numbers descending with ties still in source order (stable) and NaN still last', () => {
    expect(ids(sortRows(model, all, { column: 'dur', dir: 'desc' }))).toEqual([12, 10, 11, 13, 15, 14]);
  });
  it('sorts text by code units (upper case before lower case), both directions', () => {
    expect(ids(sortRows(model, all, { column: 'name', dir: 'asc' }))).toEqual([12, 13, 11, 10, 14, 15]);
    expect(ids(sortRows(model, all, { column: 'name', dir: 'desc' }))).toEqual([15, 14, 10, 11, 13, 12]);
  });
  it('keeps the given order with no sort or an unknown column, and returns a copy', () => {
    const r = Int32Array.of(3, 1, 2);
    const out = sortRows(model, r, null);
    expect(Array.from(out)).toEqual([3, 1, 2]);
    expect(out).not.toBe(r);
    expect(Array.from(sortRows(model, r, { column: 'nope', dir: 'asc' }))).toEqual([3, 1, 2]);
  });
  it('is stable relative to the input order, not only the source order', () => {
    // rows 5, 3, 1 all have dur 100: they stay in the order given.
    expect(Array.from(sortRows(model, Int32Array.of(5, 0, 3, 1), { column: 'dur', dir: 'asc' }))).toEqual([5, 3, 1, 0]);
  });
  it('sorts 100k rows of a column source (typed arrays, a string table) without row objects', () => {
    const n = 100_000;
    const dur = new Float64Array(n);
    const name = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      dur[i] = (i * 7919) % 1000; // 100 rows per value
      name[i] = i % 3;
    }
    const strings = ['aten::mm', 'aten::add', 'sgemm'];
    const m: TableModel = {
      rowCount: n,
      rowKey: (i) => i,
      columns: [
        { id: 'name', label: 'Name', type: 'text', value: stringColumn(name, strings) },
        { id: 'dur', label: 'Duration', type: 'number', unit: 'ns', value: numberColumn(dur) },
      ],
    };
    const s = sortRows(m, allRows(n), { column: 'dur', dir: 'desc' });
    expect(s.length).toBe(n);
    // One expect for the whole order (100k expects took seconds on a loaded machine).
    let firstOutOfOrder = -1;
    for (let k = 1; k < n && firstOutOfOrder < 0; k++) {
      const a = dur[s[k - 1]];
      const b = dur[s[k]];
      if (!(a > b || (a === b && s[k - 1] < s[k]))) firstOutOfOrder = k;
    }
    expect(firstOutOfOrder).toBe(-1);
    expect(dur[s[0]]).toBe(999);
    const f = filterRows(m, s, 'ADD');
    expect(f.length).toBe(33_333); // i % 3 === 1 for i < 100000
    expect(Array.from(f.subarray(0, 3), (i) => dur[i])).toEqual([999, 999, 999]);
  });
});

describe('filterRows', () => {
  it('matches a case-insensitive substring of the text columns, keeping the order given', () => {
    const byDur = sortRows(model, all, { column: 'dur', dir: 'desc' });
    expect(ids(filterRows(model, byDur, 'ADD'))).toEqual([11, 13]);
    expect(ids(filterRows(model, all, 'aten'))).toEqual([10, 11, 13]);
    expect(ids(filterRows(model, all, '"quoted"'))).toEqual([15]);
  });
  it('never matches number columns', () => {
    expect(ids(filterRows(model, all, '300'))).toEqual([]);
  });
  it('returns the rows themselves for an empty or blank query', () => {
    expect(filterRows(model, all, '')).toBe(all);
    expect(filterRows(model, all, '   ')).toBe(all);
  });
});

describe('nextSort', () => {
  it('starts numbers descending, text ascending, and toggles on the same column', () => {
    const [name, dur] = model.columns;
    expect(nextSort(null, dur)).toEqual({ column: 'dur', dir: 'desc' });
    expect(nextSort({ column: 'dur', dir: 'desc' }, dur)).toEqual({ column: 'dur', dir: 'asc' });
    expect(nextSort({ column: 'dur', dir: 'asc' }, dur)).toEqual({ column: 'dur', dir: 'desc' });
    expect(nextSort({ column: 'dur', dir: 'asc' }, name)).toEqual({ column: 'name', dir: 'asc' });
  });
});

describe('CSV', () => {
  it('quotes commas, quotes and newlines, and leaves plain fields alone', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField(1234.5)).toBe('1234.5');
    expect(csvField(NaN)).toBe('');
    expect(csvField(null)).toBe('');
  });
  it('holds exactly the shown rows in shown order, with raw numbers and a unit in the header', () => {
    const shown = filterRows(model, sortRows(model, all, { column: 'dur', dir: 'asc' }), 'E'); // not Conv2d
    expect(ids(shown)).toEqual([11, 13, 15, 10, 14]);
    expect(toCsv(model, shown)).toBe(
      'Name,Duration (ns)\r\n' +
        'aten::add,100\r\n' +
        'aten::ADDMM,100\r\n' +
        '"sgemm, ""quoted""\nkernel",100\r\n' +
        'aten::mm,300\r\n' +
        'cudaLaunchKernel,\r\n',
    );
  });
  it('of no rows is the header line alone', () => {
    expect(toCsv(model, new Int32Array(0))).toBe('Name,Duration (ns)\r\n');
  });
  it('file names come from the trace name without its extensions', () => {
    expect(csvStem('rank-0.json.gz')).toBe('rank-0');
    expect(csvStem('dir/worker0.1623143089861.pt.trace.json')).toBe('worker0.1623143089861');
    expect(csvStem('my trace?.json')).toBe('my_trace_');
    expect(csvStem('')).toBe('trace');
  });
});

describe('formatting', () => {
  it('shows numbers with grouping and units, raw values untouched', () => {
    expect(formatNumber(1234)).toBe('1,234');
    expect(formatNumber(12_500_000, 'ns')).toBe('12.5 ms');
    expect(formatNumber(12_500, 'us')).toBe('12.5 ms');
    expect(formatNumber(1536, 'bytes')).toBe('1.50 KiB');
    expect(formatNumber(12.345, 'percent')).toBe('12.3%');
    expect(formatNumber(NaN)).toBe('—');
    expect(cellText(model.columns[1], 2)).toBe('0.5 µs');
    expect(cellText(model.columns[0], 5)).toBe('sgemm, "quoted"\nkernel');
  });
});

describe('selection by key', () => {
  it('survives sorting and filtering: the same key is found at its new position', () => {
    const byName = sortRows(model, all, { column: 'name', dir: 'asc' });
    expect(positionOfKey(model, byName, 13)).toBe(1);
    const byDur = sortRows(model, all, { column: 'dur', dir: 'desc' });
    expect(positionOfKey(model, byDur, 13)).toBe(3);
    const filtered = filterRows(model, byDur, 'add');
    expect(positionOfKey(model, filtered, 13)).toBe(1);
    // Filtered out: not shown, but the key is kept, so clearing the search shows it selected again.
    expect(positionOfKey(model, filterRows(model, byDur, 'conv'), 13)).toBe(-1);
  });
  it('Up/Down move through the shown order and stop at the ends', () => {
    const byDur = sortRows(model, all, { column: 'dur', dir: 'desc' }); // 12 10 11 13 15 14
    expect(moveSelection(model, byDur, 11, 1)).toBe(13);
    expect(moveSelection(model, byDur, 11, -1)).toBe(10);
    expect(moveSelection(model, byDur, 12, -1)).toBe(12);
    expect(moveSelection(model, byDur, 14, 1)).toBe(14);
  });
  it('with nothing (visible) selected, Down takes the first row and Up the last', () => {
    const byDur = sortRows(model, all, { column: 'dur', dir: 'desc' });
    expect(moveSelection(model, byDur, null, 1)).toBe(12);
    expect(moveSelection(model, byDur, null, -1)).toBe(14);
    const conv = filterRows(model, byDur, 'aten'); // 10 11 13
    expect(moveSelection(model, conv, 12, 1)).toBe(10);
    expect(moveSelection(model, new Int32Array(0), 12, 1)).toBe(12);
  });
});

describe('windowing', () => {
  it('renders the rows in view plus overscan, and pads the rest', () => {
    // 1000 rows of 30 px, a 300 px viewport scrolled to 3000 px: rows 100..109 are in view.
    expect(visibleWindow(1000, 30, 3000, 300, 5)).toEqual({ start: 95, end: 115, padTop: 2850, padBottom: 885 * 30 });
  });
  it('accounts for a sticky header above the first row', () => {
    // The header is 32 px: at scrollTop 0 only 268 px of rows are visible, rows 0..8.
    expect(visibleWindow(1000, 30, 0, 300, 0, 32)).toEqual({ start: 0, end: 9, padTop: 0, padBottom: 991 * 30 });
    // scrolled by 62 px: the rows' own 30..330 px are under the viewport (the header hides the
    // first 32 of them, rendering those too is harmless), rows 1..10.
    expect(visibleWindow(1000, 30, 62, 300, 0, 32)).toEqual({ start: 1, end: 11, padTop: 30, padBottom: 989 * 30 });
  });
  it('clamps at both ends and handles empty tables', () => {
    expect(visibleWindow(10, 30, 0, 600, 5)).toEqual({ start: 0, end: 10, padTop: 0, padBottom: 0 });
    expect(visibleWindow(1000, 30, 29_700, 300, 5)).toEqual({ start: 985, end: 1000, padTop: 985 * 30, padBottom: 0 });
    expect(visibleWindow(0, 30, 0, 300)).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0 });
    // an over-scrolled (elastic) position past the end renders the tail, never past it
    expect(visibleWindow(100, 30, 99_999, 300, 2)).toEqual({ start: 98, end: 100, padTop: 98 * 30, padBottom: 0 });
  });
  it('scrolls the least to bring a row into view below the header', () => {
    // viewport 300, header 32: 268 px of rows visible; rows [scrollTop, scrollTop + 268) show.
    expect(scrollToShow(5, 30, 0, 300, 32)).toBe(0); // 150..180 visible
    expect(scrollToShow(9, 30, 0, 300, 32)).toBe(32); // 270..300 needs 300 - 268
    expect(scrollToShow(3, 30, 200, 300, 32)).toBe(90); // above: its top goes just under the header
    expect(scrollToShow(8, 30, 200, 300, 32)).toBe(200); // 240..270 within 200..468
  });
});

// --- column widths and hidden columns ------------------------------------------------------

const col = (id: string, over: Partial<Column> = {}): Column => ({ id, label: id, type: 'number', value: () => 0, ...over });

describe('column widths', () => {
  it('clamps a width to whole pixels within the column\'s limits', () => {
    expect(clampWidth(100.4, col('a', { width: 80 }))).toBe(100);
    expect(clampWidth(3, col('a', { width: 80 }))).toBe(MIN_COLUMN_WIDTH);
    expect(clampWidth(3, col('name'))).toBe(FLEX_MIN_WIDTH); // a name column keeps room for a name
    expect(clampWidth(10, col('a', { width: 80, minWidth: 60 }))).toBe(60);
    expect(clampWidth(1e9, col('a', { width: 80 }))).toBe(MAX_COLUMN_WIDTH);
    expect(clampWidth(NaN, col('a', { width: 80 }))).toBe(MIN_COLUMN_WIDTH);
  });

  it('gives fixed columns their width and shares the rest between the others by grow', () => {
    const cols = [col('name', { grow: 2 }), col('op', { grow: 1, minWidth: 100 }), col('n', { width: 100 }), col('m', { width: 50 })];
    // 1000 px: 850 left for name and op, 2:1 (the odd pixel to the first).
    expect(layoutWidths(cols, {}, 1000)).toEqual([567, 283, 100, 50]);
    // A dragged width counts as fixed, also for a column that had none.
    expect(layoutWidths(cols, { m: 150, op: 300 }, 1000)).toEqual([450, 300, 100, 150]);
    // Too narrow: each shares no less than its minimum, and the table scrolls sideways.
    expect(layoutWidths(cols, {}, 300)).toEqual([FLEX_MIN_WIDTH, 100, 100, 50]);
    // Before the box is measured (0 px) the same minimums stand in.
    expect(layoutWidths(cols, {}, 0)).toEqual([FLEX_MIN_WIDTH, 100, 100, 50]);
    // One column held at its minimum, the other takes all that is left.
    expect(layoutWidths(cols, {}, 450)).toEqual([200, 100, 100, 50]);
    // No column to take the room: the widths stay as set.
    expect(layoutWidths([col('n', { width: 100 })], {}, 1000)).toEqual([100]);
  });

  it('fits every column shown at first in the ~1130 px a view gets at 1440x900, names taking most of the room', () => {
    // The widest tables: kernels by properties + operator and by name, operators by input shape,
    // every optional column present.
    const k = (groupBy: string) =>
      JSON.stringify({
        group_by: groupBy,
        rows: [{ name: 'k', operator: groupBy === 'props' ? 'aten::mm' : null, grid: null, block: null, registers_per_thread: 0, shared_memory: 0, calls: 1, tensor_cores: true, op_tc_eligible: null, total_us: 1, mean_us: 1, min_us: 1, max_us: 1, blocks_per_sm: 1, occupancy_pct: 1 }],
        tensor_cores: { tc_us: 1, unknown_us: 0, total_us: 1, term: 'Tensor Cores', scope: '' },
      });
    const o = (groupBy: string) =>
      JSON.stringify({ group_by: groupBy, show_gpu: true, rows: [{ name: 'a', input_shape: groupBy === 'op' ? null : '[]', calls: 1, host_self_us: 1, host_total_us: 1, device_self_us: 1, device_total_us: 1, tc_eligible: true, tc_self_pct: 0, tc_total_pct: 0, has_call_stack: false }] });
    const tables: [string, Column[], number][] = [
      ['kernels by props', kernelColumns(parseKernels(k('props'))), 330],
      ['kernels by name', kernelColumns(parseKernels(k('name'))), 460],
      ['operators by shape', operatorColumns(parseOperators(o('op+shape'))), 280],
      ['operators by name', operatorColumns(parseOperators(o('op'))), 460],
    ];
    const box = 1128; // 1130 px less the scroll box's borders
    for (const [what, all, nameAtLeast] of tables) {
      const shown = visibleColumns(all, defaultPrefs(all).hidden);
      const w = layoutWidths(shown, {}, box);
      expect(w.reduce((a, x) => a + x, 0), what).toBe(box);
      expect(w[0], `${what}: the name's width`).toBeGreaterThanOrEqual(nameAtLeast);
      expect(Math.max(...w.slice(1)), `${what}: the name is the widest`).toBeLessThan(w[0]);
      // And in a narrower view (~1020 px): still nothing off screen.
      expect(layoutWidths(shown, {}, 1020).reduce((a, x) => a + x, 0), what).toBe(1020);
    }
  });

  it('steps a width by key: the arrows by 16 px, with Shift by 64', () => {
    expect(resizeStep('ArrowRight', false)).toBe(16);
    expect(resizeStep('ArrowLeft', true)).toBe(-64);
    expect(resizeStep('Enter', false)).toBe(0);
    const c = col('a', { width: 80 });
    expect(resizeColumn(defaultPrefs([c]), c, 20).widths).toEqual({ a: MIN_COLUMN_WIDTH });
  });
});

describe('remembered column settings', () => {
  const cols = [col('name'), col('calls', { width: 60 }), col('mean', { width: 60, defaultHidden: true }), col('max', { width: 60 })];

  it('starts from the defaults: nothing dragged, the defaultHidden columns hidden', () => {
    expect(defaultPrefs(cols)).toEqual({ widths: {}, hidden: ['mean'] });
    expect(parseColumnPrefs(null, cols)).toEqual(defaultPrefs(cols));
    expect(visibleColumns(cols, ['mean']).map((c) => c.id)).toEqual(['name', 'calls', 'max']);
  });

  it('stores a versioned JSON per table and grouping, and reads it back', () => {
    expect(columnPrefsKey('kernel.props')).toBe('kinetoscope.columns.kernel.props');
    const p = { widths: { name: 420, calls: 90 }, hidden: ['max'] };
    const text = formatColumnPrefs(p);
    expect(JSON.parse(text)).toEqual({ v: 1, widths: { name: 420, calls: 90 }, hidden: ['max'] });
    // mean, hidden by default, was shown again: the stored list is the whole set.
    expect(parseColumnPrefs(text, cols)).toEqual(p);
  });

  it('drops what does not fit the table: unknown columns, bad widths, other versions, garbage', () => {
    const text = JSON.stringify({ v: 1, widths: { name: 10, gone: 300, calls: 'wide', max: 5000 }, hidden: ['gone', 'max', 'max', 7] });
    expect(parseColumnPrefs(text, cols)).toEqual({ widths: { name: FLEX_MIN_WIDTH, max: MAX_COLUMN_WIDTH }, hidden: ['max'] });
    expect(parseColumnPrefs(JSON.stringify({ v: 2, widths: { name: 300 } }), cols)).toEqual(defaultPrefs(cols));
    expect(parseColumnPrefs('{', cols)).toEqual(defaultPrefs(cols));
    expect(parseColumnPrefs('[1]', cols)).toEqual(defaultPrefs(cols));
    // Widths only (an older store): the default hidden columns stay hidden.
    expect(parseColumnPrefs(JSON.stringify({ v: 1, widths: {} }), cols).hidden).toEqual(['mean']);
    // Every column hidden cannot be: all come back.
    expect(parseColumnPrefs(JSON.stringify({ v: 1, widths: {}, hidden: ['name', 'calls', 'mean', 'max'] }), cols).hidden).toEqual([]);
  });

  it('hides and shows a column, but never the last one shown', () => {
    let p = defaultPrefs(cols);
    p = toggleColumn(p, 'calls', cols);
    expect(p.hidden).toEqual(['mean', 'calls']);
    p = toggleColumn(p, 'mean', cols);
    expect(p.hidden).toEqual(['calls']);
    const two = [col('a'), col('b')];
    const one = toggleColumn(defaultPrefs(two), 'a', two);
    expect(toggleColumn(one, 'b', two)).toBe(one);
    expect(visibleColumns(two, ['a', 'b']).map((c) => c.id)).toEqual(['a']);
  });
});

describe('tree tables', async () => {
  const { treeRows, ancestorKeys, sortRows: sort, allRows: all } = await import('../../web/src/lib/table-model');
  // Net > (Block > Linear), ReLU ; Conv (a second top row)
  const names = ['Net', 'Block', 'Linear', 'ReLU', 'Conv'];
  const total = [100, 50, 20, 10, 30];
  const model = {
    rowCount: 5,
    rowKey: (i: number) => names[i],
    columns: [
      { id: 'name', label: 'Name', type: 'text' as const, value: (i: number) => names[i] },
      { id: 'total', label: 'Total', type: 'number' as const, value: (i: number) => total[i] },
    ],
    tree: { parent: [-1, 0, 1, 0, -1] },
  };
  const show = (sorted: Int32Array, q: string, open: Set<string> | 'all') => [...treeRows(model, sorted, q, open).rows].map((i) => names[i]);

  it('walks into open rows only, siblings in the sorted order', () => {
    expect(show(all(5), '', new Set())).toEqual(['Net', 'Conv']);
    expect(show(all(5), '', new Set(['Net']))).toEqual(['Net', 'Block', 'ReLU', 'Conv']);
    expect(show(all(5), '', 'all')).toEqual(['Net', 'Block', 'Linear', 'ReLU', 'Conv']);
    const byTotalAsc = sort(model, all(5), { column: 'total', dir: 'asc' });
    expect(show(byTotalAsc, '', 'all')).toEqual(['Conv', 'Net', 'ReLU', 'Block', 'Linear']);
  });

  it('a search keeps matches and their ancestors, open whatever their state', () => {
    expect(show(all(5), 'lin', new Set())).toEqual(['Net', 'Block', 'Linear']);
    expect(show(all(5), 'zzz', 'all')).toEqual([]);
  });

  it('says depth, children and ancestors', () => {
    const t = treeRows(model, all(5), '', 'all');
    expect([...t.depth]).toEqual([0, 1, 2, 1, 0]);
    expect([...t.hasKids]).toEqual([1, 1, 0, 0, 0]);
    expect(ancestorKeys(model, 2)).toEqual(['Block', 'Net']);
    expect(ancestorKeys(model, 4)).toEqual([]);
  });

  it('a parent index that does not come before its child is a top row (never a loop)', () => {
    const bad = { ...model, tree: { parent: [3, 0, 1, 0, 4] } };
    const t = treeRows(bad, all(5), '', 'all');
    expect(t.rows.length).toBe(5);
  });
});

describe('fitNumberColumns', () => {
  // 8px a character: the longest cell of each number column decides.
  const measure = (t: string) => t.length * 8;
  type C = { name: string; calls: number; delta: number; pct: number };
  const big: C[] = [
    { name: 'aten::add_', calls: 14089, delta: -1234567, pct: 12.5 },
    { name: 'aten::mm', calls: 7, delta: 3, pct: NaN },
    { name: 'aten::copy_', calls: 52810, delta: 0, pct: 99 },
  ];
  const bigModel = rowsModel<C>(big, (r) => r.name, [
    { id: 'name', label: 'Name', type: 'text', get: (r) => r.name },
    { id: 'calls', label: 'Calls', type: 'number', unit: 'count', width: 40, get: (r) => r.calls },
    { id: 'delta', label: 'Delta', type: 'number', width: 40, get: (r) => r.delta },
    { id: 'pct', label: 'Share', type: 'number', unit: 'percent', width: 90, get: (r) => r.pct },
  ]);
  it('widens a number column to its longest value, the largest or the smallest', () => {
    const fitted = fitNumberColumns(bigModel, measure);
    const width = (id: string) => fitted.find((c) => c.id === id)!.width;
    expect(cellText(bigModel.columns[1], 2)).toBe('52,810');
    expect(width('calls')).toBe(6 * 8 + CELL_PADDING);
    // The smallest value has the longest text: a minus sign and seven digits.
    const deltaText = cellText(bigModel.columns[2], 0);
    expect(deltaText.startsWith('-1,234,567')).toBe(true);
    expect(width('delta')).toBe(deltaText.length * 8 + CELL_PADDING);
  });
  it('leaves columns whose values fit, names, and tables without rows as they are', () => {
    const fitted = fitNumberColumns(bigModel, measure);
    expect(fitted[3]).toBe(bigModel.columns[3]);
    expect(fitted[0]).toBe(bigModel.columns[0]);
    const empty = rowsModel<C>([], (r) => r.name, [{ id: 'calls', label: 'Calls', type: 'number', width: 40, get: (r) => r.calls }]);
    expect(fitNumberColumns(empty, measure)[0]).toBe(empty.columns[0]);
  });
  it('gives the widened column to the layout, and a dragged width still wins', () => {
    const fitted = fitNumberColumns(bigModel, measure);
    const w = layoutWidths(fitted, {}, 1000);
    expect(w[1]).toBe(6 * 8 + CELL_PADDING);
    expect(layoutWidths(fitted, { calls: 50 }, 1000)[1]).toBe(50);
  });
});

describe('rowCountLabel', () => {
  it('says "row" for one, "rows" otherwise, and "N of M" while a search hides some', () => {
    expect(rowCountLabel(1, 1)).toBe('1 row');
    expect(rowCountLabel(0, 1)).toBe('0 of 1 row');
    expect(rowCountLabel(0, 0)).toBe('0 rows');
    expect(rowCountLabel(12, 12)).toBe('12 rows');
    expect(rowCountLabel(3, 12)).toBe('3 of 12 rows');
    expect(rowCountLabel(1234, 5678)).toBe('1,234 of 5,678 rows');
  });
});
