import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { PieChart } from '../components/pie-chart';
import { useQuery, type Ask } from '../components/use-query';
import { csvStem } from '../lib/download';
import { kernelsModel, type KernelGroupBy, type KernelTable } from '../lib/kernels';
import { clampTopN, DEFAULT_TOP_N, splitSlices, topSlices } from '../lib/pie';
import { formatUsValue, TopNInput } from './operators-view';
import { QueryStatus } from './view-status';

// The Kernels view: GPU kernels grouped by name (or by launch properties + operator), their
// durations, Tensor Core use and occupancy, a top-N pie by total time and the Tensor Core share.
export function KernelsView({ ask, fileName, toolbar }: { ask: Ask; fileName: string; toolbar?: ComponentChildren }) {
  const [groupBy, setGroupBy] = useState<KernelGroupBy>('name');
  const state = useQuery(ask, { what: 'kernels', groupBy });
  return (
    <section class="view" data-testid="kernels-view" aria-label="Kernels">
      <div class="view-toolbar">
        <label class="ov-select">
          Group by{' '}
          <select data-testid="kernel-group-by" value={groupBy} onChange={(e) => setGroupBy((e.currentTarget as HTMLSelectElement).value as KernelGroupBy)}>
            <option value="name">Kernel name</option>
            <option value="props">Properties + operator</option>
          </select>
        </label>
        {toolbar}
      </div>
      <QueryStatus state={state} stem="kernel" what="kernels" loading="Computing the kernel table…" />
      {state.status === 'ready' && state.data.table.groupBy === groupBy && <KernelsBody key={groupBy} table={state.data.table} fileName={fileName} />}
    </section>
  );
}

function KernelsBody({ table, fileName }: { table: KernelTable; fileName: string }) {
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
        initialSort={{ column: 'total_us', dir: 'desc' }}
        searchPlaceholder="Search kernels and operators"
        emptyText="No kernels in this trace."
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
