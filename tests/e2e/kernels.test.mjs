// Browser tests of the Kernels view against the native CLI (`kinetoscope kernels --json
// --group-by name|props`, `--detail NAME`): the top rows in both groupings, sorting, the pies,
// the detail panel of a selected row, and kernel names from the trace shown as text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  card,
  cliHas,
  columnIds,
  handMadeTrace,
  hasShared,
  pickFiles,
  repo,
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
import { assertKernelRow as assertKernel, checkKernelDetail } from './view-checks.mjs';

const resnet = path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz');

const { server, browser, tmp } = await openSite({ tmp: true });

async function checkKernels(page, name, file) {
  const c = card(name);
  const byName = runCliJson(['kernels', '--json', '--group-by', 'name', file]);
  const byProps = runCliJson(['kernels', '--json', '--group-by', 'props', file]);
  assert.ok(byName.rows.length >= 3, `${name}: the trace has kernels`);
  await page.click(`${c} [data-testid=tab-kernels]`);
  await page.waitForSelector(`${c} [data-testid=kernel-row]`);
  await waitStatus(page, c, 'kernel', rowsLabel(byName.rows.length));

  const hasOcc = byName.rows.some((r) => r.occupancy_pct != null);
  const hasBlocks = byName.rows.some((r) => r.blocks_per_sm != null);
  // The FLOPs columns (issue 25), when the trace has counted calls (the CLI's rows have them).
  const flopIds = 'flops' in byName.rows[0] ? ['tflops_per_s', 'pct_of_peak'] : [];  // FLOPs, their dtype and intensity start hidden
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
    ...flopIds,
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

  // Tensor Cores: used, unknown (a core with three states), not used, from the CLI's split; the
  // caption says which kernels the pie covers.
  const tc = byName.tensor_cores;
  assert.ok(tc && tc.total_us > 0);
  const unknown = tc.unknown_us ?? 0;
  const term = tc.term ?? 'Tensor Cores';
  const slices = [
    [`Using ${term}`, tc.tc_us],
    ['Unknown', unknown],
    [`Not using ${term}`, tc.total_us - tc.tc_us - unknown],
  ].filter(([, v]) => v > 0);
  const legend = await page.$$eval(`${c} [data-testid=kernel-pie-tc-legend] li`, (lis) =>
    lis.map((li) => [li.querySelector('.pie-label').textContent, li.querySelector('.pie-pct').textContent]),
  );
  // Two decimals, as the Overview's GPU summary prints the same share (issue 22 §5).
  assert.deepEqual(legend, slices.map(([l, v]) => [l, `${((v / tc.total_us) * 100).toFixed(2)} %`]), `${name}: Tensor Core pie`);
  await page.hover(`${c} [data-testid=kernel-pie-tc-slice] >> nth=0`);
  const hover = await page.textContent(`${c} [data-testid=kernel-pie-tc-hover]`);
  assert.ok(hover.startsWith(`${slices[0][0]}: `) && hover.endsWith(`(${((slices[0][1] / tc.total_us) * 100).toFixed(2)} %)`), hover);
  // The caption is the core's sentence saying which kernels the pie covers (all of the trace's).
  assert.match(tc.scope, /every kernel in the trace/);
  assert.equal(await page.textContent(`${c} [data-testid=kernel-pie-tc-scope]`), tc.scope);
  assert.equal(!!(await page.$(`${c} [data-testid=kernel-pie-tc-unknown]`)), unknown > 0, 'Unknown is explained when there is some');

  // Properties + operator: the extra columns, and the CLI's rows in its order.
  await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'props');
  await page.waitForSelector(`${c} [data-testid=kernel-header-operator]`);
  await waitStatus(page, c, 'kernel', rowsLabel(byProps.rows.length));
  // The row's identity first; Mean, Min, Max and the SM metrics start hidden in this grouping
  // (the Columns menu has them, and the detail panel).
  const ids = await columnIds(page, c, 'kernel');
  assert.deepEqual(ids, ['name', 'operator', 'grid', 'block', 'registers_per_thread', 'shared_memory', 'calls', 'tensor_cores', 'total_us', ...flopIds]);
  await page.click(`${c} [data-testid=kernel-columns]`);
  const toggles = await page.$$eval(`${c} [data-testid^=kernel-column-toggle-]`, (els) => els.map((e) => [e.getAttribute('data-testid').slice(21), e.checked]));
  assert.deepEqual(
    toggles,
    [
      ...ids.filter((id) => !flopIds.includes(id)).map((id) => [id, true]),
      ['mean_us', false],
      ['min_us', false],
      ['max_us', false],
      ...(hasBlocks ? [['blocks_per_sm', false]] : []),
      ...(hasOcc ? [['occupancy_pct', false]] : []),
      ...(flopIds.length ? [['flops', false], ['flop_dtype', false], ['tflops_per_s', true], ['pct_of_peak', true], ['intensity', false]] : []),
    ],
    `${name}: the Columns menu lists every column, the hidden ones unchecked`,
  );
  await page.keyboard.press('Escape');
  await page.waitForSelector(`${c} [data-testid=kernel-columns-menu]`, { state: 'detached' });
  rows = await tableRows(page, c, 'kernel');
  rows.slice(0, 8).forEach((r, k) => assertKernel(r, byProps.rows[k], `${name}: by props, row ${k}`));
  return { byName, byProps };
}

/**
 * The detail panel: of the top props row, then (by name) of a kernel launched with several
 * property sets or by several operators (and `pick`s), found by searching for it. Returns the
 * CLI's detail of the latter.
 */
async function checkKernelDetails(page, name, file, { byName, byProps }, pick = () => true) {
  const c = card(name);
  const top = (await tableRows(page, c, 'kernel'))[0];
  await checkKernelDetail(page, c, file, top, byProps.rows[0], 'props');
  const counts = new Map();
  for (const r of byProps.rows) counts.set(r.name, (counts.get(r.name) ?? 0) + 1);
  const several = byName.rows.find((r) => counts.get(r.name) >= 2 && pick(r));
  assert.ok(several, `${name}: a kernel in several props rows`);
  await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'name');
  await page.waitForSelector(`${c} [data-testid=kernel-header-min_us]`);
  await page.fill(`${c} [data-testid=kernel-search]`, several.name);
  await page.waitForSelector(`${c} [data-testid=kernel-row][data-name="${several.name.replace(/["\\]/g, '\\$&')}"]`);
  const shown = (await tableRows(page, c, 'kernel')).find((r) => r.name === several.name);
  const want = await checkKernelDetail(page, c, file, shown, several, 'name');
  assert.ok(want.launches.length + want.operators.length >= 3, `${name}: ${several.name.slice(0, 40)} has several launch shapes or operators`);
  // Esc closes the panel (the row is deselected).
  await page.keyboard.press('Escape');
  await page.waitForSelector(`${c} [data-testid=kernel-detail]`, { state: 'detached' });
  await page.waitForSelector(`${c} [data-testid=kernel-detail-hint]`);
  return want;
}

const T = { timeout: 240_000 };
const skipCli = !cliHas('kernels') && 'the CLI has no kernels command';

describe('kernels', () => {
  it('"Open sample": top kernels by name and by properties, and the detail panel, match the CLI', { ...T, skip: skipCli }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      const cli = await checkKernels(page, 'rank-0.json.gz', sampleTrace);
      await checkKernelDetails(page, 'rank-0.json.gz', sampleTrace, cli);
    });
  });

  it('resnet50: top kernels by name and by properties, and the detail panel with call stacks, match the CLI', { ...T, skip: skipCli || (!hasShared && 'no ../shared/traces') }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [resnet]);
      const name = path.basename(resnet);
      assert.equal(await settled(page, name), 'done');
      const cli = await checkKernels(page, name, resnet);
      // resnet50 was profiled with stacks (forward operators have them): the panel lists the
      // launching operators' call stacks.
      const byConv = (r) => cli.byProps.rows.some((p) => p.name === r.name && p.operator === 'aten::cudnn_convolution');
      const detail = await checkKernelDetails(page, name, resnet, cli, byConv);
      assert.ok(detail.stacks.length > 0, 'the kernel\'s launching operators recorded call stacks');
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

  // A cluster launch's occupancy (Kineto wrote 0: its calculator failed) is absent: "—" with the
  // reason on hover, not "0.00"; a kernel no operator launched shows its operator as "—" too.
  it('absent occupancy and absent launcher show as "—" with the reason on hover', { ...T, skip: skipCli }, async () => {
    const fixture = path.join(repo, 'tests', 'data', 'cluster-launch-zero-occupancy.json');
    const f = path.join(tmp, 'cluster-launch-zero-occupancy.json');
    const doc = JSON.parse(fs.readFileSync(fixture, 'utf8'));
    // One more kernel, with no launch in the trace: no operator took it.
    doc.traceEvents.push({ ph: 'X', cat: 'kernel', name: 'orphan_kernel', pid: 0, tid: 7, ts: 70, dur: 5, args: { correlation: 99, device: 0, 'blocks per SM': 1, 'warps per SM': 4, 'est. achieved occupancy %': 12 } });
    fs.writeFileSync(f, JSON.stringify(doc));
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [f]);
      const name = path.basename(f);
      assert.equal(await settled(page, name), 'done');
      const c = card(name);
      await page.click(`${c} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${c} [data-testid=kernel-row]`);
      const nvjet = 'nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_NNN';
      const occ = async (kernel) =>
        page.$eval(`${c} [data-testid=kernel-row][data-name="${kernel}"] [data-testid=kernel-cell-occupancy_pct]`, (td) => ({ text: td.textContent, title: td.getAttribute('title') ?? '' }));
      const cluster = await occ(nvjet);
      assert.equal(cluster.text, '—');
      assert.match(cluster.title, /cluster launch/);
      assert.equal((await occ('ampere_sgemm_128x64_nn')).text, '50.00');
      assert.equal((await occ('void at::native::vectorized_elementwise_kernel<4>')).text, '0.00');
      // The GPU summary's mean leaves the cluster launch out: (50 x 10 + 0 x 10 + 12 x 5) / 25 = 22.4 %
      // (with it, as tb_plugin: 560 / 55 = 10.18 %).
      await page.click(`${c} [data-testid=tab-overview]`);
      const summary = await page.textContent(`${c} [data-testid=panel-overview]`);
      assert.match(summary, /Est\. achieved occupancy\s*22\.40 %/);
      // By properties + operator: the orphan kernel's operator is "—", with why on hover.
      await page.click(`${c} [data-testid=tab-kernels]`);
      await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'props');
      await page.waitForSelector(`${c} [data-testid=kernel-row][data-name^="orphan_kernel "]`);
      const op = await page.$eval(`${c} [data-testid=kernel-row][data-name^="orphan_kernel "] [data-testid=kernel-cell-operator]`, (td) => ({ text: td.textContent, title: td.getAttribute('title') }));
      assert.equal(op.text, '—');
      assert.match(op.title, /No operator launched it/);
    });
  });
});
