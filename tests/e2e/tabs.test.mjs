// The view tabs of a trace and the page around them, by keyboard and at a small window: at
// 1024x768 with Modules and Diff both present every tab lies inside the card (the tab bar wraps);
// ← → Home End move between tabs and show them (ARIA tabs); "?" lists every tab of the trace in
// view with its number; a data table and the Overview's step rows are reached and opened without a
// mouse. And "Opened files" that are not one run's ranks show as a list of files, not a
// Distributed page; "Opening N traces…" goes once they have loaded. Uses the two traces of
// ../shared/traces/h100_pt211 (a ViT step with modules, a one-rank NCCL step).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, hasShared, navRow, openSite, pickFiles, settled, sharedTraces, withCheckedPage } from './helpers.mjs';

const { server, browser } = await openSite();
const T = { timeout: 180_000, skip: !hasShared && 'no ../shared/traces' };
const dir = path.join(sharedTraces, 'h100_pt211');
const vit = path.join(dir, 'vit_timm', 'vit_timm_rank0.1795712510372129229.pt.trace.json.gz');
const nccl = path.join(dir, 'ddp_nccl1', 'nccl_rank0.1795711042798852356.pt.trace.json.gz');
const VIT = path.basename(vit);
const NCCL = path.basename(nccl);

async function openBoth(page) {
  await pickFiles(page, [vit, nccl]);
  assert.equal(await settled(page, NCCL), 'done');
  assert.equal(await settled(page, VIT), 'done');
  await page.waitForSelector(`${card(VIT)} [data-testid=tab-modules]`);
  await page.waitForSelector(`${card(VIT)} [data-testid=tab-ranges]`);  // the ViT step's record_function ranges
  await page.waitForSelector(`${card(VIT)} [data-testid=tab-roofline]`);  // its matmuls and attention counted (issue 25)
  await page.waitForSelector(`${card(VIT)} [data-testid=tab-diff]`);
}

const selectedTab = (page) => page.$eval(`${card(VIT)} [role=tab][aria-selected=true]`, (b) => b.dataset.testid);
const focusedTab = (page) => page.evaluate(() => document.activeElement?.dataset?.testid ?? null);

describe('view tabs', () => {
  it('at 1024x768 every tab is inside the card, Modules, Ranges, GPU time, Roofline and Diff included', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1024, height: 768 });
      await openBoth(page);
      const boxes = await page.$$eval(`${card(VIT)} [role=tab]`, (tabs) => {
        const c = tabs[0].closest('[data-testid=file-card]').getBoundingClientRect();
        return tabs.map((t) => ({ id: t.dataset.testid, right: t.getBoundingClientRect().right, cardRight: c.right, visible: t.checkVisibility() }));
      });
      assert.deepEqual(boxes.map((b) => b.id), ['tab-overview', 'tab-operators', 'tab-kernels', 'tab-modules', 'tab-ranges', 'tab-gpu-time', 'tab-roofline', 'tab-trace', 'tab-memory', 'tab-timeline', 'tab-diff']);
      for (const b of boxes) assert.ok(b.visible && b.right <= b.cardRight, `${b.id} ends at ${b.right}, the card at ${b.cardRight}`);
      // The last tab can be clicked where it is.
      await page.click(`${card(VIT)} [data-testid=tab-diff]`);
      assert.equal(await selectedTab(page), 'tab-diff');
    });
  });

  it('← → Home End move between tabs and show them; only the shown tab is in the Tab order', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await openBoth(page);
      await page.focus(`${card(VIT)} [data-testid=tab-overview]`);
      await page.keyboard.press('ArrowRight');
      assert.equal(await selectedTab(page), 'tab-operators');
      assert.equal(await focusedTab(page), 'tab-operators');
      await page.keyboard.press('End');
      assert.equal(await selectedTab(page), 'tab-diff');
      await page.keyboard.press('ArrowRight');  // wraps to the first
      assert.equal(await selectedTab(page), 'tab-overview');
      await page.keyboard.press('ArrowLeft');
      assert.equal(await selectedTab(page), 'tab-diff');
      await page.keyboard.press('Home');
      assert.equal(await selectedTab(page), 'tab-overview');
      const order = await page.$$eval(`${card(VIT)} [role=tab]`, (tabs) => tabs.map((t) => t.tabIndex));
      assert.deepEqual(order, [0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]);
    });
  });

  it('"?" lists every tab of the trace in view with its key', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await openBoth(page);
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('Shift+?');
      const items = await page.$$eval('[data-testid=shortcuts-views] li', (li) => li.map((l) => l.textContent.replace(/\s+/g, ' ').trim()));
      // Keys 1-9: the tenth and eleventh tabs (Timeline and Diff, after Roofline) are reached by the arrows.
      assert.deepEqual(items, ['1 Overview', '2 Operators', '3 Kernels', '4 Modules', '5 Ranges', '6 GPU time', '7 Roofline', '8 Trace', '9 Memory']);
      await page.keyboard.press('Escape');
      await page.keyboard.press('4');
      assert.equal(await selectedTab(page), 'tab-modules');
    });
  });

  it('a table and the step rows are reached and opened by keyboard', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await openBoth(page);
      // The Overview's step rows take the focus; Enter shows that step.
      const stepRow = `${card(VIT)} [data-testid^=step-row-]:not([data-testid=step-row-average])`;
      await page.waitForSelector(stepRow);
      await page.focus(stepRow);
      await page.keyboard.press('Enter');
      await page.waitForSelector(`${card(VIT)} tr.selected[data-testid^=step-row-]:not([data-testid=step-row-average])`);
      await page.focus(`${card(VIT)} [data-testid=step-row-average]`);
      await page.keyboard.press('Enter');
      await page.waitForSelector(`${card(VIT)} tr.selected[data-testid=step-row-average]`);
      // The Kernels table: focused, Enter opens its first row's details, ↓ the next row's.
      await page.click(`${card(VIT)} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${card(VIT)} [data-testid=kernel-row]`);
      await page.focus(`${card(VIT)} [data-testid=panel-kernels] .dt-scroll`);
      await page.keyboard.press('Enter');
      const first = await page.getAttribute(`${card(VIT)} [data-testid=kernel-row] >> nth=0`, 'data-name');
      await page.waitForSelector(`${card(VIT)} [data-testid=kernel-detail-name]`);
      assert.equal(await page.getAttribute(`${card(VIT)} [data-testid=kernel-row][aria-selected=true]`, 'data-name'), first);
      await page.keyboard.press('ArrowDown');
      const second = await page.getAttribute(`${card(VIT)} [data-testid=kernel-row] >> nth=1`, 'data-name');
      assert.equal(await page.getAttribute(`${card(VIT)} [data-testid=kernel-row][aria-selected=true]`, 'data-name'), second);
    });
  });
});

describe('opened files that are not a run', () => {
  it('the "Opened files" group lists the files with their summaries, not a Distributed page', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await openBoth(page);
      await page.click('[data-testid=nav-run][data-run=""]');
      await page.waitForSelector('[data-testid=run-page][data-state=files]');
      assert.equal(await page.$('[data-testid=run-page] [data-testid=distributed]'), null, 'no Distributed view');
      assert.equal(await page.$('[data-testid=run-page] .run-view-title'), null, 'no "Distributed" heading');
      const rows = await page.$$eval('[data-testid=opened-file]', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      assert.deepEqual(rows.map((r) => [r[0], r[1], r[4]]), [
        [NCCL, '5,000', '0 of 1'],
        [VIT, '57,167', '—'],
      ]);
      // A click on a file shows it.
      await page.click(`[data-testid=opened-file][data-file="${VIT}"] button`);
      await page.waitForSelector(`${card(VIT)}`, { state: 'visible' });
    });
  });

  it('"Opening 1 trace from 1 run." goes once the trace has loaded', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setInputFiles('[data-testid=folder-input]', path.join(dir, 'ddp_nccl1'));
      await page.waitForSelector(`${navRow(NCCL)}[data-status=done]`, { state: 'attached', timeout: 60_000 });
      await page.waitForSelector('[data-testid=notice]', { state: 'detached' });
    });
  });
});
