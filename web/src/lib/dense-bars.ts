// What a bar chart draws when it has more columns than pixels (components/chart.tsx denseBars).

/**
 * The bars of one stacked series when columns are narrower than a pixel: one bar per pixel
 * column, as tall as the tallest column in it. `xPx` and `yPx` are the columns' positions in the
 * canvas (y grows downwards, so the tallest is the smallest y); columns come in x order. Drawn
 * as thousands of sub-pixel bars, the same pixels are covered, at the cost of a rectangle each.
 */
export function pixelColumns(xPx: ArrayLike<number>, yPx: ArrayLike<number>): { x: number[]; y: number[] } {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < xPx.length; i++) {
    const col = Math.floor(xPx[i]);
    const top = yPx[i];
    if (!Number.isFinite(col) || !Number.isFinite(top)) continue;
    const last = x.length - 1;
    if (last >= 0 && x[last] === col) {
      if (top < y[last]) y[last] = top;
    } else {
      x.push(col);
      y.push(top);
    }
  }
  return { x, y };
}
