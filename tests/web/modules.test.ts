import { describe, expect, it } from 'vitest';
import { backwardSentence, modulesOf, moduleTree, shortName, threadLabel } from '../../web/src/lib/modules';
import { answerOf } from './answer-fixture';

// `kinetoscope modules --json tests/data/tb-unit-module-hierarchy.json` (tb_plugin's TestModuleView trace) as its answers.
const ROWS = [
  { table: 'modules', name: 'Conv2', path: 'Conv2', key: 'Conv2#100', id: 100, depth: 0, parent: -1, occurrences: 1, operators: 0, host_total_us: 211, host_self_us: 211, device_total_us: 0, device_self_us: 0, backward_host_us: 0, backward_device_us: 0, in_trees: true },
  { table: 'modules', name: 'MyModule', path: 'MyModule', key: 'MyModule#0', id: 0, depth: 0, parent: -1, occurrences: 3, operators: 0, host_total_us: 633, host_self_us: 447, device_total_us: 0, device_self_us: 0, backward_host_us: 0, backward_device_us: 0, in_trees: true },
  { table: 'modules', name: 'Linear', path: 'MyModule/Linear', key: 'MyModule#0/Linear#1', id: 1, depth: 1, parent: 1, occurrences: 3, operators: 3, host_total_us: 186, host_self_us: 90, device_total_us: 0, device_self_us: 0, backward_host_us: 0, backward_device_us: 0, in_trees: true },
];
const META = {
  has_modules: true,
  has_lightning: false,
  backward: { flows: 0, regrouped: 0, flows_charged: 0, flows_outside_modules: 0, flows_shared_pass: 0, flows_no_pass: 0, none_why: null },
  error: null,
};

describe('module view data', () => {
  it('reads the tables in place from their answers, parents by index', () => {
    const a = answerOf('modules', { ...META, rows: ROWS });
    const m = modulesOf(a, answerOf('modules', { ...META, rows: [] }));
    expect(m.lightning).toBeNull();
    expect(m.modules.rowCount).toBe(3);
    expect(m.modules.name).toEqual(['Conv2', 'MyModule', 'Linear']);
    expect([...m.modules.parent]).toEqual([-1, -1, 1]);
    expect(m.modules.hostSelfUs).toBe(a.columns.host_self_us);
    expect([...m.modules.hostSelfUs]).toEqual([211, 447, 90]);
    expect(m.modules.key[2]).toBe('MyModule#0/Linear#1');
    expect(m.backwardFlows).toBe(0);
  });

  it('has a Lightning table when the trace has Lightning modules', () => {
    const pl = [{ ...ROWS[0], table: 'lightning', name: 'net', path: 'net', key: 'net', id: 0 }];
    const m = modulesOf(answerOf('modules', { ...META, has_lightning: true, rows: [] }), answerOf('modules', { ...META, has_lightning: true, rows: pl }));
    expect(m.modules.rowCount).toBe(0);
    expect(m.lightning?.name).toEqual(['net']);
  });

  it('reads a thread tree from its answer', () => {
    const t = moduleTree(
      answerOf('module_tree', {
        threads: [{ tid: '7', main: true, modules: 1, nodes: 2 }],
        tid: '7',
        rows: [
          { name: 'nn.Module: Net', kind: 'module', start_us: 1, end_us: 5, depth: 0, parent: -1, row: 0, host_total_us: 4, host_self_us: 1, device_total_us: 0, device_self_us: 0 },
          { name: 'aten::mm', kind: 'operator', start_us: 2, end_us: 4, depth: 1, parent: 0, row: -1, host_total_us: 2, host_self_us: 2, device_total_us: 0, device_self_us: 0 },
        ],
      }),
    );
    expect([...t.parent]).toEqual([-1, 0]);
    expect(t.kind).toEqual(['module', 'operator']);
    expect(t.tid).toBe('7');
    expect(threadLabel(t.threads[0])).toBe('Thread 7 (main, 1 module frame)');
    expect(shortName('nn.Module: Net')).toBe('Net');
    expect(shortName('[pl][module]torch.nn.modules.linear.Linear: layer.0')).toBe('layer.0 (Linear)');
    expect(shortName('[pl][module]odd')).toBe('odd');
    expect(shortName('[pl][profile]run_training_batch')).toBe('run_training_batch');
  });
});

describe('backwardSentence', () => {
  const none = { flowsOutsideModules: 0, flowsSharedPass: 0, flowsNoPass: 0, backwardNoneWhy: null };
  it('says how many passes were charged through how many flows', () => {
    expect(backwardSentence({ ...none, backwardFlows: 8, backwardRegrouped: 12, flowsCharged: 8 })).toBe(
      '12 backward passes charged to the modules whose forward ran them, through 8 of 8 fwdbwd flows.',
    );
    expect(backwardSentence({ ...none, backwardFlows: 0, backwardRegrouped: 0, flowsCharged: 0 })).toBe('');
  });
  it('says what was not charged and why', () => {
    expect(backwardSentence({ ...none, backwardFlows: 326, backwardRegrouped: 424, flowsCharged: 318, flowsOutsideModules: 7, flowsNoPass: 1 })).toBe(
      '424 backward passes charged to the modules whose forward ran them, through 318 of 326 fwdbwd flows; not charged: 7 start at an operator run outside every module (a loss, an optimizer step), 1 ends where no backward pass was recorded.',
    );
  });
  it('none charged: the reason instead of "0 backward passes … through 41 flows"', () => {
    const s = backwardSentence({ ...none, backwardFlows: 41, backwardRegrouped: 0, flowsCharged: 0, flowsNoPass: 41, backwardNoneWhy: 'no backward pass recorded (autograd::engine::evaluate_function ranges)' });
    expect(s).toBe('Backward time not charged to modules: no backward pass recorded (autograd::engine::evaluate_function ranges) (41 fwdbwd flows in the trace).');
    expect(s).not.toMatch(/^0 /);
  });
});
