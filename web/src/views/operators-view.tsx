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
import {
  formatPctCell,
  formatUsCell,
  groupKeyOf,
  operatorDetail,
  operatorPieColumns,
  operatorsModel,
  operatorTable,
  OP_GROUP_BYS,
  recordedStacks,
  tcText,
  type OperatorDetail,
  type OperatorTable,
  type OpGroupBy,
} from '../lib/operators';
import { formatCount } from '../lib/format';
import { clampTopN, DEFAULT_TOP_N, topSlices } from '../lib/pie';
import { QueryStatus, StepScope, useStepTable } from './view-status';

// The Operators view: operators grouped by name (or name + input shape) with host and device
// time and Tensor Core use, for the whole trace or one step; the selected row's detail (every
// number, the kernels it launched, its call stacks); and top-N pies of the durations. Trace
// strings (names, shapes, frames) are rendered as text.
//
// A deep link (`link`) sets the grouping, and the sorting, search and selected row of that
// grouping's table, when the view mounts (the card mounts it afresh for a new link); `onPlace`
// hears the same fields as they change, for the page's hash. A new step keeps the table as it is
// (sorting, search, selection) and shows the old numbers, marked, until the new ones come.
export function OperatorsView({ ask, fileName, toolbar, link, onPlace, step = null }: TableViewProps) {
  const { groupBy, start, choose, report } = useLinkedGroup(OP_GROUP_BYS, link, onPlace);
  const { shown, fresh, shownStep, status, pending } = useStepTable(ask, 'operators', groupBy, step, usePeak().peak);
  return (
    <section class="view" data-testid="operators-view" aria-label="Operators">
      <div class="view-toolbar">
        <label class="ov-select">
          Group by{' '}
          <select
            data-testid="op-group-by"
            value={groupBy}
            onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value as OpGroupBy)}
          >
            <option value="op">Operator</option>
            <option value="op+shape">Operator + input shape</option>
            <option value="op+stack">Operator + call stack</option>
          </select>
        </label>
        <StepScope stem="op" step={shownStep} pending={pending} what="the operators called" />
        {toolbar}
      </div>
      {status}
      {shown && (
        <OperatorsBody
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

function OperatorsBody({
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
  /** The step this table counts (null: all). */
  step: string | null;
  /** A table of another step is being computed: this one is shown meanwhile. */
  stale: boolean;
  ask: Ask;
  fileName: string;
  /** A deep link's table state, applied when the table mounts. */
  start?: TablePlace;
  onState: (s: TableState, defaultSort: SortState) => void;
}) {
  const table = useMemo(() => operatorTable(openAnswer('operators', answer)), [answer]);
  const model = useMemo(() => operatorsModel(table), [table]);
  const defaultSort: SortState = { column: table.showGpu ? 'device_self_us' : 'host_self_us', dir: 'desc' };
  const { row, selected, onSelect, box, close } = useSelectedRow(table.keys);
  const suffix = table.groupBy === 'op' ? 'operators' : 'operators-by-shape';
  const stepSuffix = step == null ? '' : `-step-${step}`;
  return (
    <>
      {!table.showGpu && (
        <p class="muted" data-testid="op-cpu-only">
          This trace has no GPU work: only host times are shown.
        </p>
      )}
      <div ref={box} class={stale ? 'stale' : undefined}>
        <DataTable
          model={model}
          stem="op"
          columnsKey={`op.${table.groupBy}`}
          label="Operators"
          csvName={`${csvStem(fileName)}-${suffix}${stepSuffix}.csv`}
          initialSort={knownSort(model, start?.sort, defaultSort)}
          initialSearch={start?.q}
          initialSelected={start?.row}
          searchPlaceholder="Search operators"
          emptyText={step == null ? 'No operators in this trace.' : `No operator was called in step ${step}.`}
          onSelect={onSelect}
          onState={(s) => onState(s, defaultSort)}
        />
        <OperatorDetails
          ask={ask}
          table={table}
          model={model}
          row={row}
          selected={selected}
          step={step}
          onClose={close}
        />
      </div>
      <OperatorPies table={table} />
    </>
  );
}

/** The selected group's detail: every column, the kernels its calls launched, its call stacks. */
function OperatorDetails({
  ask,
  table,
  model,
  row,
  selected,
  step,
  onClose,
}: {
  ask: Ask;
  table: OperatorTable;
  model: TableModel;
  row: number | null;
  /** A row is selected (it may not be in this step's table). */
  selected: boolean;
  step: string | null;
  onClose: () => void;
}) {
  // The row's key within its name: its input shape (op+shape) or call stack (op+stack).
  const shape = row != null ? groupKeyOf(table, row) : '';
  const q =
    row == null
      ? null
      : { what: 'operatorDetail' as const, groupBy: table.groupBy, name: table.name[row], inputShape: shape, ...(step == null ? {} : { step }) };
  const state = useQuery(ask, q);
  // Only the answer to this row and step: the last one may be another's for a render.
  const answers = state.status === 'ready' && sameQuery(state.asked, q) ? state.data : null;
  const detail = useMemo(
    () => (answers ? operatorDetail(openAnswer('operator_detail', answers.stacks), openAnswer('operator_kernels', answers.kernels)) : null),
    [answers],
  );
  if (row == null) {
    return (
      <p class="muted detail-hint" data-testid={selected ? 'op-detail-missing' : 'op-detail-hint'}>
        {selected
          ? `The selected operator was not called in step ${step}.`
          : 'Select an operator to see all its numbers, the kernels it launched and where it was called from.'}
      </p>
    );
  }
  return (
    <DetailPanel
      stem="op"
      label="Operator details"
      name={
        <>
          <code>{table.name[row]}</code>
          {shape && table.groupBy === 'op+shape' ? <span class="muted"> {shape}</span> : null}
        </>
      }
      fields={rowFields(model, row, ['name', 'input_shape'])}
      onClose={onClose}
    >
      <QueryStatus state={detail || state.status === 'error' ? state : { status: 'loading' }} stem="op-detail" what="operator's details" loading="Reading its kernels and call stacks…" />
      {table.showGpu && detail && <LaunchedKernels detail={detail} />}
      <aside class="op-stacks" data-testid="op-stacks" aria-label="Call stacks">
        <h5>
          Call stacks <span class="muted">(innermost frame first)</span>
        </h5>
        {detail && <Stacks detail={detail} />}
      </aside>
    </DetailPanel>
  );
}

function LaunchedKernels({ detail }: { detail: OperatorDetail }) {
  const k = detail.kernels;
  return (
    <DetailList
      testid="op-detail-kernels"
      caption="Kernels it launched"
      count={k.count}
      empty="Its calls launched no kernel themselves (the operators they called may have)."
      columns={[
        { label: 'Kernel', text: (i) => k.name[i], title: (i) => k.name[i] },
        { label: 'Calls', num: true, text: (i) => String(k.calls[i]) },
        { label: 'Total (us)', num: true, text: (i) => formatUsCell(k.totalUs[i]) },
        { label: 'Tensor Cores', text: (i) => tcText(k.tensorCores[i]) },
      ]}
    />
  );
}

/** Why calls have no stack: the one sentence when none has one, else a line per reason with its calls. */
function NoStack({ detail, any }: { detail: OperatorDetail; any: boolean }) {
  const why = detail.noStack;
  if (!any && why.length <= 1) {
    return (
      <p class="muted" data-testid="op-stacks-none" data-reason={why[0]?.reason ?? 'not_recorded'}>
        {why[0]?.text ?? 'No call stack recorded (profile with with_stack=True).'}
      </p>
    );
  }
  return (
    <>
      {why.map((w) => (
        <p class="muted" data-testid="op-stacks-without" data-reason={w.reason} key={w.reason}>
          {formatCount(w.calls)} call{w.calls === 1 ? '' : 's'} without one: {w.text}
        </p>
      ))}
    </>
  );
}

function Stacks({ detail }: { detail: OperatorDetail }) {
  const stacks = recordedStacks(detail.stacks);
  if (!stacks.length) return <NoStack detail={detail} any={false} />;
  return (
    <div class="op-stack-list detail-stacks">
      {stacks.map((s, k) => (
        <div class="op-stack" data-testid="op-stack" key={k}>
          <dl class="op-stack-nums">
            <StackNum label="Calls" value={String(s.calls)} id="calls" />
            <StackNum label="Device self" value={`${formatUsCell(s.deviceSelfUs)} us`} id="device-self" />
            <StackNum label="Device total" value={`${formatUsCell(s.deviceTotalUs)} us`} id="device-total" />
            <StackNum label="Host self" value={`${formatUsCell(s.hostSelfUs)} us`} id="host-self" />
            <StackNum label="Host total" value={`${formatUsCell(s.hostTotalUs)} us`} id="host-total" />
            <StackNum label="TC self" value={`${formatPctCell(s.tcSelfPct)} %`} id="tc-self" />
            <StackNum label="TC total" value={`${formatPctCell(s.tcTotalPct)} %`} id="tc-total" />
          </dl>
          <Frames frames={s.frames} testid="op-stack-frames" />
        </div>
      ))}
      <NoStack detail={detail} any />
    </div>
  );
}

/** A call stack's frames as the trace lists them (innermost first), as a numbered list. */
export function Frames({ frames, testid }: { frames: string[]; testid: string }) {
  return (
    <ol class="op-frames" data-testid={testid}>
      {frames.map((f, i) => (
        <li key={i}>
          <code>{f}</code>
        </li>
      ))}
    </ol>
  );
}

function StackNum({ label, value, id }: { label: string; value: string; id: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={`op-stack-${id}`}>{value}</dd>
    </div>
  );
}

export function TopNInput({ value, onInput, testid }: { value: string; onInput: (v: string) => void; testid: string }) {
  return (
    <label class="ov-select">
      Top{' '}
      <input
        type="number"
        min={1}
        max={100}
        step={1}
        class="topn"
        data-testid={testid}
        value={value}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />{' '}
      (the rest as “Other”)
    </label>
  );
}

export const formatUsValue = (v: number) => `${formatUsCell(v)} us`;

function OperatorPies({ table }: { table: OperatorTable }) {
  const [text, setText] = useState(String(DEFAULT_TOP_N));
  const n = clampTopN(text);
  const pies = useMemo(
    () =>
      operatorPieColumns(table).map((c) => ({
        ...c,
        slices: topSlices(table.rowCount, (i) => table.keys[i], (i) => c.values[i], n),
      })),
    [table, n],
  );
  return (
    <div class="pies-block">
      <h4>Top operators</h4>
      <TopNInput value={text} onInput={setText} testid="op-pie-n" />
      <div class="pies">
        {pies.map((p) => (
          <PieChart key={p.id} testid={`op-pie-${p.id}`} title={p.label} slices={p.slices} format={formatUsValue} emptyText="No time recorded." />
        ))}
      </div>
    </div>
  );
}
