// The FLOPs columns of the Operators and Kernels tables (issue 25): FLOPs, their dtype, achieved
// TFLOP/s, % of the device's dense peak and arithmetic intensity, as the core adds them to the
// operators and kernels answers when the trace has counted calls (docs/flops.md). A row with no
// counted call has no value: its cells are empty, not 0.
import type { Column } from './table-model';
import { stringColumn } from './answer';

export interface FlopColumns {
  flops: Float64Array;
  dtype: (string | null)[];
  tflops: Float64Array;
  pctOfPeak: Float64Array;
  intensity: Float64Array;
}

interface FlopAnswerColumns {
  flops?: Float64Array;
  flop_dtype?: Uint32Array;
  tflops_per_s?: Float64Array;
  pct_of_peak?: Float64Array;
  intensity?: Float64Array;
}

/** The answer's FLOPs columns, or null when it has none (no counted call in the trace). */
export function flopColumnsOf(c: FlopAnswerColumns, strings: string[]): FlopColumns | null {
  if (!c.flops || !c.flop_dtype || !c.tflops_per_s || !c.pct_of_peak || !c.intensity) return null;
  return { flops: c.flops, dtype: stringColumn(c.flop_dtype, strings), tflops: c.tflops_per_s, pctOfPeak: c.pct_of_peak, intensity: c.intensity };
}

const prefixes = ['', 'K', 'M', 'G', 'T', 'P', 'E'];

/** FLOPs with an SI prefix, three significant digits: "2.15 G"; "" without a value. */
export function formatFlopCell(v: number | string): string {
  let x = typeof v === 'number' ? v : Number(v);
  if (v === '' || !Number.isFinite(x)) return '';
  let u = 0;
  while (Math.abs(x) >= 1000 && u < prefixes.length - 1) {
    x /= 1000;
    u++;
  }
  return `${x.toPrecision(3)} ${prefixes[u]}`.trimEnd();
}

const tflopsFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const pctFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const intensityFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const blank = (f: (x: number) => string) => (v: number | string) => {
  const x = typeof v === 'number' ? v : Number(v);
  return v === '' || !Number.isFinite(x) ? '' : f(x);
};

const HOW =
  'Counted from the recorded shapes (record_shapes=True) with torch.utils.flop_counter’s formulas: mm, addmm, bmm, baddbmm, _scaled_mm, convolutions and their backward, scaled-dot-product attention. ' +
  'A call inside another counted call is not counted again (matmul and linear show none: their mm/addmm children have them). Empty: no call of the row was counted.';

/** What a Kernels row's FLOPs are (the Operators' HOW, and why a kernel may have none). */
export const KERNEL_HOW =
  HOW + ' A kernel has its call’s FLOPs when it was the only kernel of a counted call, for every kernel of the row (a call of several kernels does not say how they share its FLOPs).';

/**
 * The five columns, after the table's own. TFLOP/s and % of peak are shown; FLOPs, their dtype
 * and the intensity start hidden (the Columns menu, the CSV and the detail panel have them, the
 * Roofline tab plots them): with all five the tables no longer fit a 1440 px screen. `how` is the header's hover text (how they are
 * counted); `peakName` names the row % of peak is measured against.
 */
export function flopTableColumns(f: FlopColumns, how: string = HOW, peakName: string | null = null): Column[] {
  const peak = peakName ? `the dense peak of ${peakName} for the dtype` : 'the device’s dense peak for the dtype (none: no peak row matched; pick one on the Overview)';
  return [
    { id: 'flops', label: 'FLOPs', type: 'number', unit: 'count', format: formatFlopCell, value: (i) => f.flops[i], width: 64, defaultHidden: true, headerTitle: `FLOPs. ${how}` },
    {
      id: 'flop_dtype',
      label: 'FLOP dtype',
      header: 'dtype',
      type: 'text',
      searchable: false,
      value: (i) => f.dtype[i] ?? '',
      width: 72,
      defaultHidden: true,
      headerTitle: 'The precision of the counted FLOPs (its peak): fp32, tf32 (fp32 whose kernels ran on Tensor Cores), bf16, fp16, fp8_e4m3, fp8_e5m2; several joined by +, most FLOPs first',
    },
    {
      id: 'tflops_per_s',
      label: 'TFLOP/s',
      type: 'number',
      unit: 'count',
      format: blank((x) => tflopsFmt.format(x)),
      value: (i) => f.tflops[i],
      width: 64,
      headerTitle: `Achieved TFLOP/s: the counted FLOPs over the counted calls’ device time. ${how}`,
    },
    {
      id: 'pct_of_peak',
      label: '% of peak',
      type: 'number',
      unit: 'count',
      format: blank((x) => pctFmt.format(x)),
      value: (i) => f.pctOfPeak[i],
      width: 60,
      headerTitle: `TFLOP/s as a share of ${peak}.`,
    },
    {
      id: 'intensity',
      label: 'Intensity (FLOP/byte)',
      header: 'FLOP/byte',
      type: 'number',
      unit: 'count',
      format: blank((x) => intensityFmt.format(x)),
      value: (i) => f.intensity[i],
      width: 76,
      defaultHidden: true,
      headerTitle: 'Arithmetic intensity: the counted FLOPs over the bytes their calls read and write (each input once, each result once: the least traffic, the roofline’s x).',
    },
  ];
}
