// `kinetoscope modules --json --tb-plugin` against tb_plugin's own Module view (`profiles[i].module`)
// on every profile of ../shared/golden/tb_plugin: the hierarchy (names, module ids, children in
// order, top level sorted by name) and every number within 0.1% or 1 us; a profile tb_plugin shows
// no Module view for must have no rows. Then the hand-made fixtures of tests/data (numbers worked
// out in tests/data/README.md) through the CLI in both modes, which run without ../shared too.
// usage: node tests/golden/modules_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repo, report } from './independent_count.mjs';
import { close, goldenProfiles, haveGoldens } from './tb_plugin_goldens.mjs';

const cli = process.argv[2];
const run = (args) => JSON.parse(execFileSync(cli, ['modules', '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }));

// Our rows (pre-order with parent indices) as tb_plugin's nested shape.
function nest(rows) {
  const out = [];
  const made = rows.map((r) => ({ ...r, children: [] }));
  made.forEach((r) => (r.parent < 0 ? out : made[r.parent].children).push(r));
  return out;
}

function compare(diffs, ours, theirs, at) {
  if (ours.length !== theirs.length) {
    diffs.push(`${at || 'top'}: ${ours.length} modules, tb_plugin ${theirs.length} (${theirs.map((t) => t.name).join(', ')})`);
    return;
  }
  theirs.forEach((t, i) => {
    const o = ours[i];
    const where = `${at}/${t.name}#${t.id}`;
    if (o.name !== t.name || o.id !== t.id) {
      diffs.push(`${where}: ours is ${o.name}#${o.id}`);
      return;
    }
    const pairs = [['occurrences', 'occurences'], ['operators', 'operators'], ['host_total_us', 'host_duration'],
      ['host_self_us', 'self_host_duration'], ['device_total_us', 'device_duration'], ['device_self_us', 'self_device_duration']];
    for (const [a, b] of pairs) if (!close(o[a], t[b])) diffs.push(`${where} ${a}: ${o[a]} vs ${t[b]}`);
    compare(diffs, o.children, t.children, where);
  });
}

const results = [];
let skipped = 0;
if (!haveGoldens) {
  console.log('../shared/golden is absent: the tb_plugin comparison is skipped');
  skipped++;
}
for (const { name, profile, trace } of goldenProfiles()) {
  if (!trace) {
    skipped++;
    continue;
  }
  const diffs = [];
  const ours = run(['--tb-plugin', trace]);
  const theirs = profile.module;
  if (theirs == null) {
    if (ours.rows.length || ours.lightning) diffs.push(`tb_plugin shows no Module view; ours has ${ours.rows.length} rows`);
  } else {
    if (ours.error) diffs.push(`error: ${ours.error}`);
    compare(diffs, nest(ours.rows), theirs.data, '');
  }
  results.push({ name: `${name} (${theirs == null ? 'no Module view' : `${theirs.data.length} top-level modules`})`, diffs });
}

// The fixtures, as tests/data/README.md works them out.
const fixture = (f) => path.join(repo, 'tests/data', f);
{
  const diffs = [];
  const d = run([fixture('modules-fwdbwd.json')]);
  const want = {
    Net: [2, 0, 200, 20, 88, 0, 196, 70],
    'Net/Block': [2, 0, 100, 20, 40, 0, 92, 32],
    'Net/Block/Linear': [4, 4, 80, 8, 40, 40, 88, 32],
    'Net/ReLU': [2, 2, 20, 4, 8, 8, 20, 6],
    'Net/Linear': [2, 2, 60, 4, 40, 40, 72, 32],
  };
  const fields = ['occurrences', 'operators', 'host_total_us', 'host_self_us', 'device_total_us', 'device_self_us', 'backward_host_us', 'backward_device_us'];
  if (d.rows.map((r) => r.path).join() !== Object.keys(want).join()) diffs.push(`rows ${d.rows.map((r) => r.path).join()}`);
  for (const r of d.rows) fields.forEach((f, i) => want[r.path] && r[f] !== want[r.path][i] && diffs.push(`${r.path} ${f}: ${r[f]}, expected ${want[r.path][i]}`));
  if (d.backward.flows !== 8 || d.backward.regrouped !== 12) diffs.push(`backward ${JSON.stringify(d.backward)}`);
  if (d.lightning !== null) diffs.push('lightning should be null');
  const tb = run(['--tb-plugin', fixture('modules-fwdbwd.json')]);
  if (tb.rows.length !== 6) diffs.push(`tb_plugin mode: ${tb.rows.length} rows, expected 6 (Block's two Linear calls apart)`);
  results.push({ name: 'tests/data/modules-fwdbwd.json (default and tb_plugin mode)', diffs });
}
{
  const diffs = [];
  const d = run([fixture('lightning-modules.json')]);
  const want = [[2, 0, 120, 24, 22, 0], [2, 2, 40, 4, 12, 12], [2, 2, 16, 4, 0, 0], [2, 2, 40, 4, 10, 10]];
  const fields = ['occurrences', 'operators', 'host_total_us', 'host_self_us', 'device_total_us', 'device_self_us'];
  if (d.rows.length) diffs.push('no nn.Module rows expected');
  if (!d.lightning || d.lightning.length !== 4) diffs.push(`lightning: ${JSON.stringify(d.lightning)?.slice(0, 200)}`);
  else d.lightning.forEach((r, k) => fields.forEach((f, i) => r[f] !== want[k][i] && diffs.push(`${r.name} ${f}: ${r[f]}, expected ${want[k][i]}`)));
  if (run(['--tb-plugin', fixture('lightning-modules.json')]).lightning !== null) diffs.push('tb_plugin mode reads user_annotation [pl] ranges');
  results.push({ name: 'tests/data/lightning-modules.json', diffs });
}
report(results, skipped);
