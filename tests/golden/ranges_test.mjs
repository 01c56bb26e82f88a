// `kinetoscope ranges` (issue 22 §3) on real traces and the hand-made fixture: the GPT recorded on
// an H200 (tests/data/h200_pt211/gpt_modulelist: forward, backward, optimizer and
// mixed_precision_matmuls > fp8_scaled_mm / bf16_mm / tf32_mm / fp32_mm, 2 active steps), Lightning
// 2.6's [pl] ranges, the fixture's numbers as tests/data/README.md works them out, and the
// ../shared H100 traces (skipped when absent). Every tree's self times must add up.
// usage: node tests/golden/ranges_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repo, report, shared } from './independent_count.mjs';

const cli = process.argv[2];
const run = (args) => execFileSync(cli, ['ranges', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const json = (args) => JSON.parse(run(['--json', ...args]).split('\n')[0]);
const near = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));
const find = (nodes, name) => nodes.find((n) => n.name === name);

// Host self = host − Σ children's host; device self = device − Σ children's device; no
// ProfilerStep anywhere (the steps are not user ranges).
function checkTree(diffs, nodes, at = '') {
  for (const n of nodes) {
    const where = `${at}/${n.name}`;
    if (n.name.startsWith('ProfilerStep#')) diffs.push(`${where}: a ProfilerStep is a row`);
    const host = n.children.reduce((s, c) => s + c.host_us, 0);
    const device = n.children.reduce((s, c) => s + c.device_us, 0);
    if (!near(n.self_host_us, n.host_us - host)) diffs.push(`${where}: self_host_us ${n.self_host_us}, host ${n.host_us} − children ${host}`);
    if (!near(n.self_device_us, n.device_us - device)) diffs.push(`${where}: self_device_us ${n.self_device_us}, device ${n.device_us} − children ${device}`);
    checkTree(diffs, n.children, where);
  }
}

const results = [];
let skipped = 0;
const gpt = path.join(repo, 'tests/data/h200_pt211/gpt_modulelist');
const gptTrace = path.join(gpt, fs.readdirSync(gpt).find((f) => f.endsWith('.json.gz')));
{
  const diffs = [];
  const d = json([gptTrace]);
  checkTree(diffs, d.ranges);
  const top = d.ranges.map((n) => n.name);
  for (const want of ['forward', 'backward', 'optimizer', 'mixed_precision_matmuls'])
    if (!top.includes(want)) diffs.push(`top level ${top.join(', ')}: no ${want}`);
  for (const n of d.ranges) if (n.calls !== 2) diffs.push(`${n.name}: ${n.calls} calls, expected 2 (one per active step)`);
  const mm = find(d.ranges, 'mixed_precision_matmuls');
  const kids = mm ? mm.children.map((c) => c.name).join(',') : '';
  if (kids !== 'fp8_scaled_mm,bf16_mm,tf32_mm,fp32_mm') diffs.push(`mixed_precision_matmuls children: ${kids}`);
  for (const c of mm?.children ?? []) {
    if (c.calls !== 2) diffs.push(`${c.name}: ${c.calls} calls`);
    if (!(c.device_us > 0)) diffs.push(`${c.name}: no device time`);
    if (!(c.gpu_ranges === 2 && c.gpu_range_us > 0)) diffs.push(`${c.name}: GPU-side copies ${c.gpu_ranges}, ${c.gpu_range_us} us`);
  }
  if (mm && mm.gpu_range_us !== null) diffs.push('mixed_precision_matmuls holds only ranges: Kineto writes it no GPU-side copy');
  const fp8 = find(mm?.children ?? [], 'fp8_scaled_mm');
  const fp32 = find(mm?.children ?? [], 'fp32_mm');
  if (!(fp8?.tensor_core_pct > 0)) diffs.push(`fp8_scaled_mm Tensor Core share ${fp8?.tensor_core_pct}`);
  if (fp32?.tensor_core_pct !== 0) diffs.push(`fp32_mm Tensor Core share ${fp32?.tensor_core_pct}, expected 0 (FFMA GEMM)`);
  // fp8_scaled_mm's GEMM is cuBLAS's FP8 nvjet kernel ("qq": 8-bit float operands), on Tensor Cores.
  const k8 = JSON.parse(run(['--detail', 'mixed_precision_matmuls/fp8_scaled_mm', '--json', gptTrace]));
  const gemm = k8.kernels.filter((k) => k.tensor_cores === true);
  if (gemm.length !== 1 || !/^nvjet_sm90_qqtst/.test(gemm[0].name) || gemm[0].calls !== 2) diffs.push(`fp8_scaled_mm TC kernels: ${JSON.stringify(gemm)}`);
  const k32 = JSON.parse(run(['--detail', 'mixed_precision_matmuls/fp32_mm', '--json', gptTrace]));
  if (!k32.kernels.length || k32.kernels.some((k) => k.tensor_cores !== false)) diffs.push(`fp32_mm kernels: ${JSON.stringify(k32.kernels)}`);
  // backward: loss.backward() on the main thread launches only the gradient seed; the backward
  // kernels come from the autograd thread, so neither reading holds them (docs/contracts.md).
  const bw = find(d.ranges, 'backward');
  if (!(bw && bw.device_us < 5 && bw.gpu_range_us < 5)) diffs.push(`backward: device ${bw?.device_us}, GPU range ${bw?.gpu_range_us}`);
  // The optimizer's own range sits under the user's.
  if (!find(find(d.ranges, 'optimizer')?.children ?? [], 'Optimizer.step#AdamW.step')) diffs.push('optimizer > Optimizer.step#AdamW.step missing');
  results.push({ name: 'h200_pt211/gpt_modulelist: the four matmul ranges under mixed_precision_matmuls, FP8 on Tensor Cores', diffs });
}
{
  const diffs = [];
  const dir = path.join(repo, 'tests/data/h200_pt211/lightning26');
  const d = json([path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.json.gz')))]);
  checkTree(diffs, d.ranges);
  const all = [];
  const walk = (ns) => ns.forEach((n) => (all.push(n), walk(n.children)));
  walk(d.ranges);
  if (!all.some((n) => n.name.startsWith('[pl][module]') && n.kind === 'lightning')) diffs.push('no [pl][module] row of kind lightning');
  const batch = find(d.ranges, '[pl][profile]run_training_batch');
  if (!batch || batch.calls !== 3) diffs.push(`run_training_batch: ${batch?.calls} calls`);
  results.push({ name: 'h200_pt211/lightning26: Lightning ranges are rows, kind lightning', diffs });
}
{
  const diffs = [];
  const d = json([path.join(repo, 'tests/data/user-ranges-nested.json')]);
  checkTree(diffs, d.ranges);
  const pick = (n) => [n.calls, n.host_us, n.self_host_us, n.device_us, n.self_device_us, n.tensor_core_pct, n.gpu_ranges, n.gpu_range_us, n.gpu_range_device_us];
  const want = {
    outer: [3, 170, 110, 64, 14, (100 * 50) / 60, 1, 14, 14],
    'outer/inner': [2, 60, 60, 50, 50, 100, 2, 50, 56],
    prefetch: [1, 50, 50, 6, 6, null, 0, null, null],
  };
  const got = {};
  const walk = (ns, at) => ns.forEach((n) => ((got[at + n.name] = pick(n)), walk(n.children, `${at}${n.name}/`)));
  walk(d.ranges, '');
  if (Object.keys(got).join() !== Object.keys(want).join()) diffs.push(`rows ${Object.keys(got).join()}`);
  for (const [k, w] of Object.entries(want)) {
    const g = got[k] ?? [];
    w.forEach((v, i) => (v === null ? g[i] !== null : !near(g[i], v)) && diffs.push(`${k} field ${i}: ${g[i]}, expected ${v}`));
  }
  if (d.calls !== 6) diffs.push(`calls ${d.calls}`);
  results.push({ name: 'tests/data/user-ranges-nested.json (hand-computed)', diffs });
}
const h100 = path.join(shared, 'traces/h100_pt211');
if (!fs.existsSync(h100)) {
  console.log('../shared/traces/h100_pt211 is absent: skipped');
  skipped++;
} else {
  for (const sub of fs.readdirSync(h100)) {
    for (const f of fs.readdirSync(path.join(h100, sub)).filter((x) => x.endsWith('.pt.trace.json.gz'))) {
      const diffs = [];
      const d = json([path.join(h100, sub, f)]);
      checkTree(diffs, d.ranges);
      if (!d.ranges.some((n) => n.name.startsWith('Optimizer.step#'))) diffs.push('no Optimizer.step range');
      results.push({ name: `h100_pt211/${sub}/${f}`, diffs });
    }
  }
}
report(results, skipped);
