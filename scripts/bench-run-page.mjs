// The run page of a many-rank run (issue 23): from the run row clicked — every rank loaded, its
// rank summary taken and kept in the page — to the Distributed view drawn (the summaries sent to
// a worker, reduced, the answers back and the charts painted), and the bytes that cross the
// worker boundary on the way, for one or two builds of the site in the same run, runs in turns.
//   node scripts/bench-run-page.mjs [--ranks N] [--size S] [--runs N] [--before DIST] [--after DIST]
// The run: N rank files (default 64) of S each (default 2M), made once by `scripts/gen-trace
// --ranks N` (copies of the modern shape with distinct distributedInfo ranks) in
// /tmp/kinetoscope-bench/run-page-NxS. DIST: a built site (web/dist by default for --after;
// --before e.g. a build of the previous commit). Each run: a fresh page, the folder given, all N
// traces loaded (the run page shown once), a trace shown, then the run row clicked again → the
// first frame painted with the view's charts (the kept summaries reduced anew and drawn).
// Bytes: per message, the typed arrays' byteLength plus each string's and object key's length (1
// byte a character for Latin-1 text, 2 otherwise, as V8's structured clone writes them), 8 a
// number: the N rank summaries
// (worker → page), the reduce's request (page → worker) and its answer (worker → page).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildsInTurns, median, option, printTable, root, sidesFrom } from './bench-common.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const ranks = Number(opt('--ranks', '64'));
const size = opt('--size', '2M');
const runs = Number(opt('--runs', '3'));
const sides = sidesFrom(args);
const log = (m) => process.stderr.write(`[bench-run-page] ${m}\n`);

const dir = path.join('/tmp/kinetoscope-bench', `run-page-${ranks}x${size}`);
if (!fs.existsSync(path.join(dir, `rank${ranks - 1}.pt.trace.json`))) {
  log(`generating ${dir}`);
  const r = spawnSync('node', [path.join(root, 'scripts', 'gen-trace.mjs'), '--size', size, '--ranks', String(ranks), '--out', dir], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('gen-trace --ranks failed');
}
const runName = path.basename(dir);

// In the page before its scripts: the messages of the map and the reduce are weighed.
function weighMessages() {
  const weigh = (v, seen) => {
    if (v == null || typeof v !== 'object') {
      if (typeof v === 'string') return /^[\x00-\xff]*$/.test(v) ? v.length : 2 * v.length;
      return typeof v === 'number' ? 8 : 1;
    }
    if (ArrayBuffer.isView(v)) return v.byteLength;
    if (seen.has(v)) return 0;
    seen.add(v);
    let n = 0;
    if (Array.isArray(v)) for (const x of v) n += weigh(x, seen);
    else for (const [k, x] of Object.entries(v)) n += k.length + weigh(x, seen);
    return n;
  };
  window.__ksBytes = { summaries: 0, request: 0, answer: 0 };
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        if (e.data?.kind === 'answer' && e.data.result?.what === 'distributedRank') window.__ksBytes.summaries += weigh(e.data.result, new Set());
        if (e.data?.kind === 'distributed') window.__ksBytes.answer += weigh(e.data, new Set());
      });
    }
    postMessage(m, t) {
      if (m?.kind === 'distributed') window.__ksBytes.request += weigh(m, new Set());
      return super.postMessage(m, t);
    }
  };
}

async function one(browser, url) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await ctx.newPage();
    await page.addInitScript(weighMessages);
    await page.goto(url, { waitUntil: 'load' });
    await page.setInputFiles('[data-testid=folder-input]', dir);
    // The run page waits for every rank (the navigator lists only the rows in view): shown once,
    // every summary is in the page. Then a trace is shown, and the run row clicked again is timed:
    // the run page asks the reduce anew from the kept summaries and draws it.
    await page.click(`[data-testid=nav-run][data-run="${runName}"]`, { timeout: 900000 });
    await page.waitForSelector('[data-testid=run-page][data-state=ready] [data-testid=distributed] [data-testid=dist-stragglers]', { timeout: 900000 });
    await page.click('[data-testid=nav-trace]');
    await page.waitForSelector('[data-testid=file-card]:not([hidden])', { timeout: 120000 });
    await page.evaluate(() => { window.__ksBytes.request = 0; window.__ksBytes.answer = 0; });
    const ms = await page.evaluate(async (run) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      const t0 = performance.now();
      document.querySelector(`[data-testid=nav-run][data-run="${run}"]`).click();
      for (;;) {
        const t = await frame();
        if (document.querySelector('[data-testid=run-page][data-state=ready] [data-testid=distributed] [data-testid=dist-stragglers]')) return t - t0;
        if (t - t0 > 120000) return NaN;
      }
    }, runName);
    const bytes = await page.evaluate(() => window.__ksBytes);
    return { ms, ...bytes };
  } finally {
    await ctx.close();
  }
}

await buildsInTurns(sides, runs, one, log);
const keys = ['ms', 'summaries', 'request', 'answer'];
const head = ['build', 'run row → view drawn (ms)', `${ranks} rank summaries (KB)`, 'reduce request (KB)', 'reduce answer (KB)'];
console.log(`a run of ${ranks} ranks of ${size} (${runName}), medians of ${runs} runs, the builds in turns\n`);
printTable(head, sides.map((s) => {
  const m = keys.map((k) => median(s.results.map((r) => r[k])));
  return [`${s.name} (${path.relative(root, s.dist) || s.dist})`, m[0].toFixed(0), ...m.slice(1).map((x) => (x / 1e3).toFixed(1))];
}));
