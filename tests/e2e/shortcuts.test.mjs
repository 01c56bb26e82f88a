// Keyboard shortcuts on the built site: 1-9 switch views, "/" focuses the table search, Esc
// leaves it or closes the list, "?" lists the shortcuts; typing in a search never switches views.
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
      await page.keyboard.press('9');  // no ninth view: nothing changes
      assert.equal(await selected(page), 'tab-kernels');
    });
  });
});
