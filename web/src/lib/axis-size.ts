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
