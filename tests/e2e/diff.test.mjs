// The Diff view (issue 11): on ../shared/traces/resnet50_num_workers_0 (one worker, two spans) the
// Diff tab of span 1 compares it with span 2, and what the page shows — the totals, one pair of
// bars per part, the operator table — equals `kinetoscope diff --json`; a click on a bar zooms into
// that part and the breadcrumbs go back; swapping makes span 2 the baseline; the pair and the node
// zoomed into are in the deep link, which opens the same place again. Skips when ../shared is absent.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, chartBox, cellNum, cliHas, openSite, pickFiles, repo, runCliJson, settled, sharedTraces, showTrace, tableRows, withCheckedPage } from './helpers.mjs';

const { server, browser } = await openSite();
const T = { timeout: 120_000 };
const dir = path.join(sharedTraces, 'resnet50_num_workers_0');
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json.gz')).sort().map((f) => path.join(dir, f)) : [];
const skip = files.length !== 2 ? '../shared/traces/resnet50_num_workers_0 is absent' : !cliHas('diff') && 'the CLI has no diff command';
const [A, B] = files.map((f) => path.basename(f));
const ranksDir = path.join(sharedTraces, 'two_rank_sampled');
const ranks = ['rank-0.json.gz', 'rank-1.json.gz'].map((f) => path.join(ranksDir, f));
const skipRanks = !ranks.every((f) => fs.existsSync(f)) ? '../shared/traces/two_rank_sampled is absent' : !cliHas('diff') && 'the CLI has no diff command';

const threadsTextOf = (n) => {
  const a = n.baseline.threads, b = n.experiment.threads, word = (k) => (k === 1 ? 'thread' : 'threads');
  return a === b ? `${a} ${word(a)}` : `${a} → ${b} ${word(b)}`;
};
const near = (a, b) => Math.abs(a - b) <= 0.005 + 1e-9;

/** Opens both spans and span 1's Diff tab; waits for the comparison. */
async function openDiff(page) {
  await pickFiles(page, files);
  assert.equal(await settled(page, B), 'done');
  assert.equal(await settled(page, A), 'done');
  const c = card(A);
  await page.click(`${c} [data-testid=tab-diff]`);
  await page.waitForSelector(`${c} [data-testid=diff-view][data-state=ready]`);
  return c;
}

/** The totals shown for the node in view equal the CLI node's. */
async function assertTotals(page, c, node, label) {
  for (const [id, f] of [['host', 'duration_us'], ['device', 'device_duration_us'], ['total', 'total_duration_us']]) {
    const el = `${c} [data-testid=diff-total-${id}]`;
    assert.ok(near(Number(await page.getAttribute(el, 'data-baseline')), node.baseline[f]), `${label}: baseline ${f}`);
    assert.ok(near(Number(await page.getAttribute(el, 'data-experiment')), node.experiment[f]), `${label}: experiment ${f}`);
  }
}

/** Each operator row shown equals the CLI's aggregation of that name on both sides. */
async function assertOperators(page, c, node, label) {
  const rows = await tableRows(page, c, 'diff');
  assert.ok(rows.length > 0, `${label}: operator rows shown`);
  const side = (s) => new Map(s.aggs.map((a) => [a.name, a]));
  const base = side(node.baseline), exp = side(node.experiment);
  const names = new Set([...base.keys(), ...exp.keys()]);
  assert.equal(await page.textContent(`${c} [data-testid=diff-status]`).then((t) => Number(t.match(/\d[\d,]*/)[0].replace(/,/g, ''))), names.size, `${label}: row count`);
  const pairs = [['host_total', 'host_duration_us'], ['host_self', 'self_host_duration_us'], ['device_total', 'device_duration_us'], ['device_self', 'self_device_duration_us']];
  for (const r of rows) {
    const b = base.get(r.name), e = exp.get(r.name);
    assert.ok(b || e, `${label}: ${r.name} is one of the CLI's operators`);
    assert.equal(cellNum(r.cells.calls_base), b?.calls ?? 0, `${label}: ${r.name} baseline calls`);
    assert.equal(cellNum(r.cells.calls_exp), e?.calls ?? 0, `${label}: ${r.name} experiment calls`);
    for (const [id, f] of pairs) {
      const bv = b?.[f] ?? 0, ev = e?.[f] ?? 0;
      // The self times' two sides start hidden (Columns menu); their difference is shown.
      if (id.endsWith('_self')) {
        assert.ok(near(cellNum(r.cells[`${id}_diff_us`]), ev - bv), `${label}: ${r.name} ${id} difference`);
        continue;
      }
      assert.ok(near(cellNum(r.cells[`${id}_base_us`]), bv), `${label}: ${r.name} ${id} baseline ${r.cells[`${id}_base_us`]} vs ${bv}`);
      assert.ok(near(cellNum(r.cells[`${id}_exp_us`]), ev), `${label}: ${r.name} ${id} experiment`);
      assert.ok(near(cellNum(r.cells[`${id}_diff_us`]), ev - bv), `${label}: ${r.name} ${id} difference`);
    }
  }
}

/**
 * Clicks the bar pair of child `i` (of `n`) in the bar chart. The chart zooms into the pair its
 * cursor is on, which uPlot moves on a later animation frame than the mouse: the click waits for
 * the hover readout to name that pair (on a loaded machine the click came first and was lost).
 */
async function clickBar(page, c, i, n) {
  const box = await chartBox(page, `${c} [data-testid=diff-bar-chart]`);
  const x = box.x + ((i + 0.5) / n) * box.width, y = box.y + box.height - 4;
  await page.mouse.move(x, y);
  const hover = await page.waitForSelector(`${c} [data-testid=diff-hover-text][data-index="${i}"]`);
  const text = await hover.textContent();
  await page.mouse.click(x, y);
  return text;
}

describe('Diff view', () => {
  it('span 1 against span 2: totals, bars and operators equal `kinetoscope diff --json`; zoom, breadcrumbs, swap, deep link', { ...T, skip }, async () => {
    const want = runCliJson(['diff', '--json', ...files]);
    const root = want.tree;
    let link;
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openDiff(page);
      const view = `${c} [data-testid=diff-view]`;
      assert.equal(await page.getAttribute(view, 'data-experiment'), B, 'the worker\'s next span is the experiment');
      assert.equal(await page.getAttribute(view, 'data-node'), '0');
      await assertTotals(page, c, root, 'top');
      assert.equal(Number(await page.getAttribute(`${c} [data-testid=diff-bars]`, 'data-columns')), root.children.length);
      await assertOperators(page, c, root, 'top');
      // Search and sort as in the other tables (case-insensitive: the autograd thread's
      // ConvolutionBackward0 is among the root's operators).
      await page.fill(`${c} [data-testid=diff-search]`, 'conv');
      await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].every((r) => r.getAttribute('data-name').toLowerCase().includes('conv')), `${c} [data-testid=diff-row]`);
      await page.fill(`${c} [data-testid=diff-search]`, '');

      // Every thread is compared: the main thread and the autograd (backward) thread are the parts
      // of the top, one row each in the table of roles. Zoom into the main thread, then back.
      assert.deepEqual(root.children.map((x) => x.role), ['main', 'autograd']);
      assert.deepEqual(await page.$$eval(`${c} [data-testid=diff-role]`, (rs) => rs.map((r) => r.getAttribute('data-role'))), ['main', 'autograd']);
      const i = 0;
      const child = root.children[i];
      // The readout names the pair under the mouse (its role's threads) before the click zooms in.
      const hovered = await clickBar(page, c, i, root.children.length);
      assert.ok(hovered.startsWith(`${child.name} (${threadsTextOf(child)}): baseline `), `hover readout: ${hovered}`);
      assert.match(hovered, /click to zoom in$/);
      await page.waitForSelector(`${view}[data-node="${child.path}"][data-state=ready]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=diff-crumbs]`, 'data-depth'), '2');
      await assertTotals(page, c, child, child.path);
      await assertOperators(page, c, child, child.path);
      link = await page.evaluate(() => location.hash);
      assert.match(link, /view=diff/);
      assert.match(link, new RegExp(`node=${child.path}`));
      assert.match(link, /vs_worker=worker0&vs_span=2/);
      await page.click(`${c} [data-testid=diff-crumb][data-path="0"]`);
      await page.waitForSelector(`${view}[data-node="0"]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=diff-crumbs]`, 'data-depth'), '1');

      // Swap: span 2's card shows its Diff tab against span 1, the numbers mirrored.
      await page.click(`${c} [data-testid=diff-swap]`);
      const c2 = card(B);
      await page.waitForSelector(`${c2} [data-testid=diff-view][data-state=ready][data-experiment="${A}"]`);
      const back = runCliJson(['diff', '--json', files[1], files[0]]).tree;
      await assertTotals(page, c2, back, 'swapped');
      assert.equal(back.baseline.duration_us, root.experiment.duration_us);
    });

    // The link opens the same pair and node in a fresh page once both spans are open.
    await withCheckedPage(browser, server.url + link, async (page) => {
      await pickFiles(page, files);
      assert.equal(await settled(page, B), 'done');
      await showTrace(page, A);
      const c = card(A);
      await page.waitForSelector(`${c} [data-testid=tab-diff][aria-selected=true]`);
      const child = root.children[0];
      await page.waitForSelector(`${c} [data-testid=diff-view][data-state=ready][data-node="${child.path}"][data-experiment="${B}"]`);
      await assertTotals(page, c, child, 'from the link');
    });
  });

  it('two DDP ranks (gloo, PyTorch 2.11): every thread by role, each row equal to `kinetoscope diff --json`', T, async () => {
    const dir = path.join(repo, 'tests/data/h200_pt211/ddp_gloo2');
    const pair = fs.readdirSync(dir).filter((f) => f.endsWith('.pt.trace.json.gz')).sort().map((f) => path.join(dir, f));
    const [r0, r1] = pair.map((f) => path.basename(f));
    const want = runCliJson(['diff', '--json', ...pair]).tree;
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, pair);
      assert.equal(await settled(page, r1), 'done');
      assert.equal(await settled(page, r0), 'done');
      const c = card(r0);
      await page.click(`${c} [data-testid=tab-diff]`);
      await page.waitForSelector(`${c} [data-testid=diff-view][data-state=ready][data-experiment="${r1}"]`);
      await assertTotals(page, c, want, 'ddp root');
      const rows = await page.$$eval(`${c} [data-testid=diff-role]`, (rs) =>
        rs.map((r) => ({
          role: r.getAttribute('data-role'),
          threads: r.querySelector('[data-testid=diff-role-threads]').textContent,
          b: Number(r.querySelector('[data-testid=diff-role-device-b]').getAttribute('data-us')),
          e: Number(r.querySelector('[data-testid=diff-role-device-e]').getAttribute('data-us')),
        })),
      );
      assert.deepEqual(rows.map((r) => r.role), ['main', 'autograd', 'communication']);
      want.children.forEach((w, k) => {
        assert.ok(near(rows[k].b, w.baseline.device_duration_us) && near(rows[k].e, w.experiment.device_duration_us), `${w.role} device`);
        assert.equal(rows[k].threads, `${w.baseline.threads} → ${w.experiment.threads}`);
      });
      // The roles add up to the root: nothing of the steps' device work is left out.
      assert.ok(near(rows.reduce((a, r) => a + r.b, 0), want.baseline.device_duration_us));
      // A role's row opens it: the communication threads (gloo's), two on rank 1.
      await page.click(`${c} [data-testid=diff-role][data-role=communication] [data-testid=diff-role-open]`);
      await page.waitForSelector(`${c} [data-testid=diff-view][data-node="0-2"]`);
      assert.equal(await page.textContent(`${c} [data-testid=diff-crumb-current]`), 'Communication');
      assert.equal(await page.textContent(`${c} [data-testid=diff-threads] span:last-child`), threadsTextOf(want.children[2]));
      await assertTotals(page, c, want.children[2], 'communication');
    });
  });

  it('two ranks (PyTorch 2.x): rank 0 against rank 1 equals `kinetoscope diff --json`', { ...T, skip: skipRanks }, async () => {
    const want = runCliJson(['diff', '--json', ...ranks]).tree;
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, ranks);
      assert.equal(await settled(page, 'rank-1.json.gz'), 'done');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      const c = card('rank-0.json.gz');
      await page.click(`${c} [data-testid=tab-diff]`);
      await page.waitForSelector(`${c} [data-testid=diff-view][data-state=ready][data-experiment="rank-1.json.gz"]`);
      await assertTotals(page, c, want, 'ranks');
      assert.ok(want.baseline.device_duration_us > 0, 'kernels reach the operators in default mode');
      assert.equal(Number(await page.getAttribute(`${c} [data-testid=diff-bars]`, 'data-columns')), want.children.length);
      await assertOperators(page, c, want, 'ranks');
    });
  });
});
