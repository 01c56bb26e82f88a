// `kinetoscope gpus --json --tb-plugin` against tb_plugin's GPU metrics
// (internals.gpu_metrics_raw: utilization, est. SM efficiency, est. achieved occupancy and the
// utilization timeline) on every profile with kernels; within 0.1%. Skips without ../shared.
// usage: node tests/golden/gpu_metrics_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import { report } from './independent_count.mjs';
import { QUANTIZED, close, goldenProfiles, haveGoldens, quantizedClose } from './tb_plugin_goldens.mjs';

const cli = process.argv[2];
if (!haveGoldens) {
  console.log('../shared/golden is absent: nothing to compare');
  console.log('0 passed, 0 failed, 1 skipped');
  process.exit(0);
}
const results = [];
for (const { golden, name, profile: p, trace } of goldenProfiles()) {
  const want = p.internals?.gpu_metrics_raw;
  if (!want || !trace) continue;
  // ratios: within 0.1% (1e-6 absolute); ns traces: within 1% (1e-3 absolute, ~8 us per 10 ms bucket)
  const ratio = QUANTIZED.has(golden) ? (a, b) => quantizedClose(a, b, 1e-3) : (a, b) => close(a, b, 1e-6);
  const got = JSON.parse(execFileSync(cli, ['gpus', '--json', '--tb-plugin', trace], { encoding: 'utf8' }));
  const diffs = [];
  const ids = got.gpus.map((g) => g.device);
  if (JSON.stringify(ids) !== JSON.stringify(want.gpu_ids)) diffs.push(`gpus ${JSON.stringify(ids)} vs ${JSON.stringify(want.gpu_ids)}`);
  for (const g of got.gpus) {
    const w = want.per_gpu[String(g.device)];
    if (!w) continue;
    const pairs = [['utilization', g.utilization_pct / 100, w.gpu_utilization],
      ['sm efficiency', g.sm_efficiency_pct === null ? null : g.sm_efficiency_pct / 100, w.est_sm_efficiency],
      ['occupancy', g.achieved_occupancy_pct, w.est_achieved_occupancy]];
    for (const [what, a, b] of pairs) {
      if ((a === null) !== (b === null || b === undefined) || (a !== null && !ratio(a, b))) diffs.push(`GPU ${g.device} ${what}: ${a} vs ${b}`);
    }
    if (g.blocks_per_sm_count !== w.blocks_per_sm_count) diffs.push(`GPU ${g.device} blocks_per_sm_count ${g.blocks_per_sm_count} vs ${w.blocks_per_sm_count}`);
    if (g.occupancy_count !== w.occupancy_count) diffs.push(`GPU ${g.device} occupancy_count ${g.occupancy_count} vs ${w.occupancy_count}`);
    const buckets = want.util_buckets?.[String(g.device)] ?? [];
    if (buckets.length !== g.timeline.length) diffs.push(`GPU ${g.device} timeline ${g.timeline.length} buckets vs ${buckets.length}`);
    buckets.forEach(([t, v], i) => {
      const [gt, gv] = g.timeline[i] ?? [];
      if (gt === undefined || !close(gt, t) || !ratio(gv, v)) diffs.push(`GPU ${g.device} bucket ${i}: ${gt},${gv} vs ${t},${v}`);
    });
  }
  results.push({ name, diffs: diffs.slice(0, 8) });
}
report(results, 0);
