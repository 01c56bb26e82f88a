// Browser test of the data table (components/data-table.tsx) on the summary page's events-per-
// category table: sort, search, CSV export of what is shown, selection kept across re-sorting.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { card, expectedFor, parseCsv, readTableRows, sampleTrace, settled, withCheckedPage, openSite, rowsLabel } from './helpers.mjs';

const { server, browser } = await openSite();

const name = 'rank-0.json.gz';
const c = card(name);
const shownNames = async (page) => (await readTableRows(page, c, 'category')).map((r) => r.name);
// The search applies after the input's render (an effect): wait for the rows it leaves.
const waitRows = (page, n) =>
  page.waitForFunction(([sel, n]) => document.querySelectorAll(sel).length === n, [`${c} [data-testid=category-row]`, n]);
const selectedNames = async (page) => (await readTableRows(page, c, 'category')).filter((r) => r.selected).map((r) => r.name);

describe('data table', () => {
  it('events per category: sort both ways, search, export what is shown, keep the selection', { timeout: 120_000 }, async () => {
    const counts = expectedFor(sampleTrace).categories;
    // Independent expected orders; ties (none in the sample, but kept general) by name.
    const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
    const desc = Object.keys(counts).sort((a, b) => counts[b] - counts[a] || byName(a, b));
    const asc = Object.keys(counts).sort((a, b) => counts[a] - counts[b] || byName(a, b));
    assert.ok(desc.length >= 5, 'the sample has several categories');

    await withCheckedPage(browser, server.url, async (page) => {
    await page.click('[data-testid=open-sample]');
    assert.equal(await settled(page, name), 'done');
    // The event counts are in the Trace tab.
    await page.click(`${c} [data-testid=tab-trace]`);
    const header = `${c} [data-testid=category-header-count]`;

    // Largest first when the page opens.
    assert.deepEqual(await shownNames(page), desc);
    assert.equal(await page.getAttribute(header, 'aria-sort'), 'descending');

    await page.click(header);
    assert.equal(await page.getAttribute(header, 'aria-sort'), 'ascending');
    assert.deepEqual(await shownNames(page), asc);
    const ascRows = await readTableRows(page, c, 'category');
    assert.deepEqual(
      ascRows.map((r) => Number(r.cells[1].replace(/,/g, ''))),
      asc.map((k) => counts[k]),
      'counts shown ascending',
    );

    await page.click(header);
    assert.equal(await page.getAttribute(header, 'aria-sort'), 'descending');
    assert.deepEqual(await shownNames(page), desc);

    // Search: a case-insensitive substring of the name; the order stays by count.
    await page.fill(`${c} [data-testid=category-search]`, 'GPU_');
    const gpu = desc.filter((k) => k.toLowerCase().includes('gpu_'));
    assert.ok(gpu.length >= 2, `the sample has gpu_ categories: ${gpu}`);
    await waitRows(page, gpu.length);
    assert.deepEqual(await shownNames(page), gpu);
    assert.equal(await page.textContent(`${c} [data-testid=category-status]`), rowsLabel(gpu.length, desc.length));

    // Export: the downloaded file holds the shown rows in the shown order, raw numbers.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${c} [data-testid=category-export]`)]);
    assert.equal(download.suggestedFilename(), 'rank-0-categories.csv');
    const csv = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
    const shown = await readTableRows(page, c, 'category');
    assert.deepEqual(csv[0], ['Category', 'Events', 'Share (%)']);
    assert.equal(csv.length - 1, shown.length);
    shown.forEach((r, k) => {
      const [csvName, csvCount, csvShare] = csv[k + 1];
      assert.equal(csvName, r.name, `row ${k} name`);
      assert.equal(csvCount, String(counts[r.name]), `row ${k} count is the raw number`);
      assert.equal(Number(r.cells[1].replace(/,/g, '')), Number(csvCount), `row ${k} count matches the page`);
      assert.equal(`${Number(csvShare).toFixed(1)}%`, r.cells[2], `row ${k} share matches the page`);
    });

    // Selection: kept by name through re-sorting and through a search that hides it.
    await page.fill(`${c} [data-testid=category-search]`, '');
    await waitRows(page, desc.length);
    await page.click(`${c} [data-testid=category-row][data-name=kernel]`);
    assert.deepEqual(await selectedNames(page), ['kernel']);
    await page.click(header);
    assert.deepEqual(await shownNames(page), asc);
    assert.deepEqual(await selectedNames(page), ['kernel'], 'still selected after sorting ascending');
    await page.click(`${c} [data-testid=category-header-name]`);
    assert.equal(await page.getAttribute(`${c} [data-testid=category-header-name]`, 'aria-sort'), 'ascending');
    assert.equal(await page.getAttribute(header, 'aria-sort'), null);
    assert.deepEqual(await shownNames(page), Object.keys(counts).sort(byName));
    assert.deepEqual(await selectedNames(page), ['kernel'], 'still selected after sorting by name');
    await page.fill(`${c} [data-testid=category-search]`, 'cpu');
    await waitRows(page, 1);
    assert.deepEqual(await selectedNames(page), []);
    await page.fill(`${c} [data-testid=category-search]`, '');
    await waitRows(page, desc.length);
    assert.deepEqual(await selectedNames(page), ['kernel'], 'still selected after a search hid it');

    // Keyboard: Down and Up move the selection in the shown (by name) order.
    const byNameOrder = Object.keys(counts).sort(byName);
    const at = byNameOrder.indexOf('kernel');
    await page.click(`${c} [data-testid=category-row][data-name=kernel]`);
    await page.keyboard.press('ArrowDown');
    assert.deepEqual(await selectedNames(page), [byNameOrder[at + 1]]);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    assert.deepEqual(await selectedNames(page), [byNameOrder[at - 1]]);

    // Every row has the fixed height the windowing assumes.
    const heights = await page.$$eval(`${c} [data-testid=category-row]`, (rows) => rows.map((r) => r.getBoundingClientRect().height));
    assert.ok(heights.every((h) => h === 30), `row heights ${heights}`);
    });
  });
});
