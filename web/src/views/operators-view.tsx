import { useMemo, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { PieChart } from '../components/pie-chart';
import { useLinkedGroup, type TableViewProps } from '../components/use-linked-group';
import { useQuery, type Ask } from '../components/use-query';
import type { RowKey, SortState } from '../lib/data-table';
import { knownSort, type TablePlace, type TableState } from '../lib/deep-link';
import { csvStem } from '../lib/download';
import {
  formatPctCell,
  formatUsCell,
  operatorPieColumns,
  operatorsModel,
  OP_GROUP_BYS,
  recordedStacks,
  type OperatorTable,
  type OpGroupBy,
  type StackRow,
} from '../lib/operators';
import { clampTopN, DEFAULT_TOP_N, topSlices } from '../lib/pie';
import { QueryStatus } from './view-status';

// The Operators view: operators grouped by name (or name + input shape) with host and device
// time, Tensor Core use, the call stacks of the selected group, and top-N pies of the durations.
// Trace strings (names, shapes, frames) are rendered as text.
//
// A deep link (`link`) sets the grouping, and the sorting, search and selected row of that
// grouping's table, when the view mounts (the card mounts it afresh for a new link); `onPlace`
// hears the same fields as they change, for the page's hash.
export function OperatorsView({
  ask,
  fileName,
  toolbar,
  link,
  onPlace,
}: TableViewProps) {
  const { groupBy, start, choose, report: reportAs } = useLinkedGroup(OP_GROUP_BYS, link, onPlace);
  const state = useQuery(ask, { what: 'operators', groupBy });
  const report = reportAs;
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
          </select>
        </label>
        {toolbar}
      </div>
      <QueryStatus state={state} stem="op" what="operators" loading="Computing the operator table…" />
      {state.status === 'ready' && state.data.table.groupBy === groupBy && (
        <OperatorsBody key={groupBy} table={state.data.table} ask={ask} fileName={fileName} start={start} onState={report} />
      )}
    </section>
  );
}

function OperatorsBody({
  table,
  ask,
  fileName,
  start,
  onState,
}: {
  table: OperatorTable;
  ask: Ask;
  fileName: string;
  /** A deep link's table state, applied when the table mounts. */
  start?: TablePlace;
  onState: (s: TableState, defaultSort: SortState) => void;
}) {
  const model = useMemo(() => operatorsModel(table), [table]);
  const defaultSort: SortState = { column: table.showGpu ? 'device_self_us' : 'host_self_us', dir: 'desc' };
  const index = useMemo(() => new Map(table.keys.map((k, i) => [k, i])), [table]);
  const [selected, setSelected] = useState<RowKey | null>(null);
  const row = selected == null ? null : index.get(String(selected)) ?? null;
  const suffix = table.groupBy === 'op' ? 'operators' : 'operators-by-shape';
  return (
    <>
      {!table.showGpu && (
        <p class="muted" data-testid="op-cpu-only">
          This trace has no GPU work: only host times are shown.
        </p>
      )}
      <DataTable
        model={model}
        stem="op"
        label="Operators"
        csvName={`${csvStem(fileName)}-${suffix}.csv`}
        initialSort={knownSort(model, start?.sort, defaultSort)}
        initialSearch={start?.q}
        initialSelected={start?.row}
        searchPlaceholder="Search operators"
        emptyText="No operators in this trace."
        onSelect={setSelected}
        onState={(s) => onState(s, defaultSort)}
      />
      <StackPanel ask={ask} table={table} row={row} />
      <OperatorPies table={table} />
    </>
  );
}

function StackPanel({ ask, table, row }: { ask: Ask; table: OperatorTable; row: number | null }) {
  const has = row == null ? 0 : table.hasCallStack[row];
  const q =
    row != null && has !== 0
      ? { what: 'operatorStacks' as const, groupBy: table.groupBy, name: table.name[row], inputShape: table.groupBy === 'op+shape' ? table.inputShape[row] ?? '' : '' }
      : null;
  const state = useQuery(ask, q);
  return (
    <aside class="op-stacks" data-testid="op-stacks" aria-label="Call stacks">
      <h4>Call stacks</h4>
      {row == null ? (
        <p class="muted" data-testid="op-stacks-hint">
          Select an operator to see where it was called from.
        </p>
      ) : (
        <>
          <p class="op-stacks-name" data-testid="op-stacks-name">
            <code>{table.name[row]}</code>
            {table.groupBy === 'op+shape' && table.inputShape[row] ? <span class="muted"> {table.inputShape[row]}</span> : null}
          </p>
          {has === 0 ? (
            <NoStack />
          ) : (
            <>
              <QueryStatus state={state} stem="op-stacks" what="call stacks" loading="Reading the call stacks…" />
              {state.status === 'ready' && <Stacks rows={state.data.rows} />}
            </>
          )}
        </>
      )}
    </aside>
  );
}

function NoStack() {
  return (
    <p class="muted" data-testid="op-stacks-none">
      No call stack recorded (profile with with_stack=True).
    </p>
  );
}

function Stacks({ rows }: { rows: StackRow[] }) {
  const stacks = recordedStacks(rows);
  if (!stacks.length) return <NoStack />;
  return (
    <div class="op-stack-list">
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
          <ol class="op-frames" data-testid="op-stack-frames">
            {s.frames.map((f, i) => (
              <li key={i}>
                <code>{f}</code>
              </li>
            ))}
          </ol>
        </div>
      ))}
    </div>
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
