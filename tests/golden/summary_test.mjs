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
if (!results.length) results.push({ name: 'at least one trace to check', diffs: ['no trace found'] });
report(results, skipped);
