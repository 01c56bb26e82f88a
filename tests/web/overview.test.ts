import { describe, expect, it } from 'vitest';
import {
  formatPct,
  formatStepMs,
  formatStepUs,
  percentOf,
  ROLES,
  segmentTitle,
  stackSegments,
  stepAxisSplits,
  stepChart,
  stepReadout,
  utilizationSeries,
  type StepValues,
} from '../../web/src/lib/overview';

// The average step of the bundled sample (web/public/samples/rank-0.json.gz), as `kinetoscope steps --json` prints it.
const sampleAverage: StepValues = {
  total_us: 615120,
  kernel_us: 273651.5,
  memcpy_us: 163.5,
  memset_us: 13,
  communication_us: 147,
  runtime_us: 3072.5,
  dataloader_us: 0,
  cpu_exec_us: 330273,
  other_us: 7799.5,
};

describe('overview maths', () => {
  it('lists the categories in tb_plugin order with fixed, distinct colors', () => {
    expect(ROLES.map((r) => r.label)).toEqual([
      'Kernel',
      'Memcpy',
      'Memset',
      'Communication',
      'Runtime',
      'DataLoader',
      'CPU Exec',
      'Other',
    ]);
    expect(new Set(ROLES.map((r) => r.color)).size).toBe(8);
  });

  it('computes percentages of a total, 0 for an empty total', () => {
    expect(percentOf(273651.5, 615120)).toBeCloseTo(44.48749837430095, 10);
    expect(percentOf(98598, 187948)).toBeCloseTo(52.46025496413902, 10);
    expect(percentOf(5, 0)).toBe(0);
    expect(percentOf(NaN, 10)).toBe(0);
  });

  it('formats durations and percentages as shown', () => {
    expect(formatStepUs(273651.5)).toBe('273,652 us');
    expect(formatStepUs(13)).toBe('13 us');
    expect(formatStepUs(0)).toBe('0 us');
    expect(formatStepUs(null)).toBe('—');
    expect(formatStepMs(273651.5)).toBe('273.652 ms');
    expect(formatPct(44.48749837430095)).toBe('44.49 %');
    expect(formatPct(55.514085174552555)).toBe('55.51 %');
    expect(formatPct(null)).toBe('—');
  });

  it('stacks segments one after another, summing to the step when roles add up to the total', () => {
    const segs = stackSegments(sampleAverage);
    expect(segs.map((s) => s.key)).toEqual(ROLES.map((r) => r.key));
    // The roles partition the step: the last segment ends at 100 %.
    const last = segs[segs.length - 1];
    expect(last.offsetPct + last.widthPct).toBeCloseTo(100, 9);
    expect(segs[0].offsetPct).toBe(0);
    expect(segs[1].offsetPct).toBeCloseTo(44.48749837430095, 9);
    expect(segs[6].pct).toBeCloseTo(53.692450253609046, 9); // CPU Exec
    for (let i = 1; i < segs.length; i++) {
      expect(segs[i].offsetPct).toBeCloseTo(segs[i - 1].offsetPct + segs[i - 1].widthPct, 9);
    }
  });

  it('scales bars to a common length but keeps each share of its own step', () => {
    const segs = stackSegments(sampleAverage, 2 * 615120);
    expect(segs[0].widthPct).toBeCloseTo(44.48749837430095 / 2, 9);
    expect(segs[0].pct).toBeCloseTo(44.48749837430095, 9);
    const last = segs[segs.length - 1];
    expect(last.offsetPct + last.widthPct).toBeCloseTo(50, 9);
  });

  it('names value, ms and share in a segment title', () => {
    const segs = stackSegments(sampleAverage);
    expect(segmentTitle(segs[0], 'the average step')).toBe(
      'Kernel: 273,652 us (273.652 ms), 44.49 % of the average step',
    );
  });

  it('stacks the step chart: one column per step and the average, cumulative ms from the top category down', () => {
    const b = {
      steps: [{ ...sampleAverage, name: '5', start_us: 0, end_us: 615120 }],
      average: sampleAverage,
    };
    const c = stepChart(b);
    expect(c.labels).toEqual(['5', 'Average']);
    expect(c.data[0]).toEqual([0, 1]);
    expect(c.order.map((r) => r.key)).toEqual(['other', 'cpu_exec', 'dataloader', 'runtime', 'communication', 'memset', 'memcpy', 'kernel']);
    // The top series is the whole column (the categories add up to the total), the last is Kernel alone.
    expect(c.data[1][1]).toBeCloseTo(615.12, 9);
    expect(c.data[8][1]).toBeCloseTo(273.6515, 9);
    // Kernel + Memcpy = 273.8150 ms
    expect(c.data[7][1]).toBeCloseTo(273.815, 9);
  });

  it('stacks thousands of steps column by column, each series the running sum up to its category', () => {
    const steps = Array.from({ length: 3400 }, (_, i) => ({ ...sampleAverage, kernel_us: i, total_us: sampleAverage.total_us - sampleAverage.kernel_us + i, name: String(i + 1), start_us: i, end_us: i + 1 }));
    const c = stepChart({ steps, average: sampleAverage });
    expect(c.labels.length).toBe(3401);
    expect(c.labels[3399]).toBe('3400');
    expect(c.labels[3400]).toBe('Average');
    expect(c.data.length).toBe(9);
    for (const series of c.data) expect(series.length).toBe(3401);
    expect(c.data[0][3400]).toBe(3400);
    // Kernel alone (the last series) is each step's kernel time in ms.
    expect(c.data[8][1234]).toBeCloseTo(1.234, 12);
    // The top series is the whole column.
    expect(c.data[1][1234]).toBeCloseTo(steps[1234].total_us / 1000, 9);
    expect(c.data[1][3400]).toBeCloseTo(615.12, 9);
  });

  it('labels the step axis without collisions: the first, every k-th step and the average, ticks only there', () => {
    // Few columns: every one is labelled.
    expect(stepAxisSplits(3, 500)).toEqual([0, 1, 2]);
    expect(stepAxisSplits(1, 500)).toEqual([0]);
    expect(stepAxisSplits(0, 500)).toEqual([]);
    // 3,401 columns (3,400 steps and the average) on 490 px: ~34 px a label, every 236th step.
    const s = stepAxisSplits(3401, 490);
    const every = Math.ceil((3401 * 34) / 490);
    expect(every).toBe(236);
    expect(s[0]).toBe(0);
    expect(s[1]).toBe(every);
    expect(s.at(-1)).toBe(3400);
    // The last step label before the average is a whole label's room away from it.
    expect(3400 - s.at(-2)!).toBeGreaterThanOrEqual(1.5 * every);
    expect(s.length).toBeLessThanOrEqual(Math.ceil(490 / 34) + 1);
    // Ascending, no repeats.
    for (let i = 1; i < s.length; i++) expect(s[i]).toBeGreaterThan(s[i - 1]);
    // A zero or negative width (a hidden chart) still gives labels, not a division by zero.
    expect(stepAxisSplits(10, 0).at(-1)).toBe(9);
  });

  it('reads out a column with its total and each category\'s share', () => {
    const r = stepReadout('Average', sampleAverage);
    expect(r.title).toBe('Average step: 615.120 ms');
    expect(r.lines[0]).toBe('Kernel: 273,652 us (273.652 ms), 44.49 % of the average step');
    expect(stepReadout('551', sampleAverage).lines[6]).toBe('CPU Exec: 330,273 us (330.273 ms), 53.69 % of step 551');
  });

  it('puts the utilization timeline in ms from the trace start, 0..100 %, whatever the steps window', () => {
    const start = 1_000_000;
    const [x, y] = utilizationSeries(
      [
        [start, 0],
        [start + 100_000, 0.5],
        [start + 200_000, 1],
        [start + 400_000, 1.5], // clamped to 100 %
      ],
      start,
    );
    expect(x).toEqual([0, 100, 200, 400]);
    expect(y).toEqual([0, 50, 100, 100]);
    expect(utilizationSeries([], start)).toEqual([[], []]);
  });
});
