// How wide a chart's value axis must be for its tick labels (uPlot's axis `size`, in CSS pixels):
// the widest label, uPlot's tick (10 px) and gap (5 px), and a little room. A fixed width cut
// labels short ("0.075 ms" drawn as ").075 ms" on a step chart of microsecond steps).
export const AXIS_TICK_AND_GAP = 15;

/** `measure(text)`: the label's width in CSS pixels, in the axis's font. */
export function axisWidth(labels: readonly (string | number)[] | null | undefined, min: number, measure: (text: string) => number): number {
  if (!labels?.length) return min;
  let widest = 0;
  for (const l of labels) widest = Math.max(widest, measure(String(l)));
  return Math.max(min, Math.ceil(widest) + AXIS_TICK_AND_GAP + 4);
}

/**
 * The value axis of a bar chart starting at 0: its top and its ticks, `step` apart, a step of 1,
 * 2, 2.5 or 5 times a power of ten. uPlot's own choice for a short chart can leave two ticks (0
 * and 50 ms for 92 ms bars: the tallest bar's value cannot be read off the axis). Here the axis
 * has 3 to 6 intervals, its top is the first tick at or above the tallest bar plus 3 % (room
 * above it), and of the steps that allow that the one with the lowest top wins (the larger step
 * on a tie). `max` <= 0 or not finite: [0, 1] in 4 steps.
 */
export function barTicks(max: number): { top: number; ticks: number[] } {
  if (!(max > 0) || !Number.isFinite(max)) return { top: 1, ticks: [0, 0.25, 0.5, 0.75, 1] };
  const want = max * 1.03;
  let best: { step: number; n: number } | null = null;
  const p0 = Math.floor(Math.log10(want));
  for (let p = p0 - 1; p <= p0; p++) {
    for (const k of [1, 2, 2.5, 5]) {
      const step = k * 10 ** p;
      const n = Math.ceil(want / step - 1e-9);
      if (n < 3 || n > 6) continue;
      if (!best || n * step < best.n * best.step - 1e-12 * want || (Math.abs(n * step - best.n * best.step) <= 1e-12 * want && step > best.step)) best = { step, n };
    }
  }
  const { step, n } = best!;
  // Multiples of the step, rounded to its decimals (0.1 * 3 is 0.30000000000000004).
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  const ticks = Array.from({ length: n + 1 }, (_, i) => +(i * step).toFixed(digits));
  return { top: ticks[n], ticks };
}
