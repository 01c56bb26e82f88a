// The Distributed view's map step on its own (issue 27): `kinetoscope rank-summary -o DIR` on each
// trace of a run — one process per trace, as Dask workers run it (scripts/fleet) — then
// `kinetoscope distributed --from-summaries DIR` prints byte for byte what `kinetoscope distributed`
// prints on the traces, in both modes. Runs: the repo's two-rank runs, a generated 16-rank run and,
// when ../shared is present, its multi-rank runs (tb_plugin's span ranking included: tb_unit's runs
// have several spans per worker). And what goes wrong: a trace that cannot be read is listed (the
// others written, exit 1); a file that is not a summary is named on stderr and the rest reduced.
// usage: node tests/golden/rank_summary_test.mjs build/native/kinetoscope
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { report, shared } from './independent_count.mjs';

const cli = process.argv[2];
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ks-rank-summary-'));
const results = [];

const run = (args) => spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 });

/** The files of a run folder as `distributed DIR` takes them. */
function traceFiles(dir) {
  const names = fs.readdirSync(dir).filter((n) => /\.json(\.gz)?$/.test(n)).sort();
  const named = names.filter((n) => /\.pt\.trace\.json(\.gz)?$/.test(n));
  return (named.length ? named : names).map((n) => path.join(dir, n));
}

function checkRun(name, files) {
  for (const mode of [[], ['--tb-plugin']]) {
    const label = `${name}${mode.length ? ' (tb_plugin)' : ''}`;
    const diffs = [];
    const direct = run(['distributed', '--json', ...mode, ...files]);
    const out = path.join(tmp, `${name.replace(/\W+/g, '_')}${mode.length ? '_tb' : ''}`);
    // One process per trace: a summary must not depend on the run's other files.
    for (const f of files) {
      const r = run(['rank-summary', '--json', ...mode, '-o', out, f]);
      const line = JSON.parse(r.stdout.trim());
      if (direct.status === 0 && (r.status !== 0 || line.status !== 'ok')) diffs.push(`${path.basename(f)}: ${r.stderr.trim()}`);
      if (line.status === 'ok' && fs.statSync(line.summary).size !== line.bytes) diffs.push(`${line.summary}: size is not ${line.bytes}`);
    }
    const reduced = run(['distributed', '--from-summaries', '--json', ...mode, out]);
    if (reduced.status !== direct.status) diffs.push(`exit ${reduced.status}, distributed on the traces ${direct.status}: ${reduced.stderr.trim()}`);
    if (reduced.stdout !== direct.stdout) {
      const a = direct.stdout.split('\n'), b = reduced.stdout.split('\n');
      const k = a.findIndex((l, i) => l !== b[i]);
      diffs.push(`line ${k + 1} differs: ${JSON.stringify(a[k]).slice(0, 160)} vs ${JSON.stringify(b[k]).slice(0, 160)}`);
    }
    // The text form reads the same answer.
    const text = run(['distributed', '--from-summaries', ...mode, out]);
    const textDirect = run(['distributed', ...mode, ...files]);
    if (text.stdout !== textDirect.stdout) diffs.push('the text view differs');
    results.push({ name: label, diffs, checked: 1 });
    results.push({ name: `${label}: GPU time per rank`, diffs: checkGpuTime(files, out, mode), checked: 1 });
  }
}

const GPU_TIME_FIELDS = ['span_us', 'idle_us', 'compute_us', 'non_compute_us', 'idle_pct', 'compute_pct', 'non_compute_pct', 'events', 'span_start_us', 'span_end_us'];

/**
 * The run's GPU time per rank (issue 24 §1's run-level part): reduced from the summaries it is
 * what `distributed --gpu-time` gives on the traces, byte for byte, and each rank's rows are the
 * numbers `kinetoscope gpu-time --json` prints on that rank's trace alone (the trace's row, each
 * step's, the communication/computation overlap), exactly.
 */
function checkGpuTime(files, out, mode) {
  const diffs = [];
  const reduced = run(['distributed', '--from-summaries', '--gpu-time', '--json', ...mode, out]);
  const direct = run(['distributed', '--gpu-time', '--json', ...mode, ...files]);
  if (reduced.status !== 0) diffs.push(`distributed --from-summaries --gpu-time: exit ${reduced.status}: ${reduced.stderr.trim()}`);
  if (reduced.stdout !== direct.stdout) diffs.push('distributed --gpu-time from the summaries differs from it on the traces');
  const spans = reduced.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  if (spans.length !== 1) return diffs; // a run of several spans per worker: the byte equality above only
  const rows = spans[0].rows;
  for (const f of files) {
    // The worker's name as the reduce gives it: from this trace alone.
    const alone = JSON.parse(run(['distributed', '--gpu-time', '--json', f]).stdout.trim().split('\n')[0]);
    const worker = alone.rows[0]?.worker;
    const mine = rows.filter((r) => r.worker === worker);
    const g = JSON.parse(run(['gpu-time', '--json', f]).stdout.trim());
    const name = path.basename(f);
    if (!g.rows.length) {
      if (mine.length !== 1 || mine[0].status !== 'no_gpu_work') diffs.push(`${name}: no GPU work, but ${JSON.stringify(mine)}`);
      continue;
    }
    if (mine.length !== g.rows.length) {
      diffs.push(`${name}: ${mine.length} rows, gpu-time has ${g.rows.length}`);
      continue;
    }
    if (mine[0].comm_comp_overlap_pct !== g.comm_comp_overlap_pct)
      diffs.push(`${name}: overlap ${mine[0].comm_comp_overlap_pct}, gpu-time ${g.comm_comp_overlap_pct}`);
    g.rows.forEach((want, i) => {
      const got = mine[i];
      if (got.scope !== want.scope || got.step !== want.step || got.status !== 'ok') diffs.push(`${name} row ${i + 1}: ${got.scope} ${got.step} ${got.status}`);
      for (const k of GPU_TIME_FIELDS) if (got[k] !== want[k]) diffs.push(`${name} row ${i + 1} ${k}: ${got[k]}, gpu-time ${want[k]}`);
    });
    if (g.rows.length > 1 && !(mine[1].step_us > 0)) diffs.push(`${name}: a step row without its step time`);
  }
  return diffs;
}

checkRun('distributed-diverging-ranks', traceFiles(path.join(repo, 'tests/data/distributed-diverging-ranks')));
checkRun('h200 ddp_gloo2', traceFiles(path.join(repo, 'tests/data/h200_pt211/ddp_gloo2')));

// A generated 16-rank run (the modern shape, distinct ranks).
const gen = path.join(tmp, 'gen16');
execFileSync('node', [path.join(repo, 'scripts/gen-trace.mjs'), '--size', '2M', '--ranks', '16', '--out', gen], { stdio: 'ignore' });
checkRun('generated 16 ranks', traceFiles(gen));

if (fs.existsSync(path.join(shared, "traces"))) {
  const traces = path.join(shared, 'traces');
  for (const d of ['two_rank_sampled', 'resnet50_num_workers_0']) if (fs.existsSync(path.join(traces, d))) checkRun(d, traceFiles(path.join(traces, d)));
  const unit = path.join(traces, 'tb_unit');
  if (fs.existsSync(unit))
    for (const d of fs.readdirSync(unit).sort()) {
      const dir = path.join(unit, d);
      if (fs.statSync(dir).isDirectory() && traceFiles(dir).length > 1) checkRun(`tb_unit/${d}`, traceFiles(dir));
    }
}

// What goes wrong is said, and the rest goes on.
{
  const diffs = [];
  const out = path.join(tmp, 'bad');
  const good = traceFiles(path.join(repo, 'tests/data/distributed-diverging-ranks'));
  const notTrace = path.join(repo, 'tests/data/not-json.png');
  const r = run(['rank-summary', '--json', '-o', out, ...good, notTrace]);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  if (r.status !== 1) diffs.push(`rank-summary with an unreadable trace: exit ${r.status}, not 1`);
  const failed = lines.find((l) => l.file === 'not-json.png');
  if (failed?.status !== 'failed' || !failed.error) diffs.push(`the unreadable trace is not listed as failed: ${JSON.stringify(failed)}`);
  if (lines.filter((l) => l.status === 'ok').length !== good.length) diffs.push('the readable traces were not all written');
  if (!r.stderr.includes('not-json.png: ')) diffs.push(`stderr does not name it: ${r.stderr}`);
  // A file that is not a summary among them: named, the others reduced as on their traces.
  fs.writeFileSync(path.join(out, 'junk.ks-summary'), 'not a summary');
  const reduced = run(['distributed', '--from-summaries', '--json', out]);
  if (reduced.status !== 1) diffs.push(`a bad summary: exit ${reduced.status}, not 1`);
  if (!/^junk\.ks-summary: not a rank summary written by kinetoscope rank-summary/.test(reduced.stderr)) diffs.push(`a bad summary: ${reduced.stderr}`);
  if (reduced.stdout !== run(['distributed', '--json', ...good]).stdout) diffs.push('the good summaries beside a bad one reduce differently');
  // A summary cut short is refused, not read past its end.
  const one = fs.readdirSync(out).find((n) => n.startsWith('rank-0'));
  const bytes = fs.readFileSync(path.join(out, one));
  const cut = path.join(tmp, 'cut');
  fs.mkdirSync(cut);
  fs.writeFileSync(path.join(cut, one), bytes.subarray(0, bytes.length >> 1));
  const c = run(['distributed', '--from-summaries', '--json', cut]);
  if (c.status !== 1 || !c.stderr.startsWith(`${one}: `) || c.stdout !== '') diffs.push(`a summary cut short: exit ${c.status}, ${c.stderr}`);
  // An empty folder and a missing -o are one sentence each.
  fs.mkdirSync(path.join(tmp, 'empty'));
  const e = run(['distributed', '--from-summaries', path.join(tmp, 'empty')]);
  if (e.status !== 1 || !e.stderr.includes('no rank summaries (*.ks-summary) in it')) diffs.push(`an empty folder: ${e.stderr}`);
  const o = run(['rank-summary', ...good]);
  if (o.status !== 2 || !o.stderr.startsWith('kinetoscope rank-summary: -o DIR is required')) diffs.push(`no -o: ${o.stderr}`);
  results.push({ name: 'bad input', diffs, checked: 1 });
}

fs.rmSync(tmp, { recursive: true, force: true });
report(results);
