// The Overview's FLOPs card (issue 25) against `kinetoscope flops --json`: per step its FLOPs and
// MFU, their average and the coverage ("counted ops: N % of kernel time") as the page shows them
// must be the CLI's numbers, on the hand-made two-step fixture (tests/data/README.md "FLOPs
// fixtures", worked out by hand there) and the recorded GPT (tests/data/h200_pt211); a trace
// recorded without shapes shows the CLI's sentence and no numbers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, openSite, pickFiles, repo, runCliJson, settled, withCheckedPage } from './helpers.mjs';

const { server, browser } = await openSite();
const T = { timeout: 180_000 };
const gptDir = path.join(repo, 'tests/data/h200_pt211/gpt_modulelist');
const gpt = fs.existsSync(gptDir) ? fs.readdirSync(gptDir).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => path.join(gptDir, f))[0] : undefined;
const fixture = (name) => path.join(repo, 'tests/data', name);

/** The card once its answer is in: each row's step, FLOPs and MFU (as numbers), the coverage, the note. */
async function readFlopsCard(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name, 120_000), 'done');
  const c = `${card(name)} [data-testid=overview-card] [data-testid=flops-card]`;
  await page.waitForSelector(`${c}[data-state=ready]`, { timeout: 60_000 });
  return page.$eval(c, (root) => {
    const num = (v) => (v === '' || v == null ? null : Number(v));
    return {
      rows: [...root.querySelectorAll('[data-testid=flops-steps] tbody tr')].map((tr) => ({
        step: tr.dataset.step,
        flops: num(tr.dataset.flops),
        mfu: num(tr.dataset.mfu),
        mfuText: tr.children[4].textContent,
      })),
      headers: [...root.querySelectorAll('[data-testid=flops-steps] thead th')].map((th) => th.textContent.trim()),
      durations: [...root.querySelectorAll('[data-testid=flops-steps] tbody tr')].map((tr) => tr.children[1].textContent),
      coverage: root.querySelector('[data-testid=flops-coverage]')?.textContent ?? null,
      note: root.querySelector('[data-testid=flops-note]')?.textContent ?? null,
    };
  });
}

function expected(file) {
  const j = runCliJson(['flops', '--json', file]);
  const rows = j.steps.map((s) => ({ step: s.step, flops: s.flops, mfu: s.mfu_pct }));
  if (j.steps.length > 1) rows.push({ step: 'average', flops: j.average.flops, mfu: j.average.mfu_pct });
  return { j, rows };
}

describe('The FLOPs card', () => {
  for (const [label, file] of [
    ['flops-mfu-two-steps.json', fixture('flops-mfu-two-steps.json')],
    ['tests/data/h200_pt211/gpt_modulelist', gpt],
  ]) {
    it(`${label}: per step FLOPs and MFU, the average and the coverage are the CLI's`, { ...T, skip: !file && `${label} is absent` }, async () => {
      const { j, rows } = expected(file);
      await withCheckedPage(browser, server.url, async (page) => {
        const got = await readFlopsCard(page, file);
        assert.deepEqual(got.rows.map(({ step, flops, mfu }) => ({ step, flops, mfu })), rows);
        for (const r of got.rows) assert.equal(r.mfuText, r.mfu == null ? '—' : `${r.mfu.toFixed(2)} %`);
        // Styled as the Steps table: capitalised headers, whole µs grouped as "1,000 us".
        assert.deepEqual(got.headers, ['Step', 'Duration (us)', 'FLOPs', 'TFLOP/s', 'MFU', 'Peak of']);
        const durations = [...j.steps.map((x) => x.duration_us), ...(j.steps.length > 1 ? [j.average.duration_us] : [])];
        assert.deepEqual(got.durations, durations.map((us) => `${Math.round(us).toLocaleString('en-US')} us`));
        const g1 = (v) => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
        assert.equal(got.coverage, `counted ops: ${j.coverage.pct.toFixed(1)} % of kernel time (${g1(j.coverage.counted_device_us)} of ${g1(j.coverage.kernel_us)} us)`);
        assert.equal(got.note, null);
      });
    });
  }

  it('the hand-made fixture: the numbers worked out by hand', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const got = await readFlopsCard(page, fixture('flops-mfu-two-steps.json'));
      assert.deepEqual(got.rows.map((r) => [r.step, r.flops, r.mfuText]), [
        ['1', 2147483648, `${(2.147483648 / 989.5 * 100).toFixed(2)} %`],
        ['2', 50331648, `${(0.050331648 / 494.5 * 100).toFixed(2)} %`],
        ['average', 1098907648, `${(1.098907648 / 989.5 * 100).toFixed(2)} %`],
      ]);
      assert.equal(got.coverage, 'counted ops: 95.0 % of kernel time (190.0 of 200.0 us)');
    });
  });

  it('a trace recorded without shapes: the sentence, no numbers', T, async () => {
    const file = fixture('flops-no-record-shapes.json');
    const { j } = expected(file);
    await withCheckedPage(browser, server.url, async (page) => {
      const got = await readFlopsCard(page, file);
      assert.equal(got.note, `${j.note}.`);
      assert.ok(got.note.startsWith('recorded without record_shapes=True'));
      assert.deepEqual(got.rows.map((r) => [r.flops, r.mfu, r.mfuText]), [[null, null, '—'], [null, null, '—'], [null, null, '—']]);
      assert.equal(got.coverage, null);
    });
  });
});

// Issue 25's page part: the FLOPs columns of Operators and Kernels, the peak picker and the
// roofline, each against the CLI (`operators --json`, `kernels --json`, `roofline --json`,
// `flops --json --peak`) on the hand-made two-step fixture, whose numbers tests/data/README.md
// works out by hand.
const twoSteps = fixture('flops-mfu-two-steps.json');

/** The data table rows of `stem` as {name, cells: {column id: text}} (the rendered ones). */
async function rowsOf(page, c, stem) {
  const ids = await page.$$eval(`${c} [data-testid^="${stem}-header-"]`, (ths, stem) => ths.map((th) => th.getAttribute('data-testid').slice(stem.length + 8)), stem);
  const rows = await page.$$eval(`${c} [data-testid="${stem}-row"]`, (trs) => trs.map((tr) => ({ name: tr.getAttribute('data-name'), cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })));
  return { ids, rows: rows.map((r) => ({ name: r.name, cells: Object.fromEntries(ids.map((id, k) => [id, r.cells[k]])) })) };
}

const flopText = (v) => {
  if (v == null) return '';
  const p = ['', 'K', 'M', 'G', 'T', 'P', 'E'];
  let u = 0;
  while (Math.abs(v) >= 1000 && u < p.length - 1) (v /= 1000), u++;
  return `${v.toPrecision(3)} ${p[u]}`.trimEnd();
};
const fixed2 = (v) => (v == null ? '' : v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));

describe('FLOPs on the page beside the card', () => {
  it("Operators: FLOPs, dtype, TFLOP/s, % of peak and intensity are the CLI's, empty where nothing was counted", T, async () => {
    const want = runCliJson(['operators', '--json', twoSteps]).rows;
    await withCheckedPage(browser, server.url, async (page) => {
      await readFlopsCard(page, twoSteps);
      const c = card(path.basename(twoSteps));
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);
      // TFLOP/s and % of peak shown; FLOPs, their dtype and intensity start hidden: the Columns menu shows them
      assert.deepEqual((await rowsOf(page, c, 'op')).ids.slice(-2), ['tflops_per_s', 'pct_of_peak']);
      await page.click(`${c} [data-testid=op-columns]`);
      for (const id of ['flops', 'flop_dtype', 'intensity']) await page.check(`${c} [data-testid=op-column-toggle-${id}]`);
      await page.keyboard.press('Escape');
      await page.waitForSelector(`${c} [data-testid=op-header-intensity]`);
      const { ids, rows } = await rowsOf(page, c, 'op');
      assert.deepEqual(ids.slice(-5), ['flops', 'flop_dtype', 'tflops_per_s', 'pct_of_peak', 'intensity']);
      assert.equal(rows.length, want.length);
      for (const w of want) {
        const r = rows.find((x) => x.name === w.name);
        assert.ok(r, w.name);
        assert.equal(r.cells.flops, flopText(w.flops), `${w.name} FLOPs`);
        assert.equal(r.cells.tflops_per_s, fixed2(w.tflops_per_s), `${w.name} TFLOP/s`);
        assert.equal(r.cells.pct_of_peak, fixed2(w.pct_of_peak), `${w.name} % of peak`);
        assert.equal(r.cells.flop_dtype, w.flop_dtype ?? '', `${w.name} dtype`);
      }
      // the hand-worked ones: the addmm 2.15 GFLOP bf16 at 21.47 TFLOP/s, 2.17 % of 989.5; linear and relu empty
      assert.deepEqual(rows.find((x) => x.name === 'aten::addmm').cells.flops, '2.15 G');
      assert.equal(rows.find((x) => x.name === 'aten::addmm').cells.pct_of_peak, '2.17');
      assert.equal(rows.find((x) => x.name === 'aten::mm').cells.flops, '50.3 M');
      assert.equal(rows.find((x) => x.name === 'aten::mm').cells.flop_dtype, 'tf32+fp32');
      assert.equal(rows.find((x) => x.name === 'aten::addmm').cells.intensity, '341.2');
      for (const n of ['aten::linear', 'aten::relu']) assert.equal(rows.find((x) => x.name === n).cells.flops, '');
      // the header says how they are counted
      const title = await page.$eval(`${c} [data-testid=op-header-flops] button`, (b) => b.title);
      assert.match(title, /torch\.utils\.flop_counter/);
    });
  });

  it("the peak picker: another row changes MFU, % of peak and the roofs as the CLI's --peak does", T, async () => {
    const cliA100 = runCliJson(['flops', '--json', '--peak', 'a100-sxm-80gb', twoSteps]);
    const opsA100 = runCliJson(['operators', '--json', '--peak', 'a100-sxm-80gb', twoSteps]).rows;
    await withCheckedPage(browser, server.url, async (page) => {
      const before = await readFlopsCard(page, twoSteps);
      const c = card(path.basename(twoSteps));
      const flops = `${c} [data-testid=flops-card]`;
      assert.equal(await page.getAttribute(`${flops} [data-testid=flops-device]`, 'data-row'), 'h100-sxm');
      assert.equal(await page.getAttribute(`${flops} [data-testid=flops-peak-picker]`, 'data-matched'), 'h100-sxm');
      await page.selectOption(`${flops} [data-testid=flops-peak-picker]`, 'a100-sxm-80gb');
      await page.waitForSelector(`${flops} [data-testid=flops-device][data-row=a100-sxm-80gb]`);
      const mfu = await page.$$eval(`${flops} [data-testid=flops-steps] tbody tr`, (trs) => trs.map((tr) => Number(tr.dataset.mfu)));
      assert.deepEqual(mfu, [...cliA100.steps.map((x) => x.mfu_pct), cliA100.average.mfu_pct]);
      assert.notDeepEqual(mfu, before.rows.map((r) => r.mfu));
      // the Operators table follows the choice
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForFunction(
        ([sel, text]) => [...document.querySelectorAll(sel)].some((td) => td.textContent === text),
        [`${c} [data-testid=op-row] td`, fixed2(opsA100.find((r) => r.name === 'aten::addmm').pct_of_peak)],
      );
      // and the roofline: its picker shows the same row, its roofs are the A100's
      await page.click(`${c} [data-testid=tab-roofline]`);
      await page.waitForSelector(`${c} [data-testid=roofline-device][data-row=a100-sxm-80gb]`);
      assert.equal(await page.$eval(`${c} [data-testid=roofline-peak-picker]`, (s) => s.value), 'a100-sxm-80gb');
      assert.equal(await page.getAttribute(`${c} [data-testid=roofline-chart]`, 'data-bandwidth'), '2039');
      // back to the matched row
      await page.selectOption(`${c} [data-testid=roofline-peak-picker]`, '');
      await page.waitForSelector(`${c} [data-testid=roofline-device][data-row=h100-sxm]`);
    });
  });

  it("the roofline: its points and verdicts are the CLI's, a click opens the row in Operators", T, async () => {
    const want = runCliJson(['roofline', '--json', twoSteps]);
    await withCheckedPage(browser, server.url, async (page) => {
      await readFlopsCard(page, twoSteps);
      const c = card(path.basename(twoSteps));
      await page.click(`${c} [data-testid=flops-roofline-link]`);
      await page.waitForSelector(`${c} [data-testid=roofline-row]`);
      const rows = await page.$$eval(`${c} [data-testid=roofline-row]`, (trs) =>
        trs.map((tr) => ({
          name: tr.dataset.name,
          shape: tr.dataset.shape,
          dtype: tr.dataset.dtype,
          flops: Number(tr.dataset.flops),
          intensity: Number(tr.dataset.intensity),
          tflops: Number(tr.dataset.tflops),
          pct: Number(tr.dataset.pctOfRoof),
          verdict: tr.dataset.verdict,
        })),
      );
      assert.deepEqual(
        rows,
        want.rows.map((r) => ({ name: r.name, shape: r.input_shape, dtype: r.dtype, flops: r.flops, intensity: r.intensity, tflops: r.tflops_per_s, pct: r.pct_of_roof, verdict: r.verdict })),
      );
      // the chart: a point per row, the H100's roofs (BF16 and FP16 share one line) and its bandwidth
      const chart = `${c} [data-testid=roofline-chart]`;
      assert.equal(await page.getAttribute(chart, 'data-points'), String(want.rows.length));
      assert.equal(await page.getAttribute(chart, 'data-roofs'), 'FP32:67 TF32:494.5 BF16/FP16:989.5 FP8:1979');
      assert.equal(await page.getAttribute(chart, 'data-bandwidth'), '3350');
      // hovering the largest point (the addmm) names it; clicking it opens Operators on its row
      const box = await page.$eval(`${chart} .u-over`, (el) => {
        const r = el.getBoundingClientRect();
        return { x: r.left, y: r.top, w: r.width, h: r.height };
      });
      // data-at: each drawn point's row and place over the plot
      await page.waitForSelector(`${chart}[data-at]`);
      const at = Object.fromEntries((await page.getAttribute(chart, 'data-at')).split(' ').map((e) => {
        const [row, xy] = e.split(':');
        return [row, xy.split(',').map(Number)];
      }));
      const [x, y] = at['0'];  // the answer's first row: the addmm, most device time
      const hit = { x, y };
      await page.mouse.move(box.x + x, box.y + y);
      await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.startsWith('aten::addmm'), `${c} [data-testid=roofline-hover]`);
      await page.mouse.click(box.x + hit.x, box.y + hit.y);
      await page.waitForSelector(`${c} [data-testid=panel-operators]:not([hidden]) [data-testid=op-row][aria-selected=true]`);
      assert.equal(await page.$eval(`${c} [data-testid=op-group-by]`, (s) => s.value), 'op+shape');
      const selected = await page.getAttribute(`${c} [data-testid=op-row][aria-selected=true]`, 'data-name');
      assert.equal(selected, `aten::addmm ${want.rows[0].input_shape}`);
    });
  });
});
