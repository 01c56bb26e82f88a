import { describe, expect, it } from 'vitest';
import { allRows, cellText, defaultPrefs, filterRows, headerLabel, sortRows, toCsv, visibleColumns } from '../../web/src/lib/table-model';
import { TRI_NULL } from '../../web/src/lib/json-check';
import {
  dimsOf,
  kernelColumns,
  kernelDetailKey,
  kernelsModel,
  kernelDetail,
  kernelDetailParams,
  kernelTable,
  tcRuleText,
  tensorCoreParts,
} from '../../web/src/lib/kernels';
import { transferables } from '../../web/src/lib/operators';
import { answerOf } from './answer-fixture';

// Rows hand-written in the shape of `kinetoscope kernels --json` (docs/contracts.md), made the
// core's answer (typed columns, each string once) by answerOf.
const parseKernels = (json: string) => kernelTable(answerOf('kernels', JSON.parse(json)));

const byName = {
  group_by: 'name',
  rows: [
    { name: 'volta_sgemm_128x64_nn', operator: null, grid: null, block: null, registers_per_thread: null, shared_memory: null, calls: 6, tensor_cores: false, op_tc_eligible: null, total_us: 3627, mean_us: 604.5, min_us: 603, max_us: 606, blocks_per_sm: 39.2, occupancy_pct: 25.0 },
    { name: 'void at::native::vectorized_elementwise_kernel<4>', operator: null, grid: null, block: null, registers_per_thread: null, shared_memory: null, calls: 100, tensor_cores: false, op_tc_eligible: null, total_us: 1200.5, mean_us: 12.005, min_us: 1, max_us: 40, blocks_per_sm: null, occupancy_pct: null },
  ],
  tensor_cores: { tc_us: 123.0, unknown_us: 0, total_us: 456.0, term: 'Tensor Cores', scope: null },
};

const byProps = {
  group_by: 'props',
  rows: [
    { name: 'sm80_xmma_gemm', operator: 'aten::mm', grid: [3136, 1, 1], block: [128, 1, 1], registers_per_thread: 128, shared_memory: 16384, calls: 2, tensor_cores: true, op_tc_eligible: true, total_us: 10, mean_us: 5, min_us: 4, max_us: 6, blocks_per_sm: null, occupancy_pct: null },
    { name: 'sm80_xmma_gemm', operator: 'aten::addmm', grid: [3136, 1, 1], block: [128, 1, 1], registers_per_thread: 128, shared_memory: 16384, calls: 1, tensor_cores: true, op_tc_eligible: false, total_us: 20, mean_us: 20, min_us: 20, max_us: 20, blocks_per_sm: null, occupancy_pct: null },
  ],
  tensor_cores: { tc_us: 30, total_us: 30 },
};

describe('kernelTable', () => {
  it('reads the name grouping, with blocks per SM and occupancy when any row has them', () => {
    const t = parseKernels(JSON.stringify(byName));
    expect(t.groupBy).toBe('name');
    expect(t.rowCount).toBe(2);
    expect(t.keys).toEqual(t.name);
    expect(t.operator).toEqual([null, null]);
    expect(Array.from(t.meanUs)).toEqual([604.5, 12.005]);
    expect(t.hasBlocksPerSm).toBe(true);
    expect(t.hasOccupancy).toBe(true);
    expect(Number.isNaN(t.occupancyPct[1])).toBe(true);
    expect(Array.from(t.opTcEligible)).toEqual([TRI_NULL, TRI_NULL]);
    // A core without three states sends no unknown time: none.
    expect(t.tensorCoreTime).toEqual({ tcUs: 123, unknownUs: 0, totalUs: 456, term: 'Tensor Cores', scope: null });
    expect(Array.from(t.tensorCores)).toEqual([0, 0]);
    expect(t.tensorCoresRule).toEqual([null, null]);
  });

  it('reads the props grouping: dims as text, keys unique per property set', () => {
    const t = parseKernels(JSON.stringify(byProps));
    expect(t.grid).toEqual(['[3136, 1, 1]', '[3136, 1, 1]']);
    expect(t.block[0]).toBe('[128, 1, 1]');
    expect(new Set(t.keys).size).toBe(2);
    expect(t.keys[0]).toContain('aten::mm');
    expect(Array.from(t.opTcEligible)).toEqual([1, 0]);
    expect(t.hasBlocksPerSm).toBe(false);
  });

  it('has no Tensor Core split when the trace has no kernels', () => {
    const t = parseKernels(JSON.stringify({ group_by: 'name', rows: [], tensor_cores: null }));
    expect(t.tensorCoreTime).toBeNull();
    expect(t.rowCount).toBe(0);
  });

});

describe('kernel columns', () => {
  it('has the property columns only in props grouping and hides empty metric columns', () => {
    expect(kernelColumns(parseKernels(JSON.stringify(byName))).map(headerLabel)).toEqual([
      'Name',
      'Calls',
      'Tensor Cores used',
      'Total (us)',
      'Mean (us)',
      'Min (us)',
      'Max (us)',
      'Mean blocks per SM',
      'Mean est. achieved occupancy (%)',
    ]);
    expect(kernelColumns(parseKernels(JSON.stringify(byProps))).map(headerLabel)).toEqual([
      'Name',
      'Operator',
      'Grid',
      'Block',
      'Registers per thread',
      'Shared memory (bytes)',
      'Calls',
      'Tensor Cores used',
      'Total (us)',
      'Mean (us)',
      'Min (us)',
      'Max (us)',
    ]);
  });

  it('sorts by total, searches name and operator, and exports what is shown', () => {
    const t = parseKernels(JSON.stringify(byProps));
    const m = kernelsModel(t);
    const sorted = sortRows(m, allRows(t.rowCount), { column: 'total_us', dir: 'desc' });
    expect(Array.from(sorted)).toEqual([1, 0]);
    const shown = filterRows(m, sorted, 'ADDMM');
    expect(Array.from(shown)).toEqual([1]);
    // Every column, the hidden ones too (Mean, Min, Max start hidden in this grouping).
    const csv = toCsv(m, shown).split('\r\n');
    expect(csv[0]).toBe('Name,Operator,Grid,Block,Registers per thread,Shared memory (bytes),Calls,Tensor Cores used,Total (us),Mean (us),Min (us),Max (us)');
    expect(csv[1]).toBe('sm80_xmma_gemm,aten::addmm,"[3136, 1, 1]","[128, 1, 1]",128,16384,1,Yes,20,20,20,20');
    expect(csv.length).toBe(3);
  });
});

describe('Tensor Cores in three states', () => {
  // The contract of the core's three states: true / false / null (unknown) with the rule that
  // decided, and the unknown kernel time beside the known one.
  const three = {
    group_by: 'name',
    rows: [
      { ...byName.rows[0], name: 'sm90_xmma_gemm_f16f16', tensor_cores: true, tensor_cores_rule: 'cuBLAS sm90_xmma_* (Hopper GEMM)' },
      { ...byName.rows[0], name: 'triton_poi_fused_add_0', tensor_cores: null, tensor_cores_rule: 'Triton kernel: its name does not tell' },
      { ...byName.rows[1], tensor_cores: false, tensor_cores_rule: 'no rule matched' },
    ],
    tensor_cores: { tc_us: 60, unknown_us: 30, total_us: 100, term: 'Tensor Cores', scope: 'Share of the time of every kernel in the trace.' },
  };

  it('reads true / false / null and the rule, shown as Yes / No / ? with the rule on hover', () => {
    const t = parseKernels(JSON.stringify(three));
    expect(Array.from(t.tensorCores)).toEqual([1, TRI_NULL, 0]);
    const m = kernelsModel(t);
    const col = m.columns.find((c) => c.id === 'tensor_cores')!;
    expect([0, 1, 2].map((i) => cellText(col, i))).toEqual(['Yes', '?', 'No']);
    expect([0, 1, 2].map((i) => col.title!(i))).toEqual(['cuBLAS sm90_xmma_* (Hopper GEMM)', 'Triton kernel: its name does not tell', 'no rule matched']);
    // The CSV keeps its raw values: unknown is no value.
    expect(toCsv(m, allRows(3)).split('\r\n')[2].split(',')[2]).toBe('');
    expect(t.tensorCoreTime).toEqual({ tcUs: 60, unknownUs: 30, totalUs: 100, term: 'Tensor Cores', scope: 'Share of the time of every kernel in the trace.' });
  });

  it('says Matrix Cores on AMD, in the column, its hover text and the pie', () => {
    const amd = { ...three, tensor_cores: { ...three.tensor_cores, term: 'Matrix Cores' } };
    const t = parseKernels(JSON.stringify(amd));
    const col = kernelColumns(t).find((c) => c.id === 'tensor_cores')!;
    expect([headerLabel(col), col.header]).toEqual(['Matrix Cores used', 'Matrix Cores']);
    expect(tensorCoreParts(t.tensorCoreTime!).map((p) => p.label)).toEqual(['Using Matrix Cores', 'Unknown', 'Not using Matrix Cores']);
    expect(tcRuleText(0, null, 'Matrix Cores')).toBe('Does not use Matrix Cores');
  });

  it('says what a state means when the core names no rule', () => {
    expect(tcRuleText(TRI_NULL, null)).toMatch(/^Unknown/);
    expect(tcRuleText(1, null)).toBe('Uses Tensor Cores');
    expect(tcRuleText(0, 'rule x')).toBe('rule x');
  });

  it('gives the pie an Unknown slice only when there is unknown time', () => {
    expect(tensorCoreParts({ tcUs: 60, unknownUs: 30, totalUs: 100 }).map((p) => [p.label, p.value])).toEqual([
      ['Using Tensor Cores', 60],
      ['Unknown', 30],
      ['Not using Tensor Cores', 10],
    ]);
    expect(tensorCoreParts({ tcUs: 123, unknownUs: 0, totalUs: 456 }).map((p) => p.label)).toEqual(['Using Tensor Cores', 'Not using Tensor Cores']);
    expect(tensorCoreParts({ tcUs: 0, unknownUs: 0, totalUs: 0 })).toEqual([]);
  });
});

describe('kernel columns shown at first', () => {
  it('hides Mean, Min, Max, blocks per SM and occupancy in props grouping only', () => {
    const withMetrics = { ...byProps, rows: byProps.rows.map((r) => ({ ...r, blocks_per_sm: 1, occupancy_pct: 50 })) };
    const props = kernelColumns(parseKernels(JSON.stringify(withMetrics)));
    expect(visibleColumns(props, defaultPrefs(props).hidden).map((c) => c.id)).toEqual([
      'name',
      'operator',
      'grid',
      'block',
      'registers_per_thread',
      'shared_memory',
      'calls',
      'tensor_cores',
      'total_us',
    ]);
    expect(defaultPrefs(kernelColumns(parseKernels(JSON.stringify(byName)))).hidden).toEqual([]);
  });
});

describe('a kernel row\'s detail', () => {
  it('names a props row by its operator and launch properties, a name row by its name', () => {
    const t = parseKernels(JSON.stringify(byProps));
    expect(kernelDetailKey(t, 1)).toEqual({ groupBy: 'props', name: 'sm80_xmma_gemm', operator: 'aten::addmm', props: [3136, 1, 1, 128, 1, 1, 128, 16384] });
    expect(kernelDetailKey(parseKernels(JSON.stringify(byName)), 0)).toEqual({ groupBy: 'name', name: 'volta_sgemm_128x64_nn', operator: '', props: [] });
    expect(dimsOf(null)).toEqual([0, 0, 0]);
    expect(dimsOf('[16, 1, 1]')).toEqual([16, 1, 1]);
  });

  // The three answers of a row's detail, in the shape of `kinetoscope kernels --detail NAME --json`.
  const meta = { group_by: 'name', name: 'volta_s1688gemm_128x64', operator: null, calls: 2, total_us: 50, mean_us: 25, min_us: 20, max_us: 30, blocks_per_sm: 0.7, occupancy_pct: 48, stacks_from_python_frames: true };
  const stacks = answerOf('kernel_detail', { ...meta, rows: [{ operator: 'aten::mm', call_stack: 'train.py(10): step;model.py(5): forward', calls: 1, total_us: 30 }] });
  const operators = answerOf('kernel_operators', { rows: [{ name: 'aten::mm', calls: 2, total_us: 50 }] });
  const launches = answerOf('kernel_launches', {
    rows: [
      { grid: [8, 1, 1], block: [128, 1, 1], registers_per_thread: 64, shared_memory: 1024, blocks_per_sm: 0.5, occupancy_pct: 40, calls: 1, total_us: 30 },
      { grid: null, block: null, registers_per_thread: 0, shared_memory: 0, blocks_per_sm: null, occupancy_pct: null, calls: 1, total_us: 20 },
    ],
  });

  it('reads its lists from the answers\' columns and its numbers from the metadata', () => {
    const d = kernelDetail(stacks, operators, launches);
    expect([d.calls, d.totalUs, d.meanUs, d.minUs, d.maxUs]).toEqual([2, 50, 25, 20, 30]);
    expect(d.operators.name).toEqual(['aten::mm']);
    expect(d.launches.grid).toEqual(['[8, 1, 1]', '']);
    expect(Array.from(d.launches.registersPerThread)).toEqual([64, 0]);
    expect(Number.isNaN(d.launches.blocksPerSm[1])).toBe(true);
    expect(d.stacks.callStack).toEqual(['train.py(10): step;model.py(5): forward']);
    expect(d.stacks.operator).toEqual(['aten::mm']);
    expect(d.stacksFromPythonFrames).toBe(true);
  });

  it('has no mean, min or max when the row has no kernel in the step asked', () => {
    const none = answerOf('kernel_detail', { ...meta, calls: 0, total_us: 0, mean_us: null, min_us: null, max_us: null, rows: [] });
    const d = kernelDetail(none, answerOf('kernel_operators', { rows: [] }), answerOf('kernel_launches', { rows: [] }));
    expect(Number.isNaN(d.minUs)).toBe(true);
    expect(d.operators.count).toBe(0);
  });

  it('names a props row by its operator and properties, a name row by its name', () => {
    expect(kernelDetailParams({ groupBy: 'name', name: 'k', operator: '', props: [] }, '')).toEqual({ group_by: 'name', name: 'k', step: '' });
    expect(kernelDetailParams({ groupBy: 'props', name: 'k', operator: 'aten::mm', props: [80, 1, 1, 128, 1, 1, 32, 0] }, '5')).toEqual({
      group_by: 'props', name: 'k', step: '5', operator: 'aten::mm', grid: '80,1,1', block: '128,1,1', registers: '32', shared_memory: '0',
    });
  });
});
