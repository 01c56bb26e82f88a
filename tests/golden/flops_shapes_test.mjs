// `kinetoscope flops --json` on real traces recorded with shapes, against FLOPs counted here
// independently from each call's `Input Dims` with torch.utils.flop_counter's formulas (issue 25's
// golden on ../shared): the matmuls (mm, addmm, bmm, baddbmm: 2·M·K·N per product, bias adds not
// counted) and the SDPA forward calls (cuDNN/flash/efficient: 4·b·h·s_q·s_k·d, q·kᵀ and its product
// with v), per operator name, calls and FLOPs exactly, leaf calls only. Traces: every trace under ../shared/traces and
// tests/data/h200_pt211 whose events carry Input Dims for those operators (the others are listed as
// having none); skips cleanly when ../shared is absent (the repo's own traces still run).
// usage: node tests/golden/flops_shapes_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readBytes, report, shared } from './independent_count.mjs';

const cli = process.argv[2];
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

const prod = (a) => a.reduce((x, y) => x * BigInt(y), 1n);
// Per operator: the FLOPs of one call from its Input Dims, or null when the shapes do not fit.
const FORMULAS = {
  'aten::mm': ([a, b]) => (a?.length === 2 && b?.length === 2 ? 2n * prod([a[0], a[1], b[1]]) : null),
  'aten::addmm': ([, a, b]) => (a?.length === 2 && b?.length === 2 ? 2n * prod([a[0], a[1], b[1]]) : null),
  'aten::bmm': ([a, b]) => (a?.length === 3 && b?.length === 3 ? 2n * prod([a[0], a[1], a[2], b[2]]) : null),
  'aten::baddbmm': ([, a, b]) => (a?.length === 3 && b?.length === 3 ? 2n * prod([a[0], a[1], a[2], b[2]]) : null),
};
// SDPA forward: q [b, h, s_q, d], k [b, h, s_k, d], v [b, h, s_k, d_v].
for (const op of ['aten::_scaled_dot_product_cudnn_attention', 'aten::_scaled_dot_product_flash_attention',
  'aten::_scaled_dot_product_efficient_attention']) {
  FORMULAS[op] = ([q, k, v]) =>
    q?.length === 4 && k?.length === 4 && v?.length === 4
      ? 2n * prod([q[0], q[1], q[2], k[2], q[3]]) + 2n * prod([q[0], q[1], q[2], k[2], v[3]])
      : null;
}

function independent(file) {
  const doc = JSON.parse(readBytes(file).toString('utf8'));
  const events = Array.isArray(doc) ? doc : doc.traceEvents ?? [];
  const out = new Map();
  // Leaf calls only, as flop_counter counts the dispatched ops: a counted call with another counted
  // call inside it on its thread (autograd's aten::mm around the aten::mm it dispatches) is not one.
  const counted = events.filter((e) => e.ph === 'X' && e.cat === 'cpu_op' && FORMULAS[e.name]);
  counted.sort((a, b) => String(a.tid).localeCompare(String(b.tid)) || a.ts - b.ts || b.dur - a.dur);
  const leaf = counted.filter((e, i) => {
    const next = counted[i + 1];
    return !(next && next.tid === e.tid && next.ts < e.ts + e.dur);
  });
  for (const e of leaf) {
    const dims = e.args?.['Input Dims'];
    if (!Array.isArray(dims)) continue;
    const f = FORMULAS[e.name](dims);
    if (f == null) continue;
    const o = out.get(e.name) ?? { calls: 0, flops: 0n };
    o.calls++;
    o.flops += f;
    out.set(e.name, o);
  }
  return out;
}

function traces() {
  const files = [];
  const walk = (dir) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (/\.pt\.trace\.json(\.gz)?$/.test(d.name)) files.push(p);
    }
  };
  walk(path.join(repo, 'tests/data/h200_pt211'));
  if (fs.existsSync(path.join(shared, 'traces'))) walk(path.join(shared, 'traces'));
  return files.sort();
}

const results = [];
let withShapes = 0;
for (const file of traces()) {
  const want = independent(file);
  if (!want.size) continue;
  withShapes++;
  const got = JSON.parse(execFileSync(cli, ['flops', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n')[0]);
  const byName = new Map();
  for (const o of got.operators ?? []) {
    const x = byName.get(o.name) ?? { calls: 0, flops: 0n };
    x.calls += o.calls;
    x.flops += BigInt(Math.round(o.flops));
    byName.set(o.name, x);
  }
  const diffs = [];
  for (const [name, w] of want) {
    const g = byName.get(name);
    if (!g) diffs.push(`${name}: not counted (want ${w.calls} calls, ${w.flops} FLOPs)`);
    else if (g.calls !== w.calls || g.flops !== w.flops) diffs.push(`${name}: ${g.calls} calls, ${g.flops} FLOPs; want ${w.calls}, ${w.flops}`);
  }
  const label = file.startsWith(repo + path.sep) ? path.relative(repo, file) : `shared/${path.relative(shared, file)}`;
  results.push({ name: `${label} (${[...want.values()].reduce((n, w) => n + w.calls, 0)} calls)`, diffs });
}
if (!withShapes) results.push({ name: 'traces with shapes', diffs: ['none found: the repo\'s h200_pt211 traces have them'] });
report(results);
