// `kinetoscope operators|kernels|overview --json --tb-plugin` against tb_plugin's own numbers on
// every profile of ../shared/golden/tb_plugin (internals.op_agg_raw, kernel_stat_raw,
// kernel_agg_by_name_op_raw, tensor_cores_raw, gpu_metrics_raw.per_gpu[].tc_ratio,
// recommendations_raw): every row within 0.1% or 1 us, row order where tb_plugin's is defined,
// and the full-table column sums of the tables the oracle truncated. Skips without ../shared.
// usage: node tests/golden/operators_kernels_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import { report } from './independent_count.mjs';
import { close, goldenProfiles, haveGoldens } from './tb_plugin_goldens.mjs';

const cli = process.argv[2];
if (!haveGoldens) {
  console.log('../shared/golden is absent: nothing to compare');
  console.log('0 passed, 0 failed, 1 skipped');
  process.exit(0);
}

const run = (args) => JSON.parse(execFileSync(cli, [...args, '--json', '--tb-plugin'], { encoding: 'utf8', maxBuffer: 1 << 28 }));
const sum = (rows, f) => rows.reduce((s, r) => s + f(r), 0);

// Compares rows keyed by `key`: every golden row must be ours with the same numbers.
function compareRows(diffs, what, ours, theirs, key, fields, near) {
  const byKey = new Map(ours.map((r) => [key(r.ours ?? r), r]));
  for (const t of theirs) {
    const k = key(t, true);
    const o = byKey.get(k);
    if (!o) {
      diffs.push(`${what}: no row ${k.slice(0, 120)}`);
      continue;
    }
    for (const [label, a, b, exact] of fields(o, t)) {
      const ok = exact ? a === b : (a === null || b === null ? a === b : near(a, b));
      if (!ok) diffs.push(`${what} ${k.slice(0, 80)} ${label}: ${a} vs ${b}`);
    }
  }
}

function truncated(truncation, path) {
  return truncation?.tables?.find((t) => t.path === path);
}

const results = [];
for (const { name, profile: p, truncation, trace } of goldenProfiles()) {
  const it = p.internals;
  if (!it || !trace) continue;
  // --tb-plugin counts range durations in float µs as tb_plugin does, so even the ns-resolution
  // trace matches within 0.1% or 1 us.
  const near = (a, b) => close(a, b);
  const ratioNear = (a, b) => close(a, b, 1e-6);
  const id = `${p.worker}/${p.span}`;

  // Operators by name and by name + input shape (op_agg_raw).
  for (const [group, rawKey] of [['op', 'by_name'], ['op+shape', 'by_name_input']]) {
    const diffs = [];
    const want = it.op_agg_raw?.[rawKey];
    if (!want) continue;
    const got = run(['operators', '--group-by', group, trace]);
    const key = (r, theirs) => (group === 'op' ? r.name : `${r.name}###${r.input_shape}`);
    compareRows(diffs, group, got.rows, want, key, (o, t) => [
      ['calls', o.calls, t.calls, true],
      ['host total', o.host_total_us, t.host_duration],
      ['host self', o.host_self_us, t.self_host_duration],
      ['device total', o.device_total_us, t.device_duration],
      ['device self', o.device_self_us, t.self_device_duration],
      ['tc eligible', o.tc_eligible, t.tc_eligible, true],
      ['tc self', o.tc_self_pct, t.self_device_duration ? 100 * t.tc_self_duration / t.self_device_duration : 0],
      ['tc total', o.tc_total_pct, t.device_duration ? 100 * t.tc_total_duration / t.device_duration : 0],
    ], near);
    const trunc = truncated(truncation, `profiles[${id}].internals.op_agg_raw.${rawKey}`);
    if (trunc) {
      const s = trunc.column_sums_all_rows;
      if (got.rows.length !== trunc.rows_total) diffs.push(`${group}: ${got.rows.length} rows vs ${trunc.rows_total}`);
      for (const [label, ours, theirs] of [['calls', sum(got.rows, (r) => r.calls), s.calls],
        ['host total', sum(got.rows, (r) => r.host_total_us), s.host_duration],
        ['host self', sum(got.rows, (r) => r.host_self_us), s.self_host_duration],
        ['device total', sum(got.rows, (r) => r.device_total_us), s.device_duration],
        ['device self', sum(got.rows, (r) => r.device_self_us), s.self_device_duration]]) {
        if (!near(ours, theirs)) diffs.push(`${group} column sum ${label}: ${ours} vs ${theirs}`);
      }
    } else if (got.rows.length !== want.length) {
      diffs.push(`${group}: ${got.rows.length} rows vs ${want.length}`);
    }
    // The table's order: device self (host self without GPU work) descending.
    const sortKey = got.show_gpu ? 'device_self_us' : 'host_self_us';
    for (let i = 1; i < got.rows.length; i++) {
      if (got.rows[i][sortKey] > got.rows[i - 1][sortKey]) { diffs.push(`${group}: row ${i} out of order`); break; }
    }
    const table = p.operator?.[group === 'op' ? 'table_Operation' : 'table_OperationAndInputShape'];
    if (table?.metadata?.sort) {
      const theirs = table.metadata.sort === 'device_self_duration';
      if (theirs !== got.show_gpu) diffs.push(`${group}: show_gpu ${got.show_gpu} vs table sorted by ${table.metadata.sort}`);
    }
    results.push({ name: `${name} operators ${group}`, diffs: diffs.slice(0, 8) });
  }

  // Kernels by name (kernel_stat_raw: every kernel event, raw dur).
  if (it.kernel_stat_raw) {
    const diffs = [];
    const got = run(['kernels', '--group-by', 'name', trace]);
    const want = it.kernel_stat_raw;
    compareRows(diffs, 'by name', got.rows, want, (r) => r.name, (o, t) => [
      ['calls', o.calls, t.count, true],
      ['tc', o.tensor_cores, t.tc_used, true],
      ['total', o.total_us, t.sum], ['mean', o.mean_us, t.mean], ['max', o.max_us, t.max], ['min', o.min_us, t.min],
      ['blocks per SM', o.blocks_per_sm ?? 0, t.blocks_per_sm ?? 0],
      ['occupancy', o.occupancy_pct ?? 0, t.occupancy ?? 0],
    ], near);
    if (got.rows.length !== want.length) diffs.push(`by name: ${got.rows.length} rows vs ${want.length}`);
    for (let i = 1; i < got.rows.length; i++) {
      if (got.rows[i].total_us > got.rows[i - 1].total_us) { diffs.push(`by name: row ${i} out of order`); break; }
    }
    // tb_plugin's TC pie: Σ TC kernel dur / Σ kernel dur.
    const ratio = it.tensor_cores_raw?.tc_used_ratio;
    const ours = got.tensor_cores ? got.tensor_cores.tc_us / got.tensor_cores.total_us : null;
    if (ratio === null || ratio === undefined ? ours !== null && want.length > 0 : !ratioNear(ours, ratio)) diffs.push(`tc_used_ratio ${ours} vs ${ratio}`);
    results.push({ name: `${name} kernels name`, diffs: diffs.slice(0, 8) });
  }

  // Kernels by properties + operator (kernel_agg_by_name_op_raw: the trees' kernels).
  if (it.kernel_agg_by_name_op_raw) {
    const diffs = [];
    const got = run(['kernels', '--group-by', 'props', trace]);
    const want = it.kernel_agg_by_name_op_raw;
    const key = (r, theirs) => theirs
      ? [r.name, r.op_name, JSON.stringify(r.grid ?? null), JSON.stringify(r.block ?? null), r.regs_per_thread || 0, r.shared_memory || 0].join('|')
      : [r.name, r.operator, JSON.stringify(r.grid), JSON.stringify(r.block), r.registers_per_thread, r.shared_memory].join('|');
    compareRows(diffs, 'by props', got.rows, want, key, (o, t) => [
      ['calls', o.calls, t.calls, true],
      ['tc', o.tensor_cores, t.tc_used, true], ['op tc eligible', o.op_tc_eligible, t.op_tc_eligible, true],
      ['total', o.total_us, t.total_duration], ['mean', o.mean_us, t.avg_duration],
      ['max', o.max_us, t.max_duration], ['min', o.min_us, t.min_duration],
      ['blocks per SM', o.blocks_per_sm ?? 0, t.avg_blocks_per_sm ?? 0], ['occupancy', o.occupancy_pct ?? 0, t.avg_occupancy ?? 0],
    ], near);
    const trunc = truncated(truncation, `profiles[${id}].internals.kernel_agg_by_name_op_raw`);
    const rowsTotal = trunc ? trunc.rows_total : want.length;
    const totalSum = trunc ? trunc.column_sums_all_rows.total_duration : sum(want, (r) => r.total_duration);
    const callsSum = trunc ? trunc.column_sums_all_rows.calls : sum(want, (r) => r.calls);
    if (got.rows.length !== rowsTotal) diffs.push(`by props: ${got.rows.length} rows vs ${rowsTotal}`);
    if (!near(sum(got.rows, (r) => r.total_us), totalSum)) diffs.push(`by props total ${sum(got.rows, (r) => r.total_us)} vs ${totalSum}`);
    if (sum(got.rows, (r) => r.calls) !== callsSum) diffs.push(`by props calls ${sum(got.rows, (r) => r.calls)} vs ${callsSum}`);
    results.push({ name: `${name} kernels props`, diffs: diffs.slice(0, 8) });
  }

  // Overview: Tensor Core numbers and the recommendations, word for word.
  if (it.tensor_cores_raw || it.recommendations_raw) {
    const diffs = [];
    const got = run(['overview', trace]);
    const tc = it.tensor_cores_raw;
    if (tc) {
      const eligible = got.tensor_cores.eligible_op_kernel_pct / 100;
      if (!ratioNear(eligible, tc.tc_eligible_ops_kernel_ratio)) diffs.push(`eligible ops kernel ratio ${eligible} vs ${tc.tc_eligible_ops_kernel_ratio}`);
      const used = got.tensor_cores.kernel_pct === null ? null : got.tensor_cores.kernel_pct / 100;
      if (tc.tc_used_ratio === null ? used !== null : !ratioNear(used, tc.tc_used_ratio)) diffs.push(`tc used ratio ${used} vs ${tc.tc_used_ratio}`);
    }
    for (const gpu of got.gpus) {
      const want = it.gpu_metrics_raw?.per_gpu?.[String(gpu.device)];
      if (!want) continue;
      const ours = gpu.tensor_core_pct === null ? null : gpu.tensor_core_pct / 100;
      const theirs = want.tc_ratio ?? null;
      if (theirs === null ? ours !== null : ours === null || !ratioNear(ours, theirs)) diffs.push(`GPU ${gpu.device} tc ratio ${ours} vs ${theirs}`);
    }
    const texts = got.recommendations.map((r) => r.text);
    const want = it.recommendations_raw ?? [];
    if (JSON.stringify(texts) !== JSON.stringify(want)) diffs.push(`recommendations\n    ${JSON.stringify(texts)}\n    vs ${JSON.stringify(want)}`);
    results.push({ name: `${name} overview`, diffs: diffs.slice(0, 8) });
  }
}
// Where Kinetoscope is deliberately right and tb_plugin is not (docs/compatibility.md), in the
// default mode on the same traces.
const plain = (args) => JSON.parse(execFileSync(cli, [...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }));
const seen = new Set();
for (const { golden, name, trace } of goldenProfiles()) {
  if (!trace || seen.has(trace)) continue;
  seen.add(trace);
  const diffs = [];
  // No kernel is dropped: grouped by launching operator, the kernels add up to the same time as by name.
  const byName = plain(['kernels', '--group-by', 'name', trace]);
  const byProps = plain(['kernels', '--group-by', 'props', trace]);
  const t1 = sum(byName.rows, (r) => r.total_us), t2 = sum(byProps.rows, (r) => r.total_us);
  if (!close(t1, t2) || sum(byName.rows, (r) => r.calls) !== sum(byProps.rows, (r) => r.calls)) diffs.push(`kernels by props ${t2} us vs by name ${t1} us`);
  if (golden === 'two_rank_sampled.json') {
    // Runtime External ids are correlation ids: tb_plugin links nothing; launches are placed on
    // the operator running on their thread.
    const ops = plain(['operators', trace]);
    const tb = run(['operators', trace]);
    if (!ops.linking.external_ids_are_correlations || ops.linking.by_enclosing_op !== ops.linking.launches) diffs.push(`linking ${JSON.stringify(ops.linking)}`);
    const device = sum(ops.rows, (r) => r.device_self_us);
    if (!(device > 0.8 * t1)) diffs.push(`operators hold ${device} us of ${t1} us kernel time`);
    if (sum(tb.rows, (r) => r.device_self_us) !== 0) diffs.push('tb_plugin mode should attribute nothing');
  }
  if (golden === 'triton_example.json') {
    // cuLaunchKernel launches (Triton) reach their operator instead of CallTreeRoot.
    const triton = byProps.rows.filter((r) => r.name.startsWith('triton'));
    if (!triton.length || triton.some((r) => ['N/A', 'CallTreeRoot'].includes(r.operator))) diffs.push(`triton kernels: ${JSON.stringify(triton.map((r) => r.operator))}`);
  }
  results.push({ name: `${name.split(' ')[0]} default mode: no dropped kernels${golden === 'two_rank_sampled.json' ? ', linking by thread' : ''}`, diffs });
}
report(results, 0);
