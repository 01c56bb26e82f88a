import { describe, expect, it } from 'vitest';
import { OPTION_SLICE, optionSlices } from '../../web/src/lib/step-options';

describe('the step select\'s options in slices', () => {
  it('covers the first `count` steps once, in order, in slices of the given size', () => {
    expect(optionSlices(0)).toEqual([]);
    expect(optionSlices(3, 500)).toEqual([[0, 3]]);
    expect(optionSlices(1000, 500)).toEqual([
      [0, 500],
      [500, 1000],
    ]);
    expect(optionSlices(1001, 500)).toEqual([
      [0, 500],
      [500, 1000],
      [1000, 1001],
    ]);
  });

  it('keeps a slice the same while more steps come (each slice is rendered once)', () => {
    const first = optionSlices(OPTION_SLICE);
    const more = optionSlices(3 * OPTION_SLICE);
    expect(more.slice(0, first.length)).toEqual(first);
    const all = optionSlices(3400);
    expect(all.at(-1)).toEqual([Math.floor(3399 / OPTION_SLICE) * OPTION_SLICE, 3400]);
    let next = 0;
    for (const [a, b] of all) {
      expect(a).toBe(next);
      expect(b).toBeGreaterThan(a);
      next = b;
    }
    expect(next).toBe(3400);
  });
});
