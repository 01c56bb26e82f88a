// A data table's model over a view's answer (docs/contracts.md "Session and answers"): the
// answer's typed columns read in place, one table column per schema column the view shows,
// formatted by the column's unit (generated/views.ts): µs and percentages as bare numbers under a
// header naming the unit, as the Operators and Ranges tables show them. A view's table needs no
// model of its own.
import { NULL_I32, NULL_STRING, type Answer, type ColumnSpec, type ViewName } from '../generated/views';
import { formatPctCell, formatUsCell } from './operators';
import type { Column, NumberUnit, RowKey, TableModel } from './table-model';

/** A schema column as the table shows it; the rest of the Column's fields as a table column's. */
export type AnswerColumnView = Omit<Column, 'id' | 'type' | 'value' | 'unit'> & {
  /** The schema column (its name). */
  name: string;
};

const UNITS: Record<string, NumberUnit> = { us: 'us', ns: 'ns', ms: 'ms', percent: 'percent', count: 'count', bytes: 'bytes' };

/**
 * The table of answer `a`: the columns `shown` (in that order; one the answer has no values for
 * is left out), read through `specs` (the view's generated column list); rows keyed by `key`.
 */
export function answerTable<V extends ViewName>(
  a: Answer<V>,
  specs: readonly ColumnSpec[],
  shown: readonly AnswerColumnView[],
  key: (row: number) => RowKey,
): TableModel {
  const cols = a.columns as unknown as Record<string, ArrayLike<number> | undefined>;
  const columns: Column[] = [];
  for (const { name, ...view } of shown) {
    const spec = specs.find((s) => s.name === name);
    const values = cols[name];
    if (!spec || !values || a.absent.includes(name)) continue;
    const base = { ...view, id: name };
    switch (spec.type) {
      case 'string':
        columns.push({ ...base, type: 'text', value: (i) => (values[i] === NULL_STRING ? '' : a.strings[values[i]]) });
        break;
      case 'tri':
      case 'bool':
        columns.push({ ...base, type: 'text', value: (i) => (values[i] === 1 ? 'yes' : values[i] === 0 ? 'no' : '?') });
        break;
      case 'i32':
        columns.push({ ...base, type: 'number', unit: UNITS[spec.unit] ?? 'count', value: (i) => (values[i] === NULL_I32 ? NaN : values[i]) });
        break;
      case 'f64':
      case 'count': {
        const bare = spec.unit === 'us' ? formatUsCell : spec.unit === 'percent' ? formatPctCell : null;
        columns.push({
          ...(bare ? { unitInHeader: true, format: bare } : {}),
          ...base,
          type: 'number',
          unit: UNITS[spec.unit] ?? 'count',
          value: (i) => values[i],
        });
        break;
      }
      case 'i32x3':
        columns.push({ ...base, type: 'text', value: (i) => (values[3 * i] === NULL_I32 ? '' : `[${values[3 * i]}, ${values[3 * i + 1]}, ${values[3 * i + 2]}]`) });
        break;
    }
  }
  return { rowCount: a.rowCount, rowKey: key, columns };
}
