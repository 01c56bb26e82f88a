// Browser tests of the Operators view: the table, its sorting, search, CSV export and selection,
// the detail panel (every column, the kernels it launched, its call stacks) and the top-N pies,
// checked against the native CLI (`kinetoscope operators --json [--group-by op|op+shape]`,
// `--detail NAME`), which runs the same core.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  assertClose,
  card,
  cellNum,
  cliHas,
  columnIds,
  hasShared,
  parseCsv,
  pickFiles,
  runCliJson,
  sampleTrace,
  settled,
  sharedTraces,
  sortedBy,
  tableRows,
  waitStatus,
  withCheckedPage,
  openSite,
  rowsLabel,
} from './helpers.mjs';
import { assertOperatorRow as assertRow, checkOperatorDetail, OP_NUM_COLS as NUM_COLS } from './view-checks.mjs';

const resnet = path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz');

const { server, browser } = await openSite();

async function checkOperators(page, name, file) {
  const c = card(name);
  const data = runCliJson(['operators', '--json', '--group-by', 'op', file]);
  assert.ok(data.rows.length >= 5, `${name}: the trace has operators`);
  await page.click(`${c} [data-testid=tab-operators]`);
  await page.waitForSelector(`${c} [data-testid=op-row]`);
  const total = data.rows.length;
  assert.equal(await page.textContent(`${c} [data-testid=op-status]`), rowsLabel(total));

  // Columns: device and Tensor Core ones only when the trace has GPU work.
  const ids = await columnIds(page, c, 'op');
  // The FLOPs columns (issue 25) after them when the trace has counted calls (the CLI's rows have them).
  const flopIds = 'flops' in data.rows[0] ? ['tflops_per_s', 'pct_of_peak'] : [];  // FLOPs, their dtype and intensity start hidden
  const expectedIds = data.show_gpu
    ? ['name', 'calls', 'device_self_us', 'device_total_us', 'host_self_us', 'host_total_us', 'tc_eligible', 'tc_self_pct', 'tc_total_pct', ...flopIds]
    : ['name', 'calls', 'host_self_us', 'host_total_us', ...flopIds];
  assert.deepEqual(ids, expectedIds, `${name}: columns`);

  // The first rows, in the CLI's order (device self time, largest first), with its numbers.
  let rows = await tableRows(page, c, 'op');
  assert.ok(rows.length >= 5, `${name}: rows rendered`);
  rows.forEach((r, k) => assertRow(r, data.rows[k], 'op', `${name}: row ${k}`));

  // Sort by host total, both ways: the rendered rows are the first of the CLI rows so sorted.
  const header = `${c} [data-testid=op-header-host_total_us]`;
  await page.click(header);
  assert.equal(await page.getAttribute(header, 'aria-sort'), 'descending');
  rows = await tableRows(page, c, 'op');
  assert.deepEqual(rows.map((r) => r.name), sortedBy(data.rows, 'host_total_us', 'desc').slice(0, rows.length).map((r) => r.name), `${name}: host total desc`);
  await page.click(header);
  assert.equal(await page.getAttribute(header, 'aria-sort'), 'ascending');
  rows = await tableRows(page, c, 'op');
  const asc = sortedBy(data.rows, 'host_total_us', 'asc');
  assert.deepEqual(rows.map((r) => r.name), asc.slice(0, rows.length).map((r) => r.name), `${name}: host total asc`);
  rows.forEach((r, k) => assertRow(r, asc[k], 'op', `${name}: ascending row ${k}`));

  // Search: a substring with a handful of matches; every match is shown, in the sorted order.
  const query = ['conv', 'mm', 'add', 'copy', 'batch', 'to', 'a'].find((q) => {
    const n = data.rows.filter((r) => r.name.toLowerCase().includes(q)).length;
    return n >= 2 && n <= 12;
  });
  assert.ok(query, `${name}: a search with a few matches`);
  const matches = asc.filter((r) => r.name.toLowerCase().includes(query));
  await page.fill(`${c} [data-testid=op-search]`, query.toUpperCase());
  await waitStatus(page, c, 'op', rowsLabel(matches.length, total));
  rows = await tableRows(page, c, 'op');
  assert.deepEqual(rows.map((r) => r.name), matches.map((r) => r.name), `${name}: search "${query}"`);

  // Export: the file holds exactly the shown rows, in the shown order, raw values equal to the CLI's.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${c} [data-testid=op-export]`)]);
  assert.match(download.suggestedFilename(), /-operators\.csv$/);
  const csv = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
  // Every column, the hidden FLOP dtype too.
  const flopHead = flopIds.length ? ['FLOPs', 'FLOP dtype', 'TFLOP/s', '% of peak', 'Intensity (FLOP/byte)'] : [];
  const csvHead = data.show_gpu
    ? ['Name', 'Calls', 'Device self (us)', 'Device total (us)', 'Host self (us)', 'Host total (us)', 'Tensor Cores eligible', 'TC self (%)', 'TC total (%)', ...flopHead]
    : ['Name', 'Calls', 'Host self (us)', 'Host total (us)', ...flopHead];
  assert.deepEqual(csv[0], csvHead, `${name}: CSV header`);
  assert.equal(csv.length - 1, rows.length, `${name}: CSV rows = shown rows`);
  rows.forEach((r, k) => {
    const fields = Object.fromEntries(ids.map((id, j) => [id, csv[k + 1][j]]));
    assert.equal(fields.name, r.cells.name, `${name}: CSV row ${k} name`);
    const cliRow = matches[k];
    for (const id of ids.filter((x) => NUM_COLS.includes(x))) {
      assert.equal(fields[id] === '' ? null : Number(fields[id]), cliRow[id], `${name}: CSV row ${k} ${id} is the raw value`);
      assertClose(cellNum(r.cells[id]), fields[id] === '' ? null : Number(fields[id]), `${name}: CSV row ${k} ${id} matches the page`);
    }
  });

  // Selection: kept by key across re-sorting (wherever the row lands, it is the one selected).
  await page.fill(`${c} [data-testid=op-search]`, '');
  await waitStatus(page, c, 'op', rowsLabel(total));
  const pick = (await tableRows(page, c, 'op'))[2].name;
  await page.click(`${c} [data-testid=op-row] >> nth=2`);
  const selected = async () => (await tableRows(page, c, 'op')).filter((r) => r.selected).map((r) => r.name);
  assert.deepEqual(await selected(), [pick]);
  await page.click(`${c} [data-testid=op-header-name]`);
  assert.equal(await page.getAttribute(`${c} [data-testid=op-header-name]`, 'aria-sort'), 'ascending');
  const byName = sortedBy(data.rows, 'name', 'asc');
  const pos = byName.findIndex((r) => r.name === pick);
  await page.$eval(`${c} [data-testid=op-data-table] .dt-scroll`, (el, top) => (el.scrollTop = top), Math.max(0, pos * 30 - 60));
  await page.waitForSelector(`${c} [data-testid=op-row][aria-selected=true]`);
  rows = await tableRows(page, c, 'op');
  assert.deepEqual(rows.filter((r) => r.selected).map((r) => r.name), [pick], `${name}: still selected after sorting by name`);
  const at = rows.findIndex((r) => r.selected);
  assert.equal(rows[at - 1]?.name ?? null, byName[pos - 1]?.name ?? null, `${name}: the selected row sits at its sorted place`);
  assert.equal(await page.textContent(`${c} [data-testid=op-detail-name]`), pick);
  return data;
}

async function checkPies(page, name, data) {
  const c = card(name);
  const cols = data.show_gpu ? ['device_self_us', 'device_total_us', 'host_self_us', 'host_total_us'] : ['host_self_us', 'host_total_us'];
  const pies = await page.$$eval(`${c} [data-testid^=op-pie-][data-testid$=_us]`, (els) => els.map((e) => e.getAttribute('data-testid')));
  assert.deepEqual(pies, cols.map((k) => `op-pie-${k}`), `${name}: one pie per duration column`);
  for (const n of [10, 3]) {
    await page.fill(`${c} [data-testid=op-pie-n]`, String(n));
    for (const k of cols) {
      const positive = data.rows.filter((r) => r[k] > 0);
      const sum = positive.reduce((a, r) => a + r[k], 0);
      const top = sortedBy(positive, k, 'desc').slice(0, n);
      const want = [...top.map((r) => r.name), ...(positive.length > n ? ['Other'] : [])];
      const got = await page.$$eval(`${c} [data-testid=op-pie-${k}-slice]`, (ps) => ps.map((p) => p.getAttribute('data-label')));
      assert.deepEqual(got, want, `${name}: top ${n} by ${k}`);
      await page.hover(`${c} [data-testid=op-pie-${k}-slice] >> nth=0`);
      const hover = await page.textContent(`${c} [data-testid=op-pie-${k}-hover]`);
      const pct = ((top[0][k] / sum) * 100).toFixed(2);
      assert.ok(hover.startsWith(`${top[0].name}: `) && hover.endsWith(` us (${pct} %)`), `${name}: hover of ${k}: ${hover}`);
      assertClose(cellNum(hover.slice(top[0].name.length + 2, hover.indexOf(' us ('))), top[0][k], `${name}: hover value of ${k}`);
    }
  }
}

async function checkByShape(page, name, file) {
  const c = card(name);
  const data = runCliJson(['operators', '--json', '--group-by', 'op+shape', file]);
  await page.selectOption(`${c} [data-testid=op-group-by]`, 'op+shape');
  await page.waitForSelector(`${c} [data-testid=op-header-input_shape]`);
  await waitStatus(page, c, 'op', rowsLabel(data.rows.length));
  const rows = await tableRows(page, c, 'op');
  rows.slice(0, 5).forEach((r, k) => assertRow(r, data.rows[k], 'op+shape', `${name}: by shape, row ${k}`));
}

const T = { timeout: 240_000 };
const skipCli = !cliHas('operators') && 'the CLI has no operators command';

describe('operators', () => {
  it('"Open sample": table, sorting, search, CSV, selection, detail panel and pies match the CLI', { ...T, skip: skipCli }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      const name = 'rank-0.json.gz';
      assert.equal(await settled(page, name), 'done');
      const data = await checkOperators(page, name, sampleTrace);
      // The sample was profiled without with_stack: the panel says so.
      assert.ok(data.rows.every((r) => !r.has_call_stack));
      await page.waitForSelector(`${card(name)} [data-testid=op-stacks-none]`);
      assert.equal(await page.textContent(`${card(name)} [data-testid=op-stacks-none]`), 'No call stack recorded (profile with with_stack=True).');
      // The detail panel of the operator with the most device time: every column, its kernels.
      await page.fill(`${card(name)} [data-testid=op-search]`, data.rows[0].name);
      const top = (await tableRows(page, card(name), 'op')).find((r) => r.name === data.rows[0].name);
      const detail = await checkOperatorDetail(page, card(name), sampleTrace, top, data.rows[0], 'op', { showGpu: data.show_gpu });
      assert.ok(detail.kernels.length >= 1, 'the top operator launched kernels');
      await checkPies(page, name, data);
      await checkByShape(page, name, sampleTrace);
    });
  });

  it('resnet50: table, detail panel with call stacks, and pies match the CLI', { ...T, skip: skipCli || (!hasShared && 'no ../shared/traces') }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [resnet]);
      const name = path.basename(resnet);
      const c = card(name);
      assert.equal(await settled(page, name), 'done');
      const data = await checkOperators(page, name, resnet);
      await checkPies(page, name, data);

      // Call stacks of an operator recorded with them: one block per stack, frames as a list.
      const withStack = data.rows.find((r) => r.has_call_stack);
      assert.ok(withStack, 'resnet50 was profiled with stacks');
      await page.fill(`${c} [data-testid=op-search]`, withStack.name);
      await page.click(`${c} [data-testid=op-row][data-name="${withStack.name}"]`);
      await page.waitForSelector(`${c} [data-testid=op-stack]`);
      const stacks = await page.$$eval(`${c} [data-testid=op-stack]`, (els) =>
        els.map((e) => ({
          calls: Number(e.querySelector('[data-testid=op-stack-calls]').textContent),
          frames: [...e.querySelectorAll('[data-testid=op-stack-frames] li')].map((li) => li.textContent),
        })),
      );
      assert.ok(stacks.length >= 1);
      for (const s of stacks) assert.ok(s.frames.length >= 1 && s.frames.every((f) => f.trim() !== ''), 'every block lists its frames');
      const calls = stacks.reduce((a, s) => a + s.calls, 0);
      assert.ok(calls > 0 && calls <= withStack.calls, `stack calls ${calls} within the operator's ${withStack.calls}`);
      assert.ok(stacks.some((s) => s.frames.some((f) => /\.py\(\d+\)/.test(f))), 'frames name Python files and lines');

      // The same panel, held to the CLI's detail: every column, the kernels, the stacks.
      const shown = (await tableRows(page, c, 'op')).find((r) => r.name === withStack.name);
      const detail = await checkOperatorDetail(page, c, resnet, shown, withStack, 'op', { showGpu: data.show_gpu });
      assert.ok(detail.stacks.length >= 1 && detail.kernels.length >= 1);

      // And one without: the panel says none was recorded.
      const without = data.rows.find((r) => !r.has_call_stack);
      await page.fill(`${c} [data-testid=op-search]`, without.name);
      await page.click(`${c} [data-testid=op-row][data-name="${without.name}"]`);
      await page.waitForSelector(`${c} [data-testid=op-stacks-none]`);
      await checkByShape(page, name, resnet);
    });
  });
});
