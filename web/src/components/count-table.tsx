import { formatCount } from '../lib/format';
import { sortedCounts } from '../lib/summary';

interface Props {
  title: string;
  /** Test id stem: rows are `<stem>-row`, counts `<stem>-count-<name>`. */
  stem: string;
  counts: Record<string, number>;
  emptyLabel?: string;
  hideZero?: boolean;
}

export function CountTable({ title, stem, counts, emptyLabel = '(none)', hideZero }: Props) {
  const rows = sortedCounts(counts).filter(([, n]) => !hideZero || n > 0);
  const total = rows.reduce((a, [, n]) => a + n, 0);
  return (
    <table class="table compact" data-testid={`${stem}-table`}>
      <thead>
        <tr>
          <th>{title}</th>
          <th class="num">Events</th>
          <th class="num">Share</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, n]) => (
          <tr key={name} data-testid={`${stem}-row`} data-name={name}>
            <td>{name === '' ? <span class="muted">{emptyLabel}</span> : <code>{name}</code>}</td>
            <td class="num" data-testid={`${stem}-count-${name}`}>
              {formatCount(n)}
            </td>
            <td class="num muted">{total ? `${((100 * n) / total).toFixed(1)}%` : '—'}</td>
          </tr>
        ))}
        {rows.length === 0 && (
          <tr>
            <td colSpan={3} class="muted">
              No events.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
