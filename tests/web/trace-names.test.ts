import { describe, expect, it } from 'vitest';
import { pickedFiles } from '../../web/src/lib/folder';
import { describeLabel, labelTraces, MAX_FALLBACK_FILES, parseTraceName, planOpen } from '../../web/src/lib/trace-names';

// The examples of reference/tb_plugin_spec.md §1, and the edges of its pattern.
describe('parseTraceName', () => {
  it('takes the last .digits before .pt.trace.json as the span', () => {
    expect(parseTraceName('worker0.1623143089861.pt.trace.json.gz')).toEqual({ worker: 'worker0', span: '1623143089861' });
    expect(parseTraceName('rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz')).toEqual({ worker: 'rank-0.Apr_03_18_51_38', span: '1102' });
    expect(parseTraceName('a.1.2.pt.trace.json')).toEqual({ worker: 'a.1', span: '2' });
  });
  it('has no span when none is written', () => {
    expect(parseTraceName('host_123.pt.trace.json')).toEqual({ worker: 'host_123', span: null });
    expect(parseTraceName('w.x1.pt.trace.json')).toEqual({ worker: 'w.x1', span: null });
  });
  it('refuses names that are not traces by tb_plugin\'s pattern', () => {
    for (const n of ['rank0.json.gz', 'x.pt.trace.json.bak', '.pt.trace.json', 'x.pt.trace.jsongz', 'x.PT.trace.json']) {
      expect(parseTraceName(n), n).toBeNull();
    }
  });
});

const f = (path: string) => ({ path, file: path });

describe('labelTraces', () => {
  it('names runs by folder, ranks spans per worker as strings, and skips other files', () => {
    const { traces, skipped } = labelTraces([
      f('logs/run1/w1.20.pt.trace.json.gz'),
      f('logs/run1/w1.100.pt.trace.json.gz'), // "100" < "20" as strings: rank 1
      f('logs/run1/w0.20.pt.trace.json.gz'),
      f('logs/run1/notes.txt'),
      f('logs/run2/w10.pt.trace.json'),
      f('logs/run2/w2.pt.trace.json'),
      f('logs/events.out.tfevents.1'),
    ]);
    expect(skipped).toEqual(['logs/run1/notes.txt', 'logs/events.out.tfevents.1']);
    expect(traces.map((t) => [t.path, t.label.run, t.label.worker, t.label.spanRank, t.label.spanCount])).toEqual([
      // run1, span rank 1 then 2; w0 has one span (rank 1 of 1)
      ['logs/run1/w0.20.pt.trace.json.gz', 'logs/run1', 'w0', 1, 1],
      ['logs/run1/w1.100.pt.trace.json.gz', 'logs/run1', 'w1', 1, 2],
      ['logs/run1/w1.20.pt.trace.json.gz', 'logs/run1', 'w1', 2, 2],
      // run2: no spans; w2 before w10 (numbers in names as numbers)
      ['logs/run2/w2.pt.trace.json', 'logs/run2', 'w2', 0, 0],
      ['logs/run2/w10.pt.trace.json', 'logs/run2', 'w10', 0, 0],
    ]);
  });
  it('keeps the same worker in two runs apart', () => {
    const { traces } = labelTraces([f('a/w.1.pt.trace.json'), f('b/w.2.pt.trace.json'), f('b/w.3.pt.trace.json')]);
    expect(traces.map((t) => [t.label.run, t.label.spanRank, t.label.spanCount])).toEqual([
      ['a', 1, 1],
      ['b', 1, 2],
      ['b', 2, 2],
    ]);
  });
});

describe('describeLabel', () => {
  it('says run, worker and span', () => {
    expect(describeLabel({ run: 'logs/run1', worker: 'w1', span: '20', spanRank: 2, spanCount: 2 })).toBe('run logs/run1 · worker w1 · span 2 of 2');
    expect(describeLabel({ run: 'r', worker: 'w', span: '77', spanRank: 1, spanCount: 1 })).toBe('run r · worker w · span 77');
    expect(describeLabel({ run: '', worker: 'w', span: null, spanRank: 0, spanCount: 0 })).toBe('worker w');
  });
});

describe('planOpen', () => {
  it('opens every loose file, labelling those named as traces', () => {
    const plan = planOpen([{ name: 'rank0.json.gz', file: 1 }, { name: 'w.5.pt.trace.json', file: 2 }], []);
    expect(plan.open).toEqual([
      { file: 1, label: null },
      { file: 2, label: { run: '', worker: 'w', span: '5', spanRank: 1, spanCount: 1 } },
    ]);
    expect(plan.notice).toBeNull();
  });
  it('opens only a folder\'s traces and says how many others were skipped', () => {
    const plan = planOpen([], [f('d/w.pt.trace.json'), f('d/config.json'), f('d/x.txt')]);
    expect(plan.open.map((o) => o.file)).toEqual(['d/w.pt.trace.json']);
    expect(plan.notice).toBe(
      'Opening 1 trace from 1 run; 2 other files were skipped (only <worker>[.<span>].pt.trace.json[.gz] files are traces).',
    );
  });
  it('falls back to a folder\'s .json files when none is named as a trace, at most MAX_FALLBACK_FILES', () => {
    const many = Array.from({ length: MAX_FALLBACK_FILES + 3 }, (_, i) => f(`d/t${i}.json`));
    const plan = planOpen([], [f('d/readme.md'), ...many]);
    expect(plan.open.length).toBe(MAX_FALLBACK_FILES);
    expect(plan.open[0].file).toBe('d/t0.json');
    expect(plan.open[1].file).toBe('d/t1.json'); // natural order: t1 before t10
    expect(plan.notice).toContain(`(the first ${MAX_FALLBACK_FILES} of ${MAX_FALLBACK_FILES + 3})`);
  });
  it('says so when a folder holds nothing to open', () => {
    const plan = planOpen([], [f('d/a.txt'), f('d/b.png')]);
    expect(plan.open).toEqual([]);
    expect(plan.notice).toBe('No traces in the dropped folder: none of its 2 files are a .pt.trace.json[.gz], .json or .json.gz file.');
  });
});

describe('pickedFiles', () => {
  it('puts files with a relative path (folder picker) in folders, others loose', () => {
    const inFolder = new File(['{}'], 'w.pt.trace.json');
    Object.defineProperty(inFolder, 'webkitRelativePath', { value: 'logs/run/w.pt.trace.json' });
    const loose = new File(['{}'], 'x.json');
    const d = pickedFiles([inFolder, loose]);
    expect(d.inFolders).toEqual([{ path: 'logs/run/w.pt.trace.json', file: inFolder }]);
    expect(d.loose).toEqual([loose]);
    expect(d.truncated).toBe(false);
  });
});
