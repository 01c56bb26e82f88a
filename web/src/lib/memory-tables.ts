// The Memory view's two tables as table models (lib/table-model.ts): the statistics per operator
// and the allocation events, with bytes and times formatted as the view shows them.
import type { Column, TableModel } from './table-model';
import { formatMemBytes, formatMemMs, type MemoryEvents, type MemoryStats } from './memory';

const bytesCol = (id: string, label: string, values: Float64Array, header?: string): Column => ({
  id,
  label,
  header,
  type: 'number',
  unit: 'bytes',
  width: 118,
  value: (i) => values[i],
  format: (v) => formatMemBytes(Number(v)),
});
const countCol = (id: string, label: string, values: Float64Array, header?: string): Column => ({
  id,
  label,
  header,
  type: 'number',
  unit: 'count',
  width: 100,
  value: (i) => values[i],
});
const msCol = (id: string, label: string, values: Float64Array): Column => ({
  id,
  label,
  type: 'number',
  unit: 'us',
  width: 130,
  value: (i) => values[i],
  format: (v) => (Number.isFinite(Number(v)) ? formatMemMs(Number(v)) : ''),
});

export function statsModel(s: MemoryStats): TableModel {
  return {
    rowCount: s.rowCount,
    rowKey: (i) => s.name[i],
    columns: [
      { id: 'name', label: 'Operator', type: 'text', value: (i) => s.name[i], minWidth: 160 },
      countCol('calls', 'Calls', s.calls),
      bytesCol('size_increase', 'Size increase', s.sizeIncrease, 'Increase'),
      bytesCol('self_size_increase', 'Self size increase', s.selfSizeIncrease, 'Self increase'),
      countCol('allocation_count', 'Allocation count', s.allocationCount, 'Allocations'),
      countCol('self_allocation_count', 'Self allocation count', s.selfAllocationCount, 'Self allocs'),
      bytesCol('allocation_size', 'Allocation size', s.allocationSize, 'Alloc size'),
      bytesCol('self_allocation_size', 'Self allocation size', s.selfAllocationSize, 'Self alloc size'),
    ],
  };
}

export function eventsModel(e: MemoryEvents): TableModel {
  return {
    rowCount: e.rowCount,
    rowKey: (i) => i,
    columns: [
      { id: 'operator', label: 'Operator', type: 'text', value: (i) => e.strings[e.op[i]] ?? '', minWidth: 160 },
      bytesCol('size', 'Size', e.size),
      msCol('alloc_us', 'Allocation time', e.allocUs),
      msCol('release_us', 'Release time', e.releaseUs),
      msCol('duration_us', 'Duration', e.durationUs),
    ],
  };
}
