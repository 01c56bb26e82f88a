// The Module view (issue 10): the Modules tab shows when a trace has nn.Module frames or Lightning
// modules (and not otherwise, as Kernels), its hierarchical table equals `kinetoscope modules
// --json` row for row, rows expand and collapse, a click on the flame graph selects the module's
// row (and its node in the operator tree), the keyboard reaches and drives both, and dark mode
// paints the flame graph dark. Fixtures: tests/data/README.md ("Module view fixtures").
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cellNum, cliHas, openSite, pickFiles, repo, runCliJson, settled, tableRows, withCheckedPage } from './helpers.mjs';

const { server, browser } = await openSite();
const T = { timeout: 120_000 };
const skip = !cliHas('modules') && 'the CLI has no modules command';
const data = (f) => path.join(repo, 'tests', 'data', f);
const FWDBWD = data('modules-fwdbwd.json');
const TB_UNIT = data('tb-unit-module-hierarchy.json');
const LIGHTNING = data('lightning-modules.json');
const MODULELIST = data('modules-modulelist-parent-ids.json');

/** Opens `file`'s Modules tab and waits for its table and thread tree. */
async function openModules(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name), 'done');
  const c = card(name);
  await page.click(`${c} [data-testid=tab-modules]`);
  await page.waitForSelector(`${c} [data-testid=module-view][data-ready=true]`);
  await page.waitForSelector(`${c} [data-testid=module-tree-ready]`);
  return c;
}

/** Picks `file` on a page opened with a link to its Modules tab, and waits for the view. */
async function openModulesFromLink(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name), 'done');
  const c = card(name);
  await page.waitForSelector(`${c} [data-testid=tab-modules][aria-selected=true]`);
  await page.waitForSelector(`${c} [data-testid=module-view][data-ready=true]`);
  return c;
}

/** The module rows shown equal the CLI's rows with those keys, in the CLI's (pre-)order. */
function assertRows(shown, want, label) {
  const order = want.map((r) => r.key);
  let last = -1;
  for (const r of shown) {
    const k = order.indexOf(r.name);
    assert.ok(k > last, `${label}: row ${r.name} in the CLI's order`);
    last = k;
    const w = want[k];
    assert.equal(r.cells.name, w.name, `${label}: name of ${w.key}`);
    assert.equal(cellNum(r.cells.occurrences), w.occurrences, `${label}: occurrences of ${w.key}`);
    assert.equal(cellNum(r.cells.operators), w.operators, `${label}: operators of ${w.key}`);
    for (const f of ['host_total_us', 'host_self_us', 'device_total_us', 'device_self_us']) {
      assert.ok(Math.abs(cellNum(r.cells[f]) - w[f]) <= 0.005, `${label}: ${f} of ${w.key}: page ${r.cells[f]}, CLI ${w[f]}`);
    }
    if (r.cells.backward_host_us != null) assert.ok(Math.abs(cellNum(r.cells.backward_host_us) - w.backward_host_us) <= 0.005, `${label}: backward of ${w.key}`);
  }
}

const boxes = (page, c) => page.$eval(`${c} [data-testid=module-flame-canvas]`, (el) => JSON.parse(el.getAttribute('data-boxes')));

/** Clicks the flame graph's box named `name` on row `level` (the n-th such box). */
async function clickBox(page, c, name, level, n = 0) {
  const all = (await boxes(page, c)).filter(([b, , y]) => b === name && y === level * 22);
  assert.ok(all.length > n, `a ${name} box on row ${level}`);
  const [, x, y, w] = all[n];
  await page.click(`${c} [data-testid=module-flame-canvas]`, { position: { x: x + Math.max(1, w / 2), y: y + 11 } });
}

const selectedRow = (page, c, stem) => page.$eval(`${c} [data-testid=${stem}-row][aria-selected=true]`, (r) => r.getAttribute('data-name')).catch(() => null);

describe('Module view', () => {
  it('tb_plugin\'s TestModuleView trace: the table equals `kinetoscope modules --json`, rows expand and collapse', { ...T, skip }, async () => {
    const want = runCliJson(['modules', '--json', TB_UNIT]).rows;
    assert.deepEqual(want.map((r) => r.path), ['Conv2', 'MyModule', 'MyModule/Linear']);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openModules(page, TB_UNIT);
      let rows = await tableRows(page, c, 'module');
      assert.deepEqual(rows.map((r) => r.name), ['Conv2#100', 'MyModule#0', 'MyModule#0/Linear#1'], 'top rows open: all shown');
      assertRows(rows, want, 'tb-unit');
      assert.equal(await page.getAttribute(`${c} [data-testid=module-row][data-name="MyModule#0"]`, 'aria-expanded'), 'true');
      // Collapse MyModule: Linear goes; expand it again: back.
      await page.click(`${c} [data-testid=module-row][data-name="MyModule#0"] [data-testid=module-toggle]`);
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="MyModule#0"][aria-expanded=false]`);
      rows = await tableRows(page, c, 'module');
      assert.deepEqual(rows.map((r) => r.name), ['Conv2#100', 'MyModule#0']);
      await page.click(`${c} [data-testid=module-row][data-name="MyModule#0"] [data-testid=module-toggle]`);
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="MyModule#0/Linear#1"]`);
      // Sorting orders siblings and keeps children under their parent.
      await page.click(`${c} [data-testid=module-header-host_total_us] button`);
      await page.waitForSelector(`${c} [data-testid=module-header-host_total_us][aria-sort=descending]`);
      rows = await tableRows(page, c, 'module');
      assert.deepEqual(rows.map((r) => r.name), ['MyModule#0', 'MyModule#0/Linear#1', 'Conv2#100']);
      // A search keeps the match and its ancestors.
      await page.fill(`${c} [data-testid=module-search]`, 'linear');
      await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 2, `${c} [data-testid=module-row]`);
      assert.equal(await page.textContent(`${c} [data-testid=module-status]`), '2 of 3 rows');
    });
  });

  it('modules-fwdbwd: numbers equal the CLI\'s; a flame-graph click selects the module row and its tree node', { ...T, skip }, async () => {
    const cli = runCliJson(['modules', '--json', FWDBWD]);
    const want = cli.rows;
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openModules(page, FWDBWD);
      assert.equal(await page.textContent(`${c} [data-testid=module-backward]`), "12 backward passes charged to the modules whose forward ran them, through 8 of 8 fwdbwd flows.");
      // Block starts collapsed: its Linear is not shown until a flame click reveals it.
      let rows = await tableRows(page, c, 'module');
      assert.deepEqual(rows.map((r) => r.name), ['Net#10', 'Net#10/Block#11', 'Net#10/ReLU#14', 'Net#10/Linear#15']);
      assertRows(rows, want, 'fwdbwd');
      assert.equal(await page.getAttribute(`${c} [data-testid=module-flame-canvas]`, 'data-levels'), '3');

      await clickBox(page, c, 'Linear', 2, 0);
      await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-selected') === 'true', `${c} [data-testid=module-row][data-name="Net#10/Block#11/Linear#12"]`);
      rows = await tableRows(page, c, 'module');
      assert.equal(rows.length, 5, 'Block was opened to show the selected Linear');
      assertRows(rows, want, 'fwdbwd expanded');
      assert.equal(await page.getAttribute(`${c} [data-testid=module-flame-canvas]`, 'data-selected'), 'nn.Module: Linear');
      // The same call is selected in the operator tree below (opened down to it).
      const node = await selectedRow(page, c, 'module-tree');
      assert.ok(node != null, 'a tree node is selected');
      assert.equal(await page.textContent(`${c} [data-testid=module-tree-row][data-name="${node}"] [data-testid=module-tree-cell-name]`), 'nn.Module: Linear');

      // A .backward box selects the module whose forward it differentiates: Linear id 15's.
      await clickBox(page, c, 'Linear.backward', 1, 0);
      await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-selected') === 'true', `${c} [data-testid=module-row][data-name="Net#10/Linear#15"]`);
      // The backward node is selected in the tree, under Net.backward, itself under ProfilerStep#1;
      // opened, it holds the backward passes moved there from the autograd thread.
      const back = await selectedRow(page, c, 'module-tree');
      const backRow = `${c} [data-testid=module-tree-row][data-name="${back}"]`;
      assert.equal(await page.textContent(`${backRow} [data-testid=module-tree-cell-name]`), 'nn.Module: Linear.backward');
      let names = (await tableRows(page, c, 'module-tree')).map((r) => r.cells.name);
      assert.ok(names.indexOf('nn.Module: Net.backward') > names.indexOf('ProfilerStep#1'));
      assert.ok(!names.includes('autograd::engine::evaluate_function: AddmmBackward0'));
      await page.click(`${backRow} [data-testid=module-tree-toggle]`);
      await page.waitForSelector(`${backRow}[aria-expanded=true]`);
      names = (await tableRows(page, c, 'module-tree')).map((r) => r.cells.name);
      assert.deepEqual(names.slice(names.indexOf('nn.Module: Linear.backward') + 1, names.indexOf('nn.Module: Linear.backward') + 3), [
        'autograd::engine::evaluate_function: AddmmBackward0',
        'autograd::engine::evaluate_function: torch::autograd::AccumulateGrad',
      ]);

      // The selected module is in the deep link.
      const params = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.slice(1))));
      assert.equal(params.view, 'modules', JSON.stringify(params));
      assert.equal(params.row, 'Net#10/Linear#15');
    });
  });

  it('a ModuleList whose parent ids point outside the model: one root, its blocks with their children', { ...T, skip }, async () => {
    const want = runCliJson(['modules', '--json', MODULELIST]).rows;
    assert.deepEqual(want.map((r) => r.key), [
      'GPT_0#0', 'GPT_0#0/Block_0#0', 'GPT_0#0/Block_0#0/Linear_0#0', 'GPT_0#0/Block_0#0/Linear_1#1',
      'GPT_0#0/Block_1#1', 'GPT_0#0/Block_1#1/Linear_2#2', 'GPT_0#0/Block_1#1/Linear_3#3', 'GPT_0#0/LayerNorm_0#0',
    ]);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openModules(page, MODULELIST);
      let rows = await tableRows(page, c, 'module');
      assert.deepEqual(rows.map((r) => r.name), ['GPT_0#0', 'GPT_0#0/Block_0#0', 'GPT_0#0/Block_1#1', 'GPT_0#0/LayerNorm_0#0']);
      assertRows(rows, want, 'modulelist');
      // The one root holds both steps' backward passes (320 us host, 100 us device).
      assert.equal(cellNum(rows[0].cells.backward_host_us), 320);
      // The first block opens onto its two Linears.
      await page.click(`${c} [data-testid=module-row][data-name="GPT_0#0/Block_0#0"] [data-testid=module-toggle]`);
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="GPT_0#0/Block_0#0/Linear_1#1"]`);
      rows = await tableRows(page, c, 'module');
      assert.equal(rows.length, 6);
      assertRows(rows, want, 'modulelist, Block_0 open');
    });
  });

  it('a deep link opens the Modules tab on its module, however deep', { ...T, skip }, async () => {
    const hash = '#file=modules-fwdbwd.json&view=modules&row=' + encodeURIComponent('Net#10/Block#11/Linear#12');
    await withCheckedPage(browser, server.url + hash, async (page) => {
      const c = await openModulesFromLink(page, FWDBWD);
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="Net#10/Block#11/Linear#12"][aria-selected=true]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=module-row][data-name="Net#10/Block#11"]`, 'aria-expanded'), 'true');
    });
  });

  it('keyboard: the flame graph is reachable and driven by keys; table rows open with → and close with ←', { ...T, skip }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openModules(page, FWDBWD);
      await page.focus(`${c} [data-testid=flame-zoom-in]`);
      await page.keyboard.press('Tab'); // the disabled zoom-out and reset buttons are skipped
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'module-flame-canvas');
      await page.keyboard.press('ArrowRight'); // nothing selected: the first box, Net
      await page.waitForSelector(`${c} [data-testid=module-flame-canvas][data-selected="nn.Module: Net"]`);
      await page.keyboard.press('ArrowDown'); // Block
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="Net#10/Block#11"][aria-selected=true]`);
      await page.keyboard.press('ArrowRight'); // ReLU, the next box on Block's row
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="Net#10/ReLU#14"][aria-selected=true]`);
      await page.keyboard.press('+');
      await page.waitForSelector(`${c} [data-testid=module-flame-canvas][data-zoomed=true]`);
      await page.keyboard.press('0');
      await page.waitForSelector(`${c} [data-testid=module-flame-canvas][data-zoomed=false]`);
      await page.keyboard.press('Enter'); // zoom to the selected ReLU
      await page.waitForSelector(`${c} [data-testid=module-flame-canvas][data-zoomed=true]`);
      const shown = (await boxes(page, c)).map(([n]) => n);
      assert.ok(shown.includes('ReLU') && !shown.includes('Net.backward'), `zoomed on ReLU: ${shown}`);

      // The table: Net selected by click, ← closes it, → opens it, → again goes to its first child.
      await page.click(`${c} [data-testid=module-row][data-name="Net#10"] [data-testid=module-cell-occurrences]`);
      await page.keyboard.press('ArrowLeft');
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="Net#10"][aria-expanded=false]`);
      assert.equal((await tableRows(page, c, 'module')).length, 1);
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="Net#10"][aria-expanded=true]`);
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="Net#10/Block#11"][aria-selected=true]`);
      await page.keyboard.press('ArrowLeft'); // Block is closed: ← goes to its parent
      await page.waitForSelector(`${c} [data-testid=module-row][data-name="Net#10"][aria-selected=true]`);
    });
  });

  it('dark mode: the flame graph and the table are painted dark', { ...T, skip }, async () => {
    const context = await browser.newContext({ colorScheme: 'dark' });
    try {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      await page.waitForSelector('[data-testid=drop-zone]');
      const c = await openModules(page, FWDBWD);
      const [, x, y, w] = (await boxes(page, c)).find(([n]) => n === 'Net');
      const px = await page.$eval(
        `${c} [data-testid=module-flame-canvas]`,
        (cv, [x, y]) => {
          const d = window.devicePixelRatio || 1;
          return [...cv.getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data];
        },
        [x + w / 2 + 40, y + 4],
      );
      const lum = (r, g, b) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      assert.ok(px[3] > 0 && lum(...px) < 0.45, `a dark box fill, got rgba(${px})`);
      const bg = await page.$eval(`${c} .flame-canvas-wrap`, (el) => getComputedStyle(el).backgroundColor);
      const [r, g, b] = bg.match(/\d+/g).map(Number);
      assert.ok(lum(r, g, b) < 0.2, `dark flame background ${bg}`);
      const text = await page.$eval(`${c} [data-testid=module-row] td`, (el) => getComputedStyle(el).color);
      assert.ok(lum(...text.match(/\d+/g).map(Number)) > 0.6, `light text ${text}`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('Lightning modules only: their table; a trace without modules has no Modules tab', { ...T, skip }, async () => {
    const want = runCliJson(['modules', '--json', LIGHTNING]);
    assert.deepEqual(want.rows, []);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openModules(page, LIGHTNING);
      assert.equal(await page.getAttribute(`${c} [data-testid=module-view]`, 'data-table'), 'lightning');
      assert.equal(await page.$(`${c} [data-testid=module-which]`), null, 'one table: no picker');
      const rows = await tableRows(page, c, 'module');
      assert.equal(rows.length, 4);
      assertRows(rows, want.lightning, 'lightning');
      // Lightning's ranges are in the flame graph: profile range on top, modules under it.
      const drawn = await boxes(page, c);
      assert.ok(drawn.some(([n, , y]) => n === '[Strategy]SingleDeviceStrategy.training_step' && y === 0), JSON.stringify(drawn));
      assert.ok(drawn.some(([n, , y]) => n === 'layer.0 (Linear)' && y === 44), JSON.stringify(drawn));

      const other = data('op-tree-linking.json');
      await pickFiles(page, [other]);
      assert.equal(await settled(page, 'op-tree-linking.json'), 'done');
      const o = card('op-tree-linking.json');
      // The card has asked whether there are modules, and been told no.
      await page.waitForSelector(`${o} [role=tablist][data-modules=no]`);
      assert.equal(await page.$(`${o} [data-testid=tab-modules]`), null, 'no Modules tab without module information');
    });
  });
});
