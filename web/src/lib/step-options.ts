// The Step select's options come in slices (components/step-select.tsx): how many, and which.

/**
 * Step options added per idle moment: building and styling this many <option>s takes ~10 ms in
 * Chromium on a slow machine, well under a frame's budget with the rest of the page's work.
 */
export const OPTION_SLICE = 500;

/** The slices [start, end) of the first `count` steps' options, `size` each (the last may be short). */
export function optionSlices(count: number, size: number = OPTION_SLICE): [number, number][] {
  const out: [number, number][] = [];
  for (let start = 0; start < count; start += size) out.push([start, Math.min(count, start + size)]);
  return out;
}
