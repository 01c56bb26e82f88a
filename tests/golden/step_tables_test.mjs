// The Operator and Kernel tables of each step (`kinetoscope operators|kernels --step N --json`)
// against the whole trace's tables on every real trace: no step counts a call or a kernel twice
// (each row's sum over the steps is at most the whole row), both kernel groupings of a step hold
// the same kernels, and where an independent reading of the trace (JSON.parse) shows that every
// operator and launch started inside a ProfilerStep and every kernel has its launch, the steps add
// up to the whole table, row by row. tests/core/step_scope_test.cpp has the hand-made case.
// usage: node tests/golden/step_tables_test.mjs build/native/kinetoscope
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isTrace, readBytes, repo, report, traceFiles } from './independent_count.mjs';

const cli = process.argv[2];
const run = (args) => execFileSync(cli, [...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }).trim().split('\n').map((l) => JSON.parse(l))[0];
const near = (a, b) => Math.abs(a - b) <= 1e-6 + 1e-9 * Math.abs(b);

/** Whether every operator and launch started in a ProfilerStep range and every kernel was launched. */
function coveredByItsSteps(file, stepCount) {
  let doc;
  try {
    doc = JSON.parse(readBytes(file).toString('utf8'));
  } catch {
    return false;
  }
  const events = (Array.isArray(doc) ? doc : doc.traceEvents ?? []).filter((e) => e && e.ph === 'X');
  const cat = (e) => String(e.cat ?? '').toLowerCase();
  const steps = events.filter((e) => /^ProfilerStep#/.test(e.name) && ['cpu_op', 'operator', 'user_annotation'].includes(cat(e)));
  if (!steps.length || new Set(steps.map((e) => e.name)).size !== stepCount) return false;
  const inStep = (ts) => steps.some((s) => ts >= Number(s.ts) && ts <= Number(s.ts) + Number(s.dur));
  const launches = events.filter((e) => ['cuda_runtime', 'runtime', 'cuda_driver'].includes(cat(e)));
  const corr = (e) => e.args?.correlation;
  const launched = new Set(launches.map(corr));
  return (
    events.filter((e) => ['cpu_op', 'operator'].includes(cat(e))).every((e) => inStep(Number(e.ts))) &&
    launches.every((e) => inStep(Number(e.ts))) &&
    events.filter((e) => cat(e) === 'kernel').every((e) => launched.has(corr(e)))
  );
}

const files = traceFiles().files.filter(isTrace);
files.push(path.join(repo, 'tests/data/step-scope.json'));
const results = [];
for (const file of files) {
  const name = path.join(path.basename(path.dirname(file)), path.basename(file));
  const steps = [...new Set(run(['steps', file]).steps.map((s) => s.name))];
  if (!steps.length) continue;
  const diffs = [];
  const covered = coveredByItsSteps(file, steps.length);
  const tables = [
    ['operators', 'op', (r) => r.name, ['calls', 'host_self_us', 'host_total_us', 'device_self_us', 'device_total_us']],
    ['operators', 'op+shape', (r) => `${r.name} ${r.input_shape}`, ['calls', 'host_self_us', 'device_self_us']],
    ['kernels', 'name', (r) => r.name, ['calls', 'total_us']],
    ['kernels', 'props', (r) => [r.name, r.operator, r.grid, r.block, r.registers_per_thread, r.shared_memory].join(' '), ['calls', 'total_us']],
  ];
  const kernelCalls = {}; // step -> grouping -> Σ calls
  for (const [verb, group, key, fields] of tables) {
    const whole = new Map(run([verb, '--group-by', group, file]).rows.map((r) => [key(r), r]));
    const sums = new Map();
    for (const step of steps) {
      const t = run([verb, '--group-by', group, '--step', step, file]);
      for (const r of t.rows) {
        const k = key(r);
        if (!whole.has(k)) diffs.push(`${verb} ${group} step ${step}: row ${k.slice(0, 80)} is not in the whole table`);
        const s = sums.get(k) ?? Object.fromEntries(fields.map((f) => [f, 0]));
        for (const f of fields) s[f] += r[f];
        sums.set(k, s);
      }
      if (verb === 'kernels') ((kernelCalls[step] ??= {})[group] = t.rows.reduce((a, r) => a + r.calls, 0));
    }
    for (const [k, w] of whole) {
      const s = sums.get(k) ?? Object.fromEntries(fields.map((f) => [f, 0]));
      for (const f of fields) {
        if (s[f] > w[f] && !near(s[f], w[f])) diffs.push(`${verb} ${group} ${k.slice(0, 80)} ${f}: the steps hold ${s[f]}, more than the whole ${w[f]}`);
        else if (covered && !near(s[f], w[f])) diffs.push(`${verb} ${group} ${k.slice(0, 80)} ${f}: the steps add up to ${s[f]}, the whole is ${w[f]}`);
      }
    }
  }
  for (const [step, c] of Object.entries(kernelCalls)) {
    if (c.name !== c.props) diffs.push(`step ${step}: ${c.name} kernels by name but ${c.props} by properties`);
  }
  results.push({ name: `per-step tables of ${name} (${steps.length} step${steps.length === 1 ? '' : 's'}${covered ? ', adding up to the whole' : ''})`, diffs });
}
// A step the trace does not have: one sentence naming the steps on stderr, exit 1, nothing printed.
{
  const file = path.join(repo, 'web/public/samples/rank-0.json.gz');
  const steps = run(['steps', file]).steps.map((s) => s.name);
  const diffs = [];
  const out = path.join(os.tmpdir(), `ks-trim-unknown-step-${process.pid}.json`);
  for (const verb of ['operators', 'kernels', 'trim']) {
    const args = verb === 'trim' ? ['trim', '--step', 'no-such-step', '-o', out, file] : [verb, '--step', 'no-such-step', '--json', file];
    const r = spawnSync(cli, args, { encoding: 'utf8' });
    const want = `rank-0.json.gz: no step no-such-step (the steps are ${steps.join(', ')}).\n`;
    if (r.status !== 1 || r.stdout !== '' || r.stderr !== want) diffs.push(`${verb}: exit ${r.status}, stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)}`);
  }
  if (fs.existsSync(out)) { diffs.push('trim wrote a file for an unknown step'); fs.rmSync(out); }
  results.push({ name: 'an unknown --step is one sentence listing the steps, exit 1 (operators, kernels, trim)', diffs });
}
report(results);
