// The data table's columns (issue 9): at a 1440x900 window (the run navigator on the left, ~1130
// px for the view) no column of the Operators and Kernels tables is off screen and names get the
// most room; a header's edge drags to resize
// (and takes the arrow keys), the Columns menu hides and shows columns and resets them, Export
// CSV keeps every column, and all of it is remembered per table across a reload.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import path from 'node:path';
import { card, columnIds, openSite, parseCsv, pickFiles, settled, tmpDir } from './helpers.mjs';

const { server, browser } = await openSite();
const NAME = 'rank-0.json.gz';
const c = card(NAME);
const T = { timeout: 240_000 };

/** A page at 1440x900, the window the issue measures. */
async function withPage(fn) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  try {
    await page.goto(server.url);
    await fn(page);
    assert.deepEqual(errors, [], 'no uncaught or console errors');
  } finally {
    await context.close();
  }
}

async function openSample(page) {
  await page.waitForSelector('[data-testid=open-sample]');
  await page.click('[data-testid=open-sample]');
  assert.equal(await settled(page, NAME), 'done');
}

/** Where each header is, and the table's scroll box. */
function geometry(page, stem) {
  return page.$eval(`${c} [data-testid=${stem}-data-table]`, (root, stem) => {
    const box = root.querySelector('.dt-scroll');
    const b = box.getBoundingClientRect();
    return {
      box: { left: b.left, right: b.right, clientWidth: box.clientWidth, scrollWidth: box.scrollWidth },
      viewport: window.innerWidth,
      cols: Object.fromEntries(
        [...root.querySelectorAll(`[data-testid^="${stem}-header-"]`)].map((th) => {
          const r = th.getBoundingClientRect();
          return [th.getAttribute('data-testid').slice(stem.length + 8), { left: r.left, right: r.right, width: r.width }];
        }),
      ),
    };
  }, stem);
}

function assertAllOnScreen(g, what) {
  assert.ok(g.box.scrollWidth <= g.box.clientWidth + 1, `${what}: the table does not scroll sideways (${g.box.scrollWidth} > ${g.box.clientWidth})`);
  assert.ok(g.box.right <= g.viewport, `${what}: the table ends inside the window`);
  for (const [id, r] of Object.entries(g.cols)) {
    assert.ok(r.left >= g.box.left - 1 && r.right <= g.box.right + 1, `${what}: column ${id} [${r.left}, ${r.right}] inside [${g.box.left}, ${g.box.right}]`);
  }
  const widest = Object.entries(g.cols).sort((a, b) => b[1].width - a[1].width)[0][0];
  assert.equal(widest, 'name', `${what}: the name column is the widest`);
}

/** Drags the right edge of column `id` by dx px with the mouse. */
async function dragEdge(page, stem, id, dx) {
  const handle = await page.$(`${c} [data-testid=${stem}-resize-${id}]`);
  const b = await handle.boundingBox();
  const x = b.x + b.width / 2;
  const y = b.y + b.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y);
  await page.mouse.move(x + dx, y);
  await page.mouse.up();
}

describe('data table columns', () => {
  it('at 1440x900 every column of Operators and Kernels is on screen, names the widest', T, async () => {
    await withPage(async (page) => {
      await openSample(page);
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);
      assertAllOnScreen(await geometry(page, 'op'), 'operators');
      await page.selectOption(`${c} [data-testid=op-group-by]`, 'op+shape');
      await page.waitForSelector(`${c} [data-testid=op-header-input_shape]`);
      assertAllOnScreen(await geometry(page, 'op'), 'operators by shape');
      await page.click(`${c} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${c} [data-testid=kernel-row]`);
      const byName = await geometry(page, 'kernel');
      assertAllOnScreen(byName, 'kernels');
      assert.ok(byName.cols.name.width >= 300, `kernel names get room (${byName.cols.name.width} px)`);
      await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'props');
      await page.waitForSelector(`${c} [data-testid=kernel-header-operator]`);
      assertAllOnScreen(await geometry(page, 'kernel'), 'kernels by properties');
      // A name longer than its cell is whole in the cell's hover text.
      const cut = await page.$$eval(`${c} [data-testid=kernel-row] [data-testid=kernel-cell-name]`, (tds) =>
        tds.filter((td) => td.scrollWidth > td.clientWidth).map((td) => [td.textContent, td.title]),
      );
      assert.ok(cut.length > 0, 'some kernel names are longer than the column');
      for (const [text, title] of cut) assert.equal(title, text, 'the hover text is the whole name');
    });
  });

  it("a big trace's numbers are whole in their cells: number columns widen to their longest value", T, async () => {
    // 12,345 calls of one operator and one of 98,765,432,109.5 us: wider than the Calls and time
    // columns of a small trace, which cut them ("12,3…") before the columns fitted their values.
    const ev = [];
    for (let i = 0; i < 12345; i++) ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::add_', pid: 1, tid: 1, ts: 10 + i * 3, dur: 1.5 });
    ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::long_op', pid: 1, tid: 1, ts: 50000, dur: 98765432109.5 });
    const file = path.join(tmpDir(), 'big-numbers.json');
    fs.writeFileSync(file, JSON.stringify({ schemaVersion: 1, traceEvents: ev }));
    await withPage(async (page) => {
      await pickFiles(page, [file]);
      const big = card('big-numbers.json');
      assert.equal(await settled(page, 'big-numbers.json'), 'done');
      await page.click(`${big} [data-testid=tab-operators]`);
      await page.waitForSelector(`${big} [data-testid=op-row]`);
      const cells = await page.$$eval(`${big} [data-testid=op-row] td`, (tds) =>
        tds.map((td) => ({ id: td.getAttribute('data-testid'), text: td.textContent, cut: td.scrollWidth > td.clientWidth })),
      );
      assert.ok(cells.some((x) => x.text === '12,345'), 'the call count is shown');
      assert.ok(cells.some((x) => x.text.startsWith('98,765,432,109')), 'the long time is shown');
      const cut = cells.filter((x) => x.cut && !/-cell-name$/.test(x.id ?? ''));
      assert.deepEqual(cut, [], 'no number is cut');
    });
  });

  it('drag and keys resize a column, the Columns menu hides and shows, all remembered across a reload, Reset undoes it', T, async () => {
    await withPage(async (page) => {
      await openSample(page);
      await page.click(`${c} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${c} [data-testid=kernel-row]`);
      const before = await geometry(page, 'kernel');

      // Drag Total's edge 60 px right: Total is 60 px wider, the name 60 px narrower, still no scrolling.
      await dragEdge(page, 'kernel', 'total_us', 60);
      let after = await geometry(page, 'kernel');
      assert.ok(Math.abs(after.cols.total_us.width - before.cols.total_us.width - 60) <= 2, `Total ${before.cols.total_us.width} -> ${after.cols.total_us.width}`);
      assert.ok(Math.abs(before.cols.name.width - after.cols.name.width - 60) <= 2, `Name ${before.cols.name.width} -> ${after.cols.name.width}`);
      assertAllOnScreen(after, 'after the drag');
      // The keyboard does the same: focus Calls' edge, → twice is 32 px, Shift+← 64 px back.
      await page.focus(`${c} [data-testid=kernel-resize-calls]`);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      after = await geometry(page, 'kernel');
      assert.ok(Math.abs(after.cols.calls.width - before.cols.calls.width - 32) <= 1, `Calls ${before.cols.calls.width} -> ${after.cols.calls.width}`);
      assert.equal(await page.getAttribute(`${c} [data-testid=kernel-resize-calls]`, 'aria-valuenow'), String(Math.round(after.cols.calls.width)));

      // Hide Mean and Min in the Columns menu.
      await page.click(`${c} [data-testid=kernel-columns]`);
      await page.uncheck(`${c} [data-testid=kernel-column-toggle-mean_us]`);
      await page.uncheck(`${c} [data-testid=kernel-column-toggle-min_us]`);
      await page.keyboard.press('Escape');
      await page.waitForSelector(`${c} [data-testid=kernel-columns-menu]`, { state: 'detached' });
      const shown = await columnIds(page, c, 'kernel');
      assert.ok(!shown.includes('mean_us') && !shown.includes('min_us') && shown.includes('max_us'), `columns ${shown}`);
      // and the FLOPs columns the sample starts without (its FLOPs, their dtype and intensity: issue 25)
      assert.equal(await page.textContent(`${c} [data-testid=kernel-columns]`), 'Columns (5 hidden)');
      assertAllOnScreen(await geometry(page, 'kernel'), 'with two columns hidden');
      // Export CSV keeps every column, hidden ones too.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${c} [data-testid=kernel-export]`)]);
      const head = parseCsv(fs.readFileSync(await download.path(), 'utf8'))[0];
      assert.ok(head.includes('Mean (us)') && head.includes('Min (us)'), `CSV header ${head}`);
      const widths = await geometry(page, 'kernel');

      // A reload (the trace opened again): the same columns, the same widths.
      await page.reload();
      await openSample(page);
      await page.click(`${c} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${c} [data-testid=kernel-row]`);
      assert.deepEqual(await columnIds(page, c, 'kernel'), shown, 'hidden columns remembered');
      const again = await geometry(page, 'kernel');
      for (const id of shown) assert.ok(Math.abs(again.cols[id].width - widths.cols[id].width) <= 1, `${id}: ${widths.cols[id].width} -> ${again.cols[id].width}`);
      // Each table and grouping has its own: the props grouping starts as it always does.
      await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'props');
      await page.waitForSelector(`${c} [data-testid=kernel-header-operator]`);
      assert.deepEqual(await columnIds(page, c, 'kernel'), ['name', 'operator', 'grid', 'block', 'registers_per_thread', 'shared_memory', 'calls', 'tensor_cores', 'total_us', 'tflops_per_s', 'pct_of_peak']);
      // There, a column hidden at first can be shown.
      await page.click(`${c} [data-testid=kernel-columns]`);
      await page.check(`${c} [data-testid=kernel-column-toggle-max_us]`);
      await page.waitForSelector(`${c} [data-testid=kernel-header-max_us]`);
      await page.keyboard.press('Escape');
      await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'name');
      await page.waitForSelector(`${c} [data-testid=kernel-header-max_us]`);

      // Reset columns: the widths and columns the table started with.
      await page.click(`${c} [data-testid=kernel-columns]`);
      await page.click(`${c} [data-testid=kernel-columns-reset]`);
      await page.waitForSelector(`${c} [data-testid=kernel-header-mean_us]`);
      const reset = await geometry(page, 'kernel');
      assert.deepEqual(Object.keys(reset.cols), Object.keys(before.cols));
      for (const id of Object.keys(before.cols)) assert.ok(Math.abs(reset.cols[id].width - before.cols[id].width) <= 1, `${id} after reset`);
      assert.equal(await page.isDisabled(`${c} [data-testid=kernel-columns-reset]`), true, 'nothing left to reset');
      assert.equal(await page.evaluate(() => localStorage.getItem('kinetoscope.columns.kernel.name')), null, 'the stored settings are gone');
    });
  });
});
