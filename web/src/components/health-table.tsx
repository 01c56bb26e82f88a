import { formatCount } from '../lib/format';
import type { HealthRow } from '../lib/summary';

const order = { error: 0, warning: 1, info: 2 } as Record<string, number>;

export function HealthTable({ rows }: { rows: HealthRow[] }) {
  if (!rows.length) {
    return (
      <p class="ok" data-testid="health-ok">
        No problems found.
      </p>
    );
  }
  const sorted = [...rows].sort(
    (a, b) => (order[a.severity] ?? 3) - (order[b.severity] ?? 3) || b.count - a.count || a.reason.localeCompare(b.reason),
  );
  return (
    <table class="table" data-testid="health-table">
      <thead>
        <tr>
          <th>Reason</th>
          <th>Severity</th>
          <th class="num">Count</th>
          <th class="num" title="Where the first such event starts, in bytes of the JSON text (after gzip decompression)">
            First at byte (JSON)
          </th>
          <th>Message</th>
        </tr>
      </thead>
      <tbody>
        {sorted.map((r) => (
          <tr key={r.reason} data-testid={`health-row-${r.reason}`}>
            <td>
              <code>{r.reason}</code>
            </td>
            <td>
              <span class={`sev sev-${r.severity}`}>{r.severity}</span>
            </td>
            <td class="num" data-testid={`health-count-${r.reason}`}>
              {formatCount(r.count)}
            </td>
            <td class="num">{r.sample_offset == null ? '—' : formatCount(r.sample_offset)}</td>
            <td>{r.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
