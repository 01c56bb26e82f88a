import { describe, expect, it } from 'vitest';
import { formatPlace, parsePlace } from '../../web/src/lib/deep-link';
import { bars, label, nodeAt, operatorRows, parseDiff, trail } from '../../web/src/lib/diff';
import { defaultExperiment, traceOfLink, traceTitle, type DiffTrace } from '../../web/src/views/diff-view';

// `kinetoscope diff --json tests/data/diff-baseline.json tests/data/diff-experiment.json`
// (the numbers are worked out in tests/data/README.md).
const DIFF = `{"baseline":"diff-baseline.json","experiment":"diff-experiment.json","tree":{"path":"0","name":"CompositeNodes","baseline":{"name":"CompositeNodes","nodes":6,"duration_us":180,"device_duration_us":58,"total_duration_us":150,"aggs":[{"name":"aten::convolution","calls":2,"host_duration_us":68,"device_duration_us":58,"self_host_duration_us":59,"self_device_duration_us":58},{"name":"aten::conv2d","calls":2,"host_duration_us":76,"device_duration_us":58,"self_host_duration_us":8,"self_device_duration_us":0},{"name":"aten::relu","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0},{"name":"aten::add_","calls":2,"host_duration_us":16,"device_duration_us":0,"self_host_duration_us":16,"self_device_duration_us":0}]},"experiment":{"name":"CompositeNodes","nodes":3,"duration_us":110,"device_duration_us":20,"total_duration_us":80,"aggs":[{"name":"aten::convolution","calls":1,"host_duration_us":36,"device_duration_us":20,"self_host_duration_us":32,"self_device_duration_us":20},{"name":"aten::conv2d","calls":1,"host_duration_us":38,"device_duration_us":20,"self_host_duration_us":2,"self_device_duration_us":0},{"name":"aten::mul","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0},{"name":"aten::add_","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0}]},"children":[{"path":"0-0","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","baseline":{"name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","nodes":1,"duration_us":10,"device_duration_us":0,"total_duration_us":10,"aggs":[]},"experiment":{"name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","nodes":1,"duration_us":20,"device_duration_us":0,"total_duration_us":20,"aggs":[]},"children":[]},{"path":"0-1","name":"nn.Module: Net","baseline":{"name":"nn.Module: Net","nodes":1,"duration_us":50,"device_duration_us":30,"total_duration_us":30,"aggs":[{"name":"aten::convolution","calls":1,"host_duration_us":36,"device_duration_us":30,"self_host_duration_us":31,"self_device_duration_us":30},{"name":"aten::conv2d","calls":1,"host_duration_us":38,"device_duration_us":30,"self_host_duration_us":2,"self_device_duration_us":0},{"name":"aten::relu","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0}]},"experiment":{"name":"nn.Module: Net","nodes":1,"duration_us":50,"device_duration_us":20,"total_duration_us":20,"aggs":[{"name":"aten::convolution","calls":1,"host_duration_us":36,"device_duration_us":20,"self_host_duration_us":32,"self_device_duration_us":20},{"name":"aten::conv2d","calls":1,"host_duration_us":38,"device_duration_us":20,"self_host_duration_us":2,"self_device_duration_us":0},{"name":"aten::mul","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0}]},"children":[{"path":"0-1-0","name":"nn.Module: Conv2d","baseline":{"name":"nn.Module: Conv2d","nodes":1,"duration_us":40,"device_duration_us":30,"total_duration_us":30,"aggs":[{"name":"aten::convolution","calls":1,"host_duration_us":36,"device_duration_us":30,"self_host_duration_us":31,"self_device_duration_us":30},{"name":"aten::conv2d","calls":1,"host_duration_us":38,"device_duration_us":30,"self_host_duration_us":2,"self_device_duration_us":0}]},"experiment":{"name":"nn.Module: Conv2d","nodes":1,"duration_us":40,"device_duration_us":20,"total_duration_us":20,"aggs":[{"name":"aten::convolution","calls":1,"host_duration_us":36,"device_duration_us":20,"self_host_duration_us":32,"self_device_duration_us":20},{"name":"aten::conv2d","calls":1,"host_duration_us":38,"device_duration_us":20,"self_host_duration_us":2,"self_device_duration_us":0}]},"children":[]},{"path":"0-1-1","name":"aten::relu","baseline":{"name":"aten::relu","nodes":1,"duration_us":10,"device_duration_us":0,"total_duration_us":10,"aggs":[{"name":"aten::relu","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0}]},"experiment":{"name":"aten::mul","nodes":1,"duration_us":10,"device_duration_us":0,"total_duration_us":10,"aggs":[{"name":"aten::mul","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0}]},"children":[]}]},{"path":"0-2","name":"Optimizer.step#SGD.step","baseline":{"name":"Optimizer.step#SGD.step","nodes":1,"duration_us":30,"device_duration_us":0,"total_duration_us":30,"aggs":[{"name":"aten::add_","calls":1,"host_duration_us":8,"device_duration_us":0,"self_host_duration_us":8,"self_device_duration_us":0}]},"experiment":{"name":"Optimizer.step#SGD.step","nodes":1,"duration_us":40,"device_duration_us":0,"total_duration_us":40,"aggs":[{"name":"aten::add_","calls":1,"host_duration_us":10,"device_duration_us":0,"self_host_duration_us":10,"self_device_duration_us":0}]},"children":[]},{"path":"0-3","name":"CompositeNodes","baseline":{"name":"CompositeNodes","nodes":3,"duration_us":90,"device_duration_us":28,"total_duration_us":80,"aggs":[{"name":"aten::convolution","calls":1,"host_duration_us":32,"device_duration_us":28,"self_host_duration_us":28,"self_device_duration_us":28},{"name":"aten::conv2d","calls":1,"host_duration_us":38,"device_duration_us":28,"self_host_duration_us":6,"self_device_duration_us":0},{"name":"aten::add_","calls":1,"host_duration_us":8,"device_duration_us":0,"self_host_duration_us":8,"self_device_duration_us":0}]},"experiment":{"name":"Blank","nodes":0,"duration_us":0,"device_duration_us":0,"total_duration_us":0,"aggs":[]},"children":[]}]}}`;

describe('diff data', () => {
  it('reads the tree', () => {
    const d = parseDiff(DIFF);
    expect(d.baseline).toBe('diff-baseline.json');
    expect(d.tree.path).toBe('0');
    expect(d.tree.children.map((c) => c.path)).toEqual(['0-0', '0-1', '0-2', '0-3']);
    expect(d.tree.baseline.durationUs).toBe(180);
    expect(d.tree.experiment.totalDurationUs).toBe(80);
    expect(d.tree.baseline.aggs[0]).toEqual({ name: 'aten::convolution', calls: 2, hostUs: 68, deviceUs: 58, selfHostUs: 59, selfDeviceUs: 58 });
  });

  it('fails with the path of a bad field', () => {
    expect(() => parseDiff(DIFF.replace('"duration_us":180', '"duration_us":"x"'))).toThrow(/tree\.baseline\.duration_us/);
  });

  it('finds nodes and breadcrumbs by path, stopping where the path leaves the tree', () => {
    const t = parseDiff(DIFF).tree;
    expect(nodeAt(t, '0-1-0').name).toBe('nn.Module: Conv2d');
    expect(trail(t, '0-1-1').map((n) => n.path)).toEqual(['0', '0-1', '0-1-1']);
    expect(nodeAt(t, '0-1-9').path).toBe('0-1');
    expect(nodeAt(t, 'x').path).toBe('0');
    expect(label(nodeAt(t, '0-1-1'))).toBe('aten::relu | aten::mul');
    expect(label(nodeAt(t, '0-3'))).toBe('Others | (none)');
  });

  it('bars: the children, their difference and its running sum', () => {
    const b = bars(parseDiff(DIFF).tree);
    expect(b.paths).toEqual(['0-0', '0-1', '0-2', '0-3']);
    expect(b.baselineUs).toEqual([10, 30, 30, 80]);
    expect(b.experimentUs).toEqual([20, 20, 40, 0]);
    expect(b.deltaUs).toEqual([10, -10, 10, -80]);
    expect(b.cumulativeUs).toEqual([10, 0, 10, -70]);
    // A node without children is its own single pair of bars.
    const leaf = bars(nodeAt(parseDiff(DIFF).tree, '0-2'));
    expect(leaf.paths).toEqual(['0-2']);
    expect(leaf.deltaUs).toEqual([10]);
  });

  it('operators side by side: baseline order first, then the experiment own, with differences', () => {
    const r = operatorRows(parseDiff(DIFF).tree);
    expect(r.name).toEqual(['aten::convolution', 'aten::conv2d', 'aten::relu', 'aten::add_', 'aten::mul']);
    expect([...r.calls[0]]).toEqual([2, 2, 1, 2, 0]);
    expect([...r.calls[1]]).toEqual([1, 1, 0, 1, 1]);
    expect([...r.deviceUs[2]]).toEqual([-38, -38, 0, 0, 0]);
    expect([...r.selfHostUs[2]]).toEqual([32 - 59, 2 - 8, -10, 10 - 16, 10]);
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
