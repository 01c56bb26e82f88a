// Keyboard shortcuts on the built site: 1-9 switch views, "/" focuses the table search, Esc
// leaves it or closes the list, else deselects the table row (closing its detail panel), "?" lists
// the shortcuts; typing in a search never switches views.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withCheckedPage, openSite } from './helpers.mjs';

const { server, browser } = await openSite();

const selected = (page) => page.$eval('[data-testid=file-card] [role=tab][aria-selected=true]', (b) => b.dataset.testid);
const focused = (page) => page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);

describe('keyboard shortcuts', () => {
  it('switch views, focus the search, list and close, and leave typing alone', async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      await page.waitForSelector('[data-testid=tab-operators]', { timeout: 60000 });
      await page.locator('body').click({ position: { x: 5, y: 5 } });

      await page.keyboard.press('2');
      assert.equal(await selected(page), 'tab-operators');
      await page.waitForSelector('[data-testid=op-row]');
      await page.keyboard.press('/');
      assert.equal(await focused(page), 'op-search');
      await page.keyboard.type('12');  // digits typed into the search, not tab switches
      assert.equal(await page.inputValue('[data-testid=op-search]'), '12');
      assert.equal(await selected(page), 'tab-operators');
      await page.keyboard.press('Escape');
      assert.notEqual(await focused(page), 'op-search');
      await page.fill('[data-testid=op-search]', '');
      await page.locator('body').click({ position: { x: 5, y: 5 } });

      await page.keyboard.press('Shift+?');
      const help = await page.waitForSelector('[data-testid=shortcuts-help]');
      const text = await help.textContent();
      for (const k of ['1 – 9', '/', 'Esc', '?']) assert.ok(text.includes(k), `the list names ${k}`);
      await page.keyboard.press('1');  // ignored while the list is open
      assert.equal(await selected(page), 'tab-operators');
      await page.keyboard.press('Escape');
      assert.equal(await page.$('[data-testid=shortcuts-help]'), null);

      await page.keyboard.press('1');
      assert.equal(await selected(page), 'tab-overview');
      await page.keyboard.press('3');
      assert.equal(await selected(page), 'tab-kernels');
      // The sample has nine views since its Roofline tab (its matmuls are counted, issue 25): 9 is
      // the ninth; a digit past the last view changes nothing (a tab list of eight: 9 is past it).
      const tabs = await page.$$eval('[role=tab]', (t) => t.map((b) => b.dataset.testid));
      await page.keyboard.press('9');
      assert.equal(await selected(page), tabs.length >= 9 ? tabs[8] : 'tab-kernels');
    });
  });

  it('Esc closes one thing at a time: the list, the search box, then the selected row and its detail panel', async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      await page.waitForSelector('[data-testid=tab-operators]', { timeout: 60000 });
      await page.click('[data-testid=tab-operators]');
      await page.waitForSelector('[data-testid=op-row]');
      const rowSel = '[data-testid=op-row][aria-selected=true]';
      const hashRow = () => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('row'));
      const pick = await page.getAttribute('[data-testid=op-row] >> nth=1', 'data-name');
      await page.click('[data-testid=op-row] >> nth=1');
      await page.waitForSelector('[data-testid=op-detail-name]');
      assert.equal(await hashRow(), pick);

      // In the search box: the first Esc only leaves it, the row stays selected.
      await page.keyboard.press('/');
      assert.equal(await focused(page), 'op-search');
      await page.keyboard.press('Escape');
      assert.notEqual(await focused(page), 'op-search');
      assert.equal(await page.getAttribute(rowSel, 'data-name'), pick);
      // With the list open, Esc closes the list and nothing else.
      await page.keyboard.press('Shift+?');
      await page.waitForSelector('[data-testid=shortcuts-help]');
      await page.keyboard.press('Escape');
      assert.equal(await page.$('[data-testid=shortcuts-help]'), null);
      assert.equal(await page.getAttribute(rowSel, 'data-name'), pick);
      // Then Esc deselects: the detail panel closes, its hint comes back, row= leaves the hash.
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=op-detail-hint]');
      assert.equal(await page.$(rowSel), null);
      assert.equal(await page.$('[data-testid=op-detail-name]'), null);
      await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('row'));

      // With the focus nowhere (the page's body), Esc reaches the card all the same.
      await page.click('[data-testid=op-row] >> nth=0');
      await page.waitForSelector('[data-testid=op-detail-name]');
      await page.evaluate(() => document.activeElement?.blur());
      assert.equal(await focused(page), 'BODY');
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=op-detail-hint]');
      assert.equal(await page.$(rowSel), null);
    });
  });
});
