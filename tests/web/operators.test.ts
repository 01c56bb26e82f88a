import { describe, expect, it } from 'vitest';
import { allRows, filterRows, headerLabel, sortRows, toCsv } from '../../web/src/lib/table-model';
import { TRI_NULL, uniqueKeys } from '../../web/src/lib/json-check';
import {
  formatPctCell,
  formatUsCell,
  operatorColumns,
  operatorKey,
  operatorPieColumns,
  operatorsModel,
  operatorTable,
  operatorDetail,
  recordedStacks,
  tcText,
  transferables,
} from '../../web/src/lib/operators';
import { CoreError } from '../../web/src/lib/json-check';
import { decodeStrings, openAnswer } from '../../web/src/lib/answer';
import { answerOf, wireOf } from './answer-fixture';

const parseOperators = (json: string) => operatorTable(answerOf('operators', JSON.parse(json)));

// Hand-written in exactly the shape of `kinetoscope operators --json` (docs/contracts.md), made the
// core's answer (typed columns, each string once) by answerOf.
const gpuJson = JSON.stringify({
  group_by: 'op',
  show_gpu: true,
  rows: [
    { name: 'aten::conv2d', input_shape: null, calls: 318, host_self_us: 1.5, host_total_us: 900.25, device_self_us: 0, device_total_us: 5000, tc_eligible: true, tc_self_pct: 0.0, tc_total_pct: 12.5, has_call_stack: true },
    { name: 'aten::add_', input_shape: null, calls: 10, host_self_us: 200, host_total_us: 210, device_self_us: 3000.5, device_total_us: 3000.5, tc_eligible: false, tc_self_pct: 0, tc_total_pct: 0, has_call_stack: false },
    { name: 'aten::mm, "q"', input_shape: null, calls: 2, host_self_us: 50, host_total_us: 60, device_self_us: null, device_total_us: null, tc_eligible: null, tc_self_pct: null, tc_total_pct: null, has_call_stack: false },
  ],
});

const shapeJson = JSON.stringify({
  group_by: 'op+shape',
  show_gpu: false,
  rows: [
    { name: 'aten::mm', input_shape: '[[32, 64], [64, 8]]', calls: 3, host_self_us: 30, host_total_us: 40, device_self_us: 0, device_total_us: 0, tc_eligible: true, tc_self_pct: 0, tc_total_pct: 0, has_call_stack: false },
    { name: 'aten::mm', input_shape: '[[1, 2], [2, 3]]', calls: 1, host_self_us: 10, host_total_us: 12, device_self_us: 0, device_total_us: 0, tc_eligible: true, tc_self_pct: 0, tc_total_pct: 0, has_call_stack: false },
  ],
});

describe('operatorTable', () => {
  it('reads every field into columns, null as NaN / unknown', () => {
    const t = parseOperators(gpuJson);
    expect(t.groupBy).toBe('op');
    expect(t.showGpu).toBe(true);
    expect(t.rowCount).toBe(3);
    expect(t.name).toEqual(['aten::conv2d', 'aten::add_', 'aten::mm, "q"']);
    expect(Array.from(t.calls)).toEqual([318, 10, 2]);
    expect(Array.from(t.hostTotalUs)).toEqual([900.25, 210, 60]);
    expect(t.deviceSelfUs[1]).toBe(3000.5);
    expect(Number.isNaN(t.deviceSelfUs[2])).toBe(true);
    expect(Array.from(t.tcEligible)).toEqual([1, 0, TRI_NULL]);
    expect(Array.from(t.hasCallStack)).toEqual([1, 0, 0]);
    expect(t.keys).toEqual(t.name);
  });

  it('keys rows by name and input shape when grouped by shape', () => {
    const t = parseOperators(shapeJson);
    expect(t.keys).toEqual(['aten::mm [[32, 64], [64, 8]]', 'aten::mm [[1, 2], [2, 3]]']);
    expect(operatorKey('a', null)).toBe('a');
    expect(new Set(t.keys).size).toBe(2);
  });

  it('opens the wire answer: strings decoded once, the core\'s error as a CoreError', () => {
    const a = answerOf('operators', JSON.parse(gpuJson));
    const opened = openAnswer('operators', wireOf(a));
    expect(opened.strings).toEqual(a.strings);
    expect(opened.meta.group_by).toBe('op');
    expect(operatorTable(opened).name).toEqual(['aten::conv2d', 'aten::add_', 'aten::mm, "q"']);
    expect(() => openAnswer('operators', wireOf(a, 'no step 9 (the steps are 1, 2)'))).toThrow(CoreError);
    expect(() => openAnswer('kernels', wireOf(a))).toThrow(/expected the kernels view's answer, got operators'/);
    // A name holding a 0 byte (\u0000 in the trace) keeps it, and the strings after it stay in place.
    const zero = { ...a, strings: ['a\u0000b', 'c'] };
    expect(decodeStrings(wireOf(zero).stringBytes, wireOf(zero).stringEnds, 2)).toEqual(['a\u0000b', 'c']);
  });

  it('makes repeated keys unique so selection never lands on two rows', () => {
    expect(uniqueKeys(['a', 'b', 'a', 'a'])).toEqual(['a', 'b', 'a #2', 'a #3']);
  });

  it('lists its typed arrays for transfer', () => {
    const t = parseOperators(gpuJson);
    expect(transferables(t).length).toBe(9);
  });
});

describe('operator columns', () => {
  it('shows device and Tensor Core columns only when the trace has GPU work', () => {
    const gpu = operatorColumns(parseOperators(gpuJson));
    expect(gpu.map(headerLabel)).toEqual([
      'Name',
      'Calls',
      'Device self (us)',
      'Device total (us)',
      'Host self (us)',
      'Host total (us)',
      'Tensor Cores eligible',
      'TC self (%)',
      'TC total (%)',
    ]);
    const cpu = operatorColumns(parseOperators(shapeJson));
    expect(cpu.map(headerLabel)).toEqual(['Name', 'Input shape', 'Calls', 'Host self (us)', 'Host total (us)']);
  });

  it('formats cells as bare numbers (the unit is in the header), "—" when unknown', () => {
    const t = parseOperators(gpuJson);
    const m = operatorsModel(t);
    const cell = (id: string, row: number) => {
      const c = m.columns.find((x) => x.id === id)!;
      return c.format ? c.format(c.value(row), row) : String(c.value(row));
    };
    expect(cell('host_total_us', 0)).toBe('900.25');
    expect(cell('device_self_us', 1)).toBe('3,000.5');
    expect(cell('device_self_us', 2)).toBe('—');
    expect(cell('tc_total_pct', 0)).toBe('12.50');
    expect(cell('tc_eligible', 0)).toBe('Yes');
    expect(cell('tc_eligible', 1)).toBe('No');
    // Unknown (a compiled region, in a core with three states) shows "?", with what it means on hover.
    expect(cell('tc_eligible', 2)).toBe('?');
    const tc = m.columns.find((x) => x.id === 'tc_eligible')!;
    expect(tc.title!(2)).toMatch(/^Unknown: a compiled region/);
    expect(tc.title!(0)).toMatch(/^Could use Tensor Cores/);
    expect(tc.header).toBe('TC eligible');
    expect(formatUsCell(1234567.891)).toBe('1,234,567.89');
    expect(formatPctCell(NaN)).toBe('—');
  });

  it('sorts by device self with unknown values last, searches names only', () => {
    const t = parseOperators(gpuJson);
    const m = operatorsModel(t);
    const desc = sortRows(m, allRows(t.rowCount), { column: 'device_self_us', dir: 'desc' });
    expect(Array.from(desc)).toEqual([1, 0, 2]);
    const asc = sortRows(m, allRows(t.rowCount), { column: 'device_self_us', dir: 'asc' });
    expect(Array.from(asc)).toEqual([0, 1, 2]);
    expect(Array.from(filterRows(m, desc, 'ATEN::'))).toEqual([1, 0, 2]);
    expect(Array.from(filterRows(m, desc, 'Yes'))).toEqual([]); // the eligible column is not searched
    const s = parseOperators(shapeJson);
    expect(Array.from(filterRows(operatorsModel(s), allRows(2), '32, 64'))).toEqual([]); // nor the shape
  });

  it('exports exactly the filtered, sorted rows with raw values and unit headers', () => {
    const t = parseOperators(gpuJson);
    const m = operatorsModel(t);
    const shown = filterRows(m, sortRows(m, allRows(t.rowCount), { column: 'host_self_us', dir: 'asc' }), 'a');
    const csv = toCsv(m, shown).split('\r\n');
    expect(csv[0]).toBe('Name,Calls,Device self (us),Device total (us),Host self (us),Host total (us),Tensor Cores eligible,TC self (%),TC total (%)');
    expect(csv.slice(1, -1)).toEqual([
      'aten::conv2d,318,0,5000,1.5,900.25,Yes,0,12.5',
      '"aten::mm, ""q""",2,,,50,60,,,',
      'aten::add_,10,3000.5,3000.5,200,210,No,0,0',
    ]);
    const only = filterRows(m, allRows(t.rowCount), 'add');
    expect(toCsv(m, only).split('\r\n').length).toBe(3); // header, one row, final CRLF
  });

  it('pies over the four durations with GPU work, the two host ones without', () => {
    expect(operatorPieColumns(parseOperators(gpuJson)).map((c) => c.id)).toEqual(['device_self_us', 'device_total_us', 'host_self_us', 'host_total_us']);
    expect(operatorPieColumns(parseOperators(shapeJson)).map((c) => c.id)).toEqual(['host_self_us', 'host_total_us']);
  });
});

describe('operatorDetail', () => {
  // The two answers of a row's detail, in the shape of `kinetoscope operators --detail NAME --json`.
  const stacks = answerOf('operator_detail', {
    rows: [
      { call_stack: 'train.py(10): main;model.py(20): forward;<built-in method conv2d>', calls: 300, host_self_us: 1, host_total_us: 800, device_self_us: 0, device_total_us: 4000, tc_self_pct: 0, tc_total_pct: 10 },
      { call_stack: '', calls: 18, host_self_us: 0.5, host_total_us: 100.25, device_self_us: 0, device_total_us: 1000, tc_self_pct: 0, tc_total_pct: 22.5 },
    ],
    stack_source: 'python_function',
    no_stack: [{ reason: 'autograd_thread', text: 'Backward operator (autograd thread)', calls: 3 }],
  });
  const kernels = answerOf('operator_kernels', {
    rows: [
      { name: 'volta_s1688gemm_128x64', calls: 2, total_us: 50, tensor_cores: true },
      { name: 'triton_poi_fused_0', calls: 1, total_us: 3.5, tensor_cores: null },
    ],
  });

  it('splits frames on ";" and keeps the numbers; an empty stack is none recorded', () => {
    const d = operatorDetail(stacks, kernels);
    expect(d.stacks[0].frames).toEqual(['train.py(10): main', 'model.py(20): forward', '<built-in method conv2d>']);
    expect(d.stacks[0].calls).toBe(300);
    expect(d.stacks[1].frames).toEqual([]);
    expect(d.stacks[1].hostTotalUs).toBe(100.25);
    expect(recordedStacks(d.stacks).length).toBe(1);
    expect(d.stackSource).toBe('python_function');
    expect(d.noStack).toEqual([{ reason: 'autograd_thread', text: 'Backward operator (autograd thread)', calls: 3 }]);
  });

  it('reads the kernels as the answer\'s columns, in place (three-state Tensor Cores)', () => {
    const d = operatorDetail(stacks, kernels);
    expect(d.kernels.count).toBe(2);
    expect(d.kernels.name).toEqual(['volta_s1688gemm_128x64', 'triton_poi_fused_0']);
    expect(d.kernels.calls).toBe(kernels.columns.calls);
    expect(Array.from(d.kernels.totalUs)).toEqual([50, 3.5]);
    expect(Array.from(d.kernels.tensorCores, tcText)).toEqual(['Yes', '?']);
  });

  it('says what the core said when it could not answer (a step the trace lacks)', () => {
    const open = () => openAnswer('operator_detail', wireOf(answerOf('operator_detail', { rows: [] }), 'no step 9 (the steps are 1, 2)'));
    expect(open).toThrow(CoreError);
    expect(open).toThrow('no step 9 (the steps are 1, 2)');
  });
});
