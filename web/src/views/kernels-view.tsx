import { useMemo, useState } from 'preact/hooks';
import { usePeak } from '../components/peak-choice';
import { DataTable } from '../components/data-table';
import { openAnswer, type WireAnswer } from '../lib/answer';
import { DetailList, DetailPanel, rowFields, useSelectedRow } from '../components/detail-panel';
import { PieChart } from '../components/pie-chart';
import { useLinkedGroup, type TableViewProps } from '../components/use-linked-group';
import { sameQuery, useQuery, type Ask } from '../components/use-query';
import type { SortState, TableModel } from '../lib/table-model';
import { knownSort, type TablePlace, type TableState } from '../lib/deep-link';
import { csvStem } from '../lib/download';
import { formatCount } from '../lib/format';
import {
  kernelDetail,
  kernelDetailKey,
  KERNEL_GROUP_BYS,
  kernelsModel,
  kernelTable,
  NO_OCCUPANCY_WHY,
  NO_OPERATOR,
  NO_OPERATOR_WHY,
  tensorCoreParts,
  type KernelDetail,
  type KernelGroupBy,
  type KernelTable,
} from '../lib/kernels';
import { formatPctCell, formatUsCell, framesOf } from '../lib/operators';
import { formatPct } from '../lib/overview';
import { clampTopN, DEFAULT_TOP_N, partSlices, topSlices } from '../lib/pie';
import { formatUsValue, Frames, TopNInput } from './operators-view';
import { QueryStatus, StepScope, useStepTable } from './view-status';

// The Kernels view: GPU kernels grouped by name (or by launch properties + operator), their
// durations, Tensor Core use and occupancy, for the whole trace or one step; the selected row's
// detail (every number, the operators that launched it, its launch properties, their call
// stacks); a top-N pie by total time and the Tensor Core share. A deep link sets the grouping and
// its table's state at mount, as in the Operators view; a new step keeps the table's state.
export function KernelsView({ ask, fileName, toolbar, link, onPlace, step = null }: TableViewProps) {
  const { groupBy, start, choose, report: reportAs } = useLinkedGroup(KERNEL_GROUP_BYS, link, onPlace);
  const { shown, fresh, shownStep, status, pending } = useStepTable(ask, 'kernels', groupBy, step, usePeak().peak);
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
        <StepScope stem="kernel" step={shownStep} pending={pending} what="the kernels launched" />
        {toolbar}
      </div>
      {status}
      {shown && (
        <KernelsBody
          key={groupBy}
          answer={shown.data.answer}
          step={shownStep}
          stale={!fresh}
          ask={ask}
          fileName={fileName}
          start={start}
          onState={report}
        />
      )}
    </section>
  );
}

const KERNEL_SORT: SortState = { column: 'total_us', dir: 'desc' };

function KernelsBody({
  answer,
  step,
  stale,
  ask,
  fileName,
  start,
  onState,
}: {
  /** The core's answer (lib/answer.ts), read in place as the table's columns. */
  answer: WireAnswer;
  step: string | null;
  stale: boolean;
  ask: Ask;
  fileName: string;
  /** A deep link's table state, applied when the table mounts. */
  start?: TablePlace;
  onState: (s: TableState) => void;
}) {
  const table = useMemo(() => kernelTable(openAnswer('kernels', answer)), [answer]);
  const model = useMemo(() => kernelsModel(table), [table]);
  const { row, selected, onSelect, box, close } = useSelectedRow(table.keys);
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
  const calls = table.calls.reduce((a, c) => a + c, 0);
  return (
    <>
      <div ref={box} class={stale ? 'stale' : undefined}>
        <DataTable
          model={model}
          stem="kernel"
          columnsKey={`kernel.${table.groupBy}`}
          label="Kernels"
          csvName={`${csvStem(fileName)}-kernels${table.groupBy === 'props' ? '-by-props' : ''}${step == null ? '' : `-step-${step}`}.csv`}
          initialSort={knownSort(model, start?.sort, KERNEL_SORT)}
          initialSearch={start?.q}
          initialSelected={start?.row}
          searchPlaceholder="Search kernels and operators"
          emptyText={step == null ? 'No kernels in this trace.' : `No kernel was launched in step ${step}.`}
          onSelect={onSelect}
          onState={onState}
        />
        <KernelDetails
          ask={ask}
          table={table}
          model={model}
          row={row}
          selected={selected}
          step={step}
          onClose={close}
        />
      </div>
      <div class="pies-block">
        <h4>Top kernels</h4>
        <TopNInput value={text} onInput={setText} testid="kernel-pie-n" />
        <div class="pies">
          <PieChart testid="kernel-pie-total" title="Total time" slices={top} format={formatUsValue} emptyText="No kernel time recorded." />
          <div>
            <PieChart
              testid="kernel-pie-tc"
              title={`Kernel time using ${tc.term}`}
              slices={partSlices(tensorCoreParts(tc))}
              format={formatUsValue}
              pct={formatPct}
              emptyText="No kernel time recorded."
            />
            <p class="muted pie-scope" data-testid="kernel-pie-tc-scope">
              {tc.scope ??
                (step == null
                  ? `Covers all ${formatCount(calls)} kernel calls in the trace (as tb_plugin's pie), whether an operator launched them or not.`
                  : `Covers the ${formatCount(calls)} kernel calls launched in step ${step}.`)}
            </p>
            {tc.unknownUs > 0 && (
              <p class="muted pie-scope" data-testid="kernel-pie-tc-unknown">
                “Unknown”: kernels whose name does not tell (a Triton kernel, for one); see each row’s {tc.term} cell for the rule.
              </p>
            )}
          </div>
        </div>
      </div>
    </>
  );
}

/** The selected row's detail: every column, who launched it, how, and from where. */
function KernelDetails({
  ask,
  table,
  model,
  row,
  selected,
  step,
  onClose,
}: {
  ask: Ask;
  table: KernelTable;
  model: TableModel;
  row: number | null;
  selected: boolean;
  step: string | null;
  onClose: () => void;
}) {
  const q = row == null ? null : { what: 'kernelDetail' as const, ...kernelDetailKey(table, row), ...(step == null ? {} : { step }) };
  const state = useQuery(ask, q);
  // Only the answer to this row and step: the last one may be another's for a render.
  const answers = state.status === 'ready' && sameQuery(state.asked, q) ? state.data : null;
  const detail = useMemo(
    () =>
      answers
        ? kernelDetail(openAnswer('kernel_detail', answers.stacks), openAnswer('kernel_operators', answers.operators), openAnswer('kernel_launches', answers.launches))
        : null,
    [answers],
  );
  if (row == null) {
    return (
      <p class="muted detail-hint" data-testid={selected ? 'kernel-detail-missing' : 'kernel-detail-hint'}>
        {selected
          ? `The selected kernel row has no launches in step ${step}.`
          : 'Select a kernel to see its full name, all its numbers, the operators that launched it, its launch properties and their call stacks.'}
      </p>
    );
  }
  const op = table.groupBy === 'props' ? table.operator[row] : null;
  return (
    <DetailPanel
      stem="kernel"
      label="Kernel details"
      name={
        <>
          <code>{table.name[row]}</code>
          {op != null ? <span class="muted"> ← {op}</span> : null}
        </>
      }
      fields={rowFields(model, row, ['name', 'operator'])}
      onClose={onClose}
    >
      <QueryStatus state={detail || state.status === 'error' ? state : { status: 'loading' }} stem="kernel-detail" what="kernel's details" loading="Reading its launches…" />
      {detail && <KernelLists detail={detail} />}
    </DetailPanel>
  );
}

function KernelLists({ detail: d }: { detail: KernelDetail }) {
  const o = d.operators;
  const l = d.launches;
  const s = d.stacks;
  const num = (v: number) => (Number.isFinite(v) ? formatCount(v) : '—');
  return (
    <>
      <DetailList
        testid="kernel-detail-operators"
        caption="Launched by"
        count={o.count}
        empty="No launch in this step."
        columns={[
          { label: 'Operator', text: (i) => (o.name[i] === NO_OPERATOR ? '—' : o.name[i]), title: (i) => (o.name[i] === NO_OPERATOR ? NO_OPERATOR_WHY : o.name[i]) },
          { label: 'Calls', num: true, text: (i) => num(o.calls[i]) },
          { label: 'Total (us)', num: true, text: (i) => formatUsCell(o.totalUs[i]) },
        ]}
      />
      <DetailList
        testid="kernel-detail-launches"
        caption="Launch properties"
        count={l.count}
        empty="No launch in this step."
        columns={[
          { label: 'Grid', text: (i) => l.grid[i] || '—' },
          { label: 'Block', text: (i) => l.block[i] || '—' },
          { label: 'Registers per thread', num: true, text: (i) => num(l.registersPerThread[i]) },
          { label: 'Shared memory (bytes)', num: true, text: (i) => num(l.sharedMemory[i]) },
          { label: 'Blocks per SM', num: true, text: (i) => (Number.isFinite(l.blocksPerSm[i]) ? l.blocksPerSm[i].toFixed(2) : '—') },
          { label: 'Est. occupancy (%)', num: true, text: (i) => formatPctCell(l.occupancyPct[i]), title: (i) => (Number.isFinite(l.occupancyPct[i]) ? '' : NO_OCCUPANCY_WHY) },
          { label: 'Calls', num: true, text: (i) => num(l.calls[i]) },
          { label: 'Total (us)', num: true, text: (i) => formatUsCell(l.totalUs[i]) },
        ]}
      />
      <h5>Call stacks of the operators that launched it</h5>
      {s.count === 0 ? (
        <p class="muted" data-testid="kernel-detail-stacks-none">
          {d.stacksFromPythonFrames
            ? 'No Python frames around its launching operators: backward operators run on the autograd thread, outside Python.'
            : 'No call stack recorded for its launching operators (profile with with_stack=True).'}
        </p>
      ) : (
        <div class="op-stack-list detail-stacks">
          {Array.from({ length: s.count }, (_, i) => (
            <div class="op-stack" data-testid="kernel-detail-stack" key={i}>
              <p class="detail-note">
                <code data-testid="kernel-detail-stack-operator">{s.operator[i]}</code>{' '}
                <span data-testid="kernel-detail-stack-calls">{num(s.calls[i])}</span> calls,{' '}
                <span data-testid="kernel-detail-stack-total">{formatUsCell(s.totalUs[i])}</span> us
              </p>
              <Frames frames={framesOf(s.callStack[i])} testid="kernel-detail-stack-frames" />
            </div>
          ))}
        </div>
      )}
    </>
  );
}
