import { describe, expect, it } from 'vitest';
import { AXIS_TICK_AND_GAP, axisWidth } from '../../web/src/lib/axis-size';

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
