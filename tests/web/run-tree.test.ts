import { describe, expect, it } from 'vitest';
import { buildRunTree, findByPlace, flattenRows, parentsOf, placeOf, runRowId, traceOrder, workerRowId, type NavTrace } from '../../web/src/lib/run-tree';

let key = 1;
const t = (run: string, worker: string, span: string | null, name = `${worker}${span ? '.' + span : ''}.pt.trace.json`, rank: number | null = null): NavTrace => ({
  key: key++,
  name,
  run,
  worker,
  span,
  rank,
});

describe('buildRunTree', () => {
  it('orders spans 1..n per worker by their strings, whatever order the files came in', () => {
    // The order a folder's cards came in before (newest first): span 2 before span 1.
    const runs = buildRunTree([t('logs/run1', 'w0', '20'), t('logs/run1', 'w0', '100')]);
    expect(runs).toHaveLength(1);
    expect(runs[0].workers[0].spans.map((s) => [s.trace.span, s.spanRank, s.spanCount])).toEqual([
      ['100', 1, 2], // "100" < "20" as strings, as tb_plugin ranks them
      ['20', 2, 2],
    ]);
  });

  it('puts opened files first, runs by name, workers by distributed rank then name', () => {
    const runs = buildRunTree([
      t('b', 'w', null),
      t('', 'rank-10.json.gz', null, 'rank-10.json.gz', 10),
      t('', 'rank-2.json.gz', null, 'rank-2.json.gz', 2),
      t('', 'zeta.json', null, 'zeta.json', null),
      t('', 'alpha.json', null, 'alpha.json', null),
      t('a', 'w', null),
    ]);
    expect(runs.map((r) => r.name)).toEqual(['', 'a', 'b']);
    // ranks first (2 before 10, not as strings), then files without a rank by name
    expect(runs[0].workers.map((w) => w.name)).toEqual(['rank-2.json.gz', 'rank-10.json.gz', 'alpha.json', 'zeta.json']);
  });

  it('orders workers without ranks with numbers as numbers', () => {
    const runs = buildRunTree([t('r', 'worker10', null), t('r', 'worker2', null), t('r', 'worker1', null)]);
    expect(runs[0].workers.map((w) => w.name)).toEqual(['worker1', 'worker2', 'worker10']);
    expect(traceOrder(runs).map((x) => x.worker)).toEqual(['worker1', 'worker2', 'worker10']);
  });

  it('ranks spans across files of one worker that came in separate drops', () => {
    const a = t('', 'w', '5');
    const b = t('', 'w', '3');
    const runs = buildRunTree([a, b]);
    expect(runs[0].workers[0].spans.map((s) => [s.trace.key, s.spanRank])).toEqual([
      [b.key, 1],
      [a.key, 2],
    ]);
  });
});

describe('flattenRows', () => {
  const runs = buildRunTree([
    t('logs/run1', 'w0', '1'),
    t('logs/run1', 'w0', '2'),
    t('logs/run1', 'w1', null),
    t('logs/run2', 'w0', null),
  ]);

  it('shows runs, workers with several spans as groups, single-file workers as trace rows', () => {
    const rows = flattenRows(runs, new Set());
    expect(rows.map((r) => [r.kind, r.depth, r.kind === 'trace' ? r.span.trace.name : r.kind === 'worker' ? r.worker.name : r.run.name])).toEqual([
      ['run', 0, 'logs/run1'],
      ['worker', 1, 'w0'],
      ['trace', 2, 'w0.1.pt.trace.json'],
      ['trace', 2, 'w0.2.pt.trace.json'],
      ['trace', 1, 'w1.pt.trace.json'],
      ['run', 0, 'logs/run2'],
      ['trace', 1, 'w0.pt.trace.json'],
    ]);
  });

  it('hides what is under a collapsed run or worker', () => {
    const rows = flattenRows(runs, new Set([workerRowId('logs/run1', 'w0'), runRowId('logs/run2')]));
    expect(rows.map((r) => r.id.slice(0, 1))).toEqual(['r', 'w', 't', 'r']);
    expect(rows.find((r) => r.kind === 'worker')).toMatchObject({ collapsed: true });
  });

  it('keeps only matching traces (and their run and worker) when searching, collapsed or not', () => {
    const rows = flattenRows(runs, new Set([runRowId('logs/run1')]), 'W0.2');
    expect(rows.map((r) => [r.kind, r.kind === 'trace' ? r.span.trace.name : ''])).toEqual([
      ['run', ''],
      ['worker', ''],
      ['trace', 'w0.2.pt.trace.json'],
    ]);
    expect(flattenRows(runs, new Set(), 'run2').map((r) => r.kind)).toEqual(['run', 'trace']);
    expect(flattenRows(runs, new Set(), 'nothing like it')).toEqual([]);
  });

  it('finds a trace by its distributed rank', () => {
    const many = buildRunTree(Array.from({ length: 256 }, (_, i) => t('job', `rank${i}`, null, `rank${i}.json`, i)));
    const rows = flattenRows(many, new Set(), 'rank 200');
    expect(rows.filter((r) => r.kind === 'trace').map((r) => (r.kind === 'trace' ? r.span.trace.rank : -1))).toEqual([200]);
    expect(flattenRows(many, new Set())).toHaveLength(257);
  });
});

describe('places', () => {
  const a = t('logs/run1', 'w0', '10');
  const b = t('logs/run1', 'w0', '20');
  const c = t('', 'solo.json', null, 'solo.json');
  const runs = buildRunTree([a, b, c]);

  it('names a trace by run, worker and span rank, and finds it again', () => {
    expect(placeOf(runs, b.key)).toEqual({ run: 'logs/run1', worker: 'w0', span: 2 });
    expect(placeOf(runs, c.key)).toEqual({ run: '', worker: 'solo.json', span: 0 });
    expect(findByPlace(runs, 'logs/run1', 'w0', 2)?.key).toBe(b.key);
    expect(findByPlace(runs, 'logs/run1', 'w0')?.key).toBe(a.key);
    expect(findByPlace(runs, '', 'solo.json')?.key).toBe(c.key);
    expect(findByPlace(runs, 'logs/run1', 'w0', 3)).toBeNull();
    expect(findByPlace(runs, 'nope', 'w0', 1)).toBeNull();
  });

  it('lists the groups to open to show a trace', () => {
    expect(parentsOf(runs, b.key)).toEqual([runRowId('logs/run1'), workerRowId('logs/run1', 'w0')]);
    expect(parentsOf(runs, c.key)).toEqual([runRowId('')]);
    expect(parentsOf(runs, 9999)).toEqual([]);
  });
});
