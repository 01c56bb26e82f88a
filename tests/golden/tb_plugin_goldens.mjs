// tb_plugin's own outputs (../shared/golden/tb_plugin/**.json) and the trace file each of their
// profiles (worker + span) was computed from.
import fs from 'node:fs';
import path from 'node:path';
import { shared } from './independent_count.mjs';

export const goldenDir = path.join(shared, 'golden/tb_plugin');
const tracesDir = path.join(shared, 'traces');
export const haveGoldens = fs.existsSync(goldenDir) && fs.existsSync(tracesDir);

// Within 0.1% or 1 us (or the same unitless value within 0.1% or 1e-6).
export const close = (a, b, abs = 1) => Math.abs(a - b) <= Math.max(abs, 0.001 * Math.abs(b));

// ns-resolution traces: tb_plugin's float microseconds near 1.7e15 hold 0.25 us, so its sums drift
// by a few us (docs/compatibility.md); those goldens are compared within 1% or 8 us.
export const QUANTIZED = new Set(['v100_ns_resolution_rank0.json']);
export const quantizedClose = (a, b, abs = 8) => Math.abs(a - b) <= Math.max(abs, 0.01 * Math.abs(b));

function traceFor(golden, input) {
  const base = path.basename(golden, '.json');
  return [path.join(tracesDir, input.source), path.join(tracesDir, base, input.source),
    path.join(tracesDir, 'tb_unit', base, input.source)].find((c) => fs.existsSync(c));
}

// [{golden (file name), name (for reports), profile, truncation (the oracle's truncated tables),
// trace (path or undefined)}] for every profile.
export function goldenProfiles() {
  if (!haveGoldens) return [];
  const out = [];
  for (const dir of [goldenDir, path.join(goldenDir, 'tb_unit')]) {
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
      const golden = path.join(dir, f);
      const g = JSON.parse(fs.readFileSync(golden, 'utf8'));
      // tb_plugin numbers spans 1..n per worker, in string order of the span in the file name
      const spans = {};
      for (const i of g.run.inputs) if (i.span_raw !== null) (spans[i.worker] ??= []).push(i.span_raw);
      for (const w of Object.keys(spans)) spans[w].sort();
      for (const p of g.profiles) {
        const input = g.run.inputs.find((i) => i.worker === p.worker &&
          (i.span_raw === null ? p.span === 'default' : String(spans[p.worker].indexOf(i.span_raw) + 1) === p.span));
        out.push({ golden: path.basename(golden), name: `${path.relative(goldenDir, golden)} ${p.worker}/${p.span}`,
          profile: p, truncation: g.truncation, trace: input && traceFor(golden, input) });
      }
    }
  }
  return out;
}
