// The run navigator and the first screen (issue 9 §1): a run of 256 rank files stays usable
// (windowed rows, search, rank order), the first screen at 1440x900 shows the trace's header,
// tabs and step chart without scrolling, files can be dropped anywhere once something is open,
// each trace's state shows in the navigator, the health badge opens the health table, and a
// link names a trace by run, worker and span.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, dropFiles, navRow, navRows, openSite, repo, sampleTrace, settled, showTrace, withCheckedPage } from './helpers.mjs';

const { server, browser, tmp } = await openSite({ tmp: true });
const T = { timeout: 300_000 };

/** A small valid trace of rank `rank` in a world of `world` (one step, one kernel). */
function rankTrace(rank, world) {
  const ev = [
    { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', pid: 1, tid: 1, ts: 100, dur: 100 },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 1, ts: 110, dur: 20 + rank },
    { ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: 115, dur: 5, args: { correlation: 1 } },
    { ph: 'X', cat: 'kernel', name: 'sgemm', pid: 0, tid: 7, ts: 120, dur: 30, args: { device: 0, stream: 7, correlation: 1 } },
  ];
  return JSON.stringify({ distributedInfo: { backend: 'nccl', rank, world_size: world }, traceEvents: ev });
}

// A run of 256 ranks, written in a shuffled order: the navigator orders them by rank.
const job = path.join(tmp, 'job');
fs.mkdirSync(job, { recursive: true });
const WORLD = 256;
for (let k = 0; k < WORLD; k++) {
  const rank = (k * 97) % WORLD; // 97 is prime to 256: every rank once, out of order
  fs.writeFileSync(path.join(job, `rank${rank}.pt.trace.json`), rankTrace(rank, WORLD));
}

describe('run navigator', () => {
  it('a run of 256 rank files: windowed, in rank order, searchable, each selectable', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.setInputFiles('[data-testid=folder-input]', job);
      // All loaded: the header counts them and none is waiting.
      await page.waitForFunction((n) => document.querySelector('[data-testid=nav-count]')?.textContent === `${n} traces`, WORLD, { timeout: 240_000 });
      // Only the rows in view are in the page.
      const inDom = await page.$$eval('[data-testid=nav-trace]', (els) => els.length);
      assert.ok(inDom > 10 && inDom < 80, `rows in the DOM: ${inDom}`);
      // Reading it all (scrolling): the run, then rank0..rank255 by rank (not as strings: rank2 before rank10).
      const rows = await navRows(page);
      assert.equal(rows[0].kind, 'run');
      assert.equal(rows[0].run, 'job');
      const traces = rows.filter((r) => r.kind === 'trace');
      assert.deepEqual(traces.map((r) => r.file), Array.from({ length: WORLD }, (_, i) => `rank${i}.pt.trace.json`));
      assert.ok(traces.every((r) => r.status === 'done'), 'every trace loaded');
      assert.match(traces[10].text, /rank 10/, 'the rank is shown');

      // Search by rank: one row left, and choosing it shows that trace.
      await page.fill('[data-testid=nav-search]', 'rank 200');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=nav-trace]').length === 1);
      await page.click(navRow('rank200.pt.trace.json'));
      await page.waitForSelector(card('rank200.pt.trace.json'), { state: 'visible' });
      assert.equal(await page.textContent(`${card('rank200.pt.trace.json')} [data-testid=header-distributed]`), 'rank 200 of 256 · nccl');
      // Clearing the search keeps the choice, scrolled into view, and the keyboard moves on.
      await page.fill('[data-testid=nav-search]', '');
      await page.waitForSelector(`${navRow('rank200.pt.trace.json')}[aria-selected=true]`);
      await page.focus('[data-testid=run-nav] .nav-scroll');
      await page.keyboard.press('ArrowDown');
      await page.waitForSelector(card('rank201.pt.trace.json'), { state: 'visible' });
      await page.waitForSelector(`${navRow('rank201.pt.trace.json')}[aria-selected=true]`);
      // A search that matches nothing says so.
      await page.fill('[data-testid=nav-search]', 'no such rank');
      assert.equal(await page.textContent('[data-testid=nav-empty]'), 'No open trace matches the search.');
    });
  });

  it('the first screen at 1440x900: header, tabs, step chart, breakdown and recommendations without scrolling', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      const c = card('rank-0.json.gz');
      await page.waitForSelector(`${c} [data-testid=step-chart] canvas`);
      for (const id of ['trace-header', 'health-badge', 'tab-overview', 'tab-trace', 'step-select', 'step-chart', 'step-detail', 'recommendations']) {
        const box = await page.locator(`${c} [data-testid=${id}]`).boundingBox();
        assert.ok(box, `${id} is shown`);
        assert.ok(box.y >= 0 && box.y + box.height <= 900 && box.x >= 0 && box.x + box.width <= 1440, `${id} within 1440x900: ${JSON.stringify(box)}`);
      }
      // Nothing was scrolled to get there.
      assert.equal(await page.$eval('[data-testid=analysis]', (el) => el.scrollTop), 0);
      // The step selector says what it applies to.
      assert.equal(await page.textContent(`${c} [data-testid=step-scope]`), 'applies to Overview, Operators, Kernels, Memory and Timeline');
      await page.selectOption(`${c} [data-testid=step-select]`, { index: 1 });
      assert.match(await page.textContent(`${c} [data-testid=step-scope]`), /^Overview, Operators, Kernels, Memory and Timeline show step \d+$/);
      // The drop zone is a bar in the top bar once a trace is open.
      const bar = await page.locator('[data-testid=drop-zone]').boundingBox();
      assert.ok(bar.height < 60, `drop bar height ${bar.height}`);
    });
  });

  it('once traces are open, files dropped anywhere on the page open; the navigator shows failed and warned traces', T, async () => {
    const bad = path.join(tmp, 'notes.json');
    fs.writeFileSync(bad, '{"hello": "not a trace"}');
    const cut = path.join(tmp, 'cut.json');
    const text = fs.readFileSync(path.join(repo, 'tests', 'data', 'truncated-mid-event.json'), 'utf8');
    fs.writeFileSync(cut, text);
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      // Dropped on the analysis, not on the drop bar.
      const dt = await page.evaluateHandle(
        ([a, b]) => {
          const d = new DataTransfer();
          d.items.add(new File([a], 'notes.json'));
          d.items.add(new File([b], 'cut.json'));
          return d;
        },
        [fs.readFileSync(bad, 'utf8'), text],
      );
      await page.dispatchEvent('[data-testid=analysis]', 'drop', { dataTransfer: dt });
      assert.equal(await settled(page, 'notes.json'), 'failed');
      assert.equal(await page.getAttribute(navRow('notes.json'), 'data-health'), 'error');
      assert.match(await page.textContent(`${card('notes.json')} [data-testid=file-error]`), /\S/);
      assert.equal(await settled(page, 'cut.json'), 'done');
      assert.equal(await page.getAttribute(navRow('cut.json'), 'data-health'), 'error', 'a cut-off trace is marked');

      // The health badge says so and opens the health table.
      const c = card('cut.json');
      assert.equal(await page.getAttribute(`${c} [data-testid=health-badge]`, 'data-level'), 'error');
      assert.equal(await page.$(`${c} [data-testid=health-pop]`), null);
      await page.click(`${c} [data-testid=health-badge]`);
      await page.waitForSelector(`${c} [data-testid=health-pop] [data-testid=health-table]`);
      assert.ok(await page.$(`${c} [data-testid=health-pop] [data-testid^=health-row-truncated]`), 'the truncation is listed');
      await page.keyboard.press('Escape');
      await page.waitForSelector(`${c} [data-testid=health-pop]`, { state: 'detached' });
      // The sample, still open, is healthy.
      await showTrace(page, 'rank-0.json.gz');
      assert.equal(await page.getAttribute(`${card('rank-0.json.gz')} [data-testid=health-badge]`, 'data-level'), 'ok');
    });
  });

  it('a link names a trace by run, worker and span, and opens it again', T, async () => {
    const logs = path.join(tmp, 'logs');
    const run = path.join(logs, 'run1');
    fs.mkdirSync(run, { recursive: true });
    fs.copyFileSync(sampleTrace, path.join(run, 'worker0.100.pt.trace.json.gz'));
    fs.copyFileSync(sampleTrace, path.join(run, 'worker0.20.pt.trace.json.gz'));
    let link;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setInputFiles('[data-testid=folder-input]', logs);
      assert.equal(await settled(page, 'worker0.20.pt.trace.json.gz'), 'done');
      // "20" is span 2 ("100" < "20" as strings).
      await page.click(`${card('worker0.20.pt.trace.json.gz')} [data-testid=tab-kernels]`);
      await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('view') === 'kernels');
      const p = Object.fromEntries(new URLSearchParams(await page.evaluate(() => location.hash.slice(1))));
      assert.deepEqual(p, { run: 'logs/run1', worker: 'worker0', span: '2', file: 'worker0.20.pt.trace.json.gz', view: 'kernels' });
      link = await page.evaluate(() => location.hash);
    });
    await withCheckedPage(browser, server.url + link, async (page) => {
      await page.setInputFiles('[data-testid=folder-input]', logs);
      // The linked trace is the one shown (not the first of the folder), on its Kernels tab.
      await page.waitForSelector(`${card('worker0.20.pt.trace.json.gz')} [data-testid=tab-kernels][aria-selected=true]`, { state: 'visible', timeout: 60_000 });
      assert.equal(await page.isVisible(card('worker0.100.pt.trace.json.gz')), false);
      assert.equal(await page.getAttribute(navRow('worker0.20.pt.trace.json.gz'), 'aria-selected'), 'true');
    });
  });
});
