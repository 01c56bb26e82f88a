// Browser tests of the Kernels view against the native CLI (`kinetoscope kernels --json
// --group-by name|props`): the top rows in both groupings, sorting, the pies, and kernel names
// from the trace shown as text.
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
  handMadeTrace,
  hasShared,
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
} from './helpers.mjs';

const resnet = path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz');

const { server, browser, tmp } = await openSite({ tmp: true });

const US = ['total_us', 'mean_us', 'min_us', 'max_us', 'occupancy_pct', 'blocks_per_sm', 'calls', 'registers_per_thread', 'shared_memory'];
const dims = (v) => (v ? `[${v.join(', ')}]` : '');

function assertKernel(shown, expected, label) {
  assert.equal(shown.cells.name, expected.name, `${label}: name`);
  if ('operator' in shown.cells) {
    assert.equal(shown.cells.operator, expected.operator ?? '', `${label}: operator`);
    assert.equal(shown.cells.grid, dims(expected.grid), `${label}: grid`);
    assert.equal(shown.cells.block, dims(expected.block), `${label}: block`);
  }
  assert.equal(shown.cells.tensor_cores, expected.tensor_cores ? 'Yes' : 'No', `${label}: tensor cores`);
  for (const k of US) if (k in shown.cells) assertClose(cellNum(shown.cells[k]), expected[k], `${label}: ${k}`);
}

async function checkKernels(page, name, file) {
  const c = card(name);
  const byName = runCliJson(['kernels', '--json', '--group-by', 'name', file]);
  const byProps = runCliJson(['kernels', '--json', '--group-by', 'props', file]);
  assert.ok(byName.rows.length >= 3, `${name}: the trace has kernels`);
  await page.click(`${c} [data-testid=tab-kernels]`);
  await page.waitForSelector(`${c} [data-testid=kernel-row]`);
  await waitStatus(page, c, 'kernel', `${byName.rows.length} rows`);

  const hasOcc = byName.rows.some((r) => r.occupancy_pct != null);
  const hasBlocks = byName.rows.some((r) => r.blocks_per_sm != null);
  assert.deepEqual(await columnIds(page, c, 'kernel'), [
    'name',
    'calls',
    'tensor_cores',
    'total_us',
    'mean_us',
    'min_us',
    'max_us',
    ...(hasBlocks ? ['blocks_per_sm'] : []),
    ...(hasOcc ? ['occupancy_pct'] : []),
  ]);
  let rows = await tableRows(page, c, 'kernel');
  rows.slice(0, 8).forEach((r, k) => assertKernel(r, byName.rows[k], `${name}: by name, row ${k}`));

  // Sorting by mean, largest first.
  await page.click(`${c} [data-testid=kernel-header-mean_us]`);
  rows = await tableRows(page, c, 'kernel');
  const byMean = sortedBy(byName.rows, 'mean_us', 'desc');
  rows.slice(0, 8).forEach((r, k) => assertKernel(r, byMean[k], `${name}: by mean, row ${k}`));

  // Top-N pie by total time, then N = 2.
  for (const n of [10, 2]) {
    await page.fill(`${c} [data-testid=kernel-pie-n]`, String(n));
    const positive = byName.rows.filter((r) => r.total_us > 0);
    const want = [...sortedBy(positive, 'total_us', 'desc').slice(0, n).map((r) => r.name), ...(positive.length > n ? ['Other'] : [])];
    const got = await page.$$eval(`${c} [data-testid=kernel-pie-total-slice]`, (ps) => ps.map((p) => p.getAttribute('data-label')));
    assert.deepEqual(got, want, `${name}: top ${n} kernels`);
  }

  // Tensor Cores vs not, from the CLI's split.
  const tc = byName.tensor_cores;
  assert.ok(tc && tc.total_us > 0);
  const slices = [
    ['Using Tensor Cores', tc.tc_us],
    ['Not using Tensor Cores', tc.total_us - tc.tc_us],
  ].filter(([, v]) => v > 0);
  const legend = await page.$$eval(`${c} [data-testid=kernel-pie-tc-legend] li`, (lis) =>
    lis.map((li) => [li.querySelector('.pie-label').textContent, li.querySelector('.pie-pct').textContent]),
  );
  assert.deepEqual(legend, slices.map(([l, v]) => [l, `${((v / tc.total_us) * 100).toFixed(1)} %`]), `${name}: Tensor Core pie`);
  await page.hover(`${c} [data-testid=kernel-pie-tc-slice] >> nth=0`);
  const hover = await page.textContent(`${c} [data-testid=kernel-pie-tc-hover]`);
  assert.ok(hover.startsWith(`${slices[0][0]}: `) && hover.endsWith(`(${((slices[0][1] / tc.total_us) * 100).toFixed(2)} %)`), hover);

  // Properties + operator: the extra columns, and the CLI's rows in its order.
  await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'props');
  await page.waitForSelector(`${c} [data-testid=kernel-header-operator]`);
  await waitStatus(page, c, 'kernel', `${byProps.rows.length} rows`);
  const ids = await columnIds(page, c, 'kernel');
  assert.deepEqual(ids.slice(0, 6), ['name', 'operator', 'grid', 'block', 'registers_per_thread', 'shared_memory']);
  rows = await tableRows(page, c, 'kernel');
  rows.slice(0, 8).forEach((r, k) => assertKernel(r, byProps.rows[k], `${name}: by props, row ${k}`));
}

const T = { timeout: 240_000 };
const skipCli = !cliHas('kernels') && 'the CLI has no kernels command';

describe('kernels', () => {
  it('"Open sample": top kernels by name and by properties match the CLI', { ...T, skip: skipCli }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      await checkKernels(page, 'rank-0.json.gz', sampleTrace);
    });
  });

  it('resnet50: top kernels by name and by properties match the CLI', { ...T, skip: skipCli || (!hasShared && 'no ../shared/traces') }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [resnet]);
      const name = path.basename(resnet);
      assert.equal(await settled(page, name), 'done');
      await checkKernels(page, name, resnet);
    });
  });

  it('kernel names that look like HTML are shown as text', { ...T, skip: skipCli }, async () => {
    const f = path.join(tmp, 'hand-made.json');
    fs.writeFileSync(f, JSON.stringify(handMadeTrace()));
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [f]);
      assert.equal(await settled(page, 'hand-made.json'), 'done');
      const c = card('hand-made.json');
      await page.click(`${c} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${c} [data-testid=kernel-row]`);
      const rows = await tableRows(page, c, 'kernel');
      assert.deepEqual(rows.map((r) => r.cells.name), ['sgemm_<b>"quoted"</b>']);
      assert.equal(await page.$$eval(`${c} [data-testid=panel-kernels] b`, (els) => els.length), 0, 'no <b> element was made');
      const cli = runCliJson(['kernels', '--json', f]);
      assertKernel(rows[0], cli.rows[0], 'hand-made');
      const legend = await page.$$eval(`${c} [data-testid=kernel-pie-total-legend] .pie-label`, (els) => els.map((e) => e.textContent));
      assert.deepEqual(legend, ['sgemm_<b>"quoted"</b>']);
    });
  });
});
