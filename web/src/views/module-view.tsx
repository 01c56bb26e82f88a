// The Module view (tb_plugin's Module view and its Lightning variant): which nn.Module the time
// belongs to. The module table (hierarchical, summed over each module's calls, tb_plugin's columns,
// plus the backward time fwdbwd flows let us charge to each module), a flame graph of one thread's
// module frames over time, and that thread's operator tree with the backward passes regrouped
// under `<module>.backward`. A click on a box selects its module in the table and its node in the
// tree; a row selected in the table marks every call of it in the flame graph.
// The view is over the whole trace, as tb_plugin's: the step selector does not apply to it.
import { useMemo, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { FlameGraph } from '../components/flame-graph';
import { useLinkedGroup, type TableViewProps } from '../components/use-linked-group';
import { useQuery } from '../components/use-query';
import type { Column, RowKey, SortState, TableModel } from '../lib/table-model';
import { knownSort, type TableState } from '../lib/deep-link';
import { csvStem } from '../lib/download';
import { formatCount } from '../lib/format';
import { openAnswer } from '../lib/answer';
import { backwardSentence, modulesOf, moduleTree, threadLabel, type ModuleTable, type ModuleTree, type TreeNodeKind } from '../lib/modules';
import { usColumn } from '../lib/operators';
import { QueryStatus } from './view-status';
import './module-view.css';

type Which = 'modules' | 'lightning';
const WHICH: readonly Which[] = ['modules', 'lightning'];
// tb_plugin's Module view opens on the hierarchy as recorded; a header click sorts siblings.
const MODULE_SORT: SortState | null = null;

export function moduleModel(t: ModuleTable, backward: boolean): TableModel {
  const cols: Column[] = [
    { id: 'name', label: 'Module', type: 'text', value: (i) => t.name[i], grow: 2, title: (i) => `${t.path[i]}${t.inTrees[i] ? '' : ' (no call of it is in the operator trees)'}` },
    { id: 'occurrences', label: 'Occurrences', type: 'number', unit: 'count', value: (i) => t.occurrences[i], width: 112 },
    { id: 'operators', label: 'Operators', type: 'number', unit: 'count', value: (i) => t.operators[i], width: 96 },
    usColumn('host_total_us', 'Host total', t.hostTotalUs, 96),
    usColumn('host_self_us', 'Host self', t.hostSelfUs, 96),
    usColumn('device_total_us', 'Device total', t.deviceTotalUs, 96),
    usColumn('device_self_us', 'Device self', t.deviceSelfUs, 96),
    { ...usColumn('backward_host_us', 'Backward host', t.backwardHostUs, 104), defaultHidden: !backward },
    { ...usColumn('backward_device_us', 'Backward device', t.backwardDeviceUs, 112), defaultHidden: !backward },
    { id: 'path', label: 'Path', type: 'text', value: (i) => t.path[i], defaultHidden: true, searchable: false },
    { id: 'id', label: 'Module id', type: 'number', unit: 'count', value: (i) => t.id[i], defaultHidden: true, width: 84 },
  ];
  return { rowCount: t.rowCount, rowKey: (i) => t.key[i], columns: cols, tree: { parent: t.parent } };
}

const KIND_TEXT: Record<TreeNodeKind, string> = {
  module: 'Module',
  backward: 'Backward',
  pl_module: 'PL module',
  pl_profile: 'PL profile',
  step: 'Step',
  operator: 'Operator',
  other: 'Other',
};

export function treeModel(t: ModuleTree): TableModel {
  const cols: Column[] = [
    { id: 'name', label: 'Name', type: 'text', value: (i) => t.name[i], grow: 3 },
    { id: 'kind', label: 'Kind', type: 'text', value: (i) => KIND_TEXT[t.kind[i]], width: 96, searchable: false },
    { ...usColumn('start_us', 'Start', t.startUs, 96), title: () => 'From the start of the trace' },
    usColumn('host_total_us', 'Host total', t.hostTotalUs, 96),
    usColumn('host_self_us', 'Host self', t.hostSelfUs, 96),
    usColumn('device_total_us', 'Device total', t.deviceTotalUs, 96),
    usColumn('device_self_us', 'Device self', t.deviceSelfUs, 96),
  ];
  return { rowCount: t.rowCount, rowKey: (i) => i, columns: cols, tree: { parent: t.parent } };
}

export function ModuleView({ ask, fileName, link, onPlace }: TableViewProps) {
  const state = useQuery(ask, { what: 'modules' });
  const { groupBy, start, choose, report } = useLinkedGroup(WHICH, link, onPlace);
  const m = useMemo(
    () => (state.status === 'ready' ? modulesOf(openAnswer('modules', state.data.modules), openAnswer('modules', state.data.lightning)) : null),
    [state],
  );
  if (!m) {
    return (
      <section class="view" data-testid="module-view" aria-label="Modules">
        <QueryStatus state={state} stem="module" what="Module view" loading="Finding the modules and their time…" />
      </section>
    );
  }
  const have: Which[] = [];
  if (m.modules.rowCount) have.push('modules');
  if (m.lightning?.rowCount) have.push('lightning');
  if (!have.length) {
    return (
      <section class="view" data-testid="module-view" aria-label="Modules">
        <p class="muted" data-testid="module-none">
          This trace has no module information. Record it with <code>torch.profiler.profile(with_modules=True)</code> (or{' '}
          <code>with_stack=True</code>); PyTorch Lightning's <code>PyTorchProfiler</code> adds its <code>[pl][module]</code> ranges.
        </p>
      </section>
    );
  }
  const which = have.includes(groupBy) ? groupBy : have[0];
  const table = which === 'lightning' ? m.lightning! : m.modules;
  return (
    <section class="view" data-testid="module-view" data-ready="true" data-table={which} aria-label="Modules">
      <div class="view-toolbar">
        {have.length > 1 && (
          <label class="ov-select">
            Modules{' '}
            <select data-testid="module-which" value={which} onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value as Which)}>
              <option value="modules">nn.Module (with_modules)</option>
              <option value="lightning">PyTorch Lightning</option>
            </select>
          </label>
        )}
        <span class="muted" data-testid="module-summary">
          {formatCount(table.rowCount)} {which === 'lightning' ? 'Lightning ' : ''}module{table.rowCount === 1 ? '' : 's'}, whole trace
        </span>
        {m.backwardFlows > 0 && (
          <span class="muted module-backward" data-testid="module-backward">
            {backwardSentence(m)}
          </span>
        )}
      </div>
      <ModuleBody
        key={which}
        which={which}
        table={table}
        backward={which === 'modules' && m.backwardRegrouped > 0}
        ask={ask}
        fileName={fileName}
        start={which === groupBy ? start : undefined}
        onState={(s) => report(s, MODULE_SORT)}
      />
    </section>
  );
}

function ModuleBody({
  which,
  table,
  backward,
  ask,
  fileName,
  start,
  onState,
}: {
  which: Which;
  table: ModuleTable;
  backward: boolean;
  ask: TableViewProps['ask'];
  fileName: string;
  start?: { sort?: SortState; q?: string; row?: string };
  onState: (s: TableState) => void;
}) {
  const model = useMemo(() => moduleModel(table, backward), [table, backward]);
  const [tid, setTid] = useState('');
  const treeState = useQuery(ask, { what: 'moduleTree', tid });
  const [selectedRow, setSelectedRow] = useState(-1);
  const [selectedNode, setSelectedNode] = useState(-1);
  const [revealRow, setRevealRow] = useState<{ key: RowKey; seq: number } | null>(null);
  const [revealNode, setRevealNode] = useState<{ key: RowKey; seq: number } | null>(null);
  const rowOf = useMemo(() => new Map(table.key.map((k, i) => [k, i])), [table]);
  const tree = useMemo(() => (treeState.status === 'ready' ? moduleTree(openAnswer('module_tree', treeState.data.answer)) : null), [treeState]);
  const treeTable = useMemo(() => (tree ? treeModel(tree) : null), [tree]);
  // Which tree nodes belong to the table shown (nn.Module frames and their .backward nodes, or
  // Lightning's): their `row` indexes it.
  const family = (kind: TreeNodeKind) => (which === 'lightning' ? kind === 'pl_module' : kind === 'module' || kind === 'backward');

  const pickNode = (node: number) => {
    if (!tree) return;
    setSelectedNode(node);
    setRevealNode((r) => ({ key: node, seq: (r?.seq ?? 0) + 1 }));
    const row = family(tree.kind[node]) ? tree.row[node] : -1;
    if (row >= 0 && row < table.rowCount) setRevealRow((r) => ({ key: table.key[row], seq: (r?.seq ?? 0) + 1 }));
  };

  return (
    <>
      <DataTable
        model={model}
        stem="module"
        columnsKey={`module.${which}`}
        label={which === 'lightning' ? 'Lightning modules' : 'Modules'}
        csvName={`${csvStem(fileName)}-${which === 'lightning' ? 'lightning-modules' : 'modules'}.csv`}
        initialSort={knownSort(model, start?.sort, MODULE_SORT)}
        initialSearch={start?.q}
        initialSelected={start?.row}
        searchPlaceholder="Search modules"
        maxHeight={360}
        reveal={revealRow}
        onSelect={(k) => setSelectedRow(k == null ? -1 : rowOf.get(String(k)) ?? -1)}
        onState={onState}
      />
      <div class="module-flame-head">
        <h4>Module frames over time</h4>
        {tree && tree.threads.length > 1 && (
          <label class="ov-select">
            Thread{' '}
            <select
              data-testid="module-thread"
              value={tree.tid}
              onChange={(e) => {
                setSelectedNode(-1);
                setTid((e.currentTarget as HTMLSelectElement).value);
              }}
            >
              {tree.threads.map((t) => (
                <option key={t.tid} value={t.tid}>
                  {threadLabel(t)}
                </option>
              ))}
            </select>
          </label>
        )}
        {tree && tree.threads.length === 1 && (
          <span class="muted" data-testid="module-thread-name">
            {threadLabel(tree.threads[0])}
          </span>
        )}
      </div>
      {treeState.status !== 'ready' && <QueryStatus state={treeState} stem="module-tree" what="thread's tree" loading="Building the thread's tree…" />}
      {tree && treeTable && (
        <div data-testid="module-tree-ready" data-tid={tree.tid}>
          <FlameGraph
            key={tree.tid}
            nodes={tree}
            selected={selectedNode}
            highlightRow={selectedRow}
            onPick={pickNode}
            label={`Module frames of thread ${tree.tid}`}
          />
          <h4>Operator tree of thread {tree.tid}</h4>
          <p class="muted module-tree-note">
            The thread's ranges as tb_plugin nests them: steps, module frames, operators
            {backward ? ', and each backward pass under the .backward node of the module whose forward operator it differentiates' : ''}.
          </p>
          <DataTable
            key={tree.tid}
            model={treeTable}
            stem="module-tree"
            label={`Operator tree of thread ${tree.tid}`}
            csvName={`${csvStem(fileName)}-thread-${tree.tid}-tree.csv`}
            searchPlaceholder="Search the tree"
            initialExpandDepth={2}
            maxHeight={420}
            reveal={revealNode}
            onSelect={(k) => setSelectedNode(typeof k === 'number' ? k : -1)}
          />
        </div>
      )}
    </>
  );
}
