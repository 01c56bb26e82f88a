// The hostile snapshot corpus (tests/data/hostile-snapshots, written by its make_hostile.py)
// through `kinetoscope snapshot --json`: each pickle is refused or loads what it can, with the
// one sentence (and health, and entries kept) its expected.json says; never a signal, never a
// hang, never more than one line on stderr. A refused pickle runs nothing: the one that would
// call os.system("echo pwned") leaves no "pwned" anywhere in the output.
// Usage: node snapshot_hostile_test.mjs <kinetoscope binary>
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.argv[2] ?? path.join(repo, 'build/native/kinetoscope');
const dir = path.join(repo, 'tests/data/hostile-snapshots');
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8'));
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.pickle')).sort();

let failed = 0;
for (const name of Object.keys(expected)) if (!files.includes(name)) { failed++; console.log(`FAIL ${name}: in expected.json, not in the corpus`); }
for (const name of files) {
  const want = expected[name];
  const diffs = [];
  if (!want) diffs.push('not in expected.json');
  const r = spawnSync(cli, ['snapshot', '--json', path.join(dir, name)], { encoding: 'utf8', timeout: 120_000 });
  if (r.error || r.signal || r.status > 1) diffs.push(`did not end well: ${r.error?.code ?? r.signal ?? `exit ${r.status}`}`);
  else if (/pwned/.test(r.stdout + r.stderr) && !/echo pwned/.test(name)) diffs.push('output mentions pwned');
  else if (want) {
    const lines = r.stderr.trim().split('\n').filter(Boolean);
    if (r.status === 1) {
      if (want.ok) diffs.push(`refused (${r.stderr.trim()}), expected it to load`);
      if (lines.length !== 1) diffs.push(`stderr has ${lines.length} lines`);
      const sentence = r.stderr.trim().slice(name.length + 2);
      if (sentence !== want.error) diffs.push(`said ${JSON.stringify(sentence)}, expected ${JSON.stringify(want.error)}`);
      if (!/^[A-Z].*\.$/.test(sentence)) diffs.push(`not one sentence: ${sentence}`);
    } else {
      const got = JSON.parse(r.stdout);
      if (!want.ok) diffs.push(`loaded, expected ${JSON.stringify(want.error)}`);
      if (got.error !== want.error) diffs.push(`error ${JSON.stringify(got.error)}, expected ${JSON.stringify(want.error)}`);
      const health = got.health.map((h) => `${h.what}: ${h.count}`);
      if (JSON.stringify(health) !== JSON.stringify(want.health)) diffs.push(`health ${JSON.stringify(health)}, expected ${JSON.stringify(want.health)}`);
      const entries = got.devices.map((d) => d.trace_entries);
      if (JSON.stringify(entries) !== JSON.stringify(want.trace_entries)) diffs.push(`entries ${entries}, expected ${want.trace_entries}`);
    }
  }
  // The analyses on whatever loaded: a sentence or an output, never a crash or a hang.
  for (const mode of [['--segments'], ['--segments', '--entry', '-1'], ['--categories']]) {
    const a = spawnSync(cli, ['snapshot', ...mode, '--json', path.join(dir, name)], { encoding: 'utf8', timeout: 120_000 });
    if (a.error || a.signal || a.status > 1) diffs.push(`${mode.join(' ')} did not end well: ${a.error?.code ?? a.signal ?? `exit ${a.status}`}`);
  }
  console.log(`${diffs.length ? 'FAIL' : 'ok'} ${name}${diffs.length ? `: ${diffs.join('; ')}` : ''}`);
  if (diffs.length) failed++;
}
// Gzip: a snapshot gzipped (by content, whatever its name) reads as the plain one; cut part-way
// it loads what came before and says so (the reader's sentence, and gzip's in the health).
{
  const os = await import('node:os');
  const zlib = await import('node:zlib');
  const sample = path.join(repo, 'tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ks-snap-gz-'));
  const gz = zlib.gzipSync(fs.readFileSync(sample));
  const run = (file) => spawnSync(cli, ['snapshot', '--json', file], { encoding: 'utf8', timeout: 120_000 });
  const strip = (out) => { const o = JSON.parse(out); delete o.file; return JSON.stringify(o); };
  const whole = path.join(tmp, 'whole.bin');
  fs.writeFileSync(whole, gz);
  const plain = run(sample), zipped = run(whole);
  const diffs = [];
  if (zipped.status !== 0) diffs.push(`gzipped: exit ${zipped.status} ${zipped.stderr.trim()}`);
  else if (strip(zipped.stdout) !== strip(plain.stdout)) diffs.push('gzipped output differs from the plain one');
  const cut = path.join(tmp, 'cut.pickle.gz');
  fs.writeFileSync(cut, gz.subarray(0, Math.floor(gz.length / 2)));
  const c = run(cut);
  if (c.status !== 0) diffs.push(`cut gzip: exit ${c.status} ${c.stderr.trim()}`);
  else {
    const o = JSON.parse(c.stdout);
    if (!/^The pickle ends at byte \d+ before its STOP opcode/.test(o.error ?? '')) diffs.push(`cut gzip: error ${JSON.stringify(o.error)}`);
    if (!o.health.some((h) => /gzip stream is cut off/.test(h.what))) diffs.push(`cut gzip: health ${JSON.stringify(o.health)}`);
    if (!(o.devices[0]?.trace_entries > 0)) diffs.push(`cut gzip: ${o.devices[0]?.trace_entries} entries kept`);
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  console.log(`${diffs.length ? 'FAIL' : 'ok'} gzip${diffs.length ? `: ${diffs.join('; ')}` : ''}`);
  if (diffs.length) failed++;
}
console.log(failed ? `${failed} failed` : `all ${files.length} passed, and gzip`);
process.exit(failed ? 1 : 0);
