import { useMemo } from 'preact/hooks';
import { rowsModel, type Column } from '../lib/table-model';
import { sortedCounts } from '../lib/summary';
import { DataTable } from './data-table';

interface Props {
  title: string;
  /** Test id stem: rows are `<stem>-row` (data-name), counts `<stem>-count-<name>`. */
  stem: string;
  counts: Record<string, number>;
  /** Name of the exported CSV file. */
  csvName: string;
  emptyLabel?: string;
  hideZero?: boolean;
}

type Row = { name: string; count: number; share: number };

/** A count map (events per category, phase, kind) as a data table, largest first. */
export function CountTable({ title, stem, counts, csvName, emptyLabel = '(none)', hideZero }: Props) {
  const model = useMemo(() => {
    const entries = sortedCounts(counts).filter(([, n]) => !hideZero || n > 0);
    const total = entries.reduce((a, [, n]) => a + n, 0);
    const rows: Row[] = entries.map(([name, count]) => ({ name, count, share: total ? (100 * count) / total : NaN }));
    return rowsModel<Row>(rows, (r) => r.name, [
      { id: 'name', label: title, type: 'text', get: (r) => r.name },
      { id: 'count', label: 'Events', type: 'number', unit: 'count', get: (r) => r.count, width: 96 },
      { id: 'share', label: 'Share', type: 'number', unit: 'percent', get: (r) => r.share, width: 84 },
    ]);
  }, [counts, hideZero, title]);

  const renderCell = (col: Column, row: number, text: string) => {
    if (col.id !== 'name') return text;
    return text === '' ? <span class="muted">{emptyLabel}</span> : <code>{text}</code>;
  };

  return (
    <DataTable
      model={model}
      stem={stem}
      label={`Events per ${title.toLowerCase()}`}
      csvName={csvName}
      initialSort={{ column: 'count', dir: 'desc' }}
      maxHeight={420}
      emptyText="No events."
      renderCell={renderCell}
      cellTestId={(col, row) => (col.id === 'count' ? `${stem}-count-${model.rowKey(row)}` : `${stem}-cell-${col.id}`)}
    />
  );
}
