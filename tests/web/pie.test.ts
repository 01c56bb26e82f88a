import { describe, expect, it } from 'vitest';
import { clampTopN, DEFAULT_TOP_N, legendLabels, OTHER_COLOR, partSlices, PIE_COLORS, pieArcs, sliceText, topSlices } from '../../web/src/lib/pie';

const labels = ['a', 'b', 'c', 'd', 'e'];
const values = [10, 40, 0, 30, 20];
const pie = (n: number, v: number[] = values) => topSlices(v.length, (i) => labels[i], (i) => v[i], n);

describe('topSlices', () => {
  it('takes the N largest and sums the rest as Other, shares of the whole', () => {
    const s = pie(2);
    expect(s.map((x) => [x.label, x.value, x.other])).toEqual([
      ['b', 40, false],
      ['d', 30, false],
      ['Other', 30, true],
    ]);
    expect(s.map((x) => x.pct)).toEqual([40, 30, 30]);
    expect(s[2].color).toBe(OTHER_COLOR);
    expect(s.reduce((a, x) => a + x.pct, 0)).toBeCloseTo(100, 10);
  });

  it('has no Other when N covers every positive value; zero, negative and NaN take no part', () => {
    expect(pie(4).map((x) => x.label)).toEqual(['b', 'd', 'e', 'a']);
    expect(pie(10).some((x) => x.other)).toBe(false);
    const odd = pie(10, [5, NaN, -3, 0, 15]);
    expect(odd.map((x) => [x.label, x.pct])).toEqual([
      ['e', 75],
      ['a', 25],
    ]);
    expect(pie(3, [0, 0, 0, 0, 0])).toEqual([]);
  });

  it('keeps source order for ties and distinct colors within the top', () => {
    const s = pie(3, [5, 5, 5, 5, 1]);
    expect(s.map((x) => x.label)).toEqual(['a', 'b', 'c', 'Other']);
    expect(s[3].value).toBe(6);
    expect(new Set(s.slice(0, 3).map((x) => x.color)).size).toBe(3);
  });

  it('picks the same top N as a full sort on many rows with ties', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const v = Array.from({ length: 20000 }, () => (rnd() < 0.1 ? 0 : Math.floor(rnd() * 500)));
    for (const n of [1, 10, 37]) {
      const s = topSlices(v.length, (i) => String(i), (i) => v[i], n);
      const ref = v
        .map((x, i) => [x, i])
        .filter(([x]) => x > 0)
        .sort((a, b) => b[0] - a[0] || a[1] - b[1])
        .slice(0, n);
      expect(s.slice(0, n).map((x) => Number(x.label))).toEqual(ref.map(([, i]) => i));
      const sum = v.reduce((a, x) => a + x, 0);
      expect(s[n].label).toBe('Other');
      expect(s[n].value).toBe(sum - ref.reduce((a, [x]) => a + x, 0));
    }
  });

  it('clamps the N the user types', () => {
    expect(clampTopN('3')).toBe(3);
    expect(clampTopN('0')).toBe(1);
    expect(clampTopN('-4')).toBe(1);
    expect(clampTopN('2.7')).toBe(2);
    expect(clampTopN('1000')).toBe(100);
    expect(clampTopN('')).toBe(DEFAULT_TOP_N);
    expect(clampTopN('abc')).toBe(DEFAULT_TOP_N);
  });

  it('makes slices of the fixed parts of a whole (Tensor Cores: used, unknown, not), leaving empty parts out', () => {
    const s = partSlices([
      { label: 'TC', value: 123, color: PIE_COLORS[4] },
      { label: 'unknown', value: 0 },
      { label: 'not', value: 333, color: OTHER_COLOR },
    ]);
    expect(s.map((x) => [x.label, x.value, x.color])).toEqual([
      ['TC', 123, PIE_COLORS[4]],
      ['not', 333, OTHER_COLOR],
    ]);
    expect(s[0].pct).toBeCloseTo((123 / 456) * 100, 10);
    expect(partSlices([{ label: 'a', value: 1 }, { label: 'b', value: 3 }]).map((x) => [x.color, x.pct])).toEqual([
      [PIE_COLORS[0], 25],
      [PIE_COLORS[1], 75],
    ]);
    expect(partSlices([{ label: 'TC', value: 0 }, { label: 'not', value: -2 }])).toEqual([]);
  });

  it('names a slice with its value and share', () => {
    expect(sliceText(pie(1)[0], (v) => `${v} us`)).toBe('b: 40 us (40.00 %)');
  });
});

describe('pieArcs', () => {
  it('turns shares into consecutive fractions of the turn', () => {
    const arcs = pieArcs(pie(2), 60, 60, 50);
    expect(arcs.map((a) => [a.from, a.to])).toEqual([
      [0, 0.4],
      [0.4, 0.7],
      [0.7, 1],
    ]);
    // First wedge starts at 12 o'clock and ends at 0.4 turn (144 degrees clockwise).
    expect(arcs[0].d).toBe(`M 60 60 L 60 10 A 50 50 0 0 1 ${Math.round((60 + 50 * Math.sin(0.8 * Math.PI)) * 1000) / 1000} ${Math.round((60 - 50 * Math.cos(0.8 * Math.PI)) * 1000) / 1000} Z`);
  });

  it('uses the large-arc flag past half a turn and draws a lone slice as a full circle', () => {
    const big = pieArcs(pie(1, [70, 30, 0, 0, 0]), 0, 0, 1);
    expect(big[0].d).toContain(' 0 1 1 ');
    expect(big[1].d).toContain(' 0 0 1 ');
    const whole = pieArcs(pie(1, [5, 0, 0, 0, 0]), 60, 60, 50);
    expect(whole.length).toBe(1);
    expect(whole[0].d).toBe('M 60 10 A 50 50 0 1 1 60 110 A 50 50 0 1 1 60 10 Z');
    expect(pieArcs([], 0, 0, 1)).toEqual([]);
  });
});

describe('legendLabels', () => {
  // Three cuBLAS kernels of the ViT trace (../shared/traces/h100_pt211) that a cut at the end made read the same.
  const nvjet = [
    'nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN',
    'nvjet_sm90_tst_192x192_64x3_2x1_v_bz_coopB_NNN',
    'nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NTN',
    'nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_NNN',
  ];
  it('keeps names that fit, cuts a name unlike the others at the end', () => {
    expect(legendLabels(['aten::mm', 'Other'], 40)).toEqual(['aten::mm', 'Other']);
    const long = 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>';
    expect(legendLabels([long, 'aten::mm'], 40)).toEqual(['void at::native::vectorized_elementwise…', 'aten::mm']);
  });
  it('tells apart names that differ only past the cut, keeping their distinguishing end', () => {
    // A cut at the end makes the first and the last the same text.
    expect(nvjet[0].slice(0, 29)).toBe(nvjet[3].slice(0, 29));
    const out = legendLabels(nvjet, 30);
    expect(out).toEqual([
      'nvjet_sm90…v_bz_coopB_bias_TNN',
      'nvjet_sm90_tst_192x192_64x3_2…',
      'nvjet_sm90_tst_256x128_64x4_1…',
      'nvjet_sm90…_2x1_v_bz_coopB_NNN',
    ]);
    for (const s of out) expect(s.length).toBeLessThanOrEqual(30);
  });
  it('C++ kernels differing in a template argument keep that argument', () => {
    const a = 'void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, std::array<char*, 3>>';
    const b = 'void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, std::array<char*, 3>>';
    const [sa, sb] = legendLabels([a, b], 40);
    expect(sa).not.toBe(sb);
    expect(sa).toContain('AddFunctor');
    expect(sb).toContain('MulFunctor');
  });
});
