// `kinetoscope summary --json` on every real trace, against the independent count.
// usage: node tests/golden/summary_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { traceFiles, independentCount, compare, report } from './independent_count.mjs';

const cli = process.argv[2];
const { files, haveShared } = traceFiles();
if (!haveShared) console.log('../shared/traces is absent: checking the bundled sample only');
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
if (!results.length) results.push({ name: 'at least one trace to check', diffs: ['no trace found'] });
report(results, skipped);
