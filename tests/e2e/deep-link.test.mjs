// Deep links on the built site: the hash follows the view, step, grouping, sorting, search and
// selected row of the card in use, and a new page opened on that link shows the same place once
// the same trace is loaded (a hash pasted into an open tab is applied too). A hash naming
// another file, or holding garbage, leaves a loaded file as it opens.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, navRow, pickFiles, readTableRows, sampleTrace, settled, withCheckedPage, openSite } from './helpers.mjs';

const { server, browser, tmp } = await openSite({ tmp: true });

const NAME = 'rank-0.json.gz';
const c = card(NAME);
const T = { timeout: 240_000 };

/** Opens the bundled sample with the drop zone's button and waits until it is loaded. */
async function openSample(page) {
  await page.click('[data-testid=open-sample]');
  assert.equal(await settled(page, NAME), 'done');
}

const hashOf = (page) => page.evaluate(() => location.hash);
const params = (hash) => Object.fromEntries(new URLSearchParams(hash.replace(/^#/, '')));
const shownTab = (page, scope = c) => page.$eval(`${scope} [role=tab][aria-selected=true]`, (b) => b.dataset.testid);

/** Waits until the hash holds every `want` field (and nothing for the keys set to undefined). */
async function waitHash(page, want) {
  await page.waitForFunction((want) => {
    const got = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
    return Object.entries(want).every(([k, v]) => (v === undefined ? !(k in got) : got[k] === v));
  }, want);
  return hashOf(page);
}

/** What a view's table shows: the rows in order, the selection, sorting, search and status. */
async function tableState(page, stem, scope = c) {
  const rows = await readTableRows(page, scope, stem);
  return {
    tab: await shownTab(page, scope),
    group: await page.inputValue(`${scope} [data-testid=${stem === 'op' ? 'op-group-by' : 'kernel-group-by'}]`),
    sorted: await page.$$eval(`${scope} [data-testid^=${stem}-header-][aria-sort]`, (ths) => ths.map((th) => [th.dataset.testid, th.getAttribute('aria-sort')])),
    search: await page.inputValue(`${scope} [data-testid=${stem}-search]`),
    status: await page.textContent(`${scope} [data-testid=${stem}-status]`),
    order: rows.map((r) => r.name),
    selected: rows.filter((r) => r.selected).map((r) => r.name),
  };
}

/** Types a search that leaves at least two rows (of the candidates) and waits for the filter. */
async function searchSome(page, stem, candidates) {
  for (const q of candidates) {
    await page.fill(`${c} [data-testid=${stem}-search]`, q);
    const status = await page.textContent(`${c} [data-testid=${stem}-status]`);
    const m = /^(\d+) of/.exec(status);
    if (m && Number(m[1]) >= 2) return q;
  }
  throw new Error(`no search of ${candidates} leaves two rows`);
}

describe('deep links', () => {
  it('Deep link round trip: Operators (grouping, sorting, search, selected row and its call stacks)', T, async () => {
    let hash;
    let first;
    let stacksName;
    await withCheckedPage(browser, server.url, async (page) => {
      await openSample(page);
      assert.equal(await hashOf(page), '', 'loading a file writes no hash by itself');
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);
      await page.selectOption(`${c} [data-testid=op-group-by]`, 'op+shape');
      await page.waitForSelector(`${c} [data-testid=op-header-input_shape]`);
      // Host total: a number column starts descending, the second click makes it ascending.
      await page.click(`${c} [data-testid=op-header-host_total_us] button`);
      await page.click(`${c} [data-testid=op-header-host_total_us] button`);
      assert.equal(await page.getAttribute(`${c} [data-testid=op-header-host_total_us]`, 'aria-sort'), 'ascending');
      // Searches with characters a hash must escape ("<", ":") come first.
      const q = await searchSome(page, 'op', ['node<', 'aten::', 'record', 'a']);
      await page.click(`${c} [data-testid=op-row] >> nth=1`);
      await page.waitForSelector(`${c} [data-testid=op-detail-name]`);
      first = await tableState(page, 'op');
      assert.equal(first.selected.length, 1);
      stacksName = await page.textContent(`${c} [data-testid=op-detail-name]`);
      assert.equal(stacksName.replace(/\s+/g, ' ').trim(), first.selected[0].replace(/\s+/g, ' ').trim(), 'the detail panel names the selected row');
      hash = await waitHash(page, { file: NAME, view: 'operators', group: 'op+shape', sort: 'host_total_us.asc', q, row: first.selected[0] });
    });

    // A new page on the link: nothing happens until the same file is loaded, then it is all back.
    await withCheckedPage(browser, server.url + hash, async (page) => {
      await openSample(page);
      await page.waitForSelector(`${c} [data-testid=op-row][aria-selected=true]`);
      await page.waitForSelector(`${c} [data-testid=op-detail-name]`);
      const again = await tableState(page, 'op');
      assert.deepEqual(again, first);
      assert.equal(again.tab, 'tab-operators');
      assert.equal(again.group, 'op+shape');
      assert.deepEqual(again.sorted, [['op-header-host_total_us', 'ascending']]);
      assert.equal(await page.textContent(`${c} [data-testid=op-detail-name]`), stacksName);
      // The selected row is scrolled into view inside the table.
      const inView = await page.$eval(`${c} [data-testid=op-row][aria-selected=true]`, (row) => {
        const box = row.getBoundingClientRect();
        const sc = row.closest('.dt-scroll').getBoundingClientRect();
        return box.top >= sc.top && box.bottom <= sc.bottom + 1;
      });
      assert.ok(inView, 'the selected row is in view');
      // Applying the link leaves it as it was.
      assert.equal(await hashOf(page), hash);
    });
  });

  it('a linked row far down a long table is scrolled into view', T, async () => {
    let hash;
    let row;
    await withCheckedPage(browser, server.url, async (page) => {
      await openSample(page);
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);
      const count = Number(await page.getAttribute(`${c} [data-testid=op-table]`, 'aria-rowcount')) - 1;
      assert.ok(count > 40, `a table much taller than its window (${count} rows)`);
      await page.$eval(`${c} [data-testid=op-data-table] .dt-scroll`, (el) => (el.scrollTop = el.scrollHeight));
      await page.waitForSelector(`${c} [data-testid=op-row][aria-rowindex="${count + 1}"]`);
      await page.click(`${c} [data-testid=op-row][aria-rowindex="${count + 1}"]`);
      row = await page.getAttribute(`${c} [data-testid=op-row][aria-selected=true]`, 'data-name');
      hash = await waitHash(page, { file: NAME, view: 'operators', row });
    });
    await withCheckedPage(browser, server.url + hash, async (page) => {
      await openSample(page);
      const sel = `${c} [data-testid=op-row][aria-selected=true]`;
      await page.waitForSelector(sel);
      assert.equal(await page.getAttribute(sel, 'data-name'), row);
      const inView = await page.$eval(sel, (el) => {
        const box = el.getBoundingClientRect();
        const sc = el.closest('.dt-scroll').getBoundingClientRect();
        return box.top >= sc.top && box.bottom <= sc.bottom + 1 && box.bottom <= window.innerHeight && box.top >= 0;
      });
      assert.ok(inView, 'the selected row is in view, in the table and on the screen');
    });
  });

  it('Deep link round trip: Kernels, on a new page and pasted into an open one', T, async () => {
    let hash;
    let first;
    await withCheckedPage(browser, server.url, async (page) => {
      await openSample(page);
      await page.click(`${c} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${c} [data-testid=kernel-row]`);
      await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'props');
      await page.waitForSelector(`${c} [data-testid=kernel-header-operator]`);
      await page.click(`${c} [data-testid=kernel-header-name] button`);
      assert.equal(await page.getAttribute(`${c} [data-testid=kernel-header-name]`, 'aria-sort'), 'ascending');
      const q = await searchSome(page, 'kernel', ['embs', 'permute', 'nccl', 'gemm', 'a']);
      await page.click(`${c} [data-testid=kernel-row] >> nth=1`);
      first = await tableState(page, 'kernel');
      assert.equal(first.selected.length, 1);
      hash = await waitHash(page, { file: NAME, view: 'kernels', group: 'props', sort: 'name.asc', q, row: first.selected[0] });
    });

    await withCheckedPage(browser, server.url + hash, async (page) => {
      await openSample(page);
      await page.waitForSelector(`${c} [data-testid=kernel-row][aria-selected=true]`);
      assert.deepEqual(await tableState(page, 'kernel'), first);
    });

    // A tab already showing the file: the link pasted into the address bar (a hashchange) applies.
    await withCheckedPage(browser, server.url, async (page) => {
      await openSample(page);
      assert.equal(await shownTab(page), 'tab-overview');
      await page.evaluate((h) => (location.hash = h), hash);
      await page.waitForSelector(`${c} [data-testid=kernel-row][aria-selected=true]`);
      assert.deepEqual(await tableState(page, 'kernel'), first);
    });
  });

  it('Deep link round trip: the step chosen in the Overview, by its name', T, async () => {
    let hash;
    let stepName;
    await withCheckedPage(browser, server.url, async (page) => {
      await openSample(page);
      await page.selectOption(`${c} [data-testid=step-select]`, '1');
      stepName = await page.$eval(`${c} [data-testid=step-select] option[value="1"]`, (o) => o.textContent);
      hash = await waitHash(page, { file: NAME, step: stepName, view: undefined });
      // The step goes along to the other views: it is the card's.
      await page.click(`${c} [data-testid=tab-operators]`);
      await waitHash(page, { file: NAME, step: stepName, view: 'operators' });
    });

    await withCheckedPage(browser, server.url + hash, async (page) => {
      await openSample(page);
      await page.waitForFunction((sel) => document.querySelector(sel)?.value === '1', `${c} [data-testid=step-select]`);
      assert.equal(await shownTab(page), 'tab-overview');
      assert.equal(await page.textContent(`${c} [data-testid=step-show-in-timeline]`), `Show step ${stepName} in timeline`);
      assert.match(await page.getAttribute(`${c} [data-testid="step-row-${stepName}"]`, 'class'), /selected/);
    });
  });

  it('a hash naming another file waits for that file, and the hash follows the card in use', T, async () => {
    const other = path.join(tmp, 'rank-1.json.gz');
    fs.copyFileSync(sampleTrace, other);
    const c1 = card('rank-1.json.gz');
    const link = `#file=rank-1.json.gz&view=operators&group=op%2Bshape`;
    await withCheckedPage(browser, server.url + link, async (page) => {
      await openSample(page);
      // rank-0 is not the file named: it opens as always, and the hash is left alone.
      await page.waitForTimeout(500);
      assert.equal(await shownTab(page), 'tab-overview');
      assert.equal(await page.$(`${c} [data-testid=panel-operators]`), null);
      assert.equal(await hashOf(page), link);

      await pickFiles(page, [other]);
      assert.equal(await settled(page, 'rank-1.json.gz'), 'done');
      await page.waitForSelector(`${c1} [data-testid=op-header-input_shape]`);
      assert.equal(await shownTab(page, c1), 'tab-operators');
      assert.equal(await shownTab(page), 'tab-overview', 'the other card is untouched');

      // Picking the other trace in the navigator and using it makes the hash describe it.
      await page.click(`${navRow(NAME)}`);
      await page.waitForSelector(c, { state: 'visible' });
      await waitHash(page, { file: NAME, view: undefined });
      await page.click(`${c} [data-testid=tab-kernels]`);
      await waitHash(page, { file: NAME, view: 'kernels', group: undefined });
      await page.click(`${navRow('rank-1.json.gz')}`);
      await page.click(`${c1} [data-testid=tab-overview]`);
      await waitHash(page, { file: 'rank-1.json.gz', view: undefined });
      // Closing the card the hash describes clears it.
      await page.click(`${c1} [data-testid=remove-file]`);
      await page.waitForFunction(() => location.hash === '');
    });
  });

  it('a hash with garbage fields loads the file as usual; unknown columns and rows are ignored', T, async () => {
    const garbage = `#file=${NAME}&view=nosuchview&step=999&group=nope&sort=%%%&q=&row=&x=%3Cimg%20src%3Dx%3E&%E0%A4`;
    await withCheckedPage(browser, server.url + garbage, async (page) => {
      await openSample(page);
      await page.waitForTimeout(300);
      assert.equal(await shownTab(page), 'tab-overview');
      assert.equal(await page.inputValue(`${c} [data-testid=step-select]`), 'all');
      assert.equal(await page.$('img[src=x]'), null);
    });

    // A view the file has, with a grouping, column and row it does not: the view's defaults.
    const stale = `#file=${NAME}&view=operators&group=by-color&sort=gone_us.asc&q=zzz-no-such-op&row=no%20such%20row`;
    await withCheckedPage(browser, server.url + stale, async (page) => {
      await openSample(page);
      await page.waitForSelector(`${c} [data-testid=op-data-table]`);
      assert.equal(await shownTab(page), 'tab-operators');
      assert.equal(await page.inputValue(`${c} [data-testid=op-group-by]`), 'op');
      assert.equal(await page.getAttribute(`${c} [data-testid=op-header-device_self_us]`, 'aria-sort'), 'descending');
      assert.equal(await page.inputValue(`${c} [data-testid=op-search]`), 'zzz-no-such-op');
      assert.ok(await page.$(`${c} [data-testid=op-empty]`), 'the search matches nothing');
      assert.ok(await page.$(`${c} [data-testid=op-detail-hint]`), 'no row is selected');
    });
  });
});
