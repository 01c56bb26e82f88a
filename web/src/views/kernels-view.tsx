import { useMemo, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { PieChart } from '../components/pie-chart';
import { useLinkedGroup, type TableViewProps } from '../components/use-linked-group';
import { useQuery } from '../components/use-query';
import type { SortState } from '../lib/data-table';
import { knownSort, type TablePlace, type TableState } from '../lib/deep-link';
import { csvStem } from '../lib/download';
import { KERNEL_GROUP_BYS, kernelsModel, type KernelGroupBy, type KernelTable } from '../lib/kernels';
import { clampTopN, DEFAULT_TOP_N, splitSlices, topSlices } from '../lib/pie';
import { formatUsValue, TopNInput } from './operators-view';
import { QueryStatus } from './view-status';

// The Kernels view: GPU kernels grouped by name (or by launch properties + operator), their
// durations, Tensor Core use and occupancy, a top-N pie by total time and the Tensor Core share.
// A deep link sets the grouping and its table's state at mount, as in the Operators view.
export function KernelsView({
  ask,
  fileName,
  toolbar,
  link,
  onPlace,
}: TableViewProps) {
  const { groupBy, start, choose, report: reportAs } = useLinkedGroup(KERNEL_GROUP_BYS, link, onPlace);
  const state = useQuery(ask, { what: 'kernels', groupBy });
  const report = (s: TableState) => reportAs(s, KERNEL_SORT);
  return (
    <section class="view" data-testid="kernels-view" aria-label="Kernels">
      <div class="view-toolbar">
        <label class="ov-select">
          Group by{' '}
          <select
            data-testid="kernel-group-by"
            value={groupBy}
            onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value as KernelGroupBy)}
          >
            <option value="name">Kernel name</option>
            <option value="props">Properties + operator</option>
          </select>
        </label>
        {toolbar}
      </div>
      <QueryStatus state={state} stem="kernel" what="kernels" loading="Computing the kernel table…" />
      {state.status === 'ready' && state.data.table.groupBy === groupBy && (
        <KernelsBody key={groupBy} table={state.data.table} fileName={fileName} start={start} onState={report} />
      )}
    </section>
  );
}

const KERNEL_SORT: SortState = { column: 'total_us', dir: 'desc' };

function KernelsBody({
  table,
  fileName,
  start,
  onState,
}: {
  table: KernelTable;
  fileName: string;
  /** A deep link's table state, applied when the table mounts. */
  start?: TablePlace;
  onState: (s: TableState) => void;
}) {
  const model = useMemo(() => kernelsModel(table), [table]);
  const [text, setText] = useState(String(DEFAULT_TOP_N));
  const n = clampTopN(text);
  const top = useMemo(() => topSlices(table.rowCount, (i) => table.name[i], (i) => table.totalUs[i], n), [table, n]);
  const tc = table.tensorCoreTime;
  if (!tc) {
    return (
      <p class="muted" data-testid="kernel-none">
        This trace has no GPU kernels.
      </p>
    );
  }
  const tcSlices = splitSlices('Using Tensor Cores', tc.tcUs, 'Not using Tensor Cores', tc.totalUs);
  return (
    <>
      <DataTable
        model={model}
        stem="kernel"
        label="Kernels"
        csvName={`${csvStem(fileName)}-kernels${table.groupBy === 'props' ? '-by-props' : ''}.csv`}
        initialSort={knownSort(model, start?.sort, KERNEL_SORT)}
        initialSearch={start?.q}
        initialSelected={start?.row}
        searchPlaceholder="Search kernels and operators"
        emptyText="No kernels in this trace."
        onState={onState}
      />
      <div class="pies-block">
        <h4>Top kernels</h4>
        <TopNInput value={text} onInput={setText} testid="kernel-pie-n" />
        <div class="pies">
          <PieChart testid="kernel-pie-total" title="Total time" slices={top} format={formatUsValue} emptyText="No kernel time recorded." />
          <PieChart testid="kernel-pie-tc" title="Kernel time using Tensor Cores" slices={tcSlices} format={formatUsValue} emptyText="No kernel time recorded." />
        </div>
      </div>
    </>
  );
}
