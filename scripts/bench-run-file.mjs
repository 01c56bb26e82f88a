// Run files in the page at scale (issue 27): a generated run file of N ranks
// (scripts/gen-run-file.mjs, the shape kinetoscope-fleet writes) picked in the page, timed from
// the file input's change to the first frame with the Distributed view drawn (its straggler chart
// and the GPU time per rank table); then the GPU time table sorted (a header clicked → the frame
// after its rows are re-ordered) and searched (a worker typed → the frame showing one row). Each
// run in a fresh page; medians of --runs.
//   node scripts/bench-run-file.mjs [--ranks 1024,8192] [--runs 3] [--after DIST]
import fs from 'node:fs';
import path from 'node:path';
import { genRunFile } from './gen-run-file.mjs';
import { buildsInTurns, median, option, printTable, root, sidesFrom } from './bench-common.mjs';

const args = process.argv.slice(2);
const rankCounts = option(args, '--ranks', '1024,8192').split(',').map(Number);
const runs = Number(option(args, '--runs', '3'));
const log = (m) => process.stderr.write(`[bench-run-file] ${m}\n`);
const dir = '/tmp/kinetoscope-bench';
fs.mkdirSync(dir, { recursive: true });

const DRAWN = '[data-testid=run-page][data-state=run-file] [data-testid=dist-stragglers] .u-over, [data-testid=run-page][data-state=run-file] [data-testid=run-gpu-row]';

async function one(browser, url, file, n) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await ctx.newPage();
    // The clock starts when the page hears of the file (the picker's change event).
    await page.addInitScript(() => {
      addEventListener('change', () => (window.__ksPicked = performance.now()), true);
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=file-input]', { state: 'attached' });
    const drawn = page.evaluate(async (sel) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      for (;;) {
        const t = await frame();
        const [chart, row] = sel.split(', ');
        if (window.__ksPicked != null && document.querySelector(chart) && document.querySelector(row)) return t - window.__ksPicked;
        if (window.__ksPicked != null && t - window.__ksPicked > 300000) return NaN;
      }
    }, DRAWN);
    await page.setInputFiles('[data-testid=file-input]', file);
    const open = await drawn;
    // Sort: the Idle % header clicked → the frame after the table shows it sorted.
    const sort = await page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      const h = document.querySelector('[data-testid=run-gpu-header-idle_pct]');
      const button = h.querySelector('button');
      const t0 = performance.now();
      button.click();
      for (;;) {
        const t = await frame();
        if (h.getAttribute('aria-sort')) return t - t0;
        if (t - t0 > 60000) return NaN;
      }
    });
    // Search: a worker's name typed → the frame showing "1 of N rows".
    const total = n - 3;
    const search = await page.evaluate(async (total) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
      const input = document.querySelector('[data-testid=run-gpu-search]');
      const status = document.querySelector('[data-testid=run-gpu-ranks] [data-testid=run-gpu-status]');
      const t0 = performance.now();
      input.value = 'rank1000';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      for (;;) {
        const t = await frame();
        if (status.textContent === `1 of ${total.toLocaleString('en-US')} rows`) return t - t0;
        if (t - t0 > 60000) return NaN;
      }
    }, total);
    return { open, sort, search };
  } finally {
    await ctx.close();
  }
}

const rows = [];
for (const n of rankCounts) {
  const file = path.join(dir, `run-${n}.kinetoscope-run.json`);
  if (!fs.existsSync(file)) {
    log(`generating ${file}`);
    fs.writeFileSync(file, JSON.stringify(genRunFile({ ranks: n, steps: 4, failed: 3 })) + '\n');
  }
  const sides = sidesFrom(args);
  await buildsInTurns(sides, runs, (browser, url) => one(browser, url, file, n), log);
  for (const s of sides) {
    const m = ['open', 'sort', 'search'].map((k) => median(s.results.map((r) => r[k])));
    rows.push([String(n), (fs.statSync(file).size / 1e6).toFixed(1), ...m.map((x) => x.toFixed(0)), `${s.name} (${path.relative(root, s.dist) || s.dist})`]);
  }
}
console.log(`run files (scripts/gen-run-file.mjs: 4 steps, 3 failed ranks), medians of ${runs} runs\n`);
printTable(['ranks', 'run file (MB)', 'picked → Distributed view and GPU table drawn (ms)', 'GPU table sorted (ms)', 'GPU table searched (ms)', 'build'], rows);
