import { describe, expect, it } from 'vitest';
import { pixelColumns } from '../../web/src/lib/dense-bars';

describe('bars narrower than a pixel', () => {
  it('keeps one bar per pixel column, as tall as its tallest column (smallest y)', () => {
    // Columns at x 10.0, 10.4, 10.9 (pixel 10), 11.2 (pixel 11), 13.5 (pixel 13); y grows downwards.
    const r = pixelColumns([10, 10.4, 10.9, 11.2, 13.5], [80, 20, 50, 70, 90]);
    expect(r).toEqual({ x: [10, 11, 13], y: [20, 70, 90] });
  });

  it('skips columns without a value and keeps the others in order', () => {
    const r = pixelColumns([0.5, 1.5, 1.7, 2.1], [NaN, 40, NaN, 30]);
    expect(r).toEqual({ x: [1, 2], y: [40, 30] });
    expect(pixelColumns([], [])).toEqual({ x: [], y: [] });
  });

  it('turns 10,000 columns on 500 pixels into at most 500 bars, each the maximum of its columns', () => {
    const n = 10_000;
    const x = Float64Array.from({ length: n }, (_, i) => (i / n) * 500);
    const y = Float64Array.from({ length: n }, (_, i) => 200 - (i % 97));
    const r = pixelColumns(x, y);
    expect(r.x.length).toBe(500);
    for (let p = 0; p < 500; p++) {
      let top = Infinity;
      for (let i = p * 20; i < (p + 1) * 20; i++) top = Math.min(top, y[i]);
      expect(r.x[p]).toBe(p);
      expect(r.y[p]).toBe(top);
    }
  });
});
