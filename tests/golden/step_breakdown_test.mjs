// `kinetoscope steps --json --tb-plugin` against tb_plugin's own numbers
// (../shared/golden/tb_plugin/**.json, internals: step ranges, per-step costs, averages, role
// ranges) on every profile of every trace; within 0.1% or 1 us. Skips when ../shared is absent.
// usage: node tests/golden/step_breakdown_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import { report } from './independent_count.mjs';
import { QUANTIZED, close, goldenProfiles, haveGoldens, quantizedClose } from './tb_plugin_goldens.mjs';

const cli = process.argv[2];
if (!haveGoldens) {
  console.log('../shared/golden is absent: nothing to compare');
  console.log('0 passed, 0 failed, 1 skipped');
  process.exit(0);
}

const ROLES = { Kernel: 'kernel', Memcpy: 'memcpy', Memset: 'memset', Communication: 'communication',
  Runtime: 'runtime', DataLoader: 'dataloader', CpuOp: 'cpu_exec', Other: 'other', Total: 'total' };
// Deliberate differences (docs/compatibility.md, "Steps and step-time breakdown"):
// - ns-resolution traces (QUANTIZED): compared within 1% or 8 us; touching runtime calls merge
//   in tb_plugin's float times, so role range counts are not compared.
// - no host op at all: tb_plugin makes one step "0" from its min/max sentinels (+-9.2e18 us)
//   with all costs 0; we report no step.
const SENTINEL = 9e18;

const results = [];
for (const { golden, name, profile: p, trace } of goldenProfiles()) {
    const internals = p.internals;
    if (!internals || !internals.steps || !internals.step_costs_raw) continue;
    if (!trace) { results.push({ name, diffs: ['trace file not found'] }); continue; }
    const got = JSON.parse(execFileSync(cli, ['steps', '--json', '--tb-plugin', trace], { encoding: 'utf8' }));
    const diffs = [];
    const want = internals.steps;
    const near = QUANTIZED.has(golden) ? quantizedClose : close;
    if (want.ranges_after_device_adjust_and_trim.length === 1 &&
        Math.abs(want.ranges_after_device_adjust_and_trim[0][0]) > SENTINEL) {
      results.push({ name: `${name} (tb_plugin's sentinel step: we report none)`,
        diffs: got.steps.length === 0 ? [] : [`expected no step, got ${got.steps.length}`] });
      continue;
    }
    const names = got.steps.map((s) => s.name);
    if (JSON.stringify(names) !== JSON.stringify(want.names)) diffs.push(`names ${JSON.stringify(names)} vs ${JSON.stringify(want.names)}`);
    want.ranges_after_device_adjust_and_trim.forEach(([s, e], i) => {
      const st = got.steps[i];
      if (!st || !near(st.start_us, s) || !near(st.end_us, e)) diffs.push(`step ${i} range ${st?.start_us}-${st?.end_us} vs ${s}-${e}`);
    });
    internals.step_costs_raw.forEach((c, i) => {
      for (const [k, key] of Object.entries(ROLES)) {
        const v = got.steps[i]?.[`${key}_us`];
        if (v === undefined || !near(v, c[k])) diffs.push(`step ${c.step} ${k}: ${v} vs ${c[k]}`);
      }
    });
    for (const [k, key] of Object.entries(ROLES)) {
      const v = got.average[`${key}_us`], w = internals.avg_costs_raw?.[k];
      if (w !== undefined && !near(v, w)) diffs.push(`average ${k}: ${v} vs ${w}`);
    }
    for (const [k, r] of Object.entries(internals.role_ranges_global ?? {})) {
      const mine = got.roles[ROLES[k]];
      if (!mine) continue;
      if ((!QUANTIZED.has(golden) && mine.merged !== r.merged_ranges) || !near(mine.sum_us, r.sum_us))
        diffs.push(`role ${k}: ${mine.merged} ranges / ${mine.sum_us} us vs ${r.merged_ranges} / ${r.sum_us}`);
    }
    results.push({ name, diffs: diffs.slice(0, 8) });
}
report(results, 0);
