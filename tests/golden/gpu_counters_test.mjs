// `kinetoscope gpu-time --json --rounding hta` (and gpu-launches) against Holistic Trace Analysis's
// own output (../shared/golden/hta, its README says which calls made each file) on every trace of
// ../shared: the communication/computation overlap (within 0.1 points; null where HTA's is null),
// the kernel launch statistics (the row count, describe() of the three durations within 1 % or
// 0.02 µs, and each of HTA's first 200 rows by correlation id, exact in HTA's whole µs) and the
// queue length summary per stream (count and max exact; mean and quartiles within what the order
// of equal times can move them: HTA sorts with pandas' unstable quicksort, so its order of a
// launch and a kernel start in the same µs is not defined — its numbers must lie between those of
// the two orders, ties=launches_first and ties=starts_first). Where HTA fails or is wrong,
// Kinetoscope's answer is checked instead (docs/compatibility.md).
// usage: node tests/golden/gpu_counters_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import { report } from './independent_count.mjs';
import { forEachHtaGolden, near } from './hta_goldens.mjs';

const cli = process.argv[2];
const run = (view, file, args = []) =>
  JSON.parse(execFileSync(cli, [view, '--json', '--rounding', 'hta', ...args, file], { encoding: 'utf8', maxBuffer: 1 << 28 }));


function compareOverlap(diffs, ours, golden) {
  if (golden.error) {
    diffs.push(`HTA failed (${golden.error}): no case for it here`);
    return;
  }
  const want = golden.result[0].comp_comm_overlap_pctg;
  const got = ours.comm_comp_overlap_pct;
  if (want == null) {
    if (got != null) diffs.push(`overlap ${got} % vs HTA null`);
    else if (!ours.comm_comp_overlap_note) diffs.push('a null overlap without its note');
  } else if (!near(got, want, 0, 0.1)) diffs.push(`overlap ${got} % vs HTA ${want}`);
}

function compareLaunches(diffs, ours, rows, allRows, golden, trace) {
  // The launches HTA leaves out are the driver's calls, and only they.
  const extra = allRows.filter((r) => !['cudaLaunchKernel', 'cudaLaunchKernelExC', 'cudaMemcpyAsync', 'cudaMemsetAsync'].includes(r.call));
  if (allRows.length !== rows.length + extra.length || extra.some((r) => !/^cuLaunchKernel(Ex)?$/.test(r.call)))
    diffs.push(`launches of every call: ${allRows.length}, of HTA's calls ${rows.length}, others ${[...new Set(extra.map((r) => r.call))]}`);
  const l = ours.launches;
  if (golden.error) {
    // HTA's default call asks for rank 0: a trace of another rank alone fails (two_rank_sampled's
    // rank 1, cpu_only_rank34). Ours: that rank's launches, or none with the note.
    if (trace === 'cpu_only_rank34.pt.trace.json.gz') {
      if (l.count !== 0 || !l.note) diffs.push(`CPU-only trace: ${l.count} launches, note ${l.note}`);
    } else if (ours.rank !== 1 || !(l.count > 0)) diffs.push(`HTA failed (${golden.error}); ours: ${l.count} launches, rank ${ours.rank}`);
    return;
  }
  const g = Object.values(golden.result)[0];
  if (trace === 'triton_example.json.gz') {
    // HTA's launch statistics leave out the driver's cuLaunchKernel (Triton's launch; its queue
    // length counts it): ours has its one launch (docs/compatibility.md), HTA's selection none.
    if (g.rows !== 0) diffs.push('HTA golden changed');
    if (allRows.length !== 1 || allRows[0].call !== 'cuLaunchKernel' || allRows[0].launch_delay_us !== 0) diffs.push(`triton launches: ${JSON.stringify(allRows)}`);
  }
  if (l.count !== g.rows) diffs.push(`launches ${l.count} vs HTA ${g.rows}`);
  const desc = Object.fromEntries(g.describe.map((d) => [d.index, d]));
  for (const [col, ourKey] of [['cpu_duration', 'cpu_duration_us'], ['gpu_duration', 'gpu_duration_us'], ['launch_delay', 'launch_delay_us']])
    for (const [theirs, mine] of [['count', 'count'], ['mean', 'mean'], ['std', 'std'], ['min', 'min'], ['25%', 'p25'], ['50%', 'p50'], ['75%', 'p75'], ['max', 'max']]) {
      const want = desc[theirs][col];
      const got = l[ourKey][mine];
      if (want == null ? got != null : !near(got, want, 0.01, 0.02)) diffs.push(`${col} ${theirs}: ${got} vs HTA ${want}`);
    }
  const byCorrelation = new Map(rows.map((r) => [r.correlation, r]));
  let wrong = 0;
  for (const x of g.first_200) {
    const r = byCorrelation.get(x.correlation);
    if (!r || r.cpu_duration_us !== x.cpu_duration || r.gpu_duration_us !== x.gpu_duration || r.launch_delay_us !== x.launch_delay) {
      if (++wrong <= 3) diffs.push(`launch ${x.correlation}: ${JSON.stringify(r)} vs HTA ${JSON.stringify(x)}`);
    }
  }
  if (wrong > 3) diffs.push(`${wrong} of HTA's first ${g.first_200.length} launches differ`);
}

function compareQueue(diffs, ours, other, golden) {
  if (golden.error) {
    diffs.push(`HTA failed (${golden.error}): no case for it here`);
    return;
  }
  if (golden.result == null) {
    if (ours.queue.length) diffs.push(`HTA has no queue; ours ${ours.queue.length} streams`);
    return;
  }
  const key = (s) => `('queue_length', '${s}')`;
  for (const r of golden.result) {
    const stream = r["('stream', '')"];
    const a = ours.queue.find((q) => q.stream === stream);
    const b = other.queue.find((q) => q.stream === stream);
    if (!a || !b) {
      diffs.push(`no queue for stream ${stream}`);
      continue;
    }
    if (a.count !== r[key('count')]) diffs.push(`stream ${stream} count ${a.count} vs HTA ${r[key('count')]}`);
    if (a.max !== r[key('max')] && b.max !== r[key('max')]) diffs.push(`stream ${stream} max ${a.max}/${b.max} vs HTA ${r[key('max')]}`);
    for (const [mine, theirs] of [['mean', 'mean'], ['p25', '25%'], ['p50', '50%'], ['p75', '75%'], ['min', 'min']]) {
      const want = r[key(theirs)];
      const lo = Math.min(a[mine], b[mine]) - 1e-6, hi = Math.max(a[mine], b[mine]) + 1e-6;
      if (!(want >= lo && want <= hi)) diffs.push(`stream ${stream} ${theirs}: HTA ${want} outside [${a[mine]}, ${b[mine]}]`);
    }
  }
  for (const q of ours.queue)
    if (!golden.result.some((r) => r["('stream', '')"] === q.stream)) diffs.push(`stream ${q.stream} not in HTA's queue`);
}

const results = [];
const skipped = forEachHtaGolden(results, (f, golden, file) => {
  const a = golden.analyses;
  const ours = run('gpu-time', file);
  const other = run('gpu-time', file, ['--ties', 'starts_first']);
  // HTA's launch statistics read the runtime's launch calls only (--calls hta); ours by default
  // count the driver's cuLaunchKernel(Ex) too, checked below.
  const htaCalls = run('gpu-time', file, ['--calls', 'hta']);
  const rows = run('gpu-launches', file, ['--calls', 'hta']).launches;
  const allRows = run('gpu-launches', file).launches;
  const overlap = { name: `${f} comm/comp overlap`, diffs: [] };
  const launches = { name: `${f} kernel launch statistics`, diffs: [] };
  const queue = { name: `${f} queue length`, diffs: [] };
  compareOverlap(overlap.diffs, ours, a.comm_comp_overlap);
  compareLaunches(launches.diffs, htaCalls, rows, allRows, a.cuda_kernel_launch_stats, golden.trace);
  compareQueue(queue.diffs, ours, other, a.queue_length_summary);
  results.push(overlap, launches, queue);
});
report(results, skipped);
