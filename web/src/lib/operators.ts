// The Operators view's data: the table is the core's answer (Session.query('operators'), its
// columns transferred from the worker as they are: no JSON, no copy), read in place by the data
// table; a row's detail is two answers of the same parameters (operator_detail: its calls by call
// stack; operator_kernels: the kernels its calls launched), read in place too.
import type { Answer } from '../generated/views';
import { stringColumn } from './answer';
import type { Column, TableModel } from './table-model';
import { TRI_NULL, uniqueKeys } from './json-check';
import { flopColumnsOf, flopTableColumns, type FlopColumns } from './flop-columns';

export type OpGroupBy = 'op' | 'op+shape' | 'op+stack';
export const OP_GROUP_BYS: readonly OpGroupBy[] = ['op', 'op+shape', 'op+stack'];

export interface OperatorTable {
  groupBy: OpGroupBy;
  /** The trace has GPU work: the device and Tensor Core columns mean something. */
  showGpu: boolean;
  rowCount: number;
  /** Row keys: the name, plus the input shape when grouped by shape. */
  keys: string[];
  name: string[];
  /** null in "op" grouping. */
  inputShape: (string | null)[];
  /** "op+stack" grouping only: the call stack ("a;b;c", innermost first; "" for the calls without one), else null. */
  callStack: (string | null)[];
  calls: Float64Array;
  hostSelfUs: Float64Array;
  hostTotalUs: Float64Array;
  /** NaN where the core wrote null. */
  deviceSelfUs: Float64Array;
  deviceTotalUs: Float64Array;
  tcSelfPct: Float64Array;
  tcTotalPct: Float64Array;
  /** 1 yes, 0 no, TRI_NULL unknown (a compiled region: what it runs does not show). */
  tcEligible: Uint8Array;
  /** 1: some call of the group has a call stack. */
  hasCallStack: Uint8Array;
  /** The FLOPs columns (issue 25), when the trace has counted calls. */
  flops: FlopColumns | null;
}

/** The key of an operator group; also how the page names it in data-name. */
export function operatorKey(name: string, inputShape: string | null): string {
  return inputShape == null ? name : `${name} ${inputShape}`;
}

/** What names a row within its name: its input shape (op+shape), its call stack (op+stack), or "". */
export function groupKeyOf(t: OperatorTable, row: number): string {
  if (t.groupBy === 'op+shape') return t.inputShape[row] ?? '';
  if (t.groupBy === 'op+stack') return t.callStack[row] ?? '';
  return '';
}

/** A call stack in one line, innermost frame first. */
export function stackLine(stack: string): string {
  const f = framesOf(stack);
  return f.length ? f.join(' ← ') : '(no call stack)';
}

/**
 * The table from the core's answer (Session.query('operators')): its number columns are the
 * answer's own buffers, its string columns read through the answer's strings.
 */
export function operatorTable(a: Answer<'operators'>): OperatorTable {
  const c = a.columns;
  const n = a.rowCount;
  const groupBy = a.meta.group_by;
  const t: OperatorTable = {
    groupBy,
    showGpu: a.meta.show_gpu,
    rowCount: n,
    keys: [],
    name: stringColumn(c.name, a.strings) as string[],
    inputShape: stringColumn(c.input_shape, a.strings),
    callStack: c.call_stack ? stringColumn(c.call_stack, a.strings) : new Array<string | null>(n).fill(null),
    calls: c.calls,
    hostSelfUs: c.host_self_us,
    hostTotalUs: c.host_total_us,
    deviceSelfUs: c.device_self_us,
    deviceTotalUs: c.device_total_us,
    tcSelfPct: c.tc_self_pct,
    tcTotalPct: c.tc_total_pct,
    tcEligible: c.tc_eligible,
    hasCallStack: c.has_call_stack,
    flops: flopColumnsOf(c, a.strings),
  };
  t.keys = uniqueKeys(t.name.map((nm, i) => operatorKey(nm, groupBy === 'op' ? null : groupKeyOf(t, i))));
  return t;
}

export interface StackRow {
  /** The frames as the trace lists them ("a;b;c" split on ";": innermost first). */
  frames: string[];
  calls: number;
  hostSelfUs: number;
  hostTotalUs: number;
  deviceSelfUs: number;
  deviceTotalUs: number;
  tcSelfPct: number;
  tcTotalPct: number;
}

/** The stacks worth showing: those with at least one frame (an empty stack is "none recorded"). */
export function recordedStacks(rows: StackRow[]): StackRow[] {
  return rows.filter((r) => r.frames.length > 0);
}

/** A call stack as the trace holds it ("a.py(1): f;b.py(2): g"), as its frames. */
export function framesOf(stack: string): string[] {
  return stack.split(';').filter((f) => f.trim() !== '');
}

/** Calls of a group that have no call stack, and why (one sentence, as the CLI prints it). */
export interface NoStackCalls {
  reason: string;
  text: string;
  calls: number;
}

/** An operator group's detail: the kernels its calls launched themselves, and its call stacks. */
export interface OperatorDetail {
  kernels: { count: number; name: string[]; calls: Float64Array; totalUs: Float64Array; tensorCores: Uint8Array };
  stacks: StackRow[];
  /** Where the stacks come from: "call_stack" args (PyTorch 1.x), "python_function" frames (2.x), or "none". */
  stackSource: string;
  noStack: NoStackCalls[];
}

/** A row's detail from its two answers (operator_detail: the calls by stack; operator_kernels). */
export function operatorDetail(stacks: Answer<'operator_detail'>, kernels: Answer<'operator_kernels'>): OperatorDetail {
  const c = stacks.columns;
  const frames = stringColumn(c.call_stack, stacks.strings);
  const rows: StackRow[] = [];
  for (let i = 0; i < stacks.rowCount; i++) {
    rows.push({
      frames: framesOf(frames[i] ?? ''),
      calls: c.calls[i],
      hostSelfUs: c.host_self_us[i],
      hostTotalUs: c.host_total_us[i],
      deviceSelfUs: c.device_self_us[i],
      deviceTotalUs: c.device_total_us[i],
      tcSelfPct: c.tc_self_pct[i],
      tcTotalPct: c.tc_total_pct[i],
    });
  }
  const k = kernels.columns;
  return {
    kernels: {
      count: kernels.rowCount,
      name: stringColumn(k.name, kernels.strings) as string[],
      calls: k.calls,
      totalUs: k.total_us,
      tensorCores: k.tensor_cores,
    },
    stacks: rows,
    stackSource: stacks.meta.stack_source,
    noStack: stacks.meta.no_stack,
  };
}

// --- table -------------------------------------------------------------------------------

const usFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const pctFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A duration in a column headed "(us)": grouped, at most two decimals; "—" when unknown. */
export function formatUsCell(v: number | string): string {
  const x = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(x) && v !== '' ? usFmt.format(x) : '—';
}

/** A percentage in a column headed "(%)": two decimals; "—" when unknown. */
export function formatPctCell(v: number | string): string {
  const x = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(x) && v !== '' ? pctFmt.format(x) : '—';
}

/** A three-state Tensor Core value as a table shows it: "Yes", "No", or "?" (unknown). */
export function tcText(tri: number): string {
  return tri === TRI_NULL ? '?' : tri ? 'Yes' : 'No';
}

/**
 * A three-state Tensor Core column: its raw value (sorted, and in the CSV) is "Yes", "No" or ""
 * (unknown: no value, as the CSV has always written it); the cell shows "?" for unknown, with
 * `title` as its hover text.
 */
export function tcColumn(id: string, label: string, header: string, values: Uint8Array, title: (i: number) => string, width: number): Column {
  return {
    id,
    label,
    header,
    type: 'text',
    searchable: false,
    value: (i) => (values[i] === TRI_NULL ? '' : values[i] ? 'Yes' : 'No'),
    format: (_v, i) => tcText(values[i]),
    title,
    width,
  };
}

export const usColumn = (id: string, label: string, values: Float64Array, width = 88): Column => ({
  id,
  label,
  type: 'number',
  unit: 'us',
  unitInHeader: true,
  format: formatUsCell,
  value: (i) => values[i],
  width,
});

export const pctColumn = (id: string, label: string, values: Float64Array, width = 80): Column => ({
  id,
  label,
  type: 'number',
  unit: 'percent',
  unitInHeader: true,
  format: formatPctCell,
  value: (i) => values[i],
  width,
});

/** What an operator's Tensor Core eligibility means, for the cell's hover text. */
export function tcEligibleText(tri: number): string {
  if (tri === TRI_NULL) return 'Unknown: a compiled region; what it runs does not show in its name';
  return tri ? 'Could use Tensor Cores (a matrix multiplication or convolution, or it launched Tensor Core kernels)' : 'Not an operator that uses Tensor Cores';
}

/**
 * The columns of the operator table: Name, [Input shape], Calls, then the device columns and the
 * Tensor Core ones only when the trace has GPU work, the host ones always. Name (and input shape)
 * have no fixed width: they take the room the number columns leave.
 */
export function operatorColumns(t: OperatorTable): Column[] {
  const cols: Column[] = [{ id: 'name', label: 'Name', type: 'text', value: (i) => t.name[i], grow: 3, minWidth: 180 }];
  if (t.groupBy === 'op+shape') {
    cols.push({ id: 'input_shape', label: 'Input shape', type: 'text', searchable: false, value: (i) => t.inputShape[i] ?? '', grow: 2, minWidth: 120 });
  }
  if (t.groupBy === 'op+stack') {
    cols.push({
      id: 'call_stack',
      label: 'Call stack (innermost first)',
      type: 'text',
      value: (i) => stackLine(t.callStack[i] ?? ''),
      title: (i) => framesOf(t.callStack[i] ?? '').join('\n') || 'No call stack',
      grow: 4,
      minWidth: 200,
    });
  }
  cols.push({ id: 'calls', label: 'Calls', type: 'number', unit: 'count', value: (i) => t.calls[i], width: 64 });
  if (t.showGpu) {
    cols.push(usColumn('device_self_us', 'Device self', t.deviceSelfUs), usColumn('device_total_us', 'Device total', t.deviceTotalUs));
  }
  cols.push(usColumn('host_self_us', 'Host self', t.hostSelfUs), usColumn('host_total_us', 'Host total', t.hostTotalUs));
  if (t.showGpu) {
    cols.push(
      tcColumn('tc_eligible', 'Tensor Cores eligible', 'TC eligible', t.tcEligible, (i) => tcEligibleText(t.tcEligible[i]), 76),
      pctColumn('tc_self_pct', 'TC self', t.tcSelfPct),
      pctColumn('tc_total_pct', 'TC total', t.tcTotalPct),
    );
  }
  if (t.flops) cols.push(...flopTableColumns(t.flops));
  return cols;
}

export function operatorsModel(t: OperatorTable): TableModel {
  return { rowCount: t.rowCount, rowKey: (i) => t.keys[i], columns: operatorColumns(t) };
}

/** The duration columns the pies show, in the view's order (device ones only with GPU work). */
export function operatorPieColumns(t: OperatorTable): { id: string; label: string; values: Float64Array }[] {
  const host = [
    { id: 'host_self_us', label: 'Host self time', values: t.hostSelfUs },
    { id: 'host_total_us', label: 'Host total time', values: t.hostTotalUs },
  ];
  if (!t.showGpu) return host;
  return [
    { id: 'device_self_us', label: 'Device self time', values: t.deviceSelfUs },
    { id: 'device_total_us', label: 'Device total time', values: t.deviceTotalUs },
    ...host,
  ];
}

/** The typed arrays of a table or detail (also in its column groups), to transfer them (not copy) from the worker. */
export function transferables(t: object): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const walk = (o: object) => {
    for (const v of Object.values(o)) {
      if (ArrayBuffer.isView(v)) out.add(v.buffer as ArrayBuffer);
      else if (v && typeof v === 'object' && !Array.isArray(v)) walk(v);
    }
  };
  walk(t);
  return [...out];
}
