// End-to-end load benchmark of Kinetoscope on big synthetic traces (scripts/bench).
//   node scripts/bench.mjs [--size 1G | --sizes 256M,1G,3G] [--runs 3]
//                          [--only native,views,wasm,page,url,baseline,table,memory] [--dir /tmp/kinetoscope-bench]
//                          [--table-size 150M] [--dist-ranks 4] [--dist-size 128M] [--rank-runs 8x1G,64x100M]
//                          [--read-jobs N]  (native rows: `kinetoscope ... --jobs N`, one trace in N ranges)
//                          [--page-workers 1,2]  (page rows once per N: at most N trace workers read the
//                          one file, through the page's test hook {"split": {"workers": N}}; the pool is
//                          the machine's core count, at most 4)
//                          [--cold]  (page rows: the file given as soon as the page has loaded; by
//                          default the bench waits, as a user's page has, until the trace workers
//                          are warm: data-pool-warm, worker.ts warmUp)
//                          [--cpus N]  (Chromium — page, url, baseline rows — pinned to the first N
//                          cores with taskset, for a scaling curve below the machine's core count;
//                          the page still sees navigator.hardwareConcurrency of the whole machine,
//                          so pair it with --page-workers)
//                          [--from TRACE,TRACE]  (issue 21: replicate each of these real traces,
//                          .json or .json.gz, at every --size with `gen-trace --from`, one row group
//                          per source and size, instead of the --shape trace)
//                          [--file FILE,FILE]  (measure these trace files as they are; no --size)
//                          [--cli-runs N]  (the cli and native rows run N times, not --runs)
//                          [--delete]  (each generated trace deleted once measured)
//                          [--page-hook JSON]  (the page rows load under this failure-test plan)
//                          [--hang-s N]  (a page run is hung after N s without movement; 120)
// Each page run's outcome is logged and listed under the table: opened (the Overview complete),
// failed with the card's sentence (and how long after the last movement it was said), or hung
// (nothing moved for 120 s, --hang-s, and nothing said: what the progress and the card showed).
//   cli       (issue 21) build/native/kinetoscope overview --json FILE: the CLI's time to the
//             Overview on the same file, in the same run, beside the page's drop → Overview drawn
// For each size: generates (or reuses) DIR/trace-SIZE.v2.json with gen-trace, then measures
//   native    build/native/kinetoscope summary --json FILE   (peak RSS from /usr/bin/time -v)
//   views     build/native/kinetoscope operators --json --group-by op+shape FILE (reading, the
//             operator trees and the table)
//   wasm      build/wasm/kinetoscope_node.js in Node, 4 MB chunks (peak wasm heap, process RSS)
//   page      web/dist in headless Debian Chromium: setInputFiles -> [data-testid=events-total]
//             (peak RSS of the tab's renderer processes, sampled every 100 ms), and on to the
//             Overview's step chart being drawn; the CPU seconds of each of Chromium's threads
//             from the input to the card complete (/proc task times sampled every 200 ms; the
//             page's workers, all "DedicatedWorker", numbered by their CPU) in the log and in the
//             note of the "Overview complete" row (the run of median total CPU)
//   url       the page opened at ?url=<the trace, served from another origin with CORS>: from
//             navigation start (page load, download and parse streamed together) to the summary
//   table     the Operators tab on DIR/trace-TABLESIZE-distinct.v2.json (every call its own
//             operator: 100k+ rows): time to show the table, then click-to-paint latency of
//             sorting by a column and of typing a search (medians of 7)
//   baseline  file.text() + JSON.parse in the same Chromium: what JS-only tools do
//   distributed  (only when asked: --only distributed) `kinetoscope distributed --json --jobs J`
//             on a run of --dist-ranks copies of trace-DISTSIZE (replicated ranks), J = 1 and 2:
//             time and peak RSS (each thread holds one model at a time, then only its summary)
//   ranks     (only when asked: --only ranks) many ranks in one tab: for each --rank-runs NxSIZE, a
//             run of N rank files (gen-trace --ranks: distinct distributedInfo ranks), opened as a
//             folder in the page (folder input → the run page's Distributed view shown: time, peak
//             renderer RSS, trace workers used, full models still loaded at the end), and
//             `kinetoscope distributed --json --jobs J` on the same folder, J = 1 and 2. The run
//             folders are deleted afterwards unless --keep-ranks.
//   memory    the Memory view, on the resnet50 shape (the one with memory events): in the wasm
//             core under Node (building it after the Overview: time, bytes of its index, wasm
//             heap growth; the curve and tables of a zoomed range), and in the page (Memory tab
//             → curve and tables shown; a range set → curve redrawn, medians of 5 zooms).
//             Measured and printed, not asserted.
// and prints a markdown table of medians over the runs. MB = 10^6 bytes; sizes use 2^20/2^30.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { CHROMIUM_ARGS, chromium, median, root, staticServer } from './bench-common.mjs';

const V8_STRING_CAP = 536870888;

// ---------------------------------------------------------------- arguments
const opts = { sizes: ['1G'], runs: 3, only: ['native', 'views', 'wasm', 'page', 'url', 'baseline', 'table', 'memory'],
  dir: '/tmp/kinetoscope-bench', tableSize: '150M', shape: 'modern', distRanks: 4, distSize: '128M',
  rankRuns: ['8x1G', '64x100M'], keepRanks: false };
{
  const a = process.argv.slice(2);
  for (let k = 0; k < a.length; k++) {
    const v = () => a[++k];
    if (a[k] === '--size') opts.sizes = [v()];
    else if (a[k] === '--sizes') opts.sizes = v().split(',').filter(Boolean);
    else if (a[k] === '--runs') opts.runs = Math.max(1, Number(v()));
    else if (a[k] === '--only') opts.only = v().split(',');
    else if (a[k] === '--dir') opts.dir = v();
    else if (a[k] === '--table-size') opts.tableSize = v();
    else if (a[k] === '--shape') opts.shape = v();  // modern (PyTorch 2.x, default) or resnet50
    else if (a[k] === '--dist-ranks') opts.distRanks = Math.max(1, Number(v()));
    else if (a[k] === '--dist-size') opts.distSize = v();
    else if (a[k] === '--rank-runs') opts.rankRuns = v().split(',').filter(Boolean);
    else if (a[k] === '--keep-ranks') opts.keepRanks = true;
    // Threads reading one trace in the native rows (`kinetoscope ... --jobs N`: byte ranges
    // merged into one model, issue 12 §2); the table says which.
    else if (a[k] === '--read-jobs') opts.readJobs = Math.max(1, Number(v()));
    // Trace workers reading one file in the page (issue 12 §2; docs/contracts.md "One file, several
    // workers"), set through the page's test hook: the page rows are measured once per value.
    else if (a[k] === '--cpus') opts.cpus = Math.max(1, Math.floor(Number(v())));
    else if (a[k] === '--page-workers') opts.pageWorkers = v().split(',').map(Number).filter((n) => n >= 1);
    // The page rows give the file as soon as the page has loaded, before its workers are warm.
    else if (a[k] === '--cold') opts.cold = true;
    // Issue 21: any real trace replicated (gen-trace --from), or trace files given as they are.
    else if (a[k] === '--from') opts.from = v().split(',').filter(Boolean);
    else if (a[k] === '--file') opts.files = v().split(',').filter(Boolean);
    // The CLI rows run this many times per trace instead of --runs (a 10 GiB `overview` takes two
    // minutes here: more page runs than CLI runs, where the page's outcomes are what is asked).
    else if (a[k] === '--cli-runs') opts.cliRuns = Math.max(1, Number(v()));
    // Each trace generated for --from or --size is deleted once its rows are measured (a 10 GiB
    // file per source and size does not fit the disk many times over).
    else if (a[k] === '--delete') opts.deleteTraces = true;
    // The page rows load with this failure-test plan in localStorage (docs/contracts.md "Failure
    // paths and their test hooks"): to see the outcome lines of a failed or stalled load.
    else if (a[k] === '--page-hook') opts.pageHook = JSON.parse(v());
    else if (a[k] === '--hang-s') opts.hangS = Math.max(1, Number(v()));
    else { console.error(`bench: unknown argument ${a[k]}`); process.exit(2); }
  }
}
const parseSize = (s) => {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/i.exec(s);
  if (!m) throw new Error(`bad size ${s}`);
  return Math.round(Number(m[1]) * { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 }[m[2].toUpperCase()]);
};

const log = (...x) => console.error('[bench]', ...x);
const fmtMB = (b) => (Number.isFinite(b) ? `${Math.round(b / 1e6)} MB` : '–');

function run(cmd, args, extra = {}) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...extra });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

// ---------------------------------------------------------------- traces
// v3: copies renumber External ids, correlations, python ids and flow ids; the name says the shape.
function ensureTrace(size, distinct = false, shape = opts.shape) {
  fs.mkdirSync(opts.dir, { recursive: true });
  const file = path.join(opts.dir, `trace-${size}-${shape}${distinct ? '-distinct' : ''}.v3.json`);
  if (fs.existsSync(file)) { log(`reusing ${file}`); return file; }
  log(`generating ${file}`);
  const r = spawnSync('node', [path.join(root, 'scripts', 'gen-trace.mjs'), '--size', size, '--shape', shape, '--out', file,
    ...(distinct ? ['--distinct-ops'] : [])], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`gen-trace failed for ${size}`);
  return file;
}

// `size` replicated from the real trace `source` (gen-trace --from), made once per source and size.
function ensureFrom(size, source) {
  fs.mkdirSync(opts.dir, { recursive: true });
  const file = path.join(opts.dir, `trace-${size}-from-${sourceName(source)}.v3.json`);
  if (fs.existsSync(file)) { log(`reusing ${file}`); return file; }
  log(`generating ${file}`);
  const r = spawnSync('node', [path.join(root, 'scripts', 'gen-trace.mjs'), '--size', size, '--from', source, '--out', file], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`gen-trace --from ${source} failed for ${size}`);
  return file;
}
const sourceName = (f) => path.basename(f).replace(/\.gz$/, '').replace(/(\.pt\.trace)?\.json$/, '');

/**
 * What the per-trace rows measure: the --shape trace at each --size; with --from, each source
 * replicated at each --size; with --file, the files as they are. `key` names the rows, `file()`
 * makes (or finds) the trace when its turn comes.
 */
function benchTraces() {
  if (opts.files?.length) return opts.files.map((f) => ({ key: path.basename(f), shape: '', file: () => path.resolve(f) }));
  if (opts.from?.length) return opts.from.flatMap((src) => opts.sizes.map((size) => ({ key: `${size} ${sourceName(src)}`, shape: '', file: () => ensureFrom(size, src) })));
  return opts.sizes.map((size) => ({ key: size, shape: opts.shape, file: () => ensureTrace(size) }));
}

// ---------------------------------------------------------------- native CLI
async function benchNative(file, views = false) {
  const cli = path.join(root, 'build', 'native', 'kinetoscope');
  if (!fs.existsSync(cli)) return { error: 'build/native/kinetoscope missing' };
  const t0 = process.hrtime.bigint();
  const args = views === 'overview' ? ['overview', '--json', file] : views ? ['operators', '--json', '--group-by', 'op+shape', file] : ['summary', '--json', file];
  if (opts.readJobs) args.splice(1, 0, '--jobs', String(opts.readJobs));
  const r = await run('/usr/bin/time', ['-v', cli, ...args]);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.err);
  if (r.code !== 0) return { error: `exit ${r.code}: ${r.err.split('\n')[0]}` };
  let events = NaN, rows = NaN;
  try {
    const j = JSON.parse(r.out.trim().split('\n')[0]);
    events = j.events;
    rows = j.rows?.length;
  } catch { /* keep NaN */ }
  return { seconds, mem: rss ? Number(rss[1]) * 1024 : NaN, memNote: 'peak RSS', events, rows };
}

// ---------------------------------------------------------------- distributed (map/reduce)
// A run of `ranks` rank files, each the same synthetic trace (symlinks), reduced with `jobs` threads.
async function benchDistributed(file, ranks, jobs) {
  const cli = path.join(root, 'build', 'native', 'kinetoscope');
  if (!fs.existsSync(cli)) return { error: 'build/native/kinetoscope missing' };
  const dir = path.join(opts.dir, `dist-run-${path.basename(file, '.json')}-${ranks}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < ranks; i++) {
    const link = path.join(dir, `rank${i}.pt.trace.json`);
    if (!fs.existsSync(link)) fs.symlinkSync(file, link);
  }
  const t0 = process.hrtime.bigint();
  const r = await run('/usr/bin/time', ['-v', cli, 'distributed', '--json', '--jobs', String(jobs), dir]);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.code !== 0) return { error: `exit ${r.code}: ${r.err.split('\n')[0]}` };
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.err);
  let workers = NaN;
  try {
    workers = JSON.parse(r.out.trim().split('\n')[0]).workers.length;
  } catch { /* keep NaN */ }
  return { seconds, mem: rss ? Number(rss[1]) * 1024 : NaN, workers };
}

// Events in a trace file, by the native CLI's summary (for the runs' events/s columns).
const eventCounts = new Map();
function countEvents(file) {
  const real = fs.realpathSync(file);
  if (!eventCounts.has(real)) {
    const cli = path.join(root, 'build', 'native', 'kinetoscope');
    const r = spawnSync(cli, ['summary', '--json', real], { encoding: 'utf8', maxBuffer: 64 << 20 });
    let n = NaN;
    try { n = JSON.parse(r.stdout.trim().split('\n')[0]).events; } catch { /* keep NaN */ }
    eventCounts.set(real, n);
  }
  return eventCounts.get(real);
}
const eventsOfRun = (dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.json')).reduce((n, f) => n + countEvents(path.join(dir, f)), 0);
const meps = (events, seconds) => (Number.isFinite(events) && seconds > 0 ? (events / seconds / 1e6).toFixed(2) : '–');

// ---------------------------------------------------------------- many ranks (page and CLI)
// A run of `ranks` rank files of `size` each, with distinct ranks (gen-trace --ranks), made once.
function ensureRun(ranks, size) {
  const dir = path.join(opts.dir, `run-${ranks}x${size}-${opts.shape}`);
  const last = path.join(dir, `rank${ranks - 1}.pt.trace.json`);
  if (fs.existsSync(last)) { log(`reusing ${dir}`); return dir; }
  log(`generating ${dir}`);
  const r = spawnSync('node', [path.join(root, 'scripts', 'gen-trace.mjs'), '--size', size, '--shape', opts.shape, '--ranks', String(ranks), '--out', dir], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`gen-trace --ranks failed for ${ranks} x ${size}`);
  return dir;
}

async function benchRunCli(dir, jobs) {
  const cli = path.join(root, 'build', 'native', 'kinetoscope');
  if (!fs.existsSync(cli)) return { error: 'build/native/kinetoscope missing' };
  const t0 = process.hrtime.bigint();
  const r = await run('/usr/bin/time', ['-v', cli, 'distributed', '--json', '--jobs', String(jobs), dir]);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.code !== 0) return { error: `exit ${r.code}: ${r.err.split('\n')[0]}` };
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.err);
  let workers = NaN;
  try { workers = JSON.parse(r.out.trim().split('\n')[0]).workers.length; } catch { /* keep NaN */ }
  return { seconds, mem: rss ? Number(rss[1]) * 1024 : NaN, workers };
}

// The folder opened in the page (its folder input), then its run row clicked as soon as it is
// listed: timed from the input's change event to the run page's Distributed view shown (every
// rank loaded, its rank summary taken, the reduce done and drawn).
async function benchRunPage(dir, ranks, url) {
  const { pid, ctx, page, crashed: tabCrashed } = await openPage();
  const runName = path.basename(dir);
  try {
    await page.goto(url, { waitUntil: 'load' });
    const input = page.locator('[data-testid=folder-input]');
    await input.waitFor({ state: 'attached', timeout: 30000 });
    await page.evaluate(() => {
      window.__ksT0 = 0; window.__ksT1 = 0;
      document.addEventListener('change', () => { window.__ksT0 ||= performance.now(); }, true);
      new MutationObserver(() => {
        if (!window.__ksT1 && document.querySelector('[data-testid=run-page][data-state=ready] [data-testid=distributed]')) window.__ksT1 = performance.now();
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    const stop = sampler(pid);
    await input.setInputFiles(dir);
    const limit = 120000 + ranks * 60000 + fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0) / 5e3; // 5 MB/s floor
    await page.click(`[data-testid=nav-run][data-run="${runName}"]`, { timeout: limit });
    const r = await Promise.race([
      page.waitForFunction(() => window.__ksT1 > 0, null, { timeout: limit, polling: 200 }).then(() => 'ok'),
      new Promise((res) => page.once('crash', () => res('crash'))),
    ]).catch((e) => `timeout: ${e.message.split('\n')[0]}`);
    const mem = stop();
    if (r !== 'ok' || tabCrashed()) return { error: tabCrashed() || r === 'crash' ? 'tab crashed' : r, mem };
    const got = await page.evaluate(() => {
      const a = document.querySelector('[data-testid=analysis]');
      return { t0: window.__ksT0, t1: window.__ksT1, pool: Number(a.dataset.pool), used: Number(a.dataset.poolUsed),
        models: Number(a.dataset.models), workers: Number(document.querySelector('[data-testid=distributed]').dataset.workers) };
    });
    return { seconds: (got.t1 - got.t0) / 1000, mem, pool: got.pool, used: got.used, models: got.models, workers: got.workers };
  } catch (e) {
    return { error: tabCrashed() ? 'tab crashed' : e.message.split('\n')[0] };
  } finally {
    await ctx.close().catch(() => {});
  }
}

// ---------------------------------------------------------------- wasm in Node
async function benchWasm(file) {
  const mod = path.join(root, 'build', 'wasm', 'kinetoscope_node.js');
  if (!fs.existsSync(mod)) return { error: 'build/wasm/kinetoscope_node.js missing' };
  const r = await run('node', [path.join(root, 'scripts', 'bench-wasm-node.cjs'), file]);
  if (r.code !== 0) return { error: r.err.trim().split('\n').slice(0, 2).join(' ') };
  const j = JSON.parse(r.out.trim().split('\n').pop());
  return { seconds: j.seconds, mem: j.wasm_heap_bytes, mem2: j.max_rss_bytes,
    memNote: 'wasm heap / process RSS', events: j.summary.events };
}

// ---------------------------------------------------------------- Chromium
let browserState = null;
async function browser() {
  if (browserState) return browserState;
  // launch(), not launchServer()+connect(): over connect() Playwright treats the browser as
  // remote and copies every setInputFiles file through its protocol (3 GB into /tmp). An
  // unknown switch that Chromium ignores marks our browser process, to find its renderers.
  const marker = `--kinetoscope-bench=${process.pid}-${Date.now()}`;
  // --cpus N: Chromium and every process it starts inherit the affinity of taskset.
  let executablePath = '/usr/bin/chromium';
  if (opts.cpus) {
    if (opts.cpus > os.cpus().length) throw new Error(`--cpus ${opts.cpus}: this machine has ${os.cpus().length} cores`);
    executablePath = path.join(os.tmpdir(), `kinetoscope-bench-chromium-${opts.cpus}cpu.sh`);
    fs.writeFileSync(executablePath, `#!/bin/sh\nexec taskset -c 0-${opts.cpus - 1} /usr/bin/chromium "$@"\n`, { mode: 0o755 });
  }
  const b = await chromium.launch({
    executablePath, headless: true,
    args: [...CHROMIUM_ARGS, marker,
      // Extra switches for an experiment (e.g. KS_BENCH_CHROMIUM_ARGS=--js-flags=--no-liftoff).
      ...(process.env.KS_BENCH_CHROMIUM_ARGS || '').split(' ').filter(Boolean)],
  });
  let pid = NaN;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(marker) && !cmd.some((a) => a.startsWith('--type='))) { pid = Number(d); break; }
    } catch { /* gone */ }
  }
  if (!Number.isFinite(pid)) log('could not find the browser process: renderer memory not measured');
  browserState = { browser: b, pid };
  return browserState;
}

// The pids of a process and all its descendants (the browser and its renderers, GPU process, ...).
function processTree(rootPid) {
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch { /* gone */ }
  }
  const out = [];
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    for (const c of kids.get(pid) || []) stack.push(c);
  }
  return out;
}

// Sum of RSS of the renderer processes under the browser, sampled: the tab and its worker
// (where the wasm heap lives) are in the renderer.
function rendererRss(rootPid) {
  let total = 0;
  for (const pid of processTree(rootPid)) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch { /* gone */ }
  }
  return total;
}
function sampler(rootPid) {
  if (!Number.isFinite(rootPid)) return () => NaN;
  let peak = 0;
  const tick = () => { peak = Math.max(peak, rendererRss(rootPid)); };
  const h = setInterval(tick, 100);
  tick();
  const stop = () => { clearInterval(h); tick(); return peak; };
  stop.peek = () => { tick(); return peak; }; // the peak so far, sampling on
  return stop;
}

// CPU seconds of every thread of the browser's processes, by "process type thread name" (the
// page's workers are all "DedicatedWorker": each is kept apart by its thread id), for what a load
// costs beside the time it takes: the reading, the parse and the drawing run on different threads.
function threadCpu(rootPid) {
  const out = new Map();
  if (!Number.isFinite(rootPid)) return out;
  for (const pid of processTree(rootPid)) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const type = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? 'browser';
      for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
        const st = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
        const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        out.set(`${pid}/${t}`, { label: `${type} ${name}${name.startsWith('DedicatedWorker') ? ` #${t}` : ''}`, cpu: (Number(f[11]) + Number(f[12])) / 100 });
      }
    } catch { /* gone */ }
  }
  return out;
}
/**
 * The CPU each thread uses from now to `stop()`: snapshots of threadCpu() every 200 ms, each
 * thread's last one kept, so a thread that ends during the load (a reader worker closes when its
 * file is read) is counted up to its last sample. `stop()` returns cpuBetween(start, last seen).
 */
function threadSampler(rootPid) {
  const start = threadCpu(rootPid);
  const seen = new Map(start);
  const tick = () => { for (const [k, v] of threadCpu(rootPid)) seen.set(k, v); };
  const h = setInterval(tick, 200);
  return () => { clearInterval(h); tick(); return cpuBetween(start, seen); };
}
/** The CPU each thread used between two threadCpu() snapshots: [{label, cpu}], most first. */
function cpuBetween(a, b) {
  const by = new Map();
  for (const [k, v] of b) {
    const d = v.cpu - (a.get(k)?.cpu ?? 0);
    if (d > 0) by.set(v.label, (by.get(v.label) ?? 0) + d);
  }
  return [...by].map(([label, cpu]) => ({ label, cpu })).sort((x, y) => y.cpu - x.cpu);
}
/** "3.2 CPU-s: renderer DedicatedWorker 1.66, ..." with workers numbered by their CPU. */
function cpuText(list) {
  if (!list?.length) return '';
  let w = 0;
  const named = list.map((x) => ({ ...x, label: x.label.replace(/DedicatedWorker #\d+/, () => `worker ${++w}`) }));
  const total = list.reduce((n, x) => n + x.cpu, 0);
  return `${total.toFixed(2)} CPU-s in all threads: ` + named.filter((x) => x.cpu >= 0.05).slice(0, 8).map((x) => `${x.label} ${x.cpu.toFixed(2)}`).join(', ');
}

const numberIn = (t) => { const d = String(t || '').replace(/[^\d]/g, ''); return d ? Number(d) : NaN; };

// A fresh context and page on the shared browser; `crashed()` tells whether the tab died.
async function openPage() {
  const { browser: b, pid } = await browser();
  const ctx = await b.newContext();
  const page = await ctx.newPage();
  let crashed = false;
  page.on('crash', () => { crashed = true; });
  return { pid, ctx, page, crashed: () => crashed };
}

// What the page shows of a load, read once a second by the watch below: the card's status, the
// Overview's pending phase, the bytes read (the progress bar's data-read), the progress line's
// text, and the failure's sentence if the card failed.
const pageState = () => {
  const card = document.querySelector('[data-testid=file-card]');
  const bar = document.querySelector('[data-testid=progress] [role=progressbar]');
  const fail = document.querySelector('[data-testid=file-card][data-status=failed] [data-testid=load-failure]');
  return {
    t1: window.__ksT1 || 0, t2: window.__ksT2 || 0, t3: window.__ksT3 || 0,
    status: card?.dataset.status ?? '', model: card?.dataset.model ?? '',
    phase: document.querySelector('[data-testid=overview-pending]')?.dataset.phase ?? '',
    read: bar?.dataset.read ?? '', total: bar?.dataset.total ?? '',
    progress: (document.querySelector('[data-testid=progress]')?.innerText ?? '').replace(/\s+/g, ' ').trim(),
    card: (card?.innerText ?? '').replace(/\s+/g, ' ').trim().slice(0, 400),
    // The sentence, then the card's buttons (Retry, Open with one worker) in brackets.
    failure: fail ? [(fail.querySelector('[data-testid=failure-message], [data-testid=file-error]') ?? fail).textContent.replace(/\s+/g, ' ').trim(),
      ...[...fail.querySelectorAll('button')].map((b) => `[${b.textContent.trim()}]`)].join(' ') : '',
  };
};
// A load is hung when nothing the page shows has moved for this long and it said nothing
// (issue 21: the page's own load watch says a stop within ~10 s; this is the bench's net under it).
// --hang-s N changes it (to see the outcome line of a hang sooner, with --page-hook).
const HANG_MS = () => (opts.hangS ?? 120) * 1000;

/**
 * Watches a page load until `done(state)` is true: 'ok'; or the card failed ('the page said: …',
 * with how long after the last movement it said so); or nothing moved for HANG_MS ('hung: …', with
 * what the page showed); or the tab crashed; or `limit` ms passed.
 */
async function watchLoad(page, crashed, done, limit) {
  const t0 = Date.now();
  let last = '', moved = Date.now(), s = null;
  for (;;) {
    if (crashed()) return { result: 'crash' };
    try {
      s = await page.evaluate(pageState);
    } catch (e) {
      return { result: crashed() ? 'crash' : `error: ${e.message.split('\n')[0]}` };
    }
    if (done(s)) return { result: 'ok', state: s };
    if (s.failure) return { result: `the page said: ${s.failure}`, state: s, saidAfterMs: Date.now() - moved };
    const key = [s.status, s.model, s.phase, s.read, s.t1 > 0, s.t2 > 0].join('|');
    if (key !== last) { last = key; moved = Date.now(); }
    if (Date.now() - moved > HANG_MS()) return { result: `hung: nothing moved for ${Math.round((Date.now() - moved) / 1000)} s and the page said nothing; progress "${s.progress}"; card (status ${s.status}, phase ${s.phase || '–'}) "${s.card}"`, state: s };
    if (Date.now() - t0 > limit) return { result: `timeout: still loading after ${Math.round(limit / 1000)} s; progress "${s.progress}"; card "${s.card}"`, state: s };
    await new Promise((res) => setTimeout(res, 1000));
  }
}

/** Waits for the page's window.__ksT1 (the summary's first render). */
function summaryShown(page, file, crashed) {
  const limit = 60000 + fs.statSync(file).size / 5e3; // 5 MB/s floor before calling it stuck
  return watchLoad(page, crashed, (s) => s.t1 > 0, limit);
}

async function benchPage(file, url, workers = null) {
  const { pid, ctx, page, crashed: tabCrashed } = await openPage();
  try {
    // At most `workers` trace workers read the file (the page's test hook, docs/contracts.md).
    if (workers != null || opts.pageHook) {
      const plan = { ...opts.pageHook, ...(workers != null ? { split: { ...opts.pageHook?.split, workers } } : {}) };
      await page.addInitScript((p) => localStorage.setItem('kinetoscope-failure-test', p), JSON.stringify(plan));
    }
    await page.goto(url, { waitUntil: 'load' });
    const input = page.locator('input[type=file]').first();
    await input.waitFor({ state: 'attached', timeout: 30000 });
    // A user drops a file on a page open for a moment: its trace workers have started and readied
    // themselves on the bundled sample meanwhile (data-pool-warm of data-pool-size; worker.ts
    // warmUp). Wait for that as a user would, unless --cold (the file given at once).
    const warmMs = opts.cold ? NaN : await page.evaluate(() => new Promise((res) => {
      const t = performance.now();
      const check = () => {
        const el = document.querySelector('[data-pool-warm]');
        if (el && Number(el.dataset.poolWarm) >= Number(el.dataset.poolSize)) res(performance.now());
        else if (performance.now() - t > 30000) res(NaN);
        else setTimeout(check, 20);
      };
      check();
    }));
    // Time in the page itself: from the input's change event to the summary's first render.
    await page.evaluate(() => {
      window.__ksT0 = 0; window.__ksT1 = 0;
      document.addEventListener('change', () => { window.__ksT0 ||= performance.now(); }, true);
      window.__ksT2 = 0; window.__ksT3 = 0;
      // Main-thread tasks over 50 ms while loading: the page must stay responsive (input, scrolling).
      window.__ksLong = [];
      try {
        new PerformanceObserver((l) => { for (const e of l.getEntries()) if (window.__ksT0 && !(window.__ksT3 > 0)) window.__ksLong.push(e.duration); })
          .observe({ type: 'longtask', buffered: false });
      } catch { /* no longtask entries in this browser */ }
      const done = () => {
        const el = document.querySelector('[data-testid="events-total"]');
        if (el && window.__ksT0 && /\d/.test(el.textContent) && !window.__ksT1) {
          window.__ksT1 = performance.now();
          window.__ksEvents = el.textContent; // kept: the card moves on to the Overview soon after
        }
        // The Overview is drawn when its step chart has bars, or says the trace has no steps (its first part: steps, breakdown, GPU
        // metrics); time the frame that paints them. It is complete when the card is done (the
        // operator trees and recommendations in, the view tabs shown).
        if (window.__ksT1 && !window.__ksT2 && document.querySelector('[data-testid="step-bars"] > *, [data-testid="overview-card"] [data-testid="no-steps"]')) {
          window.__ksT2 = -1;
          requestAnimationFrame(() => { window.__ksT2 = performance.now(); });
        }
        if (window.__ksT1 && !window.__ksT3 && document.querySelector('[data-status="done"] [data-testid="overview-card"] :is([data-testid="step-bars"] > *, [data-testid="no-steps"])')) {
          window.__ksT3 = -1;
          requestAnimationFrame(() => { window.__ksT3 = performance.now(); });
        }
      };
      new MutationObserver(done).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const stop = sampler(pid);
    const threads = threadSampler(pid);
    await input.setInputFiles(file);
    const w = await summaryShown(page, file, tabCrashed);
    const r = w.result;
    const mem = stop.peek(); // the renderer's peak from the input to the summary (the tables' column)
    if (r !== 'ok' || tabCrashed()) {
      stop();
      threads();
      const outcome = tabCrashed() || r === 'crash' ? 'crashed' : /^the page said/.test(r) ? 'failed' : /^hung/.test(r) ? 'hung' : 'error';
      return { error: outcome === 'crashed' ? 'tab crashed' : r, mem, outcome, saidAfterMs: w.saidAfterMs, stoppedAt: w.state?.progress };
    }
    // On to the complete Overview (the renderer's peak is sampled until then): a card that fails
    // after the summary (out of heap in a view) or stops moving is this run's outcome too.
    const w2 = await watchLoad(page, tabCrashed, (s) => s.t3 > 0, 600000 + fs.statSync(file).size / 2e4);
    const memFull = stop(); // ... and on to the Overview complete
    const cpu = threads();
    let after = w2.result === 'ok' ? null : tabCrashed() || w2.result === 'crash' ? 'tab crashed after the summary' : w2.result;
    const { t0, t1, t2, t3, text, long, readWorkers, model } = await page.evaluate(() => ({ t0: window.__ksT0, t1: window.__ksT1, t2: window.__ksT2,
      t3: window.__ksT3, long: window.__ksLong, text: window.__ksEvents,
      readWorkers: Number(document.querySelector('[data-testid="file-card"]')?.dataset.readWorkers),
      model: document.querySelector('[data-testid="file-card"]')?.dataset.model ?? '' }));
    // The card is done but its model is not loaded: the worker was lost after the Overview (the rank
    // summary taken then ran out of heap, say); the views will read the file again.
    const lost = !after && model !== 'loaded' ? `the Overview shown, but the card's model is ${model || 'absent'} (its worker was lost after the Overview)` : '';
    return { seconds: (t1 - t0) / 1000, overview: t2 > 0 ? (t2 - t0) / 1000 : NaN, complete: t3 > 0 ? (t3 - t0) / 1000 : NaN,
      longest: long.length ? Math.max(...long) : 0, longCount: long.length, mem, memNote: 'renderer RSS', events: numberIn(text), readWorkers, cpu, warmMs, memFull,
      outcome: after ? (/^the page said/.test(after) ? 'failed' : /^hung/.test(after) ? 'hung' : 'error') : lost ? 'lost' : 'opened', after: after || lost || null, saidAfterMs: w2.saidAfterMs };
  } catch (e) {
    return { error: tabCrashed() ? 'tab crashed' : e.message.split('\n')[0] };
  } finally {
    await ctx.close().catch(() => {});
  }
}

// The page opened on ?url=<trace>: the trace comes from a second static server (another origin,
// with CORS), downloaded and parsed as it streams. Timed from navigation start, so it includes
// the page's own load and the wasm compile that the drop path has done before its clock starts.
async function benchUrl(file, url, traceUrl) {
  const { pid, ctx, page, crashed: tabCrashed } = await openPage();
  try {
    await page.addInitScript(() => {
      window.__ksT1 = 0;
      // The count is kept when the summary is first shown: the card moves on to the Overview
      // soon after (0.2 s at 480 MiB), and the summary's element goes with it.
      const done = () => {
        const el = document.querySelector('[data-testid="events-total"]');
        if (el && /\d/.test(el.textContent) && !window.__ksT1) {
          window.__ksT1 = performance.now();
          window.__ksEvents = el.textContent;
        }
      };
      addEventListener('DOMContentLoaded', () =>
        new MutationObserver(done).observe(document, { subtree: true, childList: true, characterData: true }));
    });
    const stop = sampler(pid);
    await page.goto(`${url}?url=${encodeURIComponent(traceUrl + path.basename(file))}`, { waitUntil: 'commit' });
    const { result: r } = await summaryShown(page, file, tabCrashed);
    const mem = stop();
    if (r !== 'ok' || tabCrashed()) return { error: tabCrashed() || r === 'crash' ? 'tab crashed' : r, mem };
    const { t1, text } = await page.evaluate(() => ({ t1: window.__ksT1, text: window.__ksEvents }));
    return { seconds: t1 / 1000, mem, memNote: 'renderer RSS', events: numberIn(text) };
  } catch (e) {
    return { error: tabCrashed() ? 'tab crashed' : e.message.split('\n')[0] };
  } finally {
    await ctx.close().catch(() => {});
  }
}

async function benchBaseline(file, url) {
  const { pid, ctx, page, crashed: tabCrashed } = await openPage();
  try {
    await page.goto(`${url}__kinetoscope_bench_blank`).catch(() => {}); // same origin, 404 page
    await page.setContent('<input type="file" id="f">');
    const stop = sampler(pid);
    const done = page.evaluate(() => new Promise((resolve) => {
      document.getElementById('f').addEventListener('change', async (ev) => {
        const f = ev.target.files[0];
        const t0 = performance.now();
        try {
          const text = await f.text();
          if (text.length === 0 && f.size > 0) { resolve({ error: `file.text() gave "" for ${f.size} bytes` }); return; }
          const doc = JSON.parse(text);
          const n = Array.isArray(doc) ? doc.length : (doc.traceEvents || []).length;
          resolve({ seconds: (performance.now() - t0) / 1000, events: n });
        } catch (e) { resolve({ error: `${e.name}: ${e.message}` }); }
      }, { once: true });
    }));
    await page.locator('#f').setInputFiles(file);
    const limit = 60000 + fs.statSync(file).size / 5e3;
    const r = await Promise.race([done,
      new Promise((res) => page.once('crash', () => res({ error: 'tab crashed' }))),
      new Promise((res) => setTimeout(() => res({ error: `no result after ${Math.round(limit / 1000)} s` }), limit).unref())])
      .catch((e) => ({ error: tabCrashed() ? 'tab crashed' : e.message.split('\n')[0] }));
    r.mem = stop();
    r.memNote = 'renderer RSS';
    return r;
  } finally {
    await ctx.close().catch(() => {});
  }
}

// The Operators tab on a trace where every call is its own operator: time to show the table,
// then click-to-paint latency of sorting and of searching, measured inside the page.
async function benchTable(file, url) {
  const { ctx, page, crashed: tabCrashed } = await openPage();
  try {
    await page.goto(url, { waitUntil: 'load' });
    await page.locator('input[type=file]').first().setInputFiles(file);
    await page.locator('[data-testid="tab-operators"]').waitFor({ timeout: 600000 });
    // From the action to the first frame painted after the table stopped changing (DOM
    // mutations inside the Operators panel; 20 s without any counts as a failure).
    const timed = (action) => page.evaluate(async (act) => {
      const panel = document.querySelector('[data-testid="panel-operators"]') ?? document.body;
      let last = 0, seen = false;
      const obs = new MutationObserver(() => { seen = true; last = performance.now(); });
      obs.observe(act.kind === 'tab' ? document.body : panel, { subtree: true, childList: true, attributes: true, characterData: true });
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      const t0 = performance.now();
      if (act.kind === 'tab') document.querySelector('[data-testid="tab-operators"]').click();
      else if (act.kind === 'sort') document.querySelector(`[data-testid="op-header-${act.column}"] button`).click();
      else {
        const input = document.querySelector('[data-testid="op-search"]');
        input.value = act.text;
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
      const ready = () => act.kind !== 'tab' || document.querySelector('[data-testid="op-row"]');
      for (;;) {
        const t = await frame();
        if (seen && ready() && last < t - 1) {
          obs.disconnect();
          return t - t0;
        }
        if (t - t0 > 20000) { obs.disconnect(); return NaN; }
      }
    }, action);
    const show = await timed({ kind: 'tab' });
    const rows = await page.evaluate(() => document.querySelector('[data-testid="op-table"]').getAttribute('aria-rowcount') - 1);
    const sorts = [], searches = [];
    const columns = ['host_self_us', 'calls', 'host_total_us', 'name', 'device_total_us', 'calls', 'host_self_us'];
    for (const column of columns) sorts.push(await timed({ kind: 'sort', column }));
    for (const text of ['conv', 'batch_norm ~1', 'relu', 'add_', 'zzz-no-match', 'aten::', '~2.']) {
      searches.push(await timed({ kind: 'search', text }).catch(() => NaN));
    }
    return { show, rows, sort: median(sorts), search: median(searches) };
  } catch (e) {
    return { error: tabCrashed() ? 'tab crashed' : e.message.split('\n')[0] };
  } finally {
    await ctx.close().catch(() => {});
  }
}

// ---------------------------------------------------------------- main
// ---------------------------------------------------------------- Memory view
async function benchMemoryNode(file) {
  const mod = path.join(root, 'build', 'wasm', 'kinetoscope_node.js');
  if (!fs.existsSync(mod)) return { error: 'build/wasm/kinetoscope_node.js missing' };
  const r = await run('node', [path.join(root, 'scripts', 'bench-memory-node.cjs'), file]);
  if (r.code !== 0) return { error: r.err.trim().split('\n').slice(0, 2).join(' ') };
  return JSON.parse(r.out.trim().split('\n').pop());
}

async function benchMemoryPage(file, url) {
  const { ctx, page, crashed: tabCrashed } = await openPage();
  try {
    await page.goto(url, { waitUntil: 'load' });
    await page.locator('input[type=file]').first().setInputFiles(file);
    await page.locator('[data-testid="tab-memory"]').waitFor({ timeout: 600000 });
    const t0 = Date.now();
    await page.click('[data-testid="tab-memory"]');
    await page.waitForSelector('[data-testid=memory-view][data-state=ready], [data-testid=memory-view][data-state=none]', { timeout: 600000 });
    if (await page.$('[data-testid=memory-view][data-state=none]')) return { error: 'the trace has no memory events' };
    await page.waitForSelector('[data-testid=memory-curve][data-state=ready]', { timeout: 600000 });
    const show = Date.now() - t0;
    // The whole curve's last point (µs from the origin): each zoom is a tenth of it.
    const total = Math.max(1000, Number(await page.getAttribute('[data-testid=memory-chart]', 'data-t1')));
    const zooms = [];
    for (const f of [0.1, 0.3, 0.5, 0.7, 0.85]) {
      const a = +(total * f / 1000).toFixed(3), b = +(total * f / 1000 + total / 10000).toFixed(3);
      // From the range's submit to uPlot's draw of the new curve (the figure's data-draw-ms is
      // written from its drawAxes hook), measured in the page.
      const dt = await page.evaluate(async ([a, b]) => {
        const fig = document.querySelector('[data-testid=memory-curve]');
        const from = document.querySelector('[data-testid=memory-from]');
        const to = document.querySelector('[data-testid=memory-to]');
        const set = (el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true })); };
        set(from, a);
        set(to, b);
        await new Promise((r) => requestAnimationFrame(r));
        const want = String(a * 1000);
        return await new Promise((resolve) => {
          const t0 = performance.now();
          const obs = new MutationObserver(() => {
            if (fig.dataset.state === 'ready' && fig.dataset.from === want && fig.querySelector('canvas')) {
              obs.disconnect();
              requestAnimationFrame(() => resolve(performance.now() - t0));
            }
          });
          obs.observe(fig, { attributes: true, subtree: true, childList: true });
          document.querySelector('[data-testid=memory-apply]').click();
          setTimeout(() => { obs.disconnect(); resolve(NaN); }, 60000);
        });
      }, [a, b]);
      zooms.push(dt);
    }
    return { show, zoom: median(zooms.filter(Number.isFinite)) };
  } catch (e) {
    return { error: tabCrashed() ? 'tab crashed' : e.message.split('\n')[0] };
  } finally {
    await ctx.close().catch(() => {});
  }
}

const LABEL = {
  native: `native CLI (\`kinetoscope summary --json${opts.readJobs ? ` --jobs ${opts.readJobs}` : ''}\`)`,
  views: 'native CLI (`kinetoscope operators --json --group-by op+shape`)',
  cli: 'native CLI (`kinetoscope overview --json`: reading and the Overview)',
  overview: 'web page, headless Chromium (input → Overview drawn: steps, breakdown, GPU metrics)',
  complete: 'web page, headless Chromium (input → Overview complete: operator trees, recommendations, view tabs)',
  wasm: 'wasm in Node (4 MB chunks)',
  page: 'web page, headless Chromium (input → summary)',
  url: 'web page opened on `?url=` (navigation → summary; download streamed into the parse)',
  baseline: 'baseline: `file.text()` + `JSON.parse` in Chromium',
};

const loadAtStart = os.loadavg()[0].toFixed(2);

async function main() {
  const needWeb = opts.only.some((x) => x === 'page' || x === 'url' || x === 'table' || x === 'ranks');
  if (needWeb && !fs.existsSync(path.join(root, 'web', 'dist', 'index.html'))) {
    log('web/dist missing: the page column is skipped');
    opts.only = opts.only.filter((x) => x !== 'page' && x !== 'url' && x !== 'table');
    // (memory still runs its wasm-in-Node part)
  }
  const srv = opts.only.some((x) => x === 'page' || x === 'url' || x === 'baseline' || x === 'table' || x === 'memory' || x === 'ranks') ? await staticServer() : null;
  // The traces' folder, served from another origin (its own port) with CORS, for ?url=.
  const traceSrv = opts.only.includes('url') ? await staticServer(opts.dir, ['--cors']) : null;
  const tableRuns = [];
  const distRows = [];
  const rankRows = [];
  const memoryRuns = [];
  const rows = [];
  const checks = [];
  try {
    const perSize = opts.only.filter((k) => k !== 'table' && k !== 'distributed' && k !== 'memory' && k !== 'ranks');
    for (const trace of perSize.length ? benchTraces() : []) {
      const size = trace.key;
      const file = trace.file();
      const bytes = fs.statSync(file).size;
      const kinds = opts.only.filter((k) => k !== 'table' && k !== 'distributed' && k !== 'memory' && k !== 'ranks')
        .flatMap((k) => (k === 'page' && opts.pageWorkers ? opts.pageWorkers.map((w) => ({ kind: k, workers: w })) : [{ kind: k, workers: null }]));
      // The kinds take turns run by run (page, floor, page, floor, ...): this machine's speed
      // drifts by a quarter over minutes, and five page runs followed by five floor runs put a
      // slow minute on one side of the ratio only.
      const resultsOf = kinds.map(() => []);
      const skip = kinds.map(() => false);
      for (let i = 0; i < opts.runs; i++) {
        for (const [k, { kind, workers }] of kinds.entries()) {
          if (skip[k]) continue;
          if ((kind === 'cli' || kind === 'native') && opts.cliRuns != null && i >= opts.cliRuns) continue;
          const results = resultsOf[k];
          let r;
          if (kind === 'native') r = await benchNative(file);
          else if (kind === 'views') r = await benchNative(file, true);
          else if (kind === 'cli') r = await benchNative(file, 'overview');
          else if (kind === 'wasm') r = await benchWasm(file);
          else if (kind === 'page') r = await benchPage(file, srv.url, workers);
          else if (kind === 'url') r = await benchUrl(file, srv.url, traceSrv.url);
          else if (kind === 'baseline') {
            r = await benchBaseline(file, srv.url);
          } else throw new Error(`unknown --only ${kind}`);
          if (r.cpu?.length) log(`${size} ${kind} run ${i + 1}, input → Overview complete: ${cpuText(r.cpu)}`);
          log(`${size} ${kind}${workers ? ` (${workers} workers)` : ''} run ${i + 1}: ${r.error ? `FAILS (${r.error})` : `${r.seconds.toFixed(2)} s`}` +
            `${Number.isFinite(r.mem) ? `, ${fmtMB(r.mem)}${r.mem2 ? ` / ${fmtMB(r.mem2)}` : ''} ${r.memNote || ''}` : ''}` +
            `${Number.isFinite(r.events) ? `, ${r.events} events` : ''}` +
            `${kind === 'page' ? (Number.isFinite(r.warmMs) ? `, workers warm ${(r.warmMs / 1000).toFixed(2)} s after the page loaded` : ', cold workers') : ''}` +
            `${kind === 'page' ? `; outcome ${r.outcome}${Number.isFinite(r.overview) ? `, Overview drawn ${r.overview.toFixed(2)} s` : ''}` +
              `${Number.isFinite(r.complete) ? `, complete ${r.complete.toFixed(2)} s` : ''}${Number.isFinite(r.memFull) ? `, renderer peak to complete ${fmtMB(r.memFull)}` : ''}` +
              `${r.after ? ` (${r.after})` : ''}${Number.isFinite(r.saidAfterMs) ? `, said ${(r.saidAfterMs / 1000).toFixed(0)} s after the last movement` : ''}` : ''}`);
          results.push(r);
          if (r.error && i === 0 && (kind === 'baseline' || /missing/.test(r.error))) skip[k] = true; // deterministic failure
        }
      }
      for (const [k, { kind, workers }] of kinds.entries()) {
        const results = resultsOf[k];
        const ok = results.filter((r) => !r.error);
        const secs = median(ok.map((r) => r.seconds));
        const row = { size, shape: trace.shape, bytes, kind, runs: results.length, ok: ok.length,
          seconds: secs, mbps: bytes / 1e6 / secs, mem: median(ok.map((r) => r.mem)),
          mem2: median(ok.map((r) => r.mem2)), events: median(ok.map((r) => r.events)),
          error: ok.length ? (ok.length < results.length ? `${results.length - ok.length} of ${results.length} runs failed: ${results.find((r) => r.error).error}` : '')
            : results[0].error,
          failMem: median(results.map((r) => r.mem)),
          ...(workers ? { pageWorkers: workers, readWorkers: median(ok.map((r) => r.readWorkers)) } : {}) };
        rows.push(row);
        if (kind === 'page') {
          const ov = ok.map((r) => r.overview).filter(Number.isFinite);
          if (ov.length) {
            const secs2 = median(ov);
            rows.push({ ...row, kind: 'overview', seconds: secs2, mbps: bytes / 1e6 / secs2,
              error: ov.length < results.length ? `Overview drawn in ${ov.length} of ${results.length} runs` : '' });
          }
          const full = ok.map((r) => r.complete).filter(Number.isFinite);
          if (full.length) {
            const secs3 = median(full);
            const longest = median(ok.map((r) => r.longest));
            // The run of median total CPU: what each thread used from the input to the card complete.
            const byCpu = ok.filter((r) => r.cpu?.length).sort((a, b) => a.cpu.reduce((n, x) => n + x.cpu, 0) - b.cpu.reduce((n, x) => n + x.cpu, 0));
            const mid = byCpu[Math.floor((byCpu.length - 1) / 2)];
            rows.push({ ...row, kind: 'complete', seconds: secs3, mbps: bytes / 1e6 / secs3,
              error: `${full.length < results.length ? `complete in ${full.length} of ${results.length} runs; ` : ''}` +
                `longest main-thread task while loading ${longest.toFixed(0)} ms (median)` +
                (opts.cold ? '; the file given as soon as the page loaded (cold workers)' : ok.some((r) => !Number.isFinite(r.warmMs)) ? '; some runs did not see the workers warm within 30 s' :
                  `; the file given once the workers were warm (${(median(ok.map((r) => r.warmMs)) / 1000).toFixed(2)} s after the page loaded)`) +
                (mid ? `; the run of median CPU: ${cpuText(mid.cpu)}` : '') });
          }
        }
        if (kind === 'page' && bytes >= 3 * 2 ** 30) {
          checks.push(ok.length === results.length && ok.every((r) => r.outcome === 'opened')
            ? `${size} trace (${bytes} bytes) loads in the page: yes, ${ok.length}/${results.length} runs, no tab failure`
            : `${size} trace (${bytes} bytes) loads in the page: NO (${row.error || 'a run did not complete the Overview'})`);
        }
        if (kind === 'page') {
          // Each run's outcome (issue 21: a big load that stops must say so, run after run).
          const n = (o) => results.filter((r) => r.outcome === o).length;
          const said = results.filter((r) => r.outcome !== 'opened');
          checks.push(`${size}: page runs: ${n('opened')} opened / ${n('failed')} failed with a sentence / ${n('hung')} hung` +
            `${n('lost') ? ` / ${n('lost')} Overview shown, worker lost after it` : ''}${n('crashed') ? ` / ${n('crashed')} tab crashed` : ''}${n('error') ? ` / ${n('error')} other` : ''}` +
            `${results.some((r) => Number.isFinite(r.memFull)) ? `; renderer peak to the Overview complete ${fmtMB(median(results.map((r) => r.memFull)))} (median)` : ''}` +
            said.map((r) => `; run ${results.indexOf(r) + 1}: ${r.outcome}: ${(r.after ?? r.error).replace(/^hung: /, '')}${Number.isFinite(r.saidAfterMs) ? ` (said ${(r.saidAfterMs / 1000).toFixed(0)} s after the last movement)` : ''}`).join(''));
        }
      }
      if (opts.deleteTraces && !opts.files?.length) { fs.rmSync(file, { force: true }); log(`deleted ${file}`); }
    }
    if (opts.only.includes('memory')) {
      for (const size of opts.sizes) {
        // The modern shape's source records no memory: the Memory view is measured on resnet50's
        // (PyTorch 1.9, 12,838 memory events per copy), whatever --shape says.
        const file = ensureTrace(size, false, 'resnet50');
        const node = await benchMemoryNode(file);
        log(`${size} memory (wasm in Node): ${node.error ? `FAILS (${node.error})` : JSON.stringify(node)}`);
        const pageRuns = [];
        if (srv) {
          for (let i = 0; i < opts.runs; i++) {
            const r = await benchMemoryPage(file, srv.url);
            log(`${size} memory page run ${i + 1}: ${r.error ? `FAILS (${r.error})` : `shown in ${r.show} ms, zoom redrawn in ${r.zoom.toFixed(1)} ms`}`);
            pageRuns.push(r);
          }
        }
        memoryRuns.push({ size, node, pageRuns });
      }
    }
    if (opts.only.includes('distributed')) {
      const file = ensureTrace(opts.distSize);
      for (const jobs of [1, 2]) {
        const results = [];
        for (let i = 0; i < opts.runs; i++) {
          const r = await benchDistributed(file, opts.distRanks, jobs);
          log(`distributed ${opts.distRanks} x ${opts.distSize} --jobs ${jobs} run ${i + 1}: ${r.error ? `FAILS (${r.error})` : `${r.seconds.toFixed(2)} s, ${fmtMB(r.mem)} peak RSS`}`);
          results.push(r);
        }
        const ok = results.filter((r) => !r.error);
        distRows.push({ jobs, bytes: fs.statSync(file).size, events: countEvents(file) * opts.distRanks, seconds: median(ok.map((r) => r.seconds)), mem: median(ok.map((r) => r.mem)),
          workers: median(ok.map((r) => r.workers)), error: ok.length ? '' : results[0].error });
      }
    }
    if (opts.only.includes('ranks')) {
      for (const spec of opts.rankRuns) {
        const m = /^(\d+)x(\S+)$/.exec(spec);
        if (!m) throw new Error(`bad --rank-runs entry ${spec} (e.g. 8x1G)`);
        const ranks = Number(m[1]);
        const dir = ensureRun(ranks, m[2]);
        const bytes = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
        const row = { spec, ranks, bytes, events: eventsOfRun(dir), load: os.loadavg()[0], page: [], cli: { 1: [], 2: [] } };
        for (let i = 0; i < opts.runs; i++) {
          if (srv) {
            const r = await benchRunPage(dir, ranks, srv.url);
            log(`ranks ${spec} page run ${i + 1}: ${r.error ? `FAILS (${r.error})` : `${r.seconds.toFixed(2)} s, ${fmtMB(r.mem)} renderer RSS, ${r.used} of ${r.pool} workers used, ${r.models} models loaded at the end, ${r.workers} workers in the view`}`);
            row.page.push(r);
          }
          for (const jobs of [1, 2]) {
            const r = await benchRunCli(dir, jobs);
            log(`ranks ${spec} --jobs ${jobs} run ${i + 1}: ${r.error ? `FAILS (${r.error})` : `${r.seconds.toFixed(2)} s, ${fmtMB(r.mem)} peak RSS`}`);
            row.cli[jobs].push(r);
          }
        }
        row.loadEnd = os.loadavg()[0];
        rankRows.push(row);
        if (!opts.keepRanks) fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    if (opts.only.includes('table')) {
      const file = ensureTrace(opts.tableSize, true);
      for (let i = 0; i < opts.runs; i++) {
        const r = await benchTable(file, srv.url);
        log(`table run ${i + 1}: ${r.error ? `FAILS (${r.error})` : `${r.rows} rows, shown in ${r.show.toFixed(0)} ms, sort ${r.sort.toFixed(1)} ms, search ${r.search.toFixed(1)} ms`}`);
        tableRuns.push(r);
      }
    }
  } finally {
    if (browserState) await browserState.browser.close().catch(() => {});
    srv?.stop();
    traceSrv?.stop();
  }

  // Cross-check: every path that finished should count the same events.
  for (const size of [...new Set(rows.map((r) => r.size))]) {
    const counts = rows.filter((r) => r.size === size && r.kind !== 'baseline' && Number.isFinite(r.events));
    const distinct = [...new Set(counts.map((r) => r.events))];
    if (distinct.length > 1) checks.push(`${size}: event counts differ: ${counts.map((r) => `${r.kind} ${r.events}`).join(', ')}`);
  }

  const cpu = (os.cpus()[0]?.model || 'cpu').trim();
  const rev = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout?.trim();
  const out = [];
  out.push(`Kinetoscope load benchmark — ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${cpu}), ` +
    `${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, commit ${rev || '?'}, ` +
    `medians of ${opts.runs} run(s), load average at start ${loadAtStart}` +
    (opts.cpus ? `; Chromium pinned to ${opts.cpus} of the ${os.cpus().length} cores (taskset)` : ''));
  out.push('');
  out.push(opts.files?.length ? `Trace files as given: ${opts.files.join(', ')}.`
    : opts.from?.length ? `Traces replicated from real ones (scripts/gen-trace --from): ${opts.from.join(', ')}.`
      : `Trace shape: ${opts.shape} (scripts/gen-trace --shape ${opts.shape}).`);
  out.push('');
  if (rows.length) {
    out.push('| trace | path | MB/s | M events/s | time (s) | peak memory | events | note |');
    out.push('|---|---|---:|---:|---:|---|---:|---|');
  }
  // JSON.parse counts no events: its rate uses the count the other paths read from the same file.
  const eventsOf = (size) => rows.find((x) => x.size === size && Number.isFinite(x.events))?.events;
  for (const r of rows) {
    const label = LABEL[r.kind] + (r.pageWorkers ? `, at most ${r.pageWorkers} worker${r.pageWorkers > 1 ? 's' : ''} reading the file (${Number.isFinite(r.readWorkers) ? r.readWorkers : '?'} did)` : '');
    const sizeTxt = `${r.size}${r.shape ? ` ${r.shape}` : ''} (${(r.bytes / 1e6).toFixed(0)} MB, ${Math.round(r.bytes / (eventsOf(r.size) || NaN)) || '?'} B/event)`;
    if (r.error && !r.ok) {
      const extra = r.kind === 'baseline' && r.bytes > V8_STRING_CAP ? ` (above V8's ${V8_STRING_CAP}-byte string cap)` : '';
      out.push(`| ${sizeTxt} | ${label} | fails | – | – | ${Number.isFinite(r.failMem) ? fmtMB(r.failMem) : '–'} | – | ${r.error}${extra} |`);
      continue;
    }
    let mem = fmtMB(r.mem);
    if (r.kind === 'wasm') mem = `${fmtMB(r.mem)} wasm heap, ${fmtMB(r.mem2)} RSS`;
    else if (r.kind === 'native' || r.kind === 'views' || r.kind === 'cli') mem = `${fmtMB(r.mem)} RSS`;
    else mem = `${fmtMB(r.mem)} renderer RSS`;
    const evs = Number.isFinite(r.events) ? r.events : eventsOf(r.size);
    out.push(`| ${sizeTxt} | ${label} | ${r.mbps.toFixed(0)} | ${evs ? (evs / r.seconds / 1e6).toFixed(2) : '–'} | ${r.seconds.toFixed(2)} | ${mem} | ` +
      `${Number.isFinite(r.events) ? r.events : '–'} | ${r.error || ''} |`);
  }
  // Issue 21's goal: drop → Overview drawn within 3x the CLI's Overview on the same file.
  for (const size of [...new Set(rows.map((r) => r.size))]) {
    const cliRow = rows.find((r) => r.size === size && r.kind === 'cli' && !r.error);
    if (!cliRow) continue;
    for (const r of rows.filter((x) => x.size === size && x.kind === 'overview' && Number.isFinite(x.seconds))) {
      const full = rows.find((x) => x.size === size && x.kind === 'complete' && x.pageWorkers === r.pageWorkers && Number.isFinite(x.seconds));
      checks.push(`${size}: Overview drawn in ${r.seconds.toFixed(2)} s = ${(r.seconds / cliRow.seconds).toFixed(2)}x the CLI's \`kinetoscope overview\` ` +
        `(${cliRow.seconds.toFixed(2)} s, ${fmtMB(cliRow.mem)} RSS)${full ? `; complete in ${full.seconds.toFixed(2)} s = ${(full.seconds / cliRow.seconds).toFixed(2)}x` : ''}; ` +
        `renderer peak ${fmtMB(r.mem)}`);
    }
  }
  // Issue 12 §2's target: drop → Overview drawn against the JSON.parse floor of the same run.
  for (const size of [...new Set(rows.map((r) => r.size))]) {
    const floor = rows.find((r) => r.size === size && r.kind === 'baseline' && !r.error);
    if (!floor) continue;
    for (const r of rows.filter((x) => x.size === size && x.kind === 'overview' && Number.isFinite(x.seconds))) {
      checks.push(`${size}: Overview drawn${r.pageWorkers ? ` (at most ${r.pageWorkers} workers)` : ''} in ${r.seconds.toFixed(2)} s = ` +
        `${(floor.seconds / r.seconds).toFixed(2)}x faster than the JSON.parse floor (${floor.seconds.toFixed(2)} s)`);
    }
  }
  if (checks.length) { out.push(''); for (const c of checks) out.push(`- ${c}`); }
  if (distRows.length) {
    out.push('');
    out.push(`\`kinetoscope distributed --json\` on a run of ${opts.distRanks} replicated ranks (each trace-${opts.distSize}), medians of ${opts.runs} run(s):`);
    out.push('');
    out.push('| ranks x rank size | --jobs | time (s) | MB/s (all ranks) | M events/s (all ranks) | peak RSS | workers in the view | note |');
    out.push('|---|---:|---:|---:|---:|---|---:|---|');
    for (const r of distRows) {
      const total = r.bytes * opts.distRanks;
      out.push(`| ${opts.distRanks} x ${opts.distSize} (${(total / 1e6).toFixed(0)} MB, ${r.events} events) | ${r.jobs} | ${r.error ? 'fails' : r.seconds.toFixed(2)} | ` +
        `${r.error ? '–' : (total / 1e6 / r.seconds).toFixed(0)} | ${r.error ? '–' : meps(r.events, r.seconds)} | ${fmtMB(r.mem)} | ${Number.isFinite(r.workers) ? r.workers : '–'} | ${r.error} |`);
    }
  }
  if (rankRows.length) {
    out.push('');
    out.push(`Many ranks in one tab (runs of gen-trace --ranks, ${opts.shape} shape), medians of ${opts.runs} run(s); page: folder input → run page's Distributed view shown:`);
    out.push('');
    out.push('| run | path | time (s) | MB/s (all ranks) | M events/s (all ranks) | peak memory | workers | note |');
    out.push('|---|---|---:|---:|---:|---|---|---|');
    for (const r of rankRows) {
      const what = `${r.spec} (${(r.bytes / 1e6).toFixed(0)} MB, ${r.events} events)`;
      const load = `load ${r.load.toFixed(1)} → ${r.loadEnd.toFixed(1)}`;
      const pg = r.page.filter((x) => !x.error);
      if (r.page.length) {
        if (!pg.length) out.push(`| ${what} | page | fails | – | – | ${fmtMB(r.page[0].mem)} renderer RSS | – | ${r.page[0].error}; ${load} |`);
        else {
          const secs = median(pg.map((x) => x.seconds));
          out.push(`| ${what} | page (headless Chromium) | ${secs.toFixed(2)} | ${(r.bytes / 1e6 / secs).toFixed(0)} | ${meps(r.events, secs)} | ${fmtMB(median(pg.map((x) => x.mem)))} renderer RSS | ` +
            `${median(pg.map((x) => x.used))} of ${median(pg.map((x) => x.pool))} trace workers | ${median(pg.map((x) => x.workers))} workers in the view, ${median(pg.map((x) => x.models))} full models loaded at the end; ${load} |`);
        }
      }
      for (const jobs of [1, 2]) {
        const ok = r.cli[jobs].filter((x) => !x.error);
        if (!ok.length) { out.push(`| ${what} | CLI --jobs ${jobs} | fails | – | – | – | – | ${r.cli[jobs][0]?.error ?? ''} |`); continue; }
        const secs = median(ok.map((x) => x.seconds));
        out.push(`| ${what} | \`kinetoscope distributed --json --jobs ${jobs}\` | ${secs.toFixed(2)} | ${(r.bytes / 1e6 / secs).toFixed(0)} | ${meps(r.events, secs)} | ${fmtMB(median(ok.map((x) => x.mem)))} RSS | ${jobs} thread${jobs > 1 ? 's' : ''} | ${median(ok.map((x) => x.workers))} workers in the view; ${load} |`);
      }
    }
  }
  const okTable = tableRuns.filter((r) => !r.error);
  if (tableRuns.length) {
    out.push('');
    out.push(`Operator table in the page (trace-${opts.tableSize}-distinct: every call its own operator), medians of ${tableRuns.length} run(s):`);
    out.push('');
    out.push('| rows | Operators tab → table painted (ms) | sort click → painted (ms) | search input → painted (ms) | note |');
    out.push('|---:|---:|---:|---:|---|');
    if (okTable.length) {
      out.push(`| ${median(okTable.map((r) => r.rows))} | ${median(okTable.map((r) => r.show)).toFixed(0)} | ` +
        `${median(okTable.map((r) => r.sort)).toFixed(1)} | ${median(okTable.map((r) => r.search)).toFixed(1)} | ` +
        `${okTable.length < tableRuns.length ? `${tableRuns.length - okTable.length} runs failed` : ''} |`);
    } else out.push(`| – | – | – | – | fails: ${tableRuns[0].error} |`);
  }
  for (const { size, node: n, pageRuns } of memoryRuns) {
    out.push('');
    out.push(`Memory view on trace-${size} (${n.error ? 'wasm core: fails' : `${n.memory_events} memory events, default device ${n.device ?? '–'} with ${n.device_records ?? 0}`}):`);
    out.push('');
    out.push('| what | value | note |');
    out.push('|---|---:|---|');
    if (n.error) out.push(`| wasm core | fails | ${n.error} |`);
    else {
      out.push(`| build (attribute records to operators), after the Overview | ${n.build_ms.toFixed(0)} ms | wasm in Node |`);
      out.push(`| extra heap: the memory index | ${fmtMB(n.index_bytes)} | wasm heap grew ${fmtMB(n.heap_growth_bytes)} |`);
      if (n.curve_whole_ms != null) {
        out.push(`| curve of the whole trace, 1200 columns | ${n.curve_whole_ms.toFixed(1)} ms | ${n.curve_whole_points} points |`);
        out.push(`| curve of a zoomed tenth, 1200 columns | ${n.curve_zoom_ms.toFixed(1)} ms | median of 5 ranges, ${n.curve_zoom_points} points |`);
        out.push(`| statistics + events of a zoomed tenth | ${n.tables_zoom_ms.toFixed(1)} ms | median of 5 ranges |`);
      }
    }
    const okPage = pageRuns.filter((r) => !r.error);
    if (okPage.length) {
      out.push(`| page: Memory tab → curve and tables shown | ${median(okPage.map((r) => r.show)).toFixed(0)} ms | headless Chromium, medians of ${okPage.length} |`);
      out.push(`| page: range set → curve redrawn (target < 50 ms) | ${median(okPage.map((r) => r.zoom)).toFixed(1)} ms | submit to uPlot's draw, median of 5 zooms |`);
    } else if (pageRuns.length) out.push(`| page | fails | ${pageRuns[0].error} |`);
  }
  console.log(out.join('\n'));
}

main().catch((e) => { console.error(`bench: ${e.stack || e}`); process.exit(1); });
