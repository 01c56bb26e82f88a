// lib/answer-table.ts: a data table over any view's answer, its columns read in place through the
// view's generated schema. On the GPU time view's answer of tests/data/gpu-time-sub-us-memset.json
// as `kinetoscope gpu-time --json` prints it (tests/golden/cli/gpu-time-sub-us-memset/gpu-time.json).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GPU_TIME_COLUMNS, KERNELS_COLUMNS } from '../../web/src/generated/views';
import { answerTable } from '../../web/src/lib/answer-table';
import { allRows, cellText, headerLabel, sortRows, toCsv } from '../../web/src/lib/table-model';
import { answerOf } from './answer-fixture';

const golden = path.resolve(__dirname, '../golden/cli/gpu-time-sub-us-memset/gpu-time.json');
const gpuTime = () => answerOf('gpu-time', JSON.parse(fs.readFileSync(golden, 'utf8')));

describe('answerTable', () => {
  it('reads the answer’s columns in place, in the order the view names them, keyed as it says', () => {
    const a = gpuTime();
    const m = answerTable(a, GPU_TIME_COLUMNS, [{ name: 'step', label: 'Step' }, { name: 'idle_us', label: 'Idle' }, { name: 'idle_pct', label: 'Idle' }, { name: 'events', label: 'Events' }], (i) => `r${i}`);
    expect(m.rowCount).toBe(4);
    expect(m.columns.map((c) => c.id)).toEqual(['step', 'idle_us', 'idle_pct', 'events']);
    expect(m.rowKey(2)).toBe('r2');
    const [step, idle, pct, events] = m.columns;
    // A null string is empty; µs and percentages bare under a header naming the unit.
    expect([0, 1, 3].map((i) => step.value(i))).toEqual(['', '1', '3']);
    expect(idle.value(0)).toBe(69.5);
    expect(headerLabel(idle)).toBe('Idle (us)');
    expect(cellText(idle, 0)).toBe('69.5');
    expect(headerLabel(pct)).toBe('Idle (%)');
    expect(cellText(pct, 0)).toBe('63.18');
    expect(events.unit).toBe('count');
    expect(cellText(events, 0)).toBe('5');
    // Sorting and the CSV work on the raw values.
    expect([...sortRows(m, allRows(4), { column: 'idle_us', dir: 'desc' })]).toEqual([0, 1, 2, 3]);
    expect(toCsv(m, allRows(4)).split('\r\n')[1]).toBe(',69.5,63.18181818181818,5');
  });

  it('leaves out a column the answer has no values for, and one the schema lacks', () => {
    const a = gpuTime();
    a.absent.push('span_us');
    const m = answerTable(a, GPU_TIME_COLUMNS, [{ name: 'span_us', label: 'Span' }, { name: 'no_such', label: 'X' }, { name: 'compute_us', label: 'Compute' }], (i) => i);
    expect(m.columns.map((c) => c.id)).toEqual(['compute_us']);
  });

  it('shows the other column types: three-ints, tri-state and i32 nulls', () => {
    const a = answerOf('kernels', {
      group_by: 'props',
      rows: [
        { name: 'k', operator: 'aten::mm', grid: [8, 1, 1], block: null, registers_per_thread: null, shared_memory: 0, calls: 2, tensor_cores: null, total_us: 10 },
        { name: 'k', operator: 'aten::bmm', grid: null, block: [128, 1, 1], registers_per_thread: 64, shared_memory: 0, calls: 1, tensor_cores: true, total_us: 5 },
      ],
    });
    const m = answerTable(a, KERNELS_COLUMNS, [{ name: 'grid', label: 'Grid' }, { name: 'block', label: 'Block' }, { name: 'tensor_cores', label: 'TC' }, { name: 'registers_per_thread', label: 'Regs' }], (i) => i);
    expect(m.columns.map((c) => [c.id, cellText(c, 0), cellText(c, 1)])).toEqual([
      ['grid', '[8, 1, 1]', ''],
      ['block', '', '[128, 1, 1]'],
      ['tensor_cores', '?', 'yes'],
      ['registers_per_thread', '—', '64'],
    ]);
  });
});
