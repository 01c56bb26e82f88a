// The FLOPs columns of the Operators and Kernels tables (issue 25): a row with no counted call
// shows empty cells (not 0) and exports empty CSV fields; the others their numbers.
import { describe, expect, it } from 'vitest';
import { flopColumnsOf, flopTableColumns, formatFlopCell } from '../../web/src/lib/flop-columns';
import { toCsv } from '../../web/src/lib/table-model';

const NULL = 0xffffffff;

describe('flop columns', () => {
  it('formats FLOPs with an SI prefix and leaves no value empty', () => {
    expect(formatFlopCell(2147483648)).toBe('2.15 G');
    expect(formatFlopCell(50331648)).toBe('50.3 M');
    expect(formatFlopCell(512)).toBe('512');
    expect(formatFlopCell(NaN)).toBe('');
    expect(formatFlopCell('')).toBe('');
  });

  it('absent from an answer without them; empty cells and CSV fields for rows not counted', () => {
    expect(flopColumnsOf({}, [])).toBeNull();
    const f = flopColumnsOf(
      {
        flops: new Float64Array([2147483648, NaN]),
        flop_dtype: new Uint32Array([0, NULL]),
        tflops_per_s: new Float64Array([21.47483648, NaN]),
        pct_of_peak: new Float64Array([2.170271498736736, NaN]),
        intensity: new Float64Array([341.22225837943375, NaN]),
      },
      ['bf16'],
    )!;
    const cols = flopTableColumns(f);
    expect(cols.map((c) => c.id)).toEqual(['flops', 'flop_dtype', 'tflops_per_s', 'pct_of_peak', 'intensity']);
    const shown = (row: number) => cols.map((c) => (c.format ? c.format(c.value(row), row) : String(c.value(row))));
    expect(shown(0)).toEqual(['2.15 G', 'bf16', '21.47', '2.17', '341.2']);
    expect(shown(1)).toEqual(['', '', '', '', '']);
    expect(cols[0].headerTitle).toMatch(/flop_counter/);
    expect(cols.filter((c) => c.defaultHidden).map((c) => c.id)).toEqual(['flops', 'flop_dtype', 'intensity']);
    const csv = toCsv({ rowCount: 2, rowKey: (i) => i, columns: cols }, Int32Array.from([0, 1]));
    expect(csv.split('\r\n')[2]).toBe(',,,,');
  });
});
