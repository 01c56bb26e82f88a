// The Operators and Kernels tables' path in the page (issue 23): from a view opened (tab clicked,
// grouping changed) to its rows drawn, and the bytes the answers carry across the worker boundary,
// for one or two builds of the site in the same run, their runs taking turns.
//   node scripts/bench-view-tables.mjs [--file TRACE] [--runs N] [--before DIST] [--after DIST]
// TRACE: by default /tmp/h21-heap2/modern-480M.json. DIST: a built site (web/dist by default for
// --after; --before e.g. a build of the previous commit). Each run: a fresh page, the file given,
// the Overview complete (the operator trees are built then, so what is timed is the table's own
// path: the query, the worker, the transfer, the page's model and the first rows painted), then
//   ops        Operators tab clicked → its first rows painted
//   ops_shape  its grouping set to "op+shape" → the new table's rows painted
//   kernels    Kernels tab clicked → rows painted
//   kern_props its grouping set to "props" → rows painted
//   op_detail  back on Operators (op+shape), its first row clicked → its kernels listed
//   kern_detail back on Kernels (props), its first row clicked → its launching operators listed
// Bytes: per query answer, the typed arrays' byteLength plus each string's length (1 byte a
// character for Latin-1 text, 2 otherwise, as V8's structured clone writes them), summed over
// what the worker posts for these four (and for the two details). Prints a markdown table of medians.
import fs from 'node:fs';
import path from 'node:path';
import { buildsInTurns, median, option, printTable, root, sidesFrom } from './bench-common.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const file = path.resolve(opt('--file', '/tmp/h21-heap2/modern-480M.json'));
const runs = Number(opt('--runs', '3'));
const sides = sidesFrom(args);
const log = (m) => process.stderr.write(`[bench-view-tables] ${m}\n`);

// In the page before its scripts: every Worker's answers to the table queries are weighed.
function weighAnswers() {
  const weigh = (v, seen) => {
    if (v == null || typeof v !== 'object') {
      if (typeof v === 'string') return /^[\x00-\xff]*$/.test(v) ? v.length : 2 * v.length;
      return typeof v === 'number' ? 8 : 1;
    }
    if (ArrayBuffer.isView(v)) return v.byteLength;
    if (seen.has(v)) return 0;
    seen.add(v);
    let n = 0;
    for (const x of Array.isArray(v) ? v : Object.values(v)) n += weigh(x, seen);
    return n;
  };
  window.__ksAnswerBytes = {};
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const what = e.data?.kind === 'answer' ? e.data.result?.what : null;
        if (what === 'operators' || what === 'kernels' || what === 'operatorDetail' || what === 'kernelDetail')
          window.__ksAnswerBytes[what] = (window.__ksAnswerBytes[what] ?? 0) + weigh(e.data.result, new Set());
      });
    }
  };
}

// From an action in the page (a click on [data-testid=ID], or a select's value set) to the first
// frame painted with every selector of `done` present. (The page's CSP allows no eval: the
// action is data, not code.)
async function timed(page, act, done) {
  return page.evaluate(
    async ([act, done]) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      const el = document.querySelector(`[data-testid="${act.testid}"]`);
      const t0 = performance.now();
      if (act.value == null) el.click();
      else {
        el.value = act.value;
        el.dispatchEvent(new Event('change', { bubbles: true }));
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }
      for (;;) {
        const t = await frame();
        if (done.every((sel) => document.querySelector(sel))) return t - t0;
        if (t - t0 > 120000) return NaN;
      }
    },
    [act, done],
  );
}

async function one(browser, url) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await ctx.newPage();
    await page.addInitScript(weighAnswers);
    await page.goto(url, { waitUntil: 'load' });
    await page.locator('input[type=file]').first().setInputFiles(file);
    await page.waitForSelector('[data-testid=file-card][data-status=done] [data-testid="tab-kernels"]', { timeout: 600000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid=overview-pending]'), null, { timeout: 600000, polling: 200 });
    const r = {};
    r.ops = await timed(page, { testid: 'tab-operators' }, ['[data-testid="op-row"]']);
    r.ops_shape = await timed(page, { testid: 'op-group-by', value: 'op+shape' }, ['[data-testid="op-header-input_shape"]', '[data-testid="op-row"]']);
    r.kernels = await timed(page, { testid: 'tab-kernels' }, ['[data-testid="kernel-row"]']);
    r.kern_props = await timed(page, { testid: 'kernel-group-by', value: 'props' }, ['[data-testid="kernel-header-operator"]', '[data-testid="kernel-row"]']);
    await timed(page, { testid: 'tab-operators' }, ['[data-testid="op-row"]']);
    r.op_detail = await timed(page, { testid: 'op-row' }, ['[data-testid="op-detail-kernels"], [data-testid="op-detail-kernels-empty"]']);
    await timed(page, { testid: 'tab-kernels' }, ['[data-testid="kernel-row"]']);
    r.kern_detail = await timed(page, { testid: 'kernel-row' }, ['[data-testid="kernel-detail-operators"], [data-testid="kernel-detail-operators-empty"]']);
    const bytes = await page.evaluate(() => window.__ksAnswerBytes);
    r.bytes_ops = bytes.operators ?? NaN;
    r.bytes_kernels = bytes.kernels ?? NaN;
    r.bytes_details = (bytes.operatorDetail ?? NaN) + (bytes.kernelDetail ?? NaN);
    return r;
  } finally {
    await ctx.close();
  }
}

await buildsInTurns(sides, runs, one, log);
const keys = ['ops', 'ops_shape', 'kernels', 'kern_props', 'op_detail', 'kern_detail', 'bytes_ops', 'bytes_kernels', 'bytes_details'];
const head = ['build', 'Operators tab → rows (ms)', 'op+shape → rows (ms)', 'Kernels tab → rows (ms)', 'props → rows (ms)', 'operator row → detail (ms)',
  'kernel row → detail (ms)', 'Operators answers (MB)', 'Kernels answers (MB)', 'the two details (KB)'];
console.log(`${path.basename(file)} (${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB), medians of ${runs} runs, the builds in turns\n`);
printTable(head, sides.map((s) => {
  const m = keys.map((k) => median(s.results.map((r) => r[k])));
  return [`${s.name} (${path.relative(root, s.dist) || s.dist})`, ...m.slice(0, 6).map((x) => x.toFixed(0)), ...m.slice(6, 8).map((x) => (x / 1e6).toFixed(2)), (m[8] / 1e3).toFixed(1)];
}));
