// The hostile-input corpus (tests/data/hostile, and the three large inputs generate-large.mjs
// writes) through the native CLI: every input loads what it can or fails with one sentence, as
// tests/data/hostile/expected.json says (ok, events kept, health reasons, the error), and every
// view command then ends with exit 0 or 1 and one line on stderr — never a signal, never a hang.
// Usage: node hostile_test.mjs <kinetoscope binary>
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repo, report } from '../golden/independent_count.mjs';
import { hostileExpected as expected, hostileInputs } from './generate-large.mjs';

const cli = process.argv[2] ?? path.join(repo, 'build/native/kinetoscope');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ks-hostile-'));
const { large, files } = await hostileInputs(tmp);

// A hang is what this test is for: two minutes per command is far beyond any input here.
const run = (args) => spawnSync(cli, args, { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 28 });
const ended = (r) => (r.error ? `did not end: ${r.error.code ?? r.error.message}` : r.signal ? `killed by ${r.signal}` : r.status > 1 ? `exit ${r.status}` : null);

const results = [];
for (const file of files) {
  const name = path.basename(file);
  const diffs = [];
  const want = expected[name];
  if (!want) diffs.push('not in expected.json');
  const r = run(['summary', '--json', file]);
  const bad = ended(r);
  if (bad) diffs.push(`summary ${bad}`);
  else {
    const got = JSON.parse(r.stdout);
    const health = (got.health ?? []).map((h) => h.reason).sort();
    if (want && got.ok !== want.ok) diffs.push(`ok ${got.ok}, expected ${want.ok}`);
    if (want && got.events !== want.events) diffs.push(`events ${got.events}, expected ${want.events}`);
    if (want && JSON.stringify(health) !== JSON.stringify(want.health)) diffs.push(`health ${health}, expected ${want.health}`);
    if (want && (got.error || undefined) !== want.error) diffs.push(`error ${JSON.stringify(got.error)}, expected ${JSON.stringify(want.error)}`);
    if (got.error && !/^[A-Z].*\.$/.test(got.error)) diffs.push(`error is not one sentence: ${got.error}`);
    for (const h of got.health ?? []) if (!/^[A-Z].*\.$/.test(h.message)) diffs.push(`health message is not a sentence: ${h.message}`);
  }
  // The large inputs read for seconds each: the summary and the overview (which builds the
  // operator trees the other views share) are enough for them.
  const isLarge = large.includes(file);
  for (const verb of isLarge ? ['overview'] : ['steps', 'overview', 'operators', 'kernels', 'modules', 'ranges', 'distributed', 'memory', 'flops']) {
    const v = run([verb, '--json', file]);
    const why = ended(v);
    if (why) diffs.push(`${verb} ${why}: ${v.stderr?.slice(0, 300)}`);
    else if (v.status === 0) JSON.parse(v.stdout);
    else if (v.stderr.trim().split('\n').length !== 1) diffs.push(`${verb}: exit 1 with ${JSON.stringify(v.stderr.slice(0, 300))}`);
  }
  if (!isLarge) {
    // The Diff view of the file against itself.
    const d = run(['diff', '--json', file, file]);
    if (ended(d)) diffs.push(`diff ${ended(d)}: ${d.stderr?.slice(0, 300)}`);
    else if (d.status === 1 && d.stderr.trim().split('\n').length !== 1) diffs.push(`diff: exit 1 with ${JSON.stringify(d.stderr.slice(0, 300))}`);
    const t = run(['trim', '--from-us', '0', '--to-us', '100', '-o', path.join(tmp, 'trim.json'), file]);
    if (ended(t)) diffs.push(`trim ${ended(t)}`);
  }
  const kept = (n) => `${n} event${n === 1 ? '' : 's'} kept`;
  results.push({ name: `${name}: ${want ? (want.ok ? kept(want.events) : want.error) : '?'}`, diffs });
}
for (const name of Object.keys(expected)) {
  if (!files.some((f) => path.basename(f) === name)) results.push({ name: `${name} is in the corpus`, diffs: ['missing'] });
}
if (files.length < 25) results.push({ name: 'at least 25 hostile inputs', diffs: [`${files.length}`] });
fs.rmSync(tmp, { recursive: true, force: true });
report(results);
