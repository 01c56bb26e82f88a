// The Ranges view's data (issue 22 §3): the user's record_function ranges as a tree. The table is
// the core's answer (Session.query('ranges'): its columns as ks::range_columns() declares them,
// transferred from the worker as they are), read in place; a row's kernels too (range_kernels).
import type { Answer } from '../generated/views';
import { stringColumn } from './answer';
import type { Column, NumberUnit, TableModel } from './table-model';
import { TRI_NULL } from './json-check';
import { shortName } from './modules';
import { formatPctCell, formatUsCell } from './operators';

/**
 * The number columns as the page shows them: each read from the core's answer under its core name
 * (ks::range_columns(), the JSON keys of `kinetoscope ranges --json`), shown with this label,
 * unit and hover text. `hideWithoutGpu`: only with device work; `copies`: only when the trace has
 * GPU-side copies.
 */
export const RANGE_COLUMNS = [
  { id: 'calls', label: 'Calls', unit: 'count', width: 64, help: 'Calls of the range at this place in the tree, over the whole trace (all steps and threads)' },
  { id: 'host_us', label: 'Host total', unit: 'us', width: 96, help: 'Σ duration of the calls on their thread' },
  { id: 'self_host_us', label: 'Host self', unit: 'us', width: 96, help: 'Host total minus the ranges inside it' },
  {
    id: 'device_us',
    label: 'Device total',
    unit: 'us',
    width: 104,
    gpu: true,
    help: "Kernels, memcpys and memsets launched by the range's own thread while it was open (ranges inside included), wherever and whenever they ran. Work launched by other threads (the autograd thread in loss.backward()) is not in it.",
  },
  { id: 'self_device_us', label: 'Device self', unit: 'us', width: 96, gpu: true, help: 'Device time launched while no inner range was open' },
  {
    id: 'tensor_core_pct',
    label: 'Tensor Cores',
    header: 'TC (%)',
    unit: 'percent',
    width: 72,
    gpu: true,
    help: 'Share of the device total’s kernel time in kernels that use Tensor Cores (by kernel name, as the Kernels view decides); — without kernels',
  },
  {
    id: 'gpu_range_us',
    label: 'GPU range',
    unit: 'us',
    width: 96,
    copies: true,
    help: 'Σ span of the range’s GPU-side copies (gpu_user_annotation): Kineto writes one per stream, from the first to the last kernel launched under the innermost range; — when it wrote none (a range holding only inner ranges, or launching nothing on its thread)',
  },
  {
    id: 'gpu_range_device_us',
    label: 'GPU range device',
    header: 'In GPU range (us)',
    unit: 'us',
    width: 104,
    copies: true,
    help: 'Device work that started on the copy’s stream inside its span, launched by any thread (a second reading, beside Device total)',
  },
  { id: 'gpu_ranges', label: 'GPU copies', unit: 'count', width: 80, copies: true, hidden: true, help: 'GPU-side copies of the calls' },
  { id: 'first_start_us', label: 'First start', unit: 'us', width: 96, hidden: true, help: 'Start of the first call, from the trace start' },
  { id: 'first_end_us', label: 'First end', unit: 'us', width: 96, hidden: true, help: 'End of the first call, from the trace start' },
] as const satisfies readonly {
  id: string;
  label: string;
  header?: string;
  unit: NumberUnit;
  width: number;
  help: string;
  gpu?: boolean;
  copies?: boolean;
  hidden?: boolean;
}[];

export type RangeColumnId = (typeof RANGE_COLUMNS)[number]['id'];
export type RangeKind = 'range' | 'lightning' | 'optimizer' | 'dataloader' | 'communication';
export const RANGE_KINDS: readonly RangeKind[] = ['range', 'lightning', 'optimizer', 'dataloader', 'communication'];

export interface RangeTable {
  rowCount: number;
  name: string[];
  /** Unique: the path of names from the top ("mixed_precision_matmuls/fp8_scaled_mm"). */
  key: string[];
  kind: RangeKind[];
  /** Row index of the parent, -1 at the top; a parent comes before its children. */
  parent: Int32Array;
  depth: Int32Array;
  /** One array per declared column; NaN: none. */
  values: Record<RangeColumnId, Float64Array>;
  /** User ranges in the trace (ProfilerStep excluded). */
  calls: number;
  showGpu: boolean;
  gpuCopies: boolean;
}

/**
 * The table from the core's answer (Session.query('ranges')): its number columns are the
 * answer's own buffers, its string columns read through the answer's strings.
 */
export function rangeTable(a: Answer<'ranges'>): RangeTable {
  const c = a.columns;
  const values = {} as Record<RangeColumnId, Float64Array>;
  for (const col of RANGE_COLUMNS) values[col.id] = c[col.id];
  const t: RangeTable = {
    rowCount: a.rowCount,
    name: stringColumn(c.name, a.strings) as string[],
    key: stringColumn(c.key, a.strings) as string[],
    kind: stringColumn(c.kind, a.strings) as RangeKind[],
    parent: c.parent,
    depth: c.depth,
    values,
    calls: a.meta.calls,
    showGpu: a.meta.show_gpu,
    gpuCopies: a.meta.gpu_copies,
  };
  // A parent must come before its child (pre-order): anything else would loop the tree.
  for (let i = 0; i < t.rowCount; i++) if (!(t.parent[i] < i)) t.parent[i] = -1;
  return t;
}

const KIND_TEXT: Record<RangeKind, string> = {
  range: 'Range',
  lightning: 'Lightning',
  optimizer: 'Optimizer',
  dataloader: 'DataLoader',
  communication: 'Collective',
};

/** The tree table: Range, Kind, then the declared columns the trace has something for. */
export function rangesModel(t: RangeTable): TableModel {
  const cols: Column[] = [
    // Lightning's names shown as the Module view's flame graph shows them ("[pl][profile]" off,
    // "layer.0 (Linear)"); the full name is the value (searched, sorted, in the CSV) and the hover.
    {
      id: 'name',
      label: 'Range',
      type: 'text',
      value: (i) => t.name[i],
      format: (v, i) => (t.kind[i] === 'lightning' ? shortName(String(v)) : String(v)),
      title: (i) => t.key[i],
      grow: 3,
      minWidth: 200,
    },
    { id: 'kind', label: 'Kind', type: 'text', value: (i) => KIND_TEXT[t.kind[i]], width: 112, searchable: false, title: (i) => kindHelp(t.kind[i]) },
  ];
  for (const c of RANGE_COLUMNS) {
    if ('gpu' in c && c.gpu && !t.showGpu) continue;
    if ('copies' in c && c.copies && !t.gpuCopies) continue;
    const values = t.values[c.id];
    cols.push({
      id: c.id,
      label: c.label,
      ...('header' in c ? { header: c.header } : {}),
      type: 'number',
      unit: c.unit,
      unitInHeader: c.unit !== 'count',
      format: c.unit === 'percent' ? formatPctCell : c.unit === 'us' ? formatUsCell : undefined,
      value: (i) => values[i],
      title: () => c.help,
      width: c.width,
      defaultHidden: 'hidden' in c && c.hidden,
    });
  }
  return { rowCount: t.rowCount, rowKey: (i) => t.key[i], columns: cols, tree: { parent: t.parent } };
}

function kindHelp(k: RangeKind): string {
  switch (k) {
    case 'lightning':
      return "PyTorch Lightning's own range ([pl][profile] or [pl][module])";
    case 'optimizer':
      return "The optimizer's own range (Optimizer.step#…, Optimizer.zero_grad#…)";
    case 'dataloader':
      return "The DataLoader's range (enumerate(DataLoader)#…)";
    case 'communication':
      return 'A collective’s range (nccl:…, gloo:…)';
    default:
      return 'A record_function("…") range';
  }
}

/** The kernels launched in one row (its calls and the ranges inside them), longest first. */
export interface RangeKernels {
  count: number;
  name: string[];
  calls: Float64Array;
  totalUs: Float64Array;
  /** 1 yes, 0 no, TRI_NULL unknown. */
  tensorCores: Uint8Array;
}

/** A row's kernels from its range_kernels answer: the columns read in place. */
export function rangeKernels(a: Answer<'range_kernels'>): RangeKernels {
  const c = a.columns;
  return { count: a.rowCount, name: stringColumn(c.name, a.strings) as string[], calls: c.calls, totalUs: c.total_us, tensorCores: c.tensor_cores };
}

export { TRI_NULL };
