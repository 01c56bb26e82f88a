// One number per metric (issue 22 §5) and the step selector over the GPU summary and peak memory
// (§6). Each metric the page shows in several places — GPU utilization, est. SM efficiency and
// occupancy, the Tensor Core share and its unknown part — is read as text from every place it
// appears (the GPU summary, the recommendation quoting it, the Kernels view's pie) and must be
// the very text the CLI prints (`kinetoscope gpus`, `kinetoscope overview`), on the bundled sample,
// the recorded GPT (tests/data/h200_pt211/gpt_modulelist) and ../shared's ViT (skipped when absent).
// Then a step is chosen: the GPU summary and peak memory show that step's numbers, equal to
// `kinetoscope gpus --step N` and `kinetoscope memory --json --from-us --to-us` over its window.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cli, openSite, pickFiles, repo, sampleTrace, settled, sharedTraces, withCheckedPage } from './helpers.mjs';

const { server, browser } = await openSite();
const T = { timeout: 180_000 };
const run = (args) => execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
const firstIn = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.pt.trace.json.gz')).map((f) => path.join(dir, f))[0] : undefined);
const gpt = firstIn(path.join(repo, 'tests/data/h200_pt211/gpt_modulelist'));
const vit = firstIn(path.join(sharedTraces, 'h100_pt211/vit_timm'));

/** What the CLI prints for GPU 0: the `gpus` line's three figures, the `overview` Tensor Core line and the recommendations. */
function cliText(file, step) {
  const gpus = run(['gpus', ...(step ? ['--step', step] : []), file]);
  const m = gpus.match(/GPU 0: utilization ([\d.]+ %)(?:, est\. SM efficiency ([\d.]+ %))?(?:, est\. achieved occupancy ([\d.]+ %))?(?:, Tensor Cores ([\d.]+ %)(?: \(\+ ([\d.]+ %) unknown\))?)?/);
  assert.ok(m, `kinetoscope gpus printed ${gpus}`);
  const out = { util: m[1], sm: m[2] ?? null, occ: m[3] ?? null, tc: m[4] ?? null, unknown: m[5] ?? null };
  if (!step) {
    const ov = run(['overview', file]);
    const t = ov.match(/Tensor Cores: ([\d.]+ %) of all kernel time, ([\d.]+ %) unknown/);
    assert.ok(t, `kinetoscope overview printed ${ov}`);
    out.tc = t[1];
    out.unknown = t[2] === '0.00 %' ? null : t[2];
    out.recs = ov.split('\n').filter((l) => l.startsWith('  - ')).map((l) => l.slice(4));
  }
  return out;
}

/** The texts of the GPU summary of GPU 0 in the card. */
function pageGpu(page, c) {
  return page.$eval(c, (root) => {
    const t = (id) => root.querySelector(`[data-testid="${id}"]`)?.textContent ?? null;
    return { util: t('gpu-util-0'), sm: t('gpu-sm-eff-0'), occ: t('gpu-occupancy-0'), tc: t('gpu-tc-0'), unknown: t('gpu-tc-unknown-0') };
  });
}

async function open(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name, 120_000), 'done');
  const c = card(name);
  await page.waitForSelector(`${c} [data-testid=overview-card] [data-testid=gpu-tc-0]`);
  return c;
}

describe('One number per metric', () => {
  for (const [label, file] of [
    ['the bundled sample', sampleTrace],
    ['tests/data/h200_pt211/gpt_modulelist', gpt],
    ['../shared h100_pt211/vit_timm', vit],
  ]) {
    it(`${label}: the GPU summary, the recommendation, the Kernels pie and the CLI print the same digits`, { ...T, skip: !file && `${label} is absent` }, async () => {
      const want = cliText(file);
      await withCheckedPage(browser, server.url, async (page) => {
        const c = await open(page, file);
        const got = await pageGpu(page, c);
        assert.equal(got.util, want.util, 'GPU utilization');
        assert.equal(got.sm, want.sm, 'est. SM efficiency');
        assert.equal(got.occ, want.occ, 'est. achieved occupancy');
        // The headline is the Kernels pie's definition (all kernel time), its unknown part apart.
        assert.equal(got.tc, want.tc, 'Tensor Core share');
        assert.equal(got.unknown, want.unknown, 'unknown Tensor Core use');
        // The recommendations quote the same digits, and are the CLI's sentences.
        const recs = await page.$$eval(`${c} [data-testid=overview-card] [data-testid=recommendation-text]`, (els) => els.map((e) => e.textContent));
        assert.deepEqual(recs, want.recs);
        const util = recs.find((r) => r.includes('runs kernels less than half'));
        if (util) assert.ok(util.includes(`GPU 0 (${want.util})`), `the utilization advice quotes ${want.util}: ${util}`);
        // A step-time share the advice quotes is the step table's (average step) to the digit.
        for (const [role, words] of [['communication', 'of the step time is spent in communication'], ['dataloader', 'of the step time is spent waiting for the DataLoader']]) {
          const rec = recs.find((r) => r.includes(words));
          if (!rec) continue;
          const shown = await page.textContent(`${c} [data-testid=overview-card] [data-testid=step-pct-${role}]`);
          assert.ok(rec.startsWith(`${shown} ${words}`), `${role}: the advice says "${rec.slice(0, 40)}…", the step table ${shown}`);
        }
        // The Kernels view's pie: its "Using Tensor Cores" slice.
        await page.click(`${c} [data-testid=tab-kernels]`);
        const slice = `${c} [data-testid=kernel-pie-tc-legend] li`;
        await page.waitForSelector(slice);
        const legend = await page.$$eval(slice, (lis) => lis.map((li) => [li.querySelector('.pie-label').textContent, li.querySelector('.pie-pct').textContent]));
        const using = legend.find(([l]) => l === 'Using Tensor Cores');
        assert.ok(using, `pie legend ${JSON.stringify(legend)}`);
        assert.equal(using[1], want.tc, 'the Kernels pie');
        const unknown = legend.find(([l]) => l === 'Unknown');
        assert.equal(unknown?.[1] ?? null, want.unknown, 'the pie\'s unknown slice');
      });
    });
  }
});

describe('The step selector', () => {
  it('the GPU summary and peak memory follow the chosen step (checked against the CLI per step)', T, async () => {
    const file = gpt;
    assert.ok(file, 'tests/data/h200_pt211/gpt_modulelist has its trace');
    const steps = JSON.parse(run(['steps', '--json', file]).split('\n')[0]).steps;
    assert.ok(steps.length >= 2);
    const all = cliText(file);
    const memAll = JSON.parse(run(['memory', '--json', file]).split('\n')[0]);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await open(page, file);
      await page.waitForSelector(`${c} [data-testid=overview-memory][data-state=all]`);
      assert.equal(await page.textContent(`${c} [data-testid=gpu-summary-scope]`), '— all steps');
      for (const k of [1, 0]) {
        const s = steps[k];
        await page.selectOption(`${c} [data-testid=step-select]`, String(k));
        await page.waitForSelector(`${c} [data-testid=gpu-summary][data-step="${s.name}"][data-state=step]`);
        assert.equal(await page.textContent(`${c} [data-testid=gpu-summary-scope]`), `— step ${s.name}`);
        const want = cliText(file, s.name);
        const got = await pageGpu(page, c);
        assert.equal(got.util, want.util, `step ${s.name} utilization`);
        assert.equal(got.sm, want.sm, `step ${s.name} SM efficiency`);
        assert.equal(got.occ, want.occ, `step ${s.name} occupancy`);
        assert.equal(got.tc, want.tc, `step ${s.name} Tensor Cores`);
        // A step's numbers are not the whole run's (the test can fail).
        assert.notEqual(want.util, all.util, `step ${s.name}'s utilization differs from the steps' ${all.util}`);

        // Peak memory within the step: the Memory view's statistics of the step's window.
        await page.waitForSelector(`${c} [data-testid=overview-memory][data-step="${s.name}"][data-state=step]`);
        const from = s.start_us - memAll.origin_us, to = s.end_us - memAll.origin_us;
        const mem = JSON.parse(run(['memory', '--json', '--from-us', String(from), '--to-us', String(to), file]).split('\n')[0]);
        for (const d of mem.devices) {
          const shown = Number(await page.getAttribute(`${c} [data-testid="overview-memory-${d.device}"]`, 'data-bytes'));
          assert.equal(shown, d.peak_allocated_bytes, `step ${s.name} ${d.device} peak`);
        }
      }
      await page.selectOption(`${c} [data-testid=step-select]`, 'all');
      await page.waitForSelector(`${c} [data-testid=gpu-summary][data-state=all]`);
      assert.equal((await pageGpu(page, c)).util, all.util);
    });
  });
});
