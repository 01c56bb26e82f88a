import { describe, expect, it } from 'vitest';
import { allRows, filterRows, headerLabel, sortRows, toCsv } from '../../web/src/lib/data-table';
import { TRI_NULL } from '../../web/src/lib/json-check';
import { kernelColumns, kernelsModel, parseKernels } from '../../web/src/lib/kernels';

const byName = {
  group_by: 'name',
  rows: [
    { name: 'volta_sgemm_128x64_nn', operator: null, grid: null, block: null, registers_per_thread: null, shared_memory: null, calls: 6, tensor_cores: false, op_tc_eligible: null, total_us: 3627, mean_us: 604.5, min_us: 603, max_us: 606, blocks_per_sm: 39.2, occupancy_pct: 25.0 },
    { name: 'void at::native::vectorized_elementwise_kernel<4>', operator: null, grid: null, block: null, registers_per_thread: null, shared_memory: null, calls: 100, tensor_cores: false, op_tc_eligible: null, total_us: 1200.5, mean_us: 12.005, min_us: 1, max_us: 40, blocks_per_sm: null, occupancy_pct: null },
  ],
  tensor_cores: { tc_us: 123.0, total_us: 456.0 },
};

const byProps = {
  group_by: 'props',
  rows: [
    { name: 'sm80_xmma_gemm', operator: 'aten::mm', grid: [3136, 1, 1], block: [128, 1, 1], registers_per_thread: 128, shared_memory: 16384, calls: 2, tensor_cores: true, op_tc_eligible: true, total_us: 10, mean_us: 5, min_us: 4, max_us: 6, blocks_per_sm: null, occupancy_pct: null },
    { name: 'sm80_xmma_gemm', operator: 'aten::addmm', grid: [3136, 1, 1], block: [128, 1, 1], registers_per_thread: 128, shared_memory: 16384, calls: 1, tensor_cores: true, op_tc_eligible: false, total_us: 20, mean_us: 20, min_us: 20, max_us: 20, blocks_per_sm: null, occupancy_pct: null },
  ],
  tensor_cores: { tc_us: 30, total_us: 30 },
};

describe('parseKernels', () => {
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
    expect(t.tensorCoreTime).toEqual({ tcUs: 123, totalUs: 456 });
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

  it('rejects bad shapes', () => {
    const bad = structuredClone(byProps) as typeof byProps & { rows: { grid: unknown }[] };
    bad.rows[1].grid = [1, 2];
    expect(() => parseKernels(JSON.stringify(bad))).toThrow(/kernelsJson: rows\[1\]\.grid should be an array of 3 numbers or null/);
    expect(() => parseKernels(JSON.stringify({ ...byName, tensor_cores: { tc_us: 1 } }))).toThrow(/tensor_cores\.total_us should be a number/);
    expect(() => parseKernels(JSON.stringify({ ...byName, rows: [{ ...byName.rows[0], tensor_cores: null }] }))).toThrow(
      /rows\[0\]\.tensor_cores should be true or false/,
    );
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
    const csv = toCsv(m, shown).split('\r\n');
    expect(csv[0]).toBe('Name,Operator,Grid,Block,Registers per thread,Shared memory (bytes),Calls,Tensor Cores used,Total (us),Mean (us),Min (us),Max (us)');
    expect(csv[1]).toBe('sm80_xmma_gemm,aten::addmm,"[3136, 1, 1]","[128, 1, 1]",128,16384,1,Yes,20,20,20,20');
    expect(csv.length).toBe(3);
  });
});
