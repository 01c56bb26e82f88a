// `kinetoscope summary --json` on every real trace, against the independent count.
// Also: the summary of every fixture in tests/data against its checked-in golden
// (tests/golden/summary/<fixture>.summary.json); `--update` rewrites those, to be reviewed like code.
// usage: node tests/golden/summary_test.mjs build/native/kinetoscope [--update]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repo, traceFiles, independentCount, compare, report } from './independent_count.mjs';

const cli = process.argv[2];
const update = process.argv.includes('--update');
const { files } = traceFiles();
const results = [];
let skipped = 0;
for (const file of files) {
  const count = independentCount(file);
  if (!count) { skipped++; console.log(`skip ${file} (not strict JSON)`); continue; }
  let out;
  try {
    out = execFileSync(cli, ['summary', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  } catch (err) {
    out = err.stdout;  // exit 1 for "not a trace": the JSON still says why
  }
  const summary = JSON.parse(out.trim().split('\n').pop());
  const diffs = compare(summary, count);
  if (summary.file !== path.basename(file)) diffs.push(`file: ${summary.file}`);
  results.push({ name: path.relative(path.resolve('..'), file), diffs });
}
// A gzip file cut off mid-way: what was decompressed loads, health names both problems.
{
  const fs = await import('node:fs');
  const os = await import('node:os');
  const { execFileSync: run } = await import('node:child_process');
  const src = files.find((f) => f.endsWith('.gz'));
  if (src) {
    const gz = fs.readFileSync(src);
    const cut = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ks-')), 'cut.json.gz');
    fs.writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const s = JSON.parse(run(cli, ['summary', '--json', cut], { encoding: 'utf8' }));
    const reasons = Object.fromEntries(s.health.map((h) => [h.reason, h.count]));
    const full = independentCount(src);
    const diffs = [];
    if (!s.ok) diffs.push(`not ok: ${s.error}`);
    if (!(s.events > 0 && s.events < full.events)) diffs.push(`events ${s.events} of ${full.events}`);
    if (reasons['gzip-error'] !== 1 || reasons.truncated !== 1) diffs.push(`health ${JSON.stringify(reasons)}`);
    results.push({ name: `cut gzip ${path.basename(src)}: partial load, gzip-error + truncated`, diffs });
  }
}
// gzip is recognised by content, not by name (tb_plugin goes by the .gz suffix).
{
  const fs = await import('node:fs');
  const os = await import('node:os');
  const { execFileSync: run } = await import('node:child_process');
  const src = files.find((f) => f.endsWith('.gz'));
  if (src) {
    const misnamed = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ks-')), 'gzipped-but-named.json');
    fs.copyFileSync(src, misnamed);
    const s = JSON.parse(run(cli, ['summary', '--json', misnamed], { encoding: 'utf8' }));
    const full = independentCount(src);
    results.push({ name: `gzip named .json is read by content (${path.basename(src)})`,
      diffs: s.ok && s.events === full.events ? [] : [`ok=${s.ok} events=${s.events} error=${s.error}`] });
  }
}
// Checked-in goldens for the fixtures: the whole summary object, model_bytes aside (it is the
// table layout's, not the trace's).
{
  const fs = await import('node:fs');
  const { execFileSync: run } = await import('node:child_process');
  const dataDir = path.join(repo, 'tests/data');
  const goldenDir = path.join(repo, 'tests/golden/summary');
  fs.mkdirSync(goldenDir, { recursive: true });
  for (const name of fs.readdirSync(dataDir, { withFileTypes: true }).filter((e) => e.isFile() && !e.name.endsWith('.md')).map((e) => e.name).sort()) {
    let out;
    try {
      out = run(cli, ['summary', '--json', path.join(dataDir, name)], { encoding: 'utf8' });
    } catch (err) {
      out = err.stdout;
    }
    const got = JSON.parse(out);
    delete got.model_bytes;
    const text = JSON.stringify(got, null, 1) + '\n';
    const golden = path.join(goldenDir, `${name.replace(/\.json$/, "")}.summary.json`);
    if (update) fs.writeFileSync(golden, text);
    const want = fs.existsSync(golden) ? fs.readFileSync(golden, 'utf8') : null;
    results.push({ name: `golden ${path.relative(repo, golden)}`,
      diffs: want === text ? [] : [want === null ? 'no golden (run with --update)' : `differs:\n${text}`] });
  }
}
if (!results.length) results.push({ name: 'at least one trace to check', diffs: ['no trace found'] });
report(results, skipped);
