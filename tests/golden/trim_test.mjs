// `kinetoscope trim --step N` on every real trace with steps (and the bundled sample), checked
// against an independent reading (node zlib + JSON.parse) of the original: the output parses,
// keeps every top-level member and metadata event, keeps exactly the events overlapping the
// step (decided here from the parsed numbers; events within 1 us of an edge may go either way,
// since JSON.parse rounds timestamps near 1.7e15 us), and keeps flows only whole.
// usage: node tests/golden/trim_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isTrace, readBytes, report, traceFiles } from './independent_count.mjs';

const cli = process.argv[2];
// Not tb_unit (tiny hand-made cases) nor JSON that is not a trace (gpu_metrics_expected.json,
// memory_timeline.json.gz).
const files = traceFiles().files.filter((f) => !f.includes('tb_unit') && isTrace(f));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ks-trim-'));
const results = [];
for (const file of files) {
  const diffs = [];
  const steps = JSON.parse(execFileSync(cli, ['steps', '--json', file], { encoding: 'utf8' })).steps;
  if (!steps.length) continue;
  const step = steps[Math.floor(steps.length / 2)];
  const out = path.join(tmp, 'out.json');
  execFileSync(cli, ['trim', '--step', step.name, '-o', out, file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const orig = JSON.parse(readBytes(file).toString('utf8'));
  const trimmed = JSON.parse(fs.readFileSync(out, 'utf8'));
  const evs = Array.isArray(orig) ? orig : orig.traceEvents;
  if (!Array.isArray(orig)) {
    for (const k of Object.keys(orig)) if (k !== 'traceEvents' && !(k in trimmed)) diffs.push(`member ${k} missing`);
  }
  const [s, e] = [step.start_us, step.end_us];
  const meta = evs.filter((x) => x.ph === 'M').length;
  if (trimmed.traceEvents.filter((x) => x.ph === 'M').length !== meta) diffs.push('metadata events differ');
  // Duration and instant events: surely in, surely out, or within 1 us of an edge.
  let sure = 0, edge = 0;
  const isFlow = (x) => x.ph === 's' || x.ph === 't' || x.ph === 'f';
  for (const x of evs) {
    if (x.ph === 'M' || isFlow(x) || typeof x.ts !== 'number') continue;
    const a = x.ts, b = x.ph === 'X' ? x.ts + (x.dur || 0) : x.ts;
    const inside = x.ph === 'X' && x.dur > 0 ? a < e - 1 && b > s + 1 : a >= s + 1 && a <= e - 1;
    const outside = x.ph === 'X' && x.dur > 0 ? a >= e + 1 || b <= s - 1 : a < s - 1 || a > e + 1;
    if (inside) sure++;
    else if (!outside) edge++;
  }
  const kept = trimmed.traceEvents.filter((x) => x.ph !== 'M' && !isFlow(x));
  if (kept.length < sure || kept.length > sure + edge) diffs.push(`kept ${kept.length} events, expected ${sure} (+${edge} at the edges)`);
  for (const x of kept) {
    const b = x.ph === 'X' ? x.ts + (x.dur || 0) : x.ts;
    if (b < s - 1 || x.ts > e + 1) { diffs.push(`${x.name} at ${x.ts} lies outside [${s}, ${e}]`); break; }
  }
  // Flows: every kept flow id has all its events, all inside the window.
  const flows = new Map();
  for (const x of trimmed.traceEvents.filter(isFlow)) flows.set(`${x.cat}/${x.id}/${x.name}`, (flows.get(`${x.cat}/${x.id}/${x.name}`) ?? 0) + 1);
  for (const [k, n] of flows) {
    const all = evs.filter((x) => isFlow(x) && `${x.cat}/${x.id}/${x.name}` === k);
    if (all.length !== n || all.some((x) => x.ts < s - 1 || x.ts > e + 1)) { diffs.push(`flow ${k} kept partly`); break; }
  }
  results.push({ name: `trim step ${step.name} ${path.basename(file)}: ${kept.length} events, ${flows.size} flows`, diffs });
}
fs.rmSync(tmp, { recursive: true, force: true });
report(results, 0);
