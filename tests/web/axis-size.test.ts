import { describe, expect, it } from 'vitest';
import { AXIS_TICK_AND_GAP, axisWidth, barTicks } from '../../web/src/lib/axis-size';

// 6 px a character, as a stand-in for the canvas's measureText.
const measure = (s: string) => s.length * 6;

describe('axisWidth', () => {
  it('fits the widest tick label, with uPlot tick and gap, and never goes below the minimum', () => {
    // "0.0075 ms" (9 characters, 54 px) is wider than the 64 px minimum leaves room for.
    expect(axisWidth(['0 ms', '0.0025 ms', '0.0075 ms'], 64, measure)).toBe(54 + AXIS_TICK_AND_GAP + 4);
    expect(axisWidth(['0 ms', '50 ms', '100 ms'], 64, measure)).toBe(64);
    expect(axisWidth(['1.25 GB'], 40, measure)).toBe(42 + AXIS_TICK_AND_GAP + 4);
  });

  it('keeps the minimum before uPlot has labels (its first sizing cycle passes none)', () => {
    expect(axisWidth(null, 72, measure)).toBe(72);
    expect(axisWidth([], 72, measure)).toBe(72);
  });

  it('rounds a fractional width up, so the last pixel of a label is not cut', () => {
    expect(axisWidth(['x'], 0, () => 40.2)).toBe(41 + AXIS_TICK_AND_GAP + 4);
  });
});

describe('barTicks', () => {
  it('92 ms bars: ticks every 25 ms up to 100, not 0 and 50 alone', () => {
    expect(barTicks(92)).toEqual({ top: 100, ticks: [0, 25, 50, 75, 100] });
  });
  it('at least three intervals, the top above the tallest bar', () => {
    for (const max of [0.0007, 0.3, 1, 4.9, 7, 21.45, 47.1, 92, 99, 100, 350, 12345]) {
      const { top, ticks } = barTicks(max);
      expect(ticks.length).toBeGreaterThanOrEqual(4);
      expect(ticks.length).toBeLessThanOrEqual(11);
      expect(top).toBeGreaterThanOrEqual(max);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBe(top);
    }
    expect(barTicks(0.3)).toEqual({ top: 0.4, ticks: [0, 0.1, 0.2, 0.3, 0.4] });
    expect(barTicks(21.45).ticks).toEqual([0, 5, 10, 15, 20, 25]);
  });
  it('no bar: [0, 1]', () => {
    expect(barTicks(0).top).toBe(1);
    expect(barTicks(NaN).top).toBe(1);
  });
});
