// `kinetoscope diff --json --tb-plugin` against tb_plugin's own diff trees (`diff[k].tree` in
// ../shared/golden/tb_plugin: resnet50_num_workers_0's two spans, two_rank_sampled's two ranks):
// every node's name, both sides' durations and their operators (names, order, calls, host/device
// total/self) within 0.1% or 1 us, and the children in order. Then the hand-made pair of
// tests/data through the CLI (tree shape, JSON field names) and the --fail-if-slower gate's exit
// status and line; those run without ../shared too.
// usage: node tests/golden/diff_test.mjs build/native/kinetoscope
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { repo, report } from './independent_count.mjs';
import { close, goldenDir, goldenProfiles, haveGoldens } from './tb_plugin_goldens.mjs';

const cli = process.argv[2];
const diff = (args) => JSON.parse(execFileSync(cli, ['diff', '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }));

// The oracle keeps a side's first 15 operators by device, then host total, when it has more
// (truncation.tables: "per side top 15 aggs by device then host duration"); else all, in order.
const TOP = 15;
const top = (aggs) => [...aggs].sort((a, b) => b.device_duration_us - a.device_duration_us || b.host_duration_us - a.host_duration_us).slice(0, TOP);

function compareSide(diffs, ours, theirs, at) {
  if (ours.name !== theirs.name) diffs.push(`${at} name: ${ours.name} vs ${theirs.name}`);
  if (ours.aggs.length > TOP && theirs.aggs.length === TOP) {
    truncated++;
    ours = { ...ours, aggs: top(ours.aggs) };
  }
  for (const [a, b] of [['duration_us', 'duration'], ['device_duration_us', 'device_duration'], ['total_duration_us', 'total_duration']])
    if (!close(ours[a], theirs[b])) diffs.push(`${at} ${a}: ${ours[a]} vs ${theirs[b]}`);
  if (ours.aggs.length !== theirs.aggs.length) {
    diffs.push(`${at}: ${ours.aggs.length} operators, tb_plugin ${theirs.aggs.length}`);
    return;
  }
  theirs.aggs.forEach((t, i) => {
    const o = ours.aggs[i];
    if (o.name !== t.name) {
      diffs.push(`${at} operator ${i}: ${o.name} vs ${t.name}`);
      return;
    }
    if (o.calls !== t.calls) diffs.push(`${at} ${t.name} calls: ${o.calls} vs ${t.calls}`);
    for (const f of ['host_duration', 'device_duration', 'self_host_duration', 'self_device_duration'])
      if (!close(o[`${f}_us`], t[f])) diffs.push(`${at} ${t.name} ${f}: ${o[`${f}_us`]} vs ${t[f]}`);
  });
}

let nodes = 0;
let truncated = 0;
function compareNode(diffs, ours, theirs, at) {
  nodes++;
  compareSide(diffs, ours.baseline, theirs.left, `${at} baseline`);
  compareSide(diffs, ours.experiment, theirs.right, `${at} experiment`);
  if (ours.children.length !== theirs.children.length) {
    diffs.push(`${at}: ${ours.children.length} children, tb_plugin ${theirs.children.length}`);
    return;
  }
  theirs.children.forEach((t, i) => compareNode(diffs, ours.children[i], t, ours.children[i].path));
}

const results = [];
let skipped = 0;
if (!haveGoldens) {
  console.log('../shared/golden is absent: the tb_plugin comparison is skipped');
  skipped++;
} else {
  const traceOf = {};
  for (const p of goldenProfiles()) traceOf[`${p.golden} ${p.profile.worker}/${p.profile.span}`] = p.trace;
  for (const f of fs.readdirSync(goldenDir).filter((n) => n.endsWith('.json')).sort()) {
    const g = JSON.parse(fs.readFileSync(path.join(goldenDir, f), 'utf8'));
    for (const d of g.diff ?? []) {
      const base = traceOf[`${f} ${d.base}`], exp = traceOf[`${f} ${d.exp}`];
      if (!base || !exp) {
        skipped++;
        continue;
      }
      const diffs = [];
      nodes = 0;
      truncated = 0;
      const ours = diff(['--tb-plugin', base, exp]);
      compareNode(diffs, ours.tree, d.tree, '0');
      // Default mode on PyTorch 2.x: the kernels reach the operators (docs/compatibility.md).
      // Every thread is compared: the root holds the device work launched in the steps (kernels
      // 606,519 + copies 1,297 + sets 28 µs on rank 0), the main thread's node what it held before.
      if (f === 'two_rank_sampled.json') {
        const def = diff([base, exp]).tree;
        if (!close(def.baseline.device_duration_us, 607844) || !close(def.experiment.device_duration_us, 667530))
          diffs.push(`default mode device time ${def.baseline.device_duration_us} / ${def.experiment.device_duration_us}, documented 607844 / 667530`);
        const main = def.children[0];
        if (main?.role !== 'main' || !close(main.baseline.device_duration_us, 361938) || !close(main.experiment.device_duration_us, 350183))
          diffs.push(`default mode main thread ${main?.role} ${main?.baseline.device_duration_us} / ${main?.experiment.device_duration_us}, documented 361938 / 350183`);
        if (d.tree.left.device_duration !== 0) diffs.push('tb_plugin\'s tree was expected to have no device time');
      }
      results.push({ name: `${f} ${d.base} -> ${d.exp} (${nodes} nodes, ${truncated} sides compared on their top ${TOP} operators)`, diffs });
    }
  }
}

// The hand-made pair (tests/data/README.md): the shape through the CLI, in both modes.
const fixture = (f) => path.join(repo, 'tests/data', f);
const pair = [fixture('diff-baseline.json'), fixture('diff-experiment.json')];
for (const mode of [[], ['--tb-plugin']]) {
  const diffs = [];
  const d = diff([...mode, ...pair]);
  const paths = [];
  const walk = (n) => { paths.push(`${n.path}:${n.name}`); n.children.forEach(walk); };
  walk(d.tree);
  const want = ['0:CompositeNodes', '0-0:enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', '0-1:nn.Module: Net',
    '0-1-0:nn.Module: Conv2d', '0-1-1:aten::relu', '0-2:Optimizer.step#SGD.step', '0-3:CompositeNodes'];
  if (paths.join('|') !== want.join('|')) diffs.push(`nodes ${paths.join(' | ')}`);
  if (d.baseline !== 'diff-baseline.json' || d.experiment !== 'diff-experiment.json') diffs.push(`names ${d.baseline} ${d.experiment}`);
  const r = d.tree;
  const got = [r.baseline.duration_us, r.baseline.device_duration_us, r.baseline.total_duration_us,
    r.experiment.duration_us, r.experiment.device_duration_us, r.experiment.total_duration_us];
  if (got.join() !== '180,58,150,110,20,80') diffs.push(`root ${got}`);
  const conv = r.baseline.aggs[0];
  if (JSON.stringify(conv) !== JSON.stringify({ name: 'aten::convolution', calls: 2, host_duration_us: 68, device_duration_us: 58,
    self_host_duration_us: 59, self_device_duration_us: 58 })) diffs.push(`aten::convolution ${JSON.stringify(conv)}`);
  if (r.children[3].experiment.name !== 'Blank' || r.children[3].experiment.aggs.length) diffs.push('tail is not against a blank');
  results.push({ name: `tests/data/diff-*.json ${mode.join(' ') || 'default mode'}`, diffs });
}

// Every thread, merged by role (default mode): the root's device time is the device work (kernels,
// copies, sets) launched in the compared steps, counted here from the JSON itself: each device
// event whose launch (runtime or driver call, by correlation) starts inside a host ProfilerStep.
function stepDeviceUs(file) {
  let buf = fs.readFileSync(file);
  if (buf[0] === 0x1f) buf = zlib.gunzipSync(buf);
  const ev = JSON.parse(buf.toString('utf8')).traceEvents;
  const steps = ev.filter((e) => e.ph === 'X' && /^ProfilerStep#\d+$/.test(e.name) && e.cat !== 'gpu_user_annotation').map((e) => [e.ts, e.ts + e.dur]);
  const launch = new Map();
  for (const e of ev) if (e.ph === 'X' && (e.cat === 'cuda_runtime' || e.cat === 'cuda_driver') && e.args?.correlation != null) launch.set(e.args.correlation, e.ts);
  const out = { kernel: 0, gpu_memcpy: 0, gpu_memset: 0 };
  for (const e of ev) {
    if (e.ph !== 'X' || !(e.cat in out)) continue;
    const t = launch.get(e.args?.correlation);
    if (t != null && steps.some(([a, b]) => t >= a && t < b)) out[e.cat] += e.dur;
  }
  return out;
}
{
  const ddp = path.join(repo, 'tests/data/h200_pt211/ddp_gloo2');
  const ranks = fs.readdirSync(ddp).filter((n) => n.endsWith('.pt.trace.json.gz')).sort().map((n) => path.join(ddp, n));
  const threads = [fixture('diff-threads-rank0.json'), fixture('diff-threads-rank1.json')];
  for (const [pairName, files, roles] of [
    ['ddp_gloo2 rank 0 -> rank 1 (real, gloo)', ranks, ['main', 'autograd', 'communication']],
    ['diff-threads-rank0 -> rank1 (hand-made)', threads, ['main', 'autograd', 'communication']],
  ]) {
    const diffs = [];
    const d = diff(files).tree;
    files.forEach((file, i) => {
      const side = i === 0 ? d.baseline : d.experiment;
      const want = stepDeviceUs(file);
      const sum = want.kernel + want.gpu_memcpy + want.gpu_memset;
      if (Math.abs(side.device_duration_us - sum) > 0.01)
        diffs.push(`${path.basename(file)}: root device ${side.device_duration_us} us, the steps' kernels ${want.kernel} + copies ${want.gpu_memcpy} + sets ${want.gpu_memset} = ${sum}`);
      // The roles' nodes split the root: their device times add up to it.
      const parts = d.children.reduce((a, c) => a + (i === 0 ? c.baseline : c.experiment).device_duration_us, 0);
      if (Math.abs(parts - side.device_duration_us) > 0.01) diffs.push(`${path.basename(file)}: roles sum to ${parts}, root ${side.device_duration_us}`);
    });
    const got = d.children.map((c) => c.role);
    if (got.join() !== roles.join()) diffs.push(`roles ${got.join()}, expected ${roles.join()}`);
    // --tb-plugin keeps tb_plugin's reading: one thread, no roles, less device time.
    const tb = diff(['--tb-plugin', ...files]).tree;
    if (tb.children.some((c) => c.role != null) || !(tb.baseline.device_duration_us < d.baseline.device_duration_us))
      diffs.push(`--tb-plugin: roles ${tb.children.map((c) => c.role)}, device ${tb.baseline.device_duration_us}`);
    results.push({ name: `diff on every thread: ${pairName}`, diffs });
  }
}

// --csv and the text, printed from the same answers: the nodes (--csv), each node side's operators
// (--csv --operators) and the text's lines, on the hand-made pair (numbers in tests/data/README.md).
{
  const diffs = [];
  const run = (...args) => spawnSync(cli, ['diff', ...args, ...pair], { encoding: 'utf8' });
  const nodes = run('--csv').stdout.trim().split('\n').map((l) => l.split(','));
  const head = nodes[0];
  const col = (row, name) => row[head.indexOf(name)];
  if (head.slice(0, 5).join() !== 'path,name,role,depth,baseline_name') diffs.push(`--csv header ${head.join()}`);
  if (nodes.length !== 8) diffs.push(`--csv: ${nodes.length - 1} nodes, expected 7`);
  const tail = nodes.find((r) => r[0] === '0-3');
  if (!tail || col(tail, 'baseline_duration_us') !== '90' || col(tail, 'experiment_name') !== 'Blank' || col(tail, 'depth') !== '1')
    diffs.push(`--csv 0-3: ${tail}`);
  const ops = run('--csv', '--operators').stdout.trim().split('\n').map((l) => l.split(','));
  if (ops[0].join() !== 'node,side,name,calls,host_duration_us,device_duration_us,self_host_duration_us,self_device_duration_us')
    diffs.push(`--csv --operators header ${ops[0].join()}`);
  // Node 4 is 0-1-1: aten::relu on the baseline's side, aten::mul on the experiment's, 10 us each.
  const at4 = ops.filter((r) => r[0] === '4').map((r) => r.slice(1, 5).join(' '));
  if (at4.join('|') !== 'baseline aten::relu 1 10|experiment aten::mul 1 10') diffs.push(`--csv --operators node 4: ${at4.join('|')}`);
  const text = run().stdout.split('\n');
  if (text[0] !== 'baseline diff-baseline.json, experiment diff-experiment.json') diffs.push(`text: ${text[0]}`);
  const relu = text.find((l) => l.trimStart().startsWith('0-1-1 '));
  if (!relu || !/ 10\.0 +10\.0 +\+0\.0 % +0\.0 +0\.0 +0\.0 % {6}aten::relu \| aten::mul$/.test(relu)) diffs.push(`text 0-1-1: ${relu}`);
  for (const args of [['--operators'], ['--json', '--csv']]) {
    const r = run(...args);
    if (r.status !== 2) diffs.push(`${args.join(' ')}: exit ${r.status}, expected 2`);
  }
  results.push({ name: 'kinetoscope diff --csv, --csv --operators and text from the answers', diffs });
}

// The gate: exit status 3 and one line when slower by more than PCT, 0 otherwise, 2 on misuse.
{
  const diffs = [];
  const gate = (...args) => spawnSync(cli, ['diff', ...args], { encoding: 'utf8' });
  const check = (args, status, line) => {
    const r = gate(...args);
    if (r.status !== status) diffs.push(`${args.join(' ')}: exit ${r.status}, expected ${status} (${r.stderr.trim()})`);
    if (line !== undefined && r.stdout !== `${line}\n`) diffs.push(`${args.join(' ')}: printed ${JSON.stringify(r.stdout)}`);
  };
  const steps = JSON.parse(execFileSync(cli, ['steps', '--json', ...pair], { encoding: 'utf8' }).trim().split('\n')[0]);
  const stepsExp = JSON.parse(execFileSync(cli, ['steps', '--json', ...pair], { encoding: 'utf8' }).trim().split('\n')[1]);
  const b = steps.average.total_us, e = stepsExp.average.total_us;
  const pct = ((e - b) / b) * 100;
  check(['--fail-if-slower', '10', ...pair], 3,
    `step per step: baseline ${b.toFixed(1)} us, experiment ${e.toFixed(1)} us, +${pct.toFixed(1)} % (more than 10 % slower)`);
  check(['--fail-if-slower', '25', ...pair], 0,
    `step per step: baseline ${b.toFixed(1)} us, experiment ${e.toFixed(1)} us, +${pct.toFixed(1)} % (within 25 %)`);
  const kb = steps.average.kernel_us, ke = stepsExp.average.kernel_us;
  check(['--fail-if-slower', '0', '--metric', 'kernel', ...pair], 0,
    `kernel per step: baseline ${kb.toFixed(1)} us, experiment ${ke.toFixed(1)} us, ${((ke - kb) / kb * 100).toFixed(1)} % (within 0 %)`);
  // Swapped, the kernel time grew.
  check(['--fail-if-slower', '5', '--metric', 'kernel', pair[1], pair[0]], 3);
  check(['--fail-if-slower', '10', '--metric', 'steps', ...pair], 2);
  check(['--fail-if-slower', 'ten', ...pair], 2);
  check(['--json', '--fail-if-slower', '10', ...pair], 2);
  check([pair[0]], 2);
  check([pair[0], fixture('not-a-trace.json')], 1);
  if (!(pct > 10 && pct < 25)) diffs.push(`the fixture's step change ${pct} % should lie between 10 and 25`);
  results.push({ name: 'kinetoscope diff --fail-if-slower: exit status and line', diffs });
}
report(results, skipped);
