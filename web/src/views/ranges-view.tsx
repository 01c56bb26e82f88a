// The Ranges view (issue 22 §3): the user's `record_function("name")` ranges as a tree — where a
// user who wrapped their FP8 matmul in record_function("fp8_scaled_mm") finds it. Its own tab, not
// a section of Operators: a range is not an operator (it holds operators, nests, and its device
// time is the work launched while it was open), the Operators table is flat and follows the step,
// and the tree needs the room. Over the whole trace, as the Module view: ProfilerStep is the step,
// not a range, so the steps' calls of a range add up in one row.
//
// A row selected shows the kernels launched in it and "Show in timeline", which opens the
// Timeline on the row's first call. Names are rendered as text.
import { useMemo, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { useLinkedGroup, type TableViewProps } from '../components/use-linked-group';
import { useQuery } from '../components/use-query';
import type { RowKey, SortState } from '../lib/table-model';
import { knownSort } from '../lib/deep-link';
import { csvStem } from '../lib/download';
import { formatCount } from '../lib/format';
import { openAnswer } from '../lib/answer';
import { formatUsCell, tcText } from '../lib/operators';
import { rangeKernels, rangesModel, rangeTable, type RangeTable } from '../lib/ranges';
import { QueryStatus } from './view-status';
import './ranges-view.css';

const GROUPS = ['ranges'] as const;
// The tree as recorded (siblings by their first call) until a header is clicked.
const RANGE_SORT: SortState | null = null;

export interface RangesViewProps extends TableViewProps {
  /** Opens the Timeline on [fromMs, toMs] after the trace start. */
  onShowRange?: (fromMs: number, toMs: number, label: string) => void;
}

export function RangesView({ ask, fileName, link, onPlace, onShowRange }: RangesViewProps) {
  const state = useQuery(ask, { what: 'ranges' });
  const { start, report } = useLinkedGroup(GROUPS, link, onPlace);
  const answer = state.status === 'ready' ? state.data.answer : null;
  const table = useMemo(() => (answer ? rangeTable(openAnswer('ranges', answer)) : null), [answer]);
  if (!table) {
    return (
      <section class="view" data-testid="ranges-view" aria-label="Ranges">
        <QueryStatus state={state} stem="ranges" what="Ranges view" loading="Finding the record_function ranges…" />
      </section>
    );
  }
  const t = table;
  if (!t.rowCount) {
    return (
      <section class="view" data-testid="ranges-view" aria-label="Ranges">
        <p class="muted" data-testid="ranges-none">
          This trace has no record_function ranges of its own (ProfilerStep is the step). Wrap code in{' '}
          <code>with torch.profiler.record_function("name"):</code> to see it here.
        </p>
      </section>
    );
  }
  return (
    <section class="view" data-testid="ranges-view" data-ready="true" aria-label="Ranges">
      <RangesBody table={t} ask={ask} fileName={fileName} start={start} onState={(s) => report(s, RANGE_SORT)} onShowRange={onShowRange} />
    </section>
  );
}

function RangesBody({
  table,
  ask,
  fileName,
  start,
  onState,
  onShowRange,
}: {
  table: RangeTable;
  ask: TableViewProps['ask'];
  fileName: string;
  start?: { sort?: SortState; q?: string; row?: string };
  onState: Parameters<typeof DataTable>[0]['onState'];
  onShowRange?: RangesViewProps['onShowRange'];
}) {
  const model = useMemo(() => rangesModel(table), [table]);
  const rowOf = useMemo(() => new Map(table.key.map((k, i) => [k, i])), [table]);
  const [selected, setSelected] = useState<number>(() => (start?.row != null ? rowOf.get(start.row) ?? -1 : -1));
  const rows = table.rowCount;
  return (
    <>
      <div class="view-toolbar">
        <span class="muted" data-testid="ranges-summary">
          {formatCount(rows)} range{rows === 1 ? '' : 's'} ({formatCount(table.calls)} call{table.calls === 1 ? '' : 's'}), whole trace
        </span>
      </div>
      <p class="muted ranges-note" data-testid="ranges-note">
        One row per place in the tree of ranges (the same name under another range is another row), summed over its calls.
        {table.showGpu && (
          <>
            {' '}
            <b>Device</b>: the work launched by the range's own thread while it was open; work other threads launched meanwhile (the
            autograd thread during <code>loss.backward()</code>) is not in it.
          </>
        )}
        {table.gpuCopies && (
          <>
            {' '}
            <b>GPU range</b>: the range's GPU-side copy that Kineto records per stream for the innermost range around each kernel, and
            the device work that ran inside it from any thread.
          </>
        )}
      </p>
      <DataTable
        model={model}
        stem="ranges"
        columnsKey="ranges"
        label="Ranges"
        csvName={`${csvStem(fileName)}-ranges.csv`}
        initialSort={knownSort(model, start?.sort, RANGE_SORT)}
        initialSearch={start?.q}
        initialSelected={start?.row}
        searchPlaceholder="Search ranges"
        initialExpandDepth={3}
        maxHeight={420}
        onSelect={(k: RowKey | null) => setSelected(k == null ? -1 : rowOf.get(String(k)) ?? -1)}
        onState={onState}
      />
      {selected >= 0 && selected < rows && <RangeDetail key={table.key[selected]} table={table} row={selected} ask={ask} onShowRange={onShowRange} />}
    </>
  );
}

function RangeDetail({ table, row, ask, onShowRange }: { table: RangeTable; row: number; ask: TableViewProps['ask']; onShowRange?: RangesViewProps['onShowRange'] }) {
  const key = table.key[row];
  const kernels = useQuery(ask, table.showGpu ? { what: 'rangeKernels', key } : null);
  const list = useMemo(() => (kernels.status === 'ready' ? rangeKernels(openAnswer('range_kernels', kernels.data.answer)) : null), [kernels]);
  const from = table.values.first_start_us[row], to = table.values.first_end_us[row];
  const calls = table.values.calls[row];
  return (
    <div class="ranges-detail" data-testid="ranges-detail" data-key={key}>
      <div class="ranges-detail-head">
        <h4 title={key}>{table.name[row]}</h4>
        {onShowRange && Number.isFinite(from) && Number.isFinite(to) && (
          <button
            type="button"
            class="link-button"
            data-testid="ranges-show-in-timeline"
            title="Open the Timeline on this range's first call (only that window is sent to Perfetto)"
            onClick={() => onShowRange(from / 1000, to / 1000, table.name[row])}
          >
            {calls > 1 ? 'Show the first call in timeline' : 'Show in timeline'}
          </button>
        )}
      </div>
      <p class="muted">
        {key.includes('/') ? `${key.split('/').join(' › ')} · ` : ''}first call at {formatUsCell(from)} µs from the trace start, {formatUsCell(to - from)} µs long
      </p>
      {table.showGpu && kernels.status !== 'ready' && <QueryStatus state={kernels} stem="ranges-kernels" what="range's kernels" loading="Finding the kernels…" />}
      {list &&
        (list.count ? (
          <table class="table ranges-kernels" data-testid="ranges-kernels">
            <caption class="muted">Kernels launched in it (its calls and the ranges inside them)</caption>
            <thead>
              <tr>
                <th>Kernel</th>
                <th class="num">Calls</th>
                <th class="num">Total (us)</th>
                <th>Tensor Cores</th>
              </tr>
            </thead>
            <tbody>
              {list.name.map((n, i) => (
                <tr key={i} data-kernel={n}>
                  <td class="ranges-kernel-name" title={n}>
                    {n}
                  </td>
                  <td class="num">{formatCount(list.calls[i])}</td>
                  <td class="num">{formatUsCell(list.totalUs[i])}</td>
                  <td data-tc={tcText(list.tensorCores[i])}>{tcText(list.tensorCores[i])}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="muted" data-testid="ranges-no-kernels">
            No kernel was launched on the range's thread while it was open.
          </p>
        ))}
    </div>
  );
}
