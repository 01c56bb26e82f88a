// Many ranks in one tab (issue 11), on a folder of runs as a person opens it: logs/ holding
// ../shared/traces/two_rank_sampled (its two rank files, named as tb_plugin names traces) and
// resnet50_num_workers_0 (one worker, two spans). The page loads the files in parallel in its pool
// of trace workers (navigator.hardwareConcurrency is made 2 here, whatever the machine), keeps
// each trace's summaries but only the open traces' full models, and reads a closed one again from
// its File when it is shown. Checked: the navigator, the run page's numbers against
// `kinetoscope distributed --json` on the same folder, the run page's "Compare…" into the Diff view
// (two ranks: loaded in different workers, brought together; two spans) against
// `kinetoscope diff --json`, and deep links: a reload on the hash, the folder opened again, lands
// on the same view. Skips when ../shared is absent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cellNum, cliHas, navRows, openSite, runCliJson, sharedTraces, tableRows, withCheckedPage } from './helpers.mjs';
import { expectedDistributed, readDistributed } from './view-checks.mjs';

const T = { timeout: 120_000 };
const ranksSrc = path.join(sharedTraces, 'two_rank_sampled');
const spansSrc = path.join(sharedTraces, 'resnet50_num_workers_0');
const skip = !fs.existsSync(ranksSrc) || !fs.existsSync(spansSrc)
  ? '../shared/traces (two_rank_sampled, resnet50_num_workers_0) is absent'
  : !cliHas('distributed') || !cliHas('diff') ? 'the CLI has no distributed or diff command' : false;

const site = skip ? null : await openSite({ tmp: true });
const logs = site ? path.join(site.tmp, 'logs') : '';
// The deep links' checks need only the two ranks: the same run name (logs/two_rank_sampled), less to load.
const ranksOnly = site ? path.join(site.tmp, 'ranks-only', 'logs') : '';
const RANKS = 'logs/two_rank_sampled';
const SPANS = 'logs/resnet50_num_workers_0';
let spanFiles = [];
if (site) {
  fs.mkdirSync(path.join(logs, 'two_rank_sampled'), { recursive: true });
  for (const r of [0, 1]) fs.copyFileSync(path.join(ranksSrc, `rank-${r}.json.gz`), path.join(logs, 'two_rank_sampled', `rank-${r}.pt.trace.json.gz`));
  fs.mkdirSync(path.join(logs, 'resnet50_num_workers_0'), { recursive: true });
  spanFiles = fs.readdirSync(spansSrc).filter((f) => f.endsWith('.pt.trace.json.gz')).sort();
  for (const f of spanFiles) fs.copyFileSync(path.join(spansSrc, f), path.join(logs, 'resnet50_num_workers_0', f));
  fs.cpSync(path.join(logs, 'two_rank_sampled'), path.join(ranksOnly, 'two_rank_sampled'), { recursive: true });
}
const rankFile = (r) => `rank-${r}.pt.trace.json.gz`;
const rankPath = (r) => path.join(logs, 'two_rank_sampled', rankFile(r));
const spanPath = (i) => path.join(logs, 'resnet50_num_workers_0', spanFiles[i]);

/** `dir` opened as a folder and loaded (the pages here have navigator.hardwareConcurrency = 2). */
async function openLogs(page, dir = logs) {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.setInputFiles('[data-testid=folder-input]', dir);
  return navRows(page); // waits until nothing is loading
}

const near = (a, b) => Math.abs(a - b) <= 0.005 + 1e-9;

/** The Diff view of card `c`: totals and every operator row equal the CLI's tree root. */
async function assertDiff(page, c, want, label) {
  for (const [id, f] of [['host', 'duration_us'], ['device', 'device_duration_us'], ['total', 'total_duration_us']]) {
    const el = `${c} [data-testid=diff-total-${id}]`;
    assert.ok(near(Number(await page.getAttribute(el, 'data-baseline')), want.baseline[f]), `${label}: baseline ${f}`);
    assert.ok(near(Number(await page.getAttribute(el, 'data-experiment')), want.experiment[f]), `${label}: experiment ${f}`);
  }
  assert.equal(Number(await page.getAttribute(`${c} [data-testid=diff-bars]`, 'data-columns')), want.children.length, `${label}: bars`);
  const side = (s) => new Map(s.aggs.map((a) => [a.name, a]));
  const base = side(want.baseline), exp = side(want.experiment);
  const rows = await tableRows(page, c, 'diff');
  assert.ok(rows.length > 0, `${label}: operator rows shown`);
  for (const r of rows) {
    const b = base.get(r.name), e = exp.get(r.name);
    assert.ok(b || e, `${label}: ${r.name} is one of the CLI's operators`);
    assert.equal(cellNum(r.cells.calls_base), b?.calls ?? 0, `${label}: ${r.name} baseline calls`);
    assert.equal(cellNum(r.cells.calls_exp), e?.calls ?? 0, `${label}: ${r.name} experiment calls`);
    for (const [id, f] of [['host_total', 'host_duration_us'], ['device_total', 'device_duration_us']]) {
      assert.ok(near(cellNum(r.cells[`${id}_base_us`]), b?.[f] ?? 0), `${label}: ${r.name} ${id} baseline`);
      assert.ok(near(cellNum(r.cells[`${id}_exp_us`]), e?.[f] ?? 0), `${label}: ${r.name} ${id} experiment`);
    }
  }
}

/** The run page of `run`, its Distributed view drawn. */
async function showRun(page, run) {
  await page.click(`[data-testid=nav-run][data-run="${run}"]`);
  await page.waitForSelector(`[data-testid=run-page][data-run="${run}"][data-state=ready] [data-testid=distributed]`);
}

/** Compare… on the run page shown, with its default pair (or `pick`): waits for the Diff view. */
async function compare(page, baseline, experiment) {
  await page.click('[data-testid=run-compare]');
  assert.equal(await page.$eval('[data-testid=compare-baseline]', (s) => s.selectedOptions[0].title), baseline, 'the baseline it starts with');
  assert.equal(await page.$eval('[data-testid=compare-experiment]', (s) => s.selectedOptions[0].title), experiment, 'the experiment it starts with');
  await page.click('[data-testid=compare-open]');
  const c = card(baseline);
  await page.waitForSelector(`${c}:not([hidden]) [data-testid=tab-diff][aria-selected=true]`);
  await page.waitForSelector(`${c} [data-testid=diff-view][data-state=ready][data-experiment="${experiment}"]`);
  assert.equal(await page.$('[data-testid=run-page]'), null, 'the run page made way for the card');
  return c;
}

describe('a folder of runs: pool of workers, run page, Compare…, deep links', { skip }, () => {
  it('loads in 2 workers, keeps one full model, shows the CLI\'s distributed and diff numbers, and reloads on its links', T, async () => {
    const dist = runCliJson(['distributed', '--json', path.join(logs, 'two_rank_sampled')]);
    const ranksDiff = runCliJson(['diff', '--json', rankPath(0), rankPath(1)]).tree;
    const spansDiff = runCliJson(['diff', '--json', spanPath(0), spanPath(1)]).tree;
    const links = {};
    const cores = { cores: 2 };
    await withCheckedPage(site.browser, site.server.url, async (page) => {
      const rows = await openLogs(page);
      // Navigation: both runs, resnet50's worker with its two spans, every trace loaded.
      assert.deepEqual(
        rows.map((r) => `${r.kind} ${r.kind === 'run' ? r.run : r.kind === 'worker' ? r.worker : `${r.file} ${r.status}`}`),
        [`run ${SPANS}`, 'worker worker0', `trace ${spanFiles[0]} done`, `trace ${spanFiles[1]} done`, `run ${RANKS}`, `trace ${rankFile(0)} done`, `trace ${rankFile(1)} done`],
      );
      // Two workers, both used; only the trace shown keeps its full model.
      const analysis = '[data-testid=analysis]';
      assert.equal(await page.getAttribute(analysis, 'data-pool'), '2');
      assert.equal(await page.getAttribute(analysis, 'data-pool-used'), '2');
      await page.waitForSelector(`${analysis}[data-models="1"]`);
      assert.equal(await page.getAttribute(analysis, 'data-rereads'), '0');

      // The run page of the two ranks: the CLI's numbers, from the rank summaries alone.
      await showRun(page, RANKS);
      assert.equal(await page.getAttribute('[data-testid=distributed]', 'data-workers'), '2');
      assert.deepEqual(await readDistributed(page), expectedDistributed(dist));
      assert.deepEqual(await page.$$eval('[data-testid=dist-device-row]', (rs) => rs.map((r) => r.dataset.worker)), ['rank-0', 'rank-1']);
      assert.equal(await page.getAttribute(analysis, 'data-rereads'), '0', 'the run page needs no full model');
      links.run = await page.evaluate(() => location.hash);
      assert.equal(links.run, `#run=${encodeURIComponent(RANKS)}&view=distributed`);

      // Compare… two ranks: both were closed; they are read again, into one worker, and diffed.
      let c = await compare(page, rankFile(0), rankFile(1));
      assert.ok(Number(await page.getAttribute(analysis, 'data-rereads')) >= 1, 'the closed ranks were read again from their files');
      assert.equal(await page.getAttribute(c, 'data-model'), 'loaded');
      await assertDiff(page, c, ranksDiff, 'ranks');
      links.ranks = await page.evaluate(() => location.hash);
      assert.match(links.ranks, /view=diff/);
      assert.match(links.ranks, /vs_worker=rank-1/);

      // Compare… two spans of resnet50's worker.
      await showRun(page, SPANS);
      c = await compare(page, spanFiles[0], spanFiles[1]);
      await assertDiff(page, c, spansDiff, 'spans');

      // A trace shown from the navigator: its model is read again, its tables answer.
      const before = Number(await page.getAttribute(analysis, 'data-rereads'));
      await page.click(`[data-testid=nav-trace][data-file="${rankFile(1)}"]`);
      c = card(rankFile(1));
      await page.waitForSelector(`${c}:not([hidden])[data-model=loaded]`);
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);
      assert.ok(Number(await page.getAttribute(analysis, 'data-rereads')) > before, 'rank 1 (closed once the spans were compared) was read again');
      // However many were shown, the models kept are the open one and the two shown last.
      assert.ok(Number(await page.getAttribute(analysis, 'data-models')) <= 3);
    }, cores);

    // Deep links: reloading on each hash and opening the folder again lands on the same view.
    await withCheckedPage(site.browser, site.server.url + links.run, async (page) => {
      await openLogs(page, ranksOnly);
      await page.waitForSelector(`[data-testid=run-page][data-run="${RANKS}"][data-state=ready] [data-testid=distributed]`);
      assert.deepEqual(await readDistributed(page), expectedDistributed(dist));
    }, cores);
    await withCheckedPage(site.browser, site.server.url + links.ranks, async (page) => {
      await openLogs(page, ranksOnly);
      const c = card(rankFile(0));
      await page.waitForSelector(`${c}:not([hidden]) [data-testid=diff-view][data-state=ready][data-experiment="${rankFile(1)}"]`);
      await assertDiff(page, c, ranksDiff, 'ranks from the link');
    }, cores);
  });
});
