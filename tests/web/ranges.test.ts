import { describe, expect, it } from 'vitest';
import type { Answer } from '../../web/src/generated/views';
import { openAnswer } from '../../web/src/lib/answer';
import { CoreError } from '../../web/src/lib/json-check';
import { answerOf, wireOf } from './answer-fixture';
import { RANGE_COLUMNS, rangeKernels, rangesModel, rangeTable } from '../../web/src/lib/ranges';

type Cols = { name: string[]; key: string[]; kind: string[]; parent: Int32Array; depth: Int32Array; columns: Record<string, Float64Array>; calls: number; show_gpu: boolean; gpu_copies: boolean };

/** The columns as the core's answer holds them (strings once, in its string table). */
function toAnswer(v: Cols): Answer<'ranges'> {
  const strings: string[] = [];
  const id = (x: string) => (strings.includes(x) ? strings.indexOf(x) : strings.push(x) - 1);
  const str = (a: string[]) => Uint32Array.from(a, id);
  return {
    view: 'ranges',
    rowCount: v.name.length,
    columns: { name: str(v.name), key: str(v.key), kind: str(v.kind), parent: v.parent, depth: v.depth, ...v.columns } as Answer<'ranges'>['columns'],
    absent: [],
    strings,
    meta: { calls: v.calls, show_gpu: v.show_gpu, gpu_copies: v.gpu_copies },
  };
}
const checkRanges = (v: Cols) => rangeTable(toAnswer(v));

// The Ranges answer of tests/data/user-ranges-nested.json (tests/golden/wasm_user_ranges_test.mjs
// checks the module itself).
function answer(): Cols {
  const col = (a: number[]) => new Float64Array(a);
  return {
    name: ['outer', 'inner', 'prefetch'],
    key: ['outer', 'outer/inner', 'prefetch'],
    kind: ['range', 'range', 'range'],
    parent: new Int32Array([-1, 0, -1]),
    depth: new Int32Array([0, 1, 0]),
    columns: {
      calls: col([3, 2, 1]),
      host_us: col([170, 60, 50]),
      self_host_us: col([110, 60, 50]),
      device_us: col([64, 50, 6]),
      self_device_us: col([14, 50, 6]),
      tensor_core_pct: col([83.33, 100, NaN]),
      gpu_ranges: col([1, 2, 0]),
      gpu_range_us: col([14, 50, NaN]),
      gpu_range_device_us: col([14, 56, NaN]),
      first_start_us: col([10, 20, 30]),
      first_end_us: col([110, 60, 80]),
    },
    calls: 6,
    show_gpu: true,
    gpu_copies: true,
  };
}

describe('ranges view data', () => {
  it('takes the typed columns as they are, one per declared column', () => {
    const t = checkRanges(answer());
    expect(t.rowCount).toBe(3);
    expect(Object.keys(t.values).sort()).toEqual(RANGE_COLUMNS.map((c) => c.id).sort());
    expect(t.values.device_us[0]).toBe(64);
    expect([...t.parent]).toEqual([-1, 0, -1]);
    expect(t.gpuCopies).toBe(true);
  });

  it('comes through the wire answer as it is; a core error as a CoreError', () => {
    const a = toAnswer(answer());
    const t = rangeTable(openAnswer('ranges', wireOf(a)));
    expect(t.key).toEqual(['outer', 'outer/inner', 'prefetch']);
    expect(t.calls).toBe(6);
    expect(() => openAnswer('ranges', wireOf(a, 'no session'))).toThrow(CoreError);
  });

  it('a parent after its child is cut off (the tree cannot loop)', () => {
    const a = answer();
    a.parent = new Int32Array([1, 0, -1]);
    expect([...checkRanges(a).parent]).toEqual([-1, 0, -1]);
  });

  it('the table: the device and GPU-copy columns only when the trace has them', () => {
    const full = rangesModel(checkRanges(answer())).columns.map((c) => c.id);
    expect(full).toEqual(['name', 'kind', ...RANGE_COLUMNS.map((c) => c.id)]);
    const a = answer();
    a.show_gpu = false;
    a.gpu_copies = false;
    const host = rangesModel(checkRanges(a)).columns.map((c) => c.id);
    expect(host).toEqual(['name', 'kind', 'calls', 'host_us', 'self_host_us', 'first_start_us', 'first_end_us']);
    const m = rangesModel(checkRanges(answer()));
    expect(m.tree?.parent).toBeInstanceOf(Int32Array);
    expect(m.rowKey(1)).toBe('outer/inner');
  });

  it('shows Lightning names short, keeps the full name as the value', () => {
    const a = answer();
    a.name = ['[pl][profile]run_training_batch', '[pl][module]torch.nn.modules.linear.Linear: net.0', 'prefetch'];
    a.kind = ['lightning', 'lightning', 'range'];
    const m = rangesModel(checkRanges(a));
    const name = m.columns[0];
    expect(name.value(0)).toBe('[pl][profile]run_training_batch');
    expect(name.format?.(name.value(0), 0)).toBe('run_training_batch');
    expect(name.format?.(name.value(1), 1)).toBe('net.0 (Linear)');
  });

  it('reads a range\'s kernels', () => {
    const k = rangeKernels(
      answerOf('range_kernels', { range: 'outer', rows: [{ name: 'nvjet_sm90_x', calls: 2, total_us: 50, tensor_cores: true }, { name: 'add', calls: 1, total_us: 10, tensor_cores: null }] }),
    );
    expect(k.count).toBe(2);
    expect([...k.tensorCores]).toEqual([1, 2]);
  });
});
