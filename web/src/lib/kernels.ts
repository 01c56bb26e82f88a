// The Kernels view's data: the table is the core's answer (Session.query('kernels'), its columns
// transferred as they are, see operators.ts); a row's detail is three answers of the same
// parameters (kernel_detail: the row's numbers and call stacks; kernel_operators;
// kernel_launches), read in place.
import { NULL_I32, type Answer } from '../generated/views';
import { stringColumn } from './answer';
import type { Column, TableModel } from './table-model';
import { TRI_NULL, uniqueKeys } from './json-check';
import { pctColumn, tcColumn, usColumn } from './operators';
import { flopColumnsOf, flopTableColumns, KERNEL_HOW, type FlopColumns } from './flop-columns';
import { OTHER_COLOR, PIE_COLORS } from './pie';

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
  /** Whether the kernel ran on Tensor Cores: 1 yes, 0 no, TRI_NULL unknown (its name does not tell). */
  tensorCores: Uint8Array;
  /** The rule of the core's Tensor Core table that decided it (null: the core names none). */
  tensorCoresRule: (string | null)[];
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
  /**
   * Kernel time on Tensor Cores, of unknown use, and in all (of the step when the table is one
   * step's); null when the trace has no kernels.
   */
  tensorCoreTime: TensorCoreTime | null;
  /** The FLOPs columns (issue 25), when the trace has counted calls. */
  flops: FlopColumns | null;
}

export interface TensorCoreTime {
  tcUs: number;
  unknownUs: number;
  totalUs: number;
  /** "Tensor Cores", or "Matrix Cores" on AMD. */
  term: string;
  /** The core's sentence saying which kernels these figures cover. */
  scope: string | null;
}

export function kernelKey(t: KernelTable, i: number): string {
  if (t.groupBy === 'name') return t.name[i];
  const f = (v: number) => (Number.isNaN(v) ? '' : String(v));
  return [t.name[i], t.operator[i] ?? '', t.grid[i] ?? '', t.block[i] ?? '', f(t.registersPerThread[i]), f(t.sharedMemory[i])].join(' ');
}

/** "[3136, 1, 1]" of row i of an i32x3 column; null when not recorded (or in "name" grouping). */
function dimsText(v: Int32Array, i: number): string | null {
  return v[3 * i] === NULL_I32 ? null : `[${v[3 * i]}, ${v[3 * i + 1]}, ${v[3 * i + 2]}]`;
}

/** An i32 column as numbers, NaN where the core has none. */
function i32Numbers(v: Int32Array): Float64Array {
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] === NULL_I32 ? NaN : v[i];
  return out;
}

/**
 * The table from the core's answer (Session.query('kernels')): its number columns are the
 * answer's own buffers, its string columns read through the answer's strings.
 */
export function kernelTable(a: Answer<'kernels'>): KernelTable {
  const c = a.columns;
  const n = a.rowCount;
  const tc = a.meta.tensor_cores;
  const t: KernelTable = {
    groupBy: a.meta.group_by,
    rowCount: n,
    keys: [],
    name: stringColumn(c.name, a.strings) as string[],
    operator: stringColumn(c.operator, a.strings),
    grid: Array.from({ length: n }, (_, i) => dimsText(c.grid, i)),
    block: Array.from({ length: n }, (_, i) => dimsText(c.block, i)),
    registersPerThread: i32Numbers(c.registers_per_thread),
    sharedMemory: i32Numbers(c.shared_memory),
    calls: c.calls,
    tensorCores: c.tensor_cores,
    tensorCoresRule: stringColumn(c.tensor_cores_rule, a.strings),
    opTcEligible: c.op_tc_eligible,
    totalUs: c.total_us,
    meanUs: c.mean_us,
    minUs: c.min_us,
    maxUs: c.max_us,
    blocksPerSm: c.blocks_per_sm,
    occupancyPct: c.occupancy_pct,
    hasBlocksPerSm: c.blocks_per_sm.some((v) => !Number.isNaN(v)),
    hasOccupancy: c.occupancy_pct.some((v) => !Number.isNaN(v)),
    tensorCoreTime: tc && { tcUs: tc.tc_us, unknownUs: tc.unknown_us, totalUs: tc.total_us, term: tc.term || 'Tensor Cores', scope: tc.scope },
    flops: flopColumnsOf(c, a.strings),
  };
  t.keys = uniqueKeys(Array.from({ length: n }, (_, i) => kernelKey(t, i)));
  return t;
}

const numCol = (id: string, label: string, values: Float64Array, width: number, format?: (v: number | string) => string): Column => ({
  id,
  label,
  type: 'number',
  unit: 'count',
  value: (i) => values[i],
  width,
  ...(format ? { format } : {}),
});

const blocksFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "[3136, 1, 1]" -> [3136, 1, 1]; not recorded (null) -> [0, 0, 0], as the core keys it. */
export function dimsOf(text: string | null): number[] {
  if (!text) return [0, 0, 0];
  const v = text.slice(1, -1).split(',').map((x) => Number(x));
  return v.length === 3 && v.every(Number.isFinite) ? v : [0, 0, 0];
}

/** The hover text of a Tensor Core cell: the rule that decided it, or what the state means. */
export function tcRuleText(tri: number, rule: string | null, term = 'Tensor Cores'): string {
  if (rule) return rule;
  return tri === TRI_NULL ? 'Unknown: the kernel name does not tell' : tri ? `Uses ${term}` : `Does not use ${term}`;
}

/** The operator the core names for a kernel that no operator launched. */
export const NO_OPERATOR = 'N/A';
export const NO_OPERATOR_WHY = 'No operator launched it: its launch is not in the trace, or no operator was running on the launching thread';
/** Why a kernel row has no occupancy (core/analysis/gpu_metrics.h, kernel_occupancy). */
export const NO_OCCUPANCY_WHY =
  'Not recorded: Kineto writes 0 when it cannot compute the occupancy, as for every cluster launch (cuBLAS nvjet, cuDNN and CUTLASS/xmma kernels on Hopper); such kernels are left out of the means';

/**
 * The columns of the kernel table: Name, the properties and operator in "props" grouping, Calls,
 * Tensor Cores used, the durations, and the blocks-per-SM and occupancy columns when the trace has
 * those values. Names (and operators) have no fixed width: they take the room the others leave.
 * In "props" grouping the row's identity (name, operator, launch properties) comes first: Mean,
 * Min, Max, blocks per SM and occupancy start hidden there, so that names still get room at
 * ~1100 px; the Columns menu shows them, and the detail panel always has them.
 */
export function kernelColumns(t: KernelTable): Column[] {
  const props = t.groupBy === 'props';
  const term = t.tensorCoreTime?.term ?? 'Tensor Cores';
  const cols: Column[] = [{ id: 'name', label: 'Name', type: 'text', value: (i) => t.name[i], grow: 2, minWidth: 180 }];
  if (props) {
    cols.push(
      {
        id: 'operator',
        label: 'Operator',
        type: 'text',
        value: (i) => t.operator[i] ?? '',
        // The core names a kernel no operator launched "N/A" (the CLI's and the CSV's value): shown absent.
        format: (v) => (v === NO_OPERATOR ? '—' : String(v)),
        title: (i) => (t.operator[i] === NO_OPERATOR ? NO_OPERATOR_WHY : t.operator[i] ?? ''),
        grow: 1,
        minWidth: 120,
      },
      { id: 'grid', label: 'Grid', type: 'text', searchable: false, value: (i) => t.grid[i] ?? '', width: 100 },
      { id: 'block', label: 'Block', type: 'text', searchable: false, value: (i) => t.block[i] ?? '', width: 92 },
      numCol('registers_per_thread', 'Registers per thread', t.registersPerThread, 92),
      { ...numCol('shared_memory', 'Shared memory', t.sharedMemory, 80), label: 'Shared memory (bytes)' },
    );
  }
  cols.push(
    numCol('calls', 'Calls', t.calls, 64),
    tcColumn('tensor_cores', `${term} used`, term, t.tensorCores, (i) => tcRuleText(t.tensorCores[i], t.tensorCoresRule[i], term), 72),
    usColumn('total_us', 'Total', t.totalUs, 96),
    { ...usColumn('mean_us', 'Mean', t.meanUs, 88), defaultHidden: props },
    { ...usColumn('min_us', 'Min', t.minUs, 80), defaultHidden: props },
    { ...usColumn('max_us', 'Max', t.maxUs, 80), defaultHidden: props },
  );
  if (t.hasBlocksPerSm) {
    cols.push({
      ...numCol('blocks_per_sm', 'Mean blocks per SM', t.blocksPerSm, 80, (v) => (Number.isFinite(Number(v)) ? blocksFmt.format(Number(v)) : '—')),
      header: 'Blocks per SM',
      defaultHidden: props,
    });
  }
  if (t.hasOccupancy) {
    cols.push({
      ...pctColumn('occupancy_pct', 'Mean est. achieved occupancy', t.occupancyPct, 96),
      header: 'Est. occupancy (%)',
      defaultHidden: props,
      title: (i) => (Number.isFinite(t.occupancyPct[i]) ? '' : NO_OCCUPANCY_WHY),
    });
  }
  if (t.flops) cols.push(...flopTableColumns(t.flops, KERNEL_HOW));
  return cols;
}

export function kernelsModel(t: KernelTable): TableModel {
  return { rowCount: t.rowCount, rowKey: (i) => t.keys[i], columns: kernelColumns(t) };
}

/** The Tensor Core pie: the time on Tensor Cores, of unknown use, and not on them (empty parts left out). */
export function tensorCoreParts(tc: Pick<TensorCoreTime, 'tcUs' | 'unknownUs' | 'totalUs'> & { term?: string }): { label: string; value: number; color: string }[] {
  const term = tc.term ?? 'Tensor Cores';
  const known = Math.max(0, tc.tcUs);
  const unknown = Math.max(0, tc.unknownUs);
  const not = Math.max(0, tc.totalUs - known - unknown);
  return [
    { label: `Using ${term}`, value: known, color: PIE_COLORS[4] },
    { label: 'Unknown', value: unknown, color: PIE_COLORS[5] },
    { label: `Not using ${term}`, value: not, color: OTHER_COLOR },
  ].filter((p) => p.value > 0);
}

// --- a row's detail (the kernel_detail, kernel_operators and kernel_launches answers) ------------

/** The question for the detail of row i: its name, and in "props" grouping its operator and properties. */
export function kernelDetailKey(t: KernelTable, i: number): { groupBy: KernelGroupBy; name: string; operator: string; props: number[] } {
  if (t.groupBy === 'name') return { groupBy: 'name', name: t.name[i], operator: '', props: [] };
  const whole = (v: number) => (Number.isFinite(v) ? v : 0);
  return {
    groupBy: 'props',
    name: t.name[i],
    operator: t.operator[i] ?? '',
    props: [...dimsOf(t.grid[i]), ...dimsOf(t.block[i]), whole(t.registersPerThread[i]), whole(t.sharedMemory[i])],
  };
}

export interface KernelDetail {
  calls: number;
  totalUs: number;
  /** NaN when the row has no kernel in the step asked. */
  meanUs: number;
  minUs: number;
  maxUs: number;
  blocksPerSm: number;
  occupancyPct: number;
  /** The nodes that launched it ("N/A": none recorded), time descending. */
  operators: { count: number; name: string[]; calls: Float64Array; totalUs: Float64Array };
  /** Its distinct launch properties; grid/block as "[x, y, z]" ('' when not recorded). */
  launches: {
    count: number;
    grid: string[];
    block: string[];
    registersPerThread: Float64Array;
    sharedMemory: Float64Array;
    blocksPerSm: Float64Array;
    occupancyPct: Float64Array;
    calls: Float64Array;
    totalUs: Float64Array;
  };
  /** The call stacks of the operators that launched it ("a;b;c", outermost first). */
  stacks: { count: number; operator: string[]; callStack: string[]; calls: Float64Array; totalUs: Float64Array };
  /** The trace's stacks are its python_function frames (PyTorch 2.x with_stack=True), not "Call stack" args. */
  stacksFromPythonFrames: boolean;
}

/** The parameters of a row's detail answers (kernel_detail, kernel_operators, kernel_launches). */
export function kernelDetailParams(q: { groupBy: KernelGroupBy; name: string; operator: string; props: number[] }, step: string): Record<string, string> {
  const p: Record<string, string> = { group_by: q.groupBy, name: q.name, step };
  if (q.groupBy === 'props') {
    const v = (i: number) => String(Math.trunc(q.props[i] ?? 0) || 0);
    Object.assign(p, {
      operator: q.operator,
      grid: [0, 1, 2].map(v).join(','),
      block: [3, 4, 5].map(v).join(','),
      registers: v(6),
      shared_memory: v(7),
    });
  }
  return p;
}

/** A row's detail from its three answers: their columns read in place, the row's numbers from the metadata. */
export function kernelDetail(
  stacks: Answer<'kernel_detail'>,
  operators: Answer<'kernel_operators'>,
  launches: Answer<'kernel_launches'>,
): KernelDetail {
  const m = stacks.meta;
  const l = launches.columns;
  const texts = (n: number, col: Int32Array) => Array.from({ length: n }, (_, i) => dimsText(col, i) ?? '');
  const nan = (v: number | null) => v ?? NaN;
  return {
    calls: m.calls,
    totalUs: m.total_us,
    meanUs: nan(m.mean_us),
    minUs: nan(m.min_us),
    maxUs: nan(m.max_us),
    blocksPerSm: nan(m.blocks_per_sm),
    occupancyPct: nan(m.occupancy_pct),
    operators: {
      count: operators.rowCount,
      name: stringColumn(operators.columns.name, operators.strings) as string[],
      calls: operators.columns.calls,
      totalUs: operators.columns.total_us,
    },
    launches: {
      count: launches.rowCount,
      grid: texts(launches.rowCount, l.grid),
      block: texts(launches.rowCount, l.block),
      registersPerThread: Float64Array.from(l.registers_per_thread),
      sharedMemory: Float64Array.from(l.shared_memory),
      blocksPerSm: l.blocks_per_sm,
      occupancyPct: l.occupancy_pct,
      calls: l.calls,
      totalUs: l.total_us,
    },
    stacks: {
      count: stacks.rowCount,
      operator: stringColumn(stacks.columns.operator, stacks.strings) as string[],
      callStack: stringColumn(stacks.columns.call_stack, stacks.strings) as string[],
      calls: stacks.columns.calls,
      totalUs: stacks.columns.total_us,
    },
    stacksFromPythonFrames: m.stacks_from_python_frames,
  };
}
