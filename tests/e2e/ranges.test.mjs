// The Ranges view (issue 22 §3) in Chromium: the tab shows for a trace with record_function
// ranges (the GPT recorded on an H200) and not for one without; its tree table equals `kinetoscope
// ranges --csv` row for row (ProfilerStep is not a row; fp8_scaled_mm, bf16_mm, tf32_mm and fp32_mm
// under mixed_precision_matmuls, 2 calls each); rows collapse and expand; a selected row lists its
// kernels (fp8_scaled_mm's FP8 nvjet GEMM on Tensor Cores) and opens the Timeline on its first call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { card, cellNum, cli, cliHas, launch, parseCsv, pickFiles, received, repo, serveDist, serveFakePerfetto, settled, tableRows, withCheckedPage } from './helpers.mjs';
import { execFileSync } from 'node:child_process';

const T = { timeout: 120_000 };
const skip = !cliHas('ranges') && 'the CLI has no ranges command';
const dir = path.join(repo, 'tests/data/h200_pt211/gpt_modulelist');
const GPT = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.json.gz')));
const NAME = path.basename(GPT);

let server, fake, browser;
before(async () => {
  server = await serveDist();
  fake = await serveFakePerfetto();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
});

const csvRows = (file) => {
  const [head, ...rows] = parseCsv(execFileSync(cli, ['ranges', '--csv', file], { encoding: 'utf8' })).filter((r) => r.length > 1);
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
};

async function openRanges(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name), 'done');
  const c = card(name);
  await page.click(`${c} [data-testid=tab-ranges]`);
  await page.waitForSelector(`${c} [data-testid=ranges-view][data-ready=true]`);
  return c;
}

describe('Ranges view', () => {
  it('the GPT trace: the tree equals `kinetoscope ranges --csv`, rows collapse and expand', { ...T, skip }, async () => {
    const want = csvRows(GPT);
    assert.ok(want.some((r) => r.path === 'mixed_precision_matmuls/fp8_scaled_mm'));
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openRanges(page, GPT);
      const rows = await tableRows(page, c, 'ranges');
      assert.deepEqual(rows.map((r) => r.name), want.map((r) => r.path), 'every row, in the tree order, all expanded');
      assert.ok(!rows.some((r) => r.cells.name.startsWith('ProfilerStep')), 'ProfilerStep is the step, not a range');
      for (const r of rows) {
        const w = want.find((x) => x.path === r.name);
        assert.equal(r.cells.name, w.name);
        assert.equal(cellNum(r.cells.calls), Number(w.calls), `calls of ${w.path}`);
        for (const f of ['host_us', 'self_host_us', 'device_us', 'self_device_us', 'gpu_range_us', 'gpu_range_device_us']) {
          const shown = cellNum(r.cells[f]);
          if (w[f] === '') assert.equal(shown, null, `${f} of ${w.path} is blank`);
          else assert.ok(Math.abs(shown - Number(w[f])) <= 0.0051, `${f} of ${w.path}: page ${r.cells[f]}, CLI ${w[f]}`);
        }
        if (w.tensor_core_pct === '') assert.equal(cellNum(r.cells.tensor_core_pct), null);
        else assert.ok(Math.abs(cellNum(r.cells.tensor_core_pct) - Number(w.tensor_core_pct)) <= 0.0051, `TC of ${w.path}`);
      }
      for (const m of ['fp8_scaled_mm', 'bf16_mm', 'tf32_mm', 'fp32_mm']) {
        const r = rows.find((x) => x.name === `mixed_precision_matmuls/${m}`);
        assert.equal(cellNum(r.cells.calls), 2, `${m}: 2 calls`);
      }
      // Collapse mixed_precision_matmuls: its four rows go; expand it: back.
      const parent = `${c} [data-testid=ranges-row][data-name="mixed_precision_matmuls"]`;
      await page.click(`${parent} [data-testid=ranges-toggle]`);
      await page.waitForSelector(`${parent}[aria-expanded=false]`);
      let names = (await tableRows(page, c, 'ranges')).map((r) => r.name);
      assert.ok(!names.some((n) => n.startsWith('mixed_precision_matmuls/')));
      await page.click(`${parent} [data-testid=ranges-toggle]`);
      await page.waitForSelector(`${c} [data-testid=ranges-row][data-name="mixed_precision_matmuls/fp32_mm"]`);
      // The search keeps a match and its ancestors.
      await page.fill(`${c} [data-testid=ranges-search]`, 'fp8');
      await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 2, `${c} [data-testid=ranges-row]`);
      names = (await tableRows(page, c, 'ranges')).map((r) => r.name);
      assert.deepEqual(names, ['mixed_precision_matmuls', 'mixed_precision_matmuls/fp8_scaled_mm']);
    });
  });

  it('a selected range lists its kernels and opens the Timeline on its first call', { ...T, skip }, async () => {
    const summary = JSON.parse(execFileSync(cli, ['summary', '--json', GPT], { encoding: 'utf8' }).split('\n')[0]);
    const fp8 = csvRows(GPT).find((r) => r.path === 'mixed_precision_matmuls/fp8_scaled_mm');
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}`, async (page) => {
      const c = await openRanges(page, GPT);
      await page.click(`${c} [data-testid=ranges-row][data-name="mixed_precision_matmuls/fp8_scaled_mm"]`);
      await page.waitForSelector(`${c} [data-testid=ranges-kernels]`);
      const kernels = await page.$$eval(`${c} [data-testid=ranges-kernels] tbody tr`, (trs) =>
        trs.map((tr) => ({ name: tr.getAttribute('data-kernel'), tc: tr.lastElementChild.getAttribute('data-tc') })),
      );
      const tc = kernels.filter((k) => k.tc === 'Yes');
      assert.equal(tc.length, 1, JSON.stringify(kernels));
      assert.match(tc[0].name, /^nvjet_sm90_qqtst/, "cuBLAS's FP8 GEMM");
      await page.click(`${c} [data-testid=ranges-show-in-timeline]`);
      await page.waitForSelector(`${c} [data-testid=tab-timeline][aria-selected=true]`);
      const got = await received(page, fake.origin, 2);
      assert.deepEqual(got.map((m) => m.kind), ['trace', 'scroll']);
      const start = summary.start_us + Number(fp8.first_start_us), end = summary.start_us + Number(fp8.first_end_us);
      assert.ok(Math.abs(got[1].timeStart - start / 1e6) < 2e-6, `scroll from ${got[1].timeStart}, range starts ${start / 1e6}`);
      assert.ok(Math.abs(got[1].timeEnd - end / 1e6) < 2e-6, `scroll to ${got[1].timeEnd}, range ends ${end / 1e6}`);
      const sent = JSON.parse(got[0].text);
      assert.ok(sent.traceEvents.some((e) => e.name === 'fp8_scaled_mm' && e.cat === 'user_annotation'), 'the window holds the range');
    });
  });

  it('no Ranges tab for a trace without record_function ranges of its own', { ...T, skip }, async () => {
    const NONE = path.join(repo, 'tests/data/diff-baseline.json');  // only ProfilerStep ranges
    assert.equal(csvRows(NONE).length, 0);
    await withCheckedPage(browser, server.url, async (page) => {
      const name = path.basename(NONE);
      await pickFiles(page, [NONE]);
      assert.equal(await settled(page, name), 'done');
      await page.waitForSelector(`${card(name)} [role=tablist][data-ranges=no]`);
      assert.equal(await page.$(`${card(name)} [data-testid=tab-ranges]`), null);
    });
  });
});
