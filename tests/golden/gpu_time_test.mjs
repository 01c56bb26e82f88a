// `kinetoscope gpu-time --json --rounding hta` against Holistic Trace Analysis's own output
// (../shared/golden/hta, its README says which calls made each file) on every trace of ../shared:
// the idle time breakdown per stream and category (times within 1 % or 2 µs, shares within 0.01,
// HTA's two decimals), its interval statistics (count exact, the rest within 1 % or 0.02 µs), the
// kernel types with their overlaps (times within 1 % or 2 µs, shares within 0.1 points) and the
// top kernels (sums; max/min/mean/stddev where HTA's numbers are the calls', i.e. where it did not
// group "others": docs/compatibility.md). Where HTA fails, Kinetoscope's answer is checked instead.
// The temporal breakdown is checked in tests/core/gpu_time_test.cpp.
// usage: node tests/golden/gpu_time_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import { report } from './independent_count.mjs';
import { forEachHtaGolden, near } from './hta_goldens.mjs';

const cli = process.argv[2];
const run = (file, args = []) =>
  JSON.parse(execFileSync(cli, ['gpu-time', '--json', ...args, file], { encoding: 'utf8', maxBuffer: 1 << 28 }));


function compareIdle(diffs, ours, [perCategory, stats]) {
  const streams = new Set(perCategory.map((r) => r.stream));
  const ourStreams = new Set(ours.idle.map((r) => r.stream));
  if ([...streams].sort().join() !== [...ourStreams].sort().join()) diffs.push(`idle streams ${[...ourStreams]} vs HTA ${[...streams]}`);
  for (const s of streams) {
    const o = ours.idle.find((r) => r.stream === s);
    if (!o) continue;
    // HTA's shares are null where the stream has no idle time (one event): ours are too.
    const noIdle = perCategory.filter((r) => r.stream === s).every((r) => r.idle_time_ratio == null);
    for (const cat of ['host_wait', 'kernel_wait', 'other']) {
      const t = perCategory.find((r) => r.stream === s && r.idle_category === cat);
      const time = t ? t.idle_time : 0;
      if (!near(o[`${cat}_us`], time, 0.01, 2)) diffs.push(`stream ${s} ${cat}: ${o[`${cat}_us`]} µs vs HTA ${time}`);
      const ratio = noIdle ? null : t ? t.idle_time_ratio : 0;
      if (ratio == null ? o[`${cat}_ratio`] != null : !near(o[`${cat}_ratio`], ratio, 0, 0.0051))
        diffs.push(`stream ${s} ${cat} ratio: ${o[`${cat}_ratio`]} vs HTA ${ratio}`);
    }
  }
  for (const t of stats) {
    const o = ours.idle_intervals.find((r) => r.stream === t.stream && r.category === t.idle_category);
    if (!o) {
      diffs.push(`no interval row for stream ${t.stream} ${t.idle_category}`);
      continue;
    }
    if (o.count !== t.count) diffs.push(`stream ${t.stream} ${t.idle_category} count: ${o.count} vs HTA ${t.count}`);
    for (const [ourKey, theirKey] of [['mean_us', 'mean'], ['std_us', 'std'], ['min_us', 'min'], ['p25_us', '25%'], ['p50_us', '50%'], ['p75_us', '75%'], ['max_us', 'max']]) {
      const want = t[theirKey];
      if (want == null ? o[ourKey] != null : !near(o[ourKey], want, 0.01, 0.02))
        diffs.push(`stream ${t.stream} ${t.idle_category} ${theirKey}: ${o[ourKey]} vs HTA ${want}`);
    }
  }
}

function compareKernels(diffs, ours, [types, top]) {
  for (const t of types) {
    const o = ours.kernel_types.find((r) => r.type === t.kernel_type);
    const us = o ? o.us : 0, pct = o ? o.pct : 0;
    if (!near(us, t.sum, 0.01, 2)) diffs.push(`kernel type ${t.kernel_type}: ${us} µs vs HTA ${t.sum}`);
    if (!near(pct, t.percentage, 0, 0.1)) diffs.push(`kernel type ${t.kernel_type}: ${pct} % vs HTA ${t.percentage}`);
  }
  for (const o of ours.kernel_types)
    if (o.us > 2 && !types.some((t) => t.kernel_type === o.type)) diffs.push(`kernel type ${o.type} (${o.us} µs) not in HTA's`);
  const grouped = new Set(top.filter((t) => t.name === 'others').map((t) => t.kernel_type));
  for (const t of top) {
    const o = ours.top_kernels.find((r) => r.type === t.kernel_type && r.name === t.name);
    if (!o) {
      diffs.push(`no top kernel ${t.kernel_type} ${t.name.slice(0, 60)}`);
      continue;
    }
    const at = `${t.kernel_type} ${t.name.slice(0, 40)}`;
    if (!near(o.sum_us, t['sum (us)'], 0.01, 2)) diffs.push(`${at} sum: ${o.sum_us} vs HTA ${t['sum (us)']}`);
    // Where HTA grouped others it grouped every row again by its sum: its max/min/mean are the
    // sums, its stddev 0 (docs/compatibility.md). Elsewhere they are the calls', as ours.
    if (grouped.has(t.kernel_type)) continue;
    for (const [ourKey, theirKey] of [['max_us', 'max (us)'], ['min_us', 'min (us)'], ['mean_us', 'mean (us)'], ['stddev_us', 'stddev']])
      if (!near(o[ourKey], t[theirKey], 0.01, 0.02)) diffs.push(`${at} ${theirKey}: ${o[ourKey]} vs HTA ${t[theirKey]}`);
  }
  const named = (list, type) => list.filter((r) => (r.kernel_type ?? r.type) === type).length;
  for (const type of new Set(top.map((t) => t.kernel_type)))
    if (named(top, type) !== named(ours.top_kernels, type)) diffs.push(`${type}: ${named(ours.top_kernels, type)} top rows vs HTA ${named(top, type)}`);
}

const results = [];
const skipped = forEachHtaGolden(results, (f, golden, file) => {
  const a = golden.analyses;
  const ours = run(file, ['--rounding', 'hta']);
  const idle = { name: `${f} idle time breakdown`, diffs: [] };
  const kernels = { name: `${f} kernel breakdown`, diffs: [] };
  if (golden.trace === 'triton_example.json.gz') {
    // HTA counts the Triton launcher (a cpu_op with a "stream" arg) as a kernel: its 94 µs are
    // HTA's "kernel" and its second "call" of triton_poi_fused_add_cos_sin_0 (docs/compatibility.md).
    // Ours: the one 1.76 µs kernel (1 µs rounded as HTA rounds it), no gap.
    const exact = run(file);
    if (exact.idle.length !== 1 || exact.idle[0].events !== 1 || exact.idle[0].idle_us !== 0) idle.diffs.push(`idle: ${JSON.stringify(exact.idle)}`);
    const k = exact.top_kernels;
    if (k.length !== 1 || k[0].calls !== 1 || !near(k[0].sum_us, 1.76, 0, 0.001)) kernels.diffs.push(`top kernels: ${JSON.stringify(k)}`);
    if (a.gpu_kernel_breakdown.result[1][0]['sum (us)'] !== 95) kernels.diffs.push('HTA golden changed');
  } else {
    if (a.idle_time_breakdown.error) {
      // HTA fails: no GPU work (cpu_only_rank34, cupti_profiler_counters), or a trace of rank 1
      // alone (its default call asks for rank 0). Kinetoscope answers: nothing, or rank 1's streams.
      if (ours.rows.length === 0) {
        if (ours.idle.length || ours.kernel_types.length || ours.top_kernels.length) idle.diffs.push('rows without GPU work');
      } else if (ours.rank !== 1 || !ours.idle.length) idle.diffs.push(`HTA failed (${a.idle_time_breakdown.error}); ours: ${ours.idle.length} streams, rank ${ours.rank}`);
    } else compareIdle(idle.diffs, ours, a.idle_time_breakdown.result);
    if (a.gpu_kernel_breakdown.error) {
      if (ours.kernel_types.length) kernels.diffs.push('kernel types without GPU work');
    } else compareKernels(kernels.diffs, ours, a.gpu_kernel_breakdown.result);
  }
  results.push(idle, kernels);
});
report(results, skipped);
