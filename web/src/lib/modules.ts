// The Module view's data: Session.modulesJson (the tables, as `kinetoscope modules --json`) and
// Session.moduleTreeJson (one thread's tree for the flame graph and the operator tree), checked in
// the worker (json-check.ts) and turned into columns.
import { Reader } from './json-check';

export interface ModulePresence {
  modules: boolean;
  lightning: boolean;
}

export function parseModulePresence(json: string): ModulePresence {
  const r = Reader.parse('modulePresenceJson', json);
  return { modules: r.bool('modules'), lightning: r.bool('lightning') };
}

/** One module table (nn.Module or Lightning): rows in hierarchy pre-order, parents by index. */
export interface ModuleTable {
  rowCount: number;
  name: string[];
  path: string[];
  key: string[];
  id: Float64Array;
  parent: Int32Array;
  depth: Int32Array;
  occurrences: Float64Array;
  operators: Float64Array;
  hostTotalUs: Float64Array;
  hostSelfUs: Float64Array;
  deviceTotalUs: Float64Array;
  deviceSelfUs: Float64Array;
  backwardHostUs: Float64Array;
  backwardDeviceUs: Float64Array;
  /** 0: no call of the module is in the operator trees (its numbers are zeros). */
  inTrees: Uint8Array;
}

export interface Modules {
  modules: ModuleTable;
  /** null: the trace has no Lightning modules. */
  lightning: ModuleTable | null;
  backwardFlows: number;
  backwardRegrouped: number;
  /** What became of the fwdbwd flows (they add up to backwardFlows; core/analysis/modules.h). */
  flowsCharged: number;
  flowsOutsideModules: number;
  flowsSharedPass: number;
  flowsNoPass: number;
  /** Why no backward pass could be charged at all (null: some could, or there are no flows). */
  backwardNoneWhy: string | null;
}

const plural = (n: number, one: string, many = one + 's') => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * The Module view's sentence on backward time: how many backward passes were charged to modules
 * and through how many of the fwdbwd flows, and for the flows that charged nothing, why (their
 * forward operator ran outside every module, their backward pass was another flow's, or no
 * backward pass of the trace is where they end). Empty without flows.
 */
export function backwardSentence(m: Pick<Modules, 'backwardFlows' | 'backwardRegrouped' | 'flowsCharged' | 'flowsOutsideModules' | 'flowsSharedPass' | 'flowsNoPass' | 'backwardNoneWhy'>): string {
  if (m.backwardFlows <= 0) return '';
  if (m.backwardRegrouped === 0) {
    return `Backward time not charged to modules: ${m.backwardNoneWhy ?? 'none of the ' + plural(m.backwardFlows, 'fwdbwd flow') + ' leads from a module\'s forward operator to a backward pass'} (${plural(m.backwardFlows, 'fwdbwd flow')} in the trace).`;
  }
  const left: string[] = [];
  if (m.flowsOutsideModules) left.push(`${plural(m.flowsOutsideModules, 'starts', 'start')} at an operator run outside every module (a loss, an optimizer step)`);
  if (m.flowsSharedPass) left.push(`${plural(m.flowsSharedPass, 'leads', 'lead')} to a backward pass another flow already charged`);
  if (m.flowsNoPass) left.push(`${plural(m.flowsNoPass, 'ends', 'end')} where no backward pass was recorded`);
  const head = `${plural(m.backwardRegrouped, 'backward pass', 'backward passes')} charged to the modules whose forward ran them, through ${m.flowsCharged.toLocaleString('en-US')} of ${plural(m.backwardFlows, 'fwdbwd flow')}`;
  return left.length ? `${head}; not charged: ${left.join(', ')}.` : `${head}.`;
}

function table(rows: Reader[]): ModuleTable {
  const n = rows.length;
  const t: ModuleTable = {
    rowCount: n,
    name: new Array(n),
    path: new Array(n),
    key: new Array(n),
    id: new Float64Array(n),
    parent: new Int32Array(n),
    depth: new Int32Array(n),
    occurrences: new Float64Array(n),
    operators: new Float64Array(n),
    hostTotalUs: new Float64Array(n),
    hostSelfUs: new Float64Array(n),
    deviceTotalUs: new Float64Array(n),
    deviceSelfUs: new Float64Array(n),
    backwardHostUs: new Float64Array(n),
    backwardDeviceUs: new Float64Array(n),
    inTrees: new Uint8Array(n),
  };
  rows.forEach((r, i) => {
    t.name[i] = r.str('name');
    t.path[i] = r.str('path');
    t.key[i] = r.str('key');
    t.id[i] = r.num('id');
    const p = r.num('parent');
    // A parent must come before its child (pre-order): anything else would loop the tree.
    t.parent[i] = p >= 0 && p < i ? p : -1;
    t.depth[i] = r.num('depth');
    t.occurrences[i] = r.num('occurrences');
    t.operators[i] = r.num('operators');
    t.hostTotalUs[i] = r.num('host_total_us');
    t.hostSelfUs[i] = r.num('host_self_us');
    t.deviceTotalUs[i] = r.num('device_total_us');
    t.deviceSelfUs[i] = r.num('device_self_us');
    t.backwardHostUs[i] = r.num('backward_host_us');
    t.backwardDeviceUs[i] = r.num('backward_device_us');
    t.inTrees[i] = r.bool('in_trees') ? 1 : 0;
  });
  return t;
}

export function parseModules(json: string): Modules {
  const r = Reader.parse('modulesJson', json);
  const lightning = r.field('lightning');
  const backward = r.field('backward').object();
  return {
    modules: table(r.field('rows').items()),
    lightning: lightning.isNull() ? null : table(lightning.items()),
    backwardFlows: backward.num('flows'),
    backwardRegrouped: backward.num('regrouped'),
    flowsCharged: backward.num('flows_charged'),
    flowsOutsideModules: backward.num('flows_outside_modules'),
    flowsSharedPass: backward.num('flows_shared_pass'),
    flowsNoPass: backward.num('flows_no_pass'),
    backwardNoneWhy: backward.strOrNull('none_why'),
  };
}

export type TreeNodeKind = 'module' | 'backward' | 'pl_module' | 'pl_profile' | 'step' | 'operator' | 'other';
export const TREE_NODE_KINDS: readonly TreeNodeKind[] = ['module', 'backward', 'pl_module', 'pl_profile', 'step', 'operator', 'other'];

export interface ThreadInfo {
  tid: string;
  main: boolean;
  modules: number;
  nodes: number;
}

/** One thread's tree, pre-order, parents by index; times in µs from the trace's start. */
export interface ModuleTree {
  threads: ThreadInfo[];
  tid: string;
  rowCount: number;
  name: string[];
  kind: TreeNodeKind[];
  startUs: Float64Array;
  endUs: Float64Array;
  depth: Int32Array;
  parent: Int32Array;
  /** The module table row a module (or .backward) node belongs to; -1 for the rest. */
  row: Int32Array;
  hostTotalUs: Float64Array;
  hostSelfUs: Float64Array;
  deviceTotalUs: Float64Array;
  deviceSelfUs: Float64Array;
}

export function parseModuleTree(json: string): ModuleTree {
  const r = Reader.parse('moduleTreeJson', json);
  const threads = r.field('threads').items().map((t) => ({ tid: t.str('tid'), main: t.bool('main'), modules: t.num('modules'), nodes: t.num('nodes') }));
  const nodes = r.field('nodes').items();
  const n = nodes.length;
  const t: ModuleTree = {
    threads,
    tid: r.str('tid'),
    rowCount: n,
    name: new Array(n),
    kind: new Array(n),
    startUs: new Float64Array(n),
    endUs: new Float64Array(n),
    depth: new Int32Array(n),
    parent: new Int32Array(n),
    row: new Int32Array(n),
    hostTotalUs: new Float64Array(n),
    hostSelfUs: new Float64Array(n),
    deviceTotalUs: new Float64Array(n),
    deviceSelfUs: new Float64Array(n),
  };
  nodes.forEach((x, i) => {
    t.name[i] = x.str('name');
    t.kind[i] = x.oneOf('kind', TREE_NODE_KINDS);
    t.startUs[i] = x.num('start_us');
    t.endUs[i] = x.num('end_us');
    t.depth[i] = x.num('depth');
    const p = x.num('parent');
    t.parent[i] = p >= 0 && p < i ? p : -1;
    t.row[i] = x.num('row');
    t.hostTotalUs[i] = x.num('host_total_us');
    t.hostSelfUs[i] = x.num('host_self_us');
    t.deviceTotalUs[i] = x.num('device_total_us');
    t.deviceSelfUs[i] = x.num('device_self_us');
  });
  return t;
}

/** How a thread is named in the picker: "Thread 100 (main, 24 modules)". */
export function threadLabel(t: ThreadInfo): string {
  const parts = [t.main ? 'main' : '', `${t.modules} module frame${t.modules === 1 ? '' : 's'}`].filter(Boolean);
  return `Thread ${t.tid} (${parts.join(', ')})`;
}

/**
 * A name as a flame graph's narrow boxes show it: without tb_plugin's "nn.Module: " prefix, a
 * Lightning module as its attribute path and class ("layer.0 (Linear)" for
 * "[pl][module]torch.nn.modules.linear.Linear: layer.0"), a Lightning action without "[pl][profile]".
 */
export function shortName(name: string): string {
  if (name.startsWith('nn.Module: ')) return name.slice('nn.Module: '.length);
  if (name.startsWith('[pl][profile]')) return name.slice('[pl][profile]'.length);
  if (!name.startsWith('[pl][module]')) return name;
  const rest = name.slice('[pl][module]'.length);
  const colon = rest.lastIndexOf(': ');
  if (colon < 0) return rest;
  const type = rest.slice(0, colon);
  return `${rest.slice(colon + 2)} (${type.slice(type.lastIndexOf('.') + 1)})`;
}
