import { describe, expect, it } from 'vitest';
import { byCodePoint, compareSideOf, compareSides, curveOf, joinCurves } from '../../web/src/lib/snapshot-compare';
import { answerOf } from './answer-fixture';

const CATS = ['parameters', 'optimizer_state', 'activations', 'gradients', 'temporaries', 'unknown'];
const cats = (bytes: number[]) => CATS.map((category, i) => ({ category, bytes: bytes[i], allocations: bytes[i] ? 1 : 0 }));

/** A snapshot-compare-side answer as the core gives it (numbers of tests/data/README.md's hand-made pair). */
function side(peak: number, sites: [string, number, number][], categories: number[]) {
  return compareSideOf(
    answerOf('snapshot-compare-side', {
      device: 0,
      has_device: true,
      trace_entries: 12,
      peak_allocated_bytes: peak,
      peak_entry: 4,
      peak_at_us: 1004,
      peak_reserved_bytes: 6291456,
      ooms: 1,
      categories: cats(categories),
      rows: sites.map(([frame, bytes, allocations]) => ({ frame, bytes, allocations })),
    }),
  );
}

describe('compareSides: two snapshot-compare-side answers paired as `snapshot --compare`', () => {
  it('pairs the hand-made snapshot with compare-site-grew: the grown site first, then by B bytes', () => {
    const before = '<allocated before the history began>';
    const a = side(4024288, [['model.py:7:forward', 3000000, 2], ['model.py:3:__init__', 524288, 1], [before, 500000, 1]], [0, 0, 0, 0, 3000000, 1024288]);
    const b = side(7024288, [['model.py:7:forward', 6000000, 2], ['model.py:3:__init__', 524288, 1], [before, 500000, 1]], [0, 0, 0, 0, 6000000, 1024288]);
    const c = compareSides(a, b);
    expect(c.peak_growth_bytes).toBe(3000000);
    expect(c.sites).toEqual([
      { frame: 'model.py:7:forward', a_bytes: 3000000, b_bytes: 6000000, growth_bytes: 3000000, a_allocations: 2, b_allocations: 2 },
      { frame: 'model.py:3:__init__', a_bytes: 524288, b_bytes: 524288, growth_bytes: 0, a_allocations: 1, b_allocations: 1 },
      { frame: before, a_bytes: 500000, b_bytes: 500000, growth_bytes: 0, a_allocations: 1, b_allocations: 1 },
    ]);
    expect(c.categories.map((k) => [k.category, k.a_bytes, k.b_bytes])).toEqual(CATS.map((k, i) => [k, [0, 0, 0, 0, 3000000, 1024288][i], [0, 0, 0, 0, 6000000, 1024288][i]]));
  });

  it('puts a site of one side only in with 0 on the other: new ones by growth, gone ones last; ties by name in code point order', () => {
    const a = side(300, [['gone.py:1:f', 200, 1], ['same.py:1:f', 100, 1]], [0, 0, 0, 0, 300, 0]);
    const b = side(500, [['new.py:1:g', 250, 1], ['same.py:1:f', 100, 1], ['z.py:1:\u{1F600}', 75, 1], ['z.py:1:\uFF21', 75, 1]], [0, 0, 0, 0, 500, 0]);
    const c = compareSides(a, b);
    expect(c.sites.map((s) => [s.frame, s.growth_bytes])).toEqual([
      ['new.py:1:g', 250],
      // 75 each: U+FF21 before U+1F600, as C++'s byte order (UTF-16 units would say the opposite).
      ['z.py:1:\uFF21', 75],
      ['z.py:1:\u{1F600}', 75],
      ['same.py:1:f', 0],
      ['gone.py:1:f', -200],
    ]);
    expect(byCodePoint('\uFF21', '\u{1F600}')).toBeLessThan(0);
    expect(byCodePoint('ab', 'a')).toBeGreaterThan(0);
    expect(byCodePoint('a', 'a')).toBe(0);
  });
});

describe('curveOf and joinCurves: both curves on one axis of time since each first entry', () => {
  const columns = (first: number, times: number[], bytes: number[]) =>
    answerOf('snapshot-timeline-columns', {
      device: 0,
      axis: 'time',
      from: first,
      to: first + 10,
      entries: times.length,
      has_times: true,
      first_us: first,
      last_us: first + 10,
      y_max: 0,
      min_band_bytes: 0,
      folded: 0,
      rows: times.map((t, i) => ({ first_entry: i, last_entry: i, entry: i, time_us: t, allocated_bytes: bytes[i], reserved_bytes: 0, others_bytes: 0 })),
    });

  it('makes times relative to the first entry and keeps the most of columns drawn at one state', () => {
    expect(curveOf(columns(1000, [1000, 1003, 1003, 1010], [5, 7, 9, 2]))).toEqual({ t: [0, 3, 10], bytes: [5, 9, 2] });
  });

  it('joins two curves on the union of their times, null where one has no point', () => {
    expect(joinCurves({ t: [0, 3], bytes: [1, 2] }, { t: [0, 5], bytes: [7, 8] })).toEqual([
      [0, 3, 5],
      [1, 2, null],
      [7, null, 8],
    ]);
    expect(joinCurves(null, { t: [1], bytes: [4] })).toEqual([[1], [null], [4]]);
  });
});
