// `kinetoscope distributed --json --tb-plugin` against tb_plugin's own Distributed view
// (../shared/golden/tb_plugin/**.json, `distributed[]`: gpuinfo, overlap, waittime, commops) on
// every run: the runs where tb_plugin shows the view (nccl_data, two_rank_sampled,
// v100_ns_resolution_rank0, cpu_only_rank34, tb_unit TestDistributed.*) match within 0.1% or 1 us;
// on every other run tb_plugin shows none and so must we (`available: false` or no span).
// Skips when ../shared is absent.
// usage: node tests/golden/distributed_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { report, shared } from './independent_count.mjs';
import { QUANTIZED, close, goldenDir, haveGoldens, quantizedClose } from './tb_plugin_goldens.mjs';

const cli = process.argv[2];
if (!haveGoldens) {
  console.log('../shared/golden is absent: nothing to compare');
  console.log('0 passed, 0 failed, 1 skipped');
  process.exit(0);
}
const tracesDir = path.join(shared, 'traces');
// tb_plugin's sentinel step (a trace without host ops, spec §6.1 and docs/compatibility.md): we
// report no step, so its overlap is not compared; wait time and the operations are.
const SENTINEL = 9e18;

const results = [];
for (const dir of [goldenDir, path.join(goldenDir, 'tb_unit')]) {
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const g = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    const base = path.basename(f, '.json');
    const name = path.relative(goldenDir, path.join(dir, f));
    const near = QUANTIZED.has(f) ? quantizedClose : close;
    const files = g.run.inputs.map((i) => [path.join(tracesDir, i.source), path.join(tracesDir, base, i.source),
      path.join(tracesDir, 'tb_unit', base, i.source)].find((c) => fs.existsSync(c)));
    if (files.some((x) => !x)) { results.push({ name, diffs: ['trace file not found'] }); continue; }
    // The oracle stages files under their tb_plugin names (rank0.json.gz -> rank0.pt.trace.json.gz):
    // name them the same way through symlinks.
    const staged = fs.mkdtempSync('/tmp/ks-dist-');
    g.run.inputs.forEach((i, k) => fs.symlinkSync(files[k], path.join(staged, i.staged_name)));
    let out;
    try {
      out = execFileSync(cli, ['distributed', '--json', '--tb-plugin', staged], { encoding: 'utf8' })
        .trim().split('\n').map((l) => JSON.parse(l));
    } finally {
      fs.rmSync(staged, { recursive: true, force: true });
    }
    const diffs = [];
    let checked = 0;
    const want = new Map((g.distributed ?? []).map((d) => [d.span, d]));
    for (const got of out) {
      const w = want.get(got.span);
      if (!w) {
        if (got.available) diffs.push(`span ${got.span}: tb_plugin shows no distributed view, we do`);
        continue;
      }
      if (!got.available) { diffs.push(`span ${got.span}: no view (${got.reason})`); continue; }
      const sentinel = g.profiles.some((p) => {
        const r = p.internals?.steps?.ranges_after_device_adjust_and_trim;
        return r && r.length === 1 && Math.abs(r[0][0]) > SENTINEL;
      });
      if (!sentinel) {
        for (const [key, byWorker] of Object.entries(w.overlap.data)) {
          for (const [worker, v] of Object.entries(byWorker)) {
            const o = got.overlap[key]?.[worker];
            const mine = o && [o.computation_us, o.overlapping_us, o.communication_us, o.other_us];
            checked += 4;
            if (!mine || mine.some((x, k) => !near(x, v[k]))) diffs.push(`overlap ${key} ${worker}: ${JSON.stringify(mine)} vs ${JSON.stringify(v)}`);
          }
        }
      }
      for (const [key, byWorker] of Object.entries(w.waittime.data)) {
        for (const [worker, v] of Object.entries(byWorker)) {
          const o = got.waittime[key]?.[worker];
          const mine = o && [o.transfer_us, o.synchronizing_us];
          checked += 2;
          if (!mine || mine.some((x, k) => !near(x, v[k]))) diffs.push(`waittime ${key} ${worker}: ${JSON.stringify(mine)} vs ${JSON.stringify(v)}`);
        }
      }
      for (const [worker, table] of Object.entries(w.commops.data)) {
        const rows = got.commops[worker] ?? [];
        if (rows.length !== table.rows.length) diffs.push(`commops ${worker}: ${rows.length} rows vs ${table.rows.length}`);
        table.rows.forEach((r, k) => {
          const m = rows[k];
          checked += 8;
          const mine = m && [m.name, m.calls, m.total_bytes, m.avg_bytes, m.total_latency_us, m.avg_latency_us, m.transfer_us, m.avg_transfer_us];
          if (!mine || mine[0] !== r[0] || mine.slice(1).some((x, j) => !near(x, r[j + 1])))
            diffs.push(`commops ${worker} row ${k}: ${JSON.stringify(mine)} vs ${JSON.stringify(r)}`);
        });
      }
      // gpuinfo: data[node]["Process p"]["GPU d"] for the workers with deviceProperties.
      const gpus = {};
      for (const wk of got.workers)
        for (const d of wk.devices)
          ((gpus[wk.node] ??= {})[`Process ${wk.process}`] ??= {})[`GPU${d.id}`] = [d.name, d.memory_bytes, d.compute_capability];
      const wantGpus = {};
      for (const [node, procs] of Object.entries(w.gpuinfo?.data ?? {}))
        for (const [proc, devs] of Object.entries(procs))
          for (const [dev, info] of Object.entries(devs))
            ((wantGpus[node] ??= {})[proc] ??= {})[dev] = [info.Name, info['Memory Raw'], info['Compute Capability']];
      checked += 1;
      if (JSON.stringify(gpus) !== JSON.stringify(wantGpus)) diffs.push(`gpuinfo ${JSON.stringify(gpus)} vs ${JSON.stringify(wantGpus)}`);
    }
    for (const span of want.keys())
      if (!out.some((o) => o.span === span)) diffs.push(`span ${span}: missing`);
    results.push({ name: `${name}${want.size ? ` (${checked} values)` : ' (no view in tb_plugin)'}`, diffs: diffs.slice(0, 8) });
  }
}

// Default mode on PyTorch 2.x traces (docs/compatibility.md, "Distributed view"): what tb_plugin
// misses there. nccl_data: NCCL kernels are communication (tb_plugin: computation, so its
// "overlapping" is mostly the all_reduce overlapping itself), sizes from record_param_comms.
// two_rank_sampled: all_to_all and _all_gather_base are collectives too, and the ranks' all_reduce
// sequences differ in size at call 4, where matching stops.
{
  const run = (args) => execFileSync(cli, ['distributed', '--json', ...args], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l));
  const diffs = [];
  const [n] = run([path.join(tracesDir, 'nccl_data.json.gz')]);
  const ops = Object.fromEntries(n.commops.nccl_data.map((o) => [o.name, o]));
  if (ops['nccl:all_reduce']?.total_bytes !== 306684384) diffs.push(`nccl_data all_reduce bytes ${ops['nccl:all_reduce']?.total_bytes}`);
  if (ops['nccl:broadcast']?.total_bytes !== 638712) diffs.push(`nccl_data broadcast bytes ${ops['nccl:broadcast']?.total_bytes}`);
  const o = n.overlap.all.nccl_data;
  if (!close(o.overlapping_us, 2439.0, 1) || !close(o.communication_us, 13186.5, 1) || !close(o.computation_us, 36112.9, 1))
    diffs.push(`nccl_data overlap ${JSON.stringify(o)}`);
  const staged = fs.mkdtempSync('/tmp/ks-dist-');
  for (const r of ['rank-0', 'rank-1']) fs.symlinkSync(path.join(tracesDir, 'two_rank_sampled', `${r}.json.gz`), path.join(staged, `${r}.pt.trace.json.gz`));
  const [t] = run([staged]);
  fs.rmSync(staged, { recursive: true, force: true });
  for (const w of ['rank-0', 'rank-1']) {
    const names = t.commops[w].map((x) => `${x.name} ${x.calls}`);
    if (JSON.stringify(names) !== JSON.stringify(['nccl:all_to_all 4', 'nccl:all_reduce 4', 'nccl:_all_gather_base 2'])) diffs.push(`two_rank_sampled ${w}: ${names}`);
  }
  if (t.matching.matched !== 6 || t.matching.calls !== 20 || t.matching.notes.length !== 1 || !/call 4 differs/.test(t.matching.notes[0]))
    diffs.push(`two_rank_sampled matching ${JSON.stringify(t.matching)}`);
  results.push({ name: 'default mode: PyTorch 2.x collectives (nccl_data, two_rank_sampled)', diffs });
}
report(results, 0);
