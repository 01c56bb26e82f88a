// The Module view's data: the core's answers (Session.query), read in place: the modules view
// (one answer per table, nn.Module and Lightning, as `kinetoscope modules --json` prints them),
// module_tree (one thread's tree for the flame graph and the operator tree) and module_presence.
import type { Answer } from '../generated/views';
import { stringColumn } from './answer';

export type ModulePresence = Answer<'module_presence'>['meta'];

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

/** One table from its answer: the columns read in place. */
function table(a: Answer<'modules'>): ModuleTable {
  const c = a.columns;
  return {
    rowCount: a.rowCount,
    name: stringColumn(c.name, a.strings) as string[],
    path: stringColumn(c.path, a.strings) as string[],
    key: stringColumn(c.key, a.strings) as string[],
    id: c.id,
    parent: c.parent,
    depth: c.depth,
    occurrences: c.occurrences,
    operators: c.operators,
    hostTotalUs: c.host_total_us,
    hostSelfUs: c.host_self_us,
    deviceTotalUs: c.device_total_us,
    deviceSelfUs: c.device_self_us,
    backwardHostUs: c.backward_host_us,
    backwardDeviceUs: c.backward_device_us,
    inTrees: c.in_trees,
  };
}

/** The view's tables from the modules answers of table modules and table lightning. */
export function modulesOf(modules: Answer<'modules'>, lightning: Answer<'modules'>): Modules {
  const b = modules.meta.backward;
  return {
    modules: table(modules),
    lightning: modules.meta.has_lightning ? table(lightning) : null,
    backwardFlows: b.flows,
    backwardRegrouped: b.regrouped,
    flowsCharged: b.flows_charged,
    flowsOutsideModules: b.flows_outside_modules,
    flowsSharedPass: b.flows_shared_pass,
    flowsNoPass: b.flows_no_pass,
    backwardNoneWhy: b.none_why,
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

/** One thread's tree from its module_tree answer: the columns read in place. */
export function moduleTree(a: Answer<'module_tree'>): ModuleTree {
  const c = a.columns;
  return {
    threads: a.meta.threads,
    tid: a.meta.tid,
    rowCount: a.rowCount,
    name: stringColumn(c.name, a.strings) as string[],
    kind: stringColumn(c.kind, a.strings) as TreeNodeKind[],
    startUs: c.start_us,
    endUs: c.end_us,
    depth: c.depth,
    parent: c.parent,
    row: c.row,
    hostTotalUs: c.host_total_us,
    hostSelfUs: c.host_self_us,
    deviceTotalUs: c.device_total_us,
    deviceSelfUs: c.device_self_us,
  };
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
