// The Kernels view's data: Session.kernelsJson, checked and turned into columns in the worker
// (see operators.ts for why columns).
import type { Column, TableModel } from './data-table';
import { Reader, uniqueKeys } from './json-check';
import { pctColumn, usColumn, yesNo } from './operators';

export type KernelGroupBy = 'name' | 'props';
export const KERNEL_GROUP_BYS: readonly KernelGroupBy[] = ['name', 'props'];

export interface KernelTable {
  groupBy: KernelGroupBy;
  rowCount: number;
  keys: string[];
  name: string[];
  /** The rest of the group's identity in "props" grouping; null (NaN) in "name" grouping. */
  operator: (string | null)[];
  /** "[3136, 1, 1]" */
  grid: (string | null)[];
  block: (string | null)[];
  registersPerThread: Float64Array;
  sharedMemory: Float64Array;
  calls: Float64Array;
  /** 1 when the kernel ran on Tensor Cores. */
  tensorCores: Uint8Array;
  /** The launching operator is Tensor Core eligible: 1/0, TRI_NULL unknown. */
  opTcEligible: Uint8Array;
  totalUs: Float64Array;
  meanUs: Float64Array;
  minUs: Float64Array;
  maxUs: Float64Array;
  blocksPerSm: Float64Array;
  occupancyPct: Float64Array;
  /** Whether any row has the value: the column is hidden otherwise. */
  hasBlocksPerSm: boolean;
  hasOccupancy: boolean;
  /** Kernel time on Tensor Cores and in all; null when the trace has no kernels. */
  tensorCoreTime: { tcUs: number; totalUs: number } | null;
}

function dims(v: number[] | null): string | null {
  return v ? `[${v.join(', ')}]` : null;
}

export function kernelKey(t: KernelTable, i: number): string {
  if (t.groupBy === 'name') return t.name[i];
  const f = (v: number) => (Number.isNaN(v) ? '' : String(v));
  return [t.name[i], t.operator[i] ?? '', t.grid[i] ?? '', t.block[i] ?? '', f(t.registersPerThread[i]), f(t.sharedMemory[i])].join(' ');
}

export function parseKernels(json: string): KernelTable {
  const root = Reader.parse('kernelsJson', json);
  const groupBy = root.oneOf('group_by', KERNEL_GROUP_BYS);
  const rows = root.field('rows').items();
  const n = rows.length;
  const t: KernelTable = {
    groupBy,
    rowCount: n,
    keys: [],
    name: new Array(n),
    operator: new Array(n),
    grid: new Array(n),
    block: new Array(n),
    registersPerThread: new Float64Array(n),
    sharedMemory: new Float64Array(n),
    calls: new Float64Array(n),
    tensorCores: new Uint8Array(n),
    opTcEligible: new Uint8Array(n),
    totalUs: new Float64Array(n),
    meanUs: new Float64Array(n),
    minUs: new Float64Array(n),
    maxUs: new Float64Array(n),
    blocksPerSm: new Float64Array(n),
    occupancyPct: new Float64Array(n),
    hasBlocksPerSm: false,
    hasOccupancy: false,
    tensorCoreTime: null,
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i].object();
    t.name[i] = r.str('name');
    t.operator[i] = r.strOrNull('operator');
    t.grid[i] = dims(r.tupleOrNull('grid', 3));
    t.block[i] = dims(r.tupleOrNull('block', 3));
    t.registersPerThread[i] = r.numOrNaN('registers_per_thread');
    t.sharedMemory[i] = r.numOrNaN('shared_memory');
    t.calls[i] = r.num('calls');
    t.tensorCores[i] = r.bool('tensor_cores') ? 1 : 0;
    t.opTcEligible[i] = r.tri('op_tc_eligible');
    t.totalUs[i] = r.num('total_us');
    t.meanUs[i] = r.num('mean_us');
    t.minUs[i] = r.num('min_us');
    t.maxUs[i] = r.num('max_us');
    t.blocksPerSm[i] = r.numOrNaN('blocks_per_sm');
    t.occupancyPct[i] = r.numOrNaN('occupancy_pct');
    if (!Number.isNaN(t.blocksPerSm[i])) t.hasBlocksPerSm = true;
    if (!Number.isNaN(t.occupancyPct[i])) t.hasOccupancy = true;
  }
  const tc = root.field('tensor_cores');
  if (!tc.isNull()) {
    tc.object();
    t.tensorCoreTime = { tcUs: tc.num('tc_us'), totalUs: tc.num('total_us') };
  }
  t.keys = uniqueKeys(Array.from({ length: n }, (_, i) => kernelKey(t, i)));
  return t;
}

const numCol = (id: string, label: string, values: Float64Array, width: string, format?: (v: number | string) => string): Column => ({
  id,
  label,
  type: 'number',
  unit: 'count',
  value: (i) => values[i],
  width,
  ...(format ? { format } : {}),
});

const blocksFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * The columns of the kernel table: Name, the properties and operator in "props" grouping, Calls,
 * Tensor Cores used, the durations, and the blocks-per-SM and occupancy columns when the trace has
 * those values.
 */
export function kernelColumns(t: KernelTable): Column[] {
  const cols: Column[] = [{ id: 'name', label: 'Name', type: 'text', value: (i) => t.name[i], width: t.groupBy === 'props' ? '14em' : '13em' }];
  if (t.groupBy === 'props') {
    cols.push(
      { id: 'operator', label: 'Operator', type: 'text', value: (i) => t.operator[i] ?? '', width: '10em' },
      { id: 'grid', label: 'Grid', type: 'text', searchable: false, value: (i) => t.grid[i] ?? '', width: '8em' },
      { id: 'block', label: 'Block', type: 'text', searchable: false, value: (i) => t.block[i] ?? '', width: '8em' },
      numCol('registers_per_thread', 'Registers per thread', t.registersPerThread, '6.5em'),
      { ...numCol('shared_memory', 'Shared memory', t.sharedMemory, '7em'), label: 'Shared memory (bytes)' },
    );
  }
  cols.push(
    numCol('calls', 'Calls', t.calls, '5.5em'),
    { id: 'tensor_cores', label: 'Tensor Cores used', type: 'text', searchable: false, value: (i) => yesNo(t.tensorCores[i]), width: '6em' },
    usColumn('total_us', 'Total', t.totalUs),
    usColumn('mean_us', 'Mean', t.meanUs, '6em'),
    usColumn('min_us', 'Min', t.minUs, '6em'),
    usColumn('max_us', 'Max', t.maxUs, '6em'),
  );
  if (t.hasBlocksPerSm) {
    cols.push(numCol('blocks_per_sm', 'Mean blocks per SM', t.blocksPerSm, '7em', (v) => (Number.isFinite(Number(v)) ? blocksFmt.format(Number(v)) : '—')));
  }
  if (t.hasOccupancy) cols.push(pctColumn('occupancy_pct', 'Mean est. achieved occupancy', t.occupancyPct, '7em'));
  return cols;
}

export function kernelsModel(t: KernelTable): TableModel {
  return { rowCount: t.rowCount, rowKey: (i) => t.keys[i], columns: kernelColumns(t) };
}
