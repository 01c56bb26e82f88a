import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAnswer } from '../../web/src/lib/answer';
import { formatPlace, parsePlace } from '../../web/src/lib/deep-link';
import { bars, label, nodeAt, openDiff, operatorRows, threadsText, trail, type DiffTree } from '../../web/src/lib/diff';
import { CoreError } from '../../web/src/lib/json-check';
import { defaultExperiment, traceOfLink, traceTitle, type DiffTrace } from '../../web/src/views/diff-view';
import { answerOf, wireOf } from './answer-fixture';

type Side = { name: string; nodes: number; threads: number; duration_us: number; device_duration_us: number; total_duration_us: number; aggs: Record<string, unknown>[] };
type Node = { path: string; name: string; role: string | null; baseline: Side; experiment: Side; children: Node[] };

/**
 * The core's two answers of a comparison (diff: the nodes in pre-order, diff_operators: each node
 * side's operators) as the wasm Session gives them, made from `kinetoscope diff --json`'s nested
 * object (tests/golden/cli/diff: the hand-made pairs of tests/data, numbers worked out in
 * tests/data/README.md), through the wire form the worker transfers.
 */
function diffOf(golden: string): DiffTree {
  const d = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../golden/cli/diff', golden), 'utf8')) as { baseline: string; experiment: string; tree: Node };
  const nodes: Record<string, unknown>[] = [];
  const ops: Record<string, unknown>[] = [];
  const walk = (n: Node, parent: number, depth: number) => {
    const row: Record<string, unknown> = { path: n.path, name: n.name, role: n.role, parent, depth };
    for (const side of ['baseline', 'experiment'] as const) {
      const { aggs, ...numbers } = n[side];
      for (const [k, v] of Object.entries(numbers)) row[`${side}_${k}`] = v;
      for (const a of aggs) ops.push({ node: nodes.length, side, ...a });
    }
    const self = nodes.length;
    nodes.push(row);
    // The operators are by node: the node's rows before its children's.
    n.children.forEach((c) => walk(c, self, depth + 1));
  };
  walk(d.tree, -1, 0);
  const tree = answerOf('diff', { baseline: d.baseline, experiment: d.experiment, rows: nodes });
  const operators = answerOf('diff_operators', { rows: ops });
  return openDiff(openAnswer('diff', wireOf(tree)), openAnswer('diff_operators', wireOf(operators)));
}

describe('diff data', () => {
  const t = diffOf('diff-baseline--diff-experiment.json');

  it('reads the tree: nodes in pre-order, children by parent, both sides per node', () => {
    expect(t.rowCount).toBe(7);
    expect(t.path).toEqual(['0', '0-0', '0-1', '0-1-0', '0-1-1', '0-2', '0-3']);
    expect(t.children[0].map((c) => t.path[c])).toEqual(['0-0', '0-1', '0-2', '0-3']);
    expect(t.children[2].map((c) => t.path[c])).toEqual(['0-1-0', '0-1-1']);
    expect(t.baseline.durationUs[0]).toBe(180);
    expect(t.experiment.totalDurationUs[0]).toBe(80);
    expect(t.role).toEqual([null, null, null, null, null, null, null]);
  });

  it('finds nodes and breadcrumbs by path, stopping where the path leaves the tree', () => {
    expect(t.name[nodeAt(t, '0-1-0')]).toBe('nn.Module: Conv2d');
    expect(trail(t, '0-1-1').map((n) => t.path[n])).toEqual(['0', '0-1', '0-1-1']);
    expect(t.path[nodeAt(t, '0-1-9')]).toBe('0-1');
    expect(t.path[nodeAt(t, 'x')]).toBe('0');
    expect(label(t, nodeAt(t, '0-1-1'))).toBe('aten::relu | aten::mul');
    expect(label(t, nodeAt(t, '0-3'))).toBe('Others | (none)');
  });

  it('bars: the children, their difference and its running sum', () => {
    const b = bars(t, 0);
    expect(b.paths).toEqual(['0-0', '0-1', '0-2', '0-3']);
    expect(b.baselineUs).toEqual([10, 30, 30, 80]);
    expect(b.experimentUs).toEqual([20, 20, 40, 0]);
    expect(b.deltaUs).toEqual([10, -10, 10, -80]);
    expect(b.cumulativeUs).toEqual([10, 0, 10, -70]);
    // A node without children is its own single pair of bars.
    const leaf = bars(t, nodeAt(t, '0-2'));
    expect(leaf.paths).toEqual(['0-2']);
    expect(leaf.deltaUs).toEqual([10]);
  });

  it('operators side by side: baseline order first, then the experiment own, with differences', () => {
    const r = operatorRows(t, 0);
    expect(r.name).toEqual(['aten::convolution', 'aten::conv2d', 'aten::relu', 'aten::add_', 'aten::mul']);
    expect([...r.calls[0]]).toEqual([2, 2, 1, 2, 0]);
    expect([...r.calls[1]]).toEqual([1, 1, 0, 1, 1]);
    expect([...r.deviceUs[2]]).toEqual([-38, -38, 0, 0, 0]);
    expect([...r.selfHostUs[2]]).toEqual([32 - 59, 2 - 8, -10, 10 - 16, 10]);
    // Each node's own rows only: 0-1-1 is aten::relu against aten::mul; 0-3's experiment is blank.
    const leaf = operatorRows(t, nodeAt(t, '0-1-1'));
    expect(leaf.name).toEqual(['aten::relu', 'aten::mul']);
    expect([...leaf.calls[0]]).toEqual([1, 0]);
    expect([...leaf.calls[1]]).toEqual([0, 1]);
    const blank = operatorRows(t, nodeAt(t, '0-3'));
    expect(blank.name).toEqual(['aten::convolution', 'aten::conv2d', 'aten::add_']);
    expect([...blank.hostUs[1]]).toEqual([0, 0, 0]);
    expect([...blank.hostUs[2]]).toEqual([-32, -38, -8]);
  });

  it('roles: every thread merged by role, named after the role, with both sides\' threads', () => {
    const r = diffOf('diff-threads-rank0--diff-threads-rank1.json');
    expect(r.children[0].map((c) => r.role[c])).toEqual(['main', 'autograd', 'communication']);
    expect(r.role[nodeAt(r, '0-0-0')]).toBeNull();
    expect(label(r, nodeAt(r, '0-1'))).toBe('Autograd (backward)');
    expect(threadsText(r, nodeAt(r, '0-0'))).toBe('1 thread');
    expect(threadsText(r, nodeAt(r, '0-2'))).toBe('1 → 2 threads');
    expect(threadsText(r, 0)).toBe('3 → 4 threads');
  });

  it('a comparison the core refused is its sentence', () => {
    const refused = wireOf(answerOf('diff', { baseline: 'a.json', experiment: 'b.json', rows: [] }), 'the experiment has no host operators to compare');
    expect(() => openAnswer('diff', refused)).toThrow(CoreError);
    expect(() => openAnswer('diff', refused)).toThrow('the experiment has no host operators to compare');
  });
});

describe('diff pair', () => {
  const t = (key: number, name: string, place: DiffTrace['place']): DiffTrace => ({ key, name, status: 'done', session: key, gen: 1, place });
  const traces = [
    t(1, 'w0.1.pt.trace.json', { run: 'r', worker: 'w0', span: 1 }),
    t(2, 'w0.2.pt.trace.json', { run: 'r', worker: 'w0', span: 2 }),
    t(3, 'w1.pt.trace.json', { run: 'r', worker: 'w1', span: 0 }),
    t(4, 'loose.json', null),
  ];
  it('starts with the next span of the worker, else the previous, else the next trace', () => {
    expect(defaultExperiment(traces, 1)?.key).toBe(2);
    expect(defaultExperiment(traces, 2)?.key).toBe(1);
    expect(defaultExperiment(traces, 3)?.key).toBe(4);
    expect(defaultExperiment(traces, 4)?.key).toBe(1);
  });
  it('names traces by place, else file', () => {
    expect(traceTitle(traces[1])).toBe('r / w0 · span 2');
    expect(traceTitle(traces[3])).toBe('loose.json');
  });
  it('finds a link experiment by place, else by file name', () => {
    expect(traceOfLink(traces, { vs_run: 'r', vs_worker: 'w0', vs_span: 2 })?.key).toBe(2);
    expect(traceOfLink(traces, { vs_file: 'loose.json' })?.key).toBe(4);
    expect(traceOfLink(traces, { vs_worker: 'w9' })).toBeUndefined();
  });
  it('the deep link carries the experiment and the node', () => {
    const h = formatPlace({ worker: 'w0', span: 1, view: 'diff', vs_run: 'r/x', vs_worker: 'w0', vs_span: 2, node: '0-3-1' });
    expect(h).toBe('worker=w0&span=1&view=diff&vs_run=r%2Fx&vs_worker=w0&vs_span=2&node=0-3-1');
    expect(parsePlace(h)).toEqual({ worker: 'w0', span: 1, view: 'diff', vs_run: 'r/x', vs_worker: 'w0', vs_span: 2, node: '0-3-1' });
    expect(parsePlace('view=diff&vs_span=0&node=1-2')).toEqual({ view: 'diff' });
  });
});
