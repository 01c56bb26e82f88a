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
        for (const r of got.rows) assert.equal(r.mfuText, r.mfu == null ? '—' : r.mfu.toFixed(2));
        assert.equal(got.coverage, `counted ops: ${j.coverage.pct.toFixed(1)} % of kernel time (${j.coverage.counted_device_us.toFixed(1)} of ${j.coverage.kernel_us.toFixed(1)} µs)`);
        assert.equal(got.note, null);
      });
    });
  }

  it('the hand-made fixture: the numbers worked out by hand', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const got = await readFlopsCard(page, fixture('flops-mfu-two-steps.json'));
      assert.deepEqual(got.rows.map((r) => [r.step, r.flops, r.mfuText]), [
        ['1', 2147483648, (2.147483648 / 989.5 * 100).toFixed(2)],
        ['2', 50331648, (0.050331648 / 494.5 * 100).toFixed(2)],
        ['average', 1098907648, (1.098907648 / 989.5 * 100).toFixed(2)],
      ]);
      assert.equal(got.coverage, 'counted ops: 95.0 % of kernel time (190.0 of 200.0 µs)');
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
