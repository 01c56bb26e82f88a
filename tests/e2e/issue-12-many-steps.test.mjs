// Issue 12: a very large trace has thousands of profiler steps (a 10 GiB one ~3,400), and the page
// must stay responsive while it draws them. The Overview's step table renders only the rows in
// its scroll box, the step chart draws its sub-pixel columns per pixel, and the Step select gets
// its options in slices once the card is drawn. What a person sees must not change: every step's
// numbers (as the native CLI computes them) in the rows scrolled to, the chosen step's breakdown,
// the select, the keyboard, and a link to a late step.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cellNum, pickFiles, runCliJson, settled, withCheckedPage, openSite } from './helpers.mjs';

const { server, browser, tmp } = await openSite({ tmp: true });

const STEPS = 3000;
const NAME = 'many-steps.json';
const file = path.join(tmp, NAME);
const c = card(NAME);
const T = { timeout: 240_000 };

/**
 * A trace of STEPS steps of 1 ms whose numbers differ step by step: an operator launching one
 * kernel (its length cycles over 37 values), a memcpy every third step, the DataLoader in four of
 * five steps. Written here rather than checked in: ~2 MB of JSON.
 */
function manyStepsTrace() {
  const ev = [];
  for (let i = 0; i < STEPS; i++) {
    const ts = i * 1000;
    ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${i + 1}`, pid: 1, tid: 1, ts, dur: 1000 });
    ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 1, ts: ts + 10, dur: 200 + (i % 13) * 10, args: { 'External id': i + 1 } });
    ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 1, ts: ts + 20, dur: 10, args: { correlation: 2 * i + 1, 'External id': i + 1 } });
    ev.push({ ph: 'X', cat: 'kernel', name: 'sgemm', pid: 0, tid: 7, ts: ts + 50, dur: 100 + (i % 37) * 7, args: { device: 0, stream: 7, correlation: 2 * i + 1, 'External id': i + 1 } });
    if (i % 3 === 0) {
      ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaMemcpyAsync', pid: 1, tid: 1, ts: ts + 400, dur: 5, args: { correlation: 2 * i + 2 } });
      ev.push({ ph: 'X', cat: 'gpu_memcpy', name: 'Memcpy HtoD (Pageable -> Device)', pid: 0, tid: 7, ts: ts + 420, dur: 30, args: { device: 0, stream: 7, correlation: 2 * i + 2 } });
    }
    if (i % 5) ev.push({ ph: 'X', cat: 'user_annotation', name: 'enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__', pid: 1, tid: 1, ts: ts + 600, dur: (i % 5) * 40 });
  }
  return JSON.stringify({ schemaVersion: 1, traceEvents: ev });
}
fs.writeFileSync(file, manyStepsTrace());
const cli = runCliJson(['steps', '--json', file]);
const steps = cli.steps;

/** Whole µs shown are within rounding of the CLI's. */
function assertUs(text, expected, label) {
  const shown = cellNum(text);
  assert.ok(shown != null && Math.abs(shown - expected) <= 0.5 + 1e-9, `${label}: page ${text}, CLI ${expected} us`);
}

/** The step rows in the page's table (rendered ones), as [index, cells]. */
const renderedRows = (page) =>
  page.$$eval(`${c} [data-testid=step-table] tbody tr[data-index]`, (trs) =>
    trs.map((tr) => [Number(tr.dataset.index), [...tr.querySelectorAll('td')].map((td) => td.textContent), tr.className]),
  );

/** Each rendered row shows its step's name, total, kernel, CPU Exec and DataLoader times. */
function checkRows(rows, label) {
  for (const [i, td] of rows) {
    const st = steps[i];
    assert.equal(td[0], st.name, `${label}: row ${i} name`);
    assertUs(td[1], st.total_us, `${label}: step ${st.name} total`);
    assertUs(td[2], st.kernel_us, `${label}: step ${st.name} kernel`);
    assertUs(td[4], st.cpu_exec_us, `${label}: step ${st.name} CPU Exec`);
    assertUs(td[5], st.dataloader_us, `${label}: step ${st.name} DataLoader`);
  }
}

/**
 * The step row drawn at the top and bottom edge of the table's scroll box (what a person sees
 * there), by its index: the rows must sit where the scrollbar says, with no gap or overlap.
 */
const edgeRows = (page) =>
  page.$eval(`${c} [data-testid=step-table]`, (table) => {
    const box = table.parentElement.getBoundingClientRect();
    const headH = table.querySelector('thead').getBoundingClientRect().height;
    const at = (y) => document.elementFromPoint(box.left + 20, y)?.closest('tr');
    // The header stays at the box's top (sticky): the first row seen is the one just under it.
    const head = at(box.top + 2);
    const top = at(box.top + headH + 2);
    const bottom = at(box.bottom - 2);
    return {
      head: head?.parentElement?.tagName === 'THEAD' ? head.textContent : null,
      top: top?.dataset.index ?? top?.dataset.testid ?? null,
      bottom: bottom?.dataset.index ?? bottom?.dataset.testid ?? null,
    };
  });

/**
 * Scrolls the step table's box to `top` px (and the page to the box, so the rows are on screen)
 * and waits until the rows there are rendered.
 */
async function scrollTable(page, top) {
  await page.$eval(`${c} [data-testid=step-table]`, (t, top) => {
    t.parentElement.scrollIntoView({ block: 'center' });
    t.parentElement.scrollTop = top;
  }, top);
  await page.waitForFunction(
    (sel) => {
      const table = document.querySelector(sel);
      const box = table.parentElement.getBoundingClientRect();
      const tr = document.elementFromPoint(box.left + 20, box.top + box.height / 2)?.closest('tr');
      return tr?.dataset.index != null;
    },
    `${c} [data-testid=step-table]`,
  );
}

const caption = (page) => page.textContent(`${c} [data-testid=step-detail] caption`);

/** The breakdown table shows step `i` as the CLI computes it. */
async function checkDetail(page, i) {
  const st = steps[i];
  await page.waitForFunction(([sel, text]) => document.querySelector(sel)?.textContent === text, [`${c} [data-testid=step-detail] caption`, `Step ${st.name}`]);
  for (const r of ['kernel', 'memcpy', 'runtime', 'dataloader', 'cpu_exec', 'other']) {
    assertUs(await page.textContent(`${c} [data-testid=step-value-${r}]`), st[`${r}_us`], `step ${st.name} ${r}`);
  }
  assertUs(await page.textContent(`${c} [data-testid=step-value-total]`), st.total_us, `step ${st.name} total`);
}

/** The chosen step's row is rendered, marked chosen, and inside the table's box. */
async function chosenRowShown(page, i) {
  const sel = `${c} [data-testid=step-table] tbody tr[data-index="${i}"]`;
  await page.waitForSelector(`${sel}.selected`);
  const inBox = await page.$eval(sel, (tr) => {
    const box = tr.closest('.ov-scroll').getBoundingClientRect();
    const head = tr.closest('table').querySelector('thead').getBoundingClientRect();
    const r = tr.getBoundingClientRect();
    // Below the sticky header, not hidden under it.
    return r.top >= head.bottom - 0.5 && r.bottom <= box.bottom + 0.5;
  });
  assert.ok(inBox, `the row of step ${steps[i].name} is scrolled into the table's box, under its header`);
}

describe('issue 12: an Overview of thousands of steps', () => {
  it('the trace has the steps the test means', () => {
    assert.ok(steps.length >= STEPS - 1, `the CLI finds ${steps.length} steps`);
    // The numbers differ from step to step (else a row shown for the wrong step would pass).
    assert.ok(new Set(steps.slice(0, 40).map((s) => s.kernel_us)).size > 30);
  });

  it('the step table renders a window of rows, each with its step\'s numbers, wherever it is scrolled', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [file]);
      assert.equal(await settled(page, NAME, 120_000), 'done');
      await page.waitForSelector(`${c} [data-testid=overview-card] [data-testid=step-table]`);

      // The chart has a column per step and the average; its bars are drawn (per pixel).
      assert.equal(Number(await page.getAttribute(`${c} [data-testid=step-bars]`, 'data-columns')), steps.length + 1);
      const colors = await page.$eval(`${c} [data-testid=step-chart] canvas`, (cv) => {
        const ctx = cv.getContext('2d');
        const { data } = ctx.getImageData(0, 0, cv.width, cv.height);
        const hex = (i) => '#' + [data[i], data[i + 1], data[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join('');
        const seen = new Map();
        for (let y = 0; y < cv.height; y += 2) for (let x = 0; x < cv.width; x += 2) {
          const h = hex((y * cv.width + x) * 4);
          seen.set(h, (seen.get(h) ?? 0) + 1);
        }
        return Object.fromEntries(seen);
      });
      // Kernel (blue), CPU Exec (purple) and Other (brown) cover much of the plot.
      for (const [role, color] of [['Kernel', '#4e79a7'], ['CPU Exec', '#b07aa1'], ['Other', '#9c755f']]) {
        assert.ok((colors[color] ?? 0) > 500, `the chart shows ${role} bars (${colors[color] ?? 0} pixels of ${color})`);
      }

      const table = `${c} [data-testid=step-table]`;
      assert.equal(Number(await page.getAttribute(table, 'data-rows')), steps.length);
      let rows = await renderedRows(page);
      assert.ok(rows.length >= 10 && rows.length <= 40, `a window of rows is rendered, not all: ${rows.length} of ${steps.length}`);
      assert.deepEqual(rows.map(([i]) => i), rows.map((_, k) => k), 'from the first step, in order');
      checkRows(rows, 'top');
      // Striped by position in the whole table.
      for (const [i, , cls] of rows) assert.equal(/\bodd\b/.test(cls), i % 2 === 1, `row ${i} stripe`);

      // The middle of the table: the rows drawn at the box's edges are the ones at that position.
      const rowH = await page.$eval(`${table} tbody tr[data-index="0"]`, (tr) => tr.getBoundingClientRect().height);
      const headH = await page.$eval(`${table} thead`, (th) => th.getBoundingClientRect().height);
      const boxH = await page.$eval(table, (t) => t.parentElement.clientHeight);
      for (const k of [1234, 2001]) {
        const top = k * rowH;
        await scrollTable(page, top);
        const edges = await edgeRows(page);
        assert.match(edges.head ?? '', /^Step.*Total \(us\)/, `scrolled to step row ${k}: the header is still at the top`);
        assert.equal(Number(edges.top), k, `scrolled to step row ${k}: the row just under the header`);
        assert.equal(Number(edges.bottom), Math.floor((top + boxH - 2 - headH) / rowH), 'the row at the bottom edge');
        rows = await renderedRows(page);
        assert.ok(rows.length <= 40, `still a window: ${rows.length} rows`);
        assert.ok(rows.some(([i]) => i === k));
        checkRows(rows, `scrolled to ${k}`);
      }

      // The end: the last step, then the average's row.
      await scrollTable(page, 1e9);
      const edges = await edgeRows(page);
      assert.equal(edges.bottom, 'step-row-average');
      rows = await renderedRows(page);
      assert.equal(rows.at(-1)[0], steps.length - 1);
      checkRows(rows, 'bottom');
      assertUs(await page.textContent(`${c} [data-testid=avg-total]`), cli.average.total_us, 'average total');
      assertUs(await page.textContent(`${c} [data-testid=avg-kernel]`), cli.average.kernel_us, 'average kernel');

      // Clicking a row chooses its step everywhere: the breakdown, the select.
      const pick = rows[3][0];
      await page.click(`${table} tbody tr[data-index="${pick}"]`);
      await checkDetail(page, pick);
      assert.equal(await page.inputValue(`${c} [data-testid=step-select]`), String(pick));
    });
  });

  it('the Step select has every step: a late one chosen there, by keyboard, and a link to one', T, async () => {
    let hash;
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [file]);
      assert.equal(await settled(page, NAME, 120_000), 'done');
      const select = `${c} [data-testid=step-select]`;
      // Every step gets its option (after the card is drawn): "All steps" and one per step, in order.
      await page.waitForFunction(([sel, n]) => document.querySelector(sel)?.options.length === n + 1, [select, steps.length]);
      const options = await page.$eval(select, (s) => [...s.options].map((o) => [o.value, o.textContent]));
      assert.equal(options.length, steps.length + 1);
      assert.deepEqual(options[0], ['all', 'All steps']);
      for (const k of [1, 500, 501, 1999, steps.length]) assert.deepEqual(options[k], [String(k - 1), steps[k - 1].name]);

      // A late step chosen in the select: its breakdown, and its row scrolled into the table.
      const late = 2750;
      await page.selectOption(select, { value: String(late) });
      await checkDetail(page, late);
      await chosenRowShown(page, late);
      assert.equal(await page.textContent(`${c} [data-testid=step-show-in-timeline]`), `Show step ${steps[late].name} in timeline`);

      // The keyboard: the next step with ArrowDown in the focused select.
      await page.focus(select);
      await page.keyboard.press('ArrowDown');
      await checkDetail(page, late + 1);
      await chosenRowShown(page, late + 1);
      assert.equal(await page.inputValue(select), String(late + 1));
      hash = await page.evaluate(() => location.hash);
      assert.match(hash, new RegExp(`step=${steps[late + 1].name}(&|$)`));
    });

    // The link opens on that step: the select shows it (before or after its slice of options
    // came) and the table has scrolled to its row.
    await withCheckedPage(browser, server.url + hash, async (page) => {
      await pickFiles(page, [file]);
      assert.equal(await settled(page, NAME, 120_000), 'done');
      await page.waitForFunction((sel) => document.querySelector(sel)?.value === String(2751), `${c} [data-testid=step-select]`);
      await checkDetail(page, 2751);
      await chosenRowShown(page, 2751);
      assert.equal(await page.$eval(`${c} [data-testid=step-select] option:checked`, (o) => o.textContent), steps[2751].name);
    });
  });
});
