// What the tests against Holistic Trace Analysis's own output share: ../shared/golden/hta (one JSON
// per trace of ../shared/traces, its README says which calls made them), the trace each names,
// and the tolerance test.
import fs from 'node:fs';
import path from 'node:path';
import { shared } from './independent_count.mjs';

export const htaGoldenDir = path.join(shared, 'golden/hta');
export const tracesDir = path.join(shared, 'traces');

/** `ours` within `rel` (relative) or `abs` of HTA's `theirs`, and a number. */
export const near = (ours, theirs, rel, abs) => Number.isFinite(ours) && Math.abs(ours - theirs) <= Math.max(abs, rel * Math.abs(theirs));

/** The path of the trace file named `name` under ../shared/traces, or null. */
export function findTrace(name) {
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        const f = walk(p);
        if (f) return f;
      } else if (e.name === name) return p;
    }
    return null;
  };
  return walk(tracesDir);
}

/**
 * Calls fn(golden file name, golden, trace path) for each HTA golden, in name order; a golden whose
 * trace is missing is a failed result in `results`. Returns the number of skipped checks: 1 when
 * ../shared's goldens or traces are absent (said on stdout), else 0.
 */
export function forEachHtaGolden(results, fn) {
  if (!fs.existsSync(htaGoldenDir) || !fs.existsSync(tracesDir)) {
    console.log('../shared/golden/hta is absent: the HTA comparison is skipped');
    return 1;
  }
  for (const f of fs.readdirSync(htaGoldenDir).filter((n) => n.endsWith('.json')).sort()) {
    const golden = JSON.parse(fs.readFileSync(path.join(htaGoldenDir, f), 'utf8'));
    const file = findTrace(golden.trace);
    if (!file) results.push({ name: f, diffs: [`trace ${golden.trace} not found under ${tracesDir}`] });
    else fn(f, golden, file);
  }
  return 0;
}
