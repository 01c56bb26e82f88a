import { describe, expect, it } from 'vitest';
import {
  allRows,
  cellText,
  csvField,
  filterRows,
  formatNumber,
  moveSelection,
  nextSort,
  numberColumn,
  positionOfKey,
  rowsModel,
  scrollToShow,
  sortRows,
  stringColumn,
  toCsv,
  visibleWindow,
  type TableModel,
} from '../../web/src/lib/data-table';
import { csvStem } from '../../web/src/lib/download';

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
    for (let k = 1; k < n; k++) {
      const a = dur[s[k - 1]];
      const b = dur[s[k]];
      expect(a > b || (a === b && s[k - 1] < s[k])).toBe(true);
    }
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
