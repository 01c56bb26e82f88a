// The run page (issue 11): selecting a run in the navigator shows its Distributed view, reduced in
// the core from one summary per rank, and the numbers on the page are the CLI's
// (`kinetoscope distributed --json` on the same folder): overlap and wait time per worker, the
// slowest rank, the communication operations; the step selector re-reads them for one step; the
// page's deep link (#run=…&view=distributed&step=…) opens the same place again. The run is
// two_rank_sampled (rank 0: the bundled sample; rank 1: tests/data), so ../shared is not needed;
// the hand-made diverging run shows what could not be matched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { navRows, openSite, repo, sampleTrace, withCheckedPage, rowsLabel } from './helpers.mjs';
import { expectedDistributed, readDistributed } from './view-checks.mjs';

const { server, browser, tmp } = await openSite({ tmp: true });
const T = { timeout: 120_000 };
const cli = path.join(repo, 'build', 'native', 'kinetoscope');

// The run as tb_plugin names rank files: <worker>.pt.trace.json.gz.
const RUN = 'two_rank_sampled';
const runDir = path.join(tmp, RUN);
fs.mkdirSync(runDir, { recursive: true });
fs.copyFileSync(sampleTrace, path.join(runDir, 'rank-0.pt.trace.json.gz'));
fs.copyFileSync(path.join(repo, 'tests', 'data', 'two-rank-sampled-rank-1.json.gz'), path.join(runDir, 'rank-1.pt.trace.json.gz'));
const diverging = path.join(repo, 'tests', 'data', 'distributed-diverging-ranks');

const cliView = (dir) => JSON.parse(execFileSync(cli, ['distributed', '--json', dir], { encoding: 'utf8' }).trim().split('\n')[0]);

/** Opens `dir` as a folder and waits until all its traces have loaded. */
async function openRun(page, dir, n) {
  await page.setInputFiles('[data-testid=folder-input]', dir);
  await page.waitForFunction((k) => document.querySelectorAll('[data-testid=nav-trace][data-status=done]').length === k, n, { timeout: 90_000 });
}

describe('run page: Distributed view', () => {
  it('selecting a run shows its Distributed view with the CLI\'s numbers; a step and the deep link', T, async () => {
    const want = cliView(runDir);
    let link = '';
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await openRun(page, runDir, 2);
      const runRow = (await navRows(page)).find((r) => r.kind === 'run');
      assert.equal(runRow.run, RUN);
      await page.click(`[data-testid=nav-run][data-run="${RUN}"]`);
      await page.waitForSelector('[data-testid=run-page][data-state=ready] [data-testid=distributed][data-step=all]');
      // The run row is the selection now; no trace card is shown.
      assert.equal(await page.getAttribute(`[data-testid=nav-run][data-run="${RUN}"]`, 'aria-selected'), 'true');
      assert.equal(await page.$('[data-testid=file-card]:not([hidden])'), null);
      assert.equal(await page.getAttribute('[data-testid=distributed]', 'data-workers'), '2');
      assert.deepEqual(await readDistributed(page), expectedDistributed(want, 'all'));
      // Devices and the communication table: one row per worker and operation, as the CLI's.
      assert.deepEqual(await page.$$eval('[data-testid=dist-device-row]', (rs) => rs.map((r) => r.dataset.worker)), ['rank-0', 'rank-1']);
      const opRows = Object.values(want.commops).reduce((n, rows) => n + rows.length, 0);
      assert.equal(await page.textContent('[data-testid=commops-status]'), rowsLabel(opRows));
      // What could not be matched is said, as the CLI says it.
      assert.deepEqual(await page.$$eval('[data-testid=dist-note]', (ns) => ns.map((n) => n.textContent)), want.matching.notes);

      // One step: every part re-reads it, and the hash names it.
      await page.selectOption('[data-testid=dist-step]', '552');
      await page.waitForSelector('[data-testid=distributed][data-step="552"]');
      assert.deepEqual(await readDistributed(page), expectedDistributed(want, '552'));
      await page.waitForFunction(() => location.hash.includes('step=552'));
      link = await page.evaluate(() => location.hash);
      assert.equal(link, `#run=${RUN}&view=distributed&step=552`);

      // A trace row takes the page back to that trace.
      await page.click('[data-testid=nav-trace][data-file="rank-1.pt.trace.json.gz"]');
      await page.waitForSelector('[data-testid=file-card][data-file="rank-1.pt.trace.json.gz"]:not([hidden])');
      assert.equal(await page.$('[data-testid=run-page]'), null);
    });

    // The link, opened on a fresh page, shows the run page at that step once the run is open.
    await withCheckedPage(browser, server.url + link, async (page) => {
      await openRun(page, runDir, 2);
      await page.waitForSelector(`[data-testid=run-page][data-run="${RUN}"] [data-testid=distributed][data-step="552"]`);
      assert.equal(await page.inputValue('[data-testid=dist-step]'), '552');
      assert.deepEqual(await readDistributed(page), expectedDistributed(want, '552'));
    });
  });

  it('ranks that diverge: matched up to where they differ, the rest shown apart and said', T, async () => {
    const want = cliView(diverging);
    await withCheckedPage(browser, server.url, async (page) => {
      await openRun(page, diverging, 2);
      await page.click('[data-testid=nav-run][data-run="distributed-diverging-ranks"]');
      await page.waitForSelector('[data-testid=run-page][data-state=ready] [data-testid=distributed]');
      assert.deepEqual(await readDistributed(page), expectedDistributed(want, 'all'));
      const notes = await page.$$eval('[data-testid=dist-note]', (ns) => ns.map((n) => n.textContent));
      assert.deepEqual(notes, want.matching.notes);
      assert.match(notes[0], /process group \[0, 1\]: matched 2 calls/);
      // The straggler: rank 1, 50 us per step behind the median.
      const s = await readDistributed(page);
      assert.deepEqual(s.straggler, { step: 'all', slowest: 'rank-1', median: 1050, behind: 50 });
    });
  });

  // The two-rank gloo DDP run (tests/data/h200_pt211/ddp_gloo2): its ranks' steps differ by
  // 0.07 %, under the 5 % threshold: no worker is shown as a straggler in red. Its step chart's
  // axis has ticks 0, 5, 10, 15, 20, 25 ms for ~21.4 ms bars; its two gloo all_reduce rows with no
  // process group say why on hover, and the footnote why two rows of one collective differ.
  it('gloo run: no red straggler for a 0.07 % difference, an axis with several ticks, absent process groups explained', T, async () => {
    const gloo = path.join(tmp, 'ddp_gloo2');
    fs.cpSync(path.join(repo, 'tests', 'data', 'h200_pt211', 'ddp_gloo2'), gloo, { recursive: true });
    const want = cliView(gloo).stragglers.find((s) => s.step === 'all');
    assert.ok(want.behind_median_pct < 0.1);
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await openRun(page, gloo, 2);
      await page.click('[data-testid=nav-run][data-run="ddp_gloo2"]');
      await page.waitForSelector('[data-testid=run-page][data-state=ready] [data-testid=dist-stragglers]');
      assert.equal(await page.getAttribute('[data-testid=dist-stragglers]', 'data-straggler'), 'no');
      const sentence = await page.textContent('[data-testid=straggler-sentence]');
      assert.match(sentence, /^Slowest: rank 1, .*\(0\.07 %\) behind the median .*No straggler: no worker is 5 % or more behind the median\.$/);
      assert.ok(!(await page.textContent('[data-testid=dist-stragglers] .ov-legend')).includes('Straggler'), 'no red entry in the legend');
      // The ms axis's ticks (uPlot draws them on a canvas; the panel says which it was given).
      assert.equal(await page.getAttribute('[data-testid=dist-stragglers]', 'data-y-ticks'), '0 5 10 15 20 25');
      // Collectives without a process group: "—" with the reason on hover.
      const cells = await page.$$eval('[data-testid=collectives-cell-process_group]', (tds) => tds.map((td) => ({ text: td.textContent, title: td.getAttribute('title') })));
      assert.equal(cells.length, 2);
      for (const c of cells) {
        assert.equal(c.text, '—');
        assert.match(c.title, /no process group/);
      }
      assert.match(await page.textContent('[data-testid=dist-collectives] .dist-foot'), /rows of the same collective in the same group differ in their size/);
    });
  });
});
