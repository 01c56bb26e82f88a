// Operators and Kernels of one step (issue 9): choosing a step in the step selector
// ([data-testid=step-select]) makes both views count only the work that step issued, say so
// ("Step 551 only"), and show what `kinetoscope operators|kernels --step N --json` prints; "All
// steps" brings the whole tables back. The step is in the deep link, a link opens the views on
// it, and a selected row's detail panel follows the step.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cliHas, hasShared, pickFiles, runCliJson, sampleTrace, settled, sharedTraces, tableRows, waitStatus, withCheckedPage, openSite, rowsLabel } from './helpers.mjs';
import { assertKernelRow, assertOperatorRow, checkKernelDetail, checkOperatorDetail } from './view-checks.mjs';

const resnet = path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz');
const { server, browser } = await openSite();
const T = { timeout: 300_000 };
const skipCli = !cliHas('operators') && 'the CLI has no operators command';

const stepNames = (file) => runCliJson(['steps', '--json', file]).steps.map((s) => s.name);
const hashStep = (page) => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('step'));

/** Chooses a step (its name; null: all steps) in the selector, then shows `tab`. */
async function chooseStep(page, c, step, tab) {
  await page.click(`${c} [data-testid=tab-overview]`);
  const value = step == null ? 'all' : await page.$eval(`${c} [data-testid=step-select]`, (sel, name) => [...sel.options].find((o) => o.textContent === name)?.value, step);
  assert.ok(value != null, `the step selector lists step ${step}`);
  await page.selectOption(`${c} [data-testid=step-select]`, value);
  await page.click(`${c} [data-testid=tab-${tab}]`);
}

/** Waits until the view shows the table of `step` with `count` rows, and checks what it says. */
async function waitTable(page, c, stem, step, count) {
  await page.waitForSelector(`${c} [data-testid=${stem}-step-scope][data-step="${step ?? ''}"]`);
  await waitStatus(page, c, stem, rowsLabel(count));
  assert.equal(await page.textContent(`${c} [data-testid=${stem}-step-scope]`), step == null ? 'All steps' : `Step ${step} only`);
}

/** The Operators view for `step` (grouping `group`) equals the CLI's table, row by row in order. */
async function checkOperatorsStep(page, c, file, step, group) {
  const want = runCliJson(['operators', '--json', '--group-by', group, ...(step != null ? ['--step', step] : []), file]);
  await waitTable(page, c, 'op', step, want.rows.length);
  const rows = await tableRows(page, c, 'op');
  assert.ok(rows.length >= Math.min(10, want.rows.length), `step ${step}: rows rendered`);
  rows.forEach((r, k) => assertOperatorRow(r, want.rows[k], group, `operators ${group}, step ${step}, row ${k}`));
  return want;
}

async function checkKernelsStep(page, c, file, step, group) {
  const want = runCliJson(['kernels', '--json', '--group-by', group, ...(step != null ? ['--step', step] : []), file]);
  await waitTable(page, c, 'kernel', step, want.rows.length);
  const rows = await tableRows(page, c, 'kernel');
  assert.ok(rows.length >= Math.min(10, want.rows.length), `step ${step}: rows rendered`);
  rows.forEach((r, k) => assertKernelRow(r, want.rows[k], `kernels ${group}, step ${step}, row ${k}`));
  // The Tensor Core pie covers the step's kernels, and says so (the core's sentence).
  assert.equal(await page.textContent(`${c} [data-testid=kernel-pie-tc-scope]`), want.tensor_cores.scope);
  assert.match(want.tensor_cores.scope, step == null ? /every kernel in the trace/ : new RegExp(`kernels step ${step} issued`));
  const legend = await page.$$eval(`${c} [data-testid=kernel-pie-tc-legend] .pie-label`, (els) => els.map((e) => e.textContent));
  const t = want.tensor_cores;
  const term = t.term ?? 'Tensor Cores';
  assert.deepEqual(
    legend,
    [[`Using ${term}`, t.tc_us], ['Unknown', t.unknown_us ?? 0], [`Not using ${term}`, t.total_us - t.tc_us - (t.unknown_us ?? 0)]].filter(([, v]) => v > 0).map(([l]) => l),
  );
  return want;
}

describe('per-step Operators and Kernels', () => {
  it('"Open sample": every step of Operators and Kernels equals kinetoscope operators|kernels --step N', { ...T, skip: skipCli }, async () => {
    const steps = stepNames(sampleTrace);
    assert.ok(steps.length >= 2, 'the sample has several steps');
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      const name = 'rank-0.json.gz';
      const c = card(name);
      assert.equal(await settled(page, name), 'done');
      await page.click(`${c} [data-testid=tab-operators]`);
      const all = await checkOperatorsStep(page, c, sampleTrace, null, 'op');
      for (const step of steps) {
        await chooseStep(page, c, step, 'operators');
        const one = await checkOperatorsStep(page, c, sampleTrace, step, 'op');
        assert.ok(one.rows.length < all.rows.length || one.rows.some((r, k) => r.calls !== all.rows[k]?.calls), `step ${step} is not the whole trace`);
        assert.equal(await hashStep(page), step, 'the step is in the deep link');
      }
      await page.selectOption(`${c} [data-testid=op-group-by]`, 'op+shape');
      await checkOperatorsStep(page, c, sampleTrace, steps.at(-1), 'op+shape');

      await page.click(`${c} [data-testid=tab-kernels]`);
      for (const step of steps) {
        await chooseStep(page, c, step, 'kernels');
        await checkKernelsStep(page, c, sampleTrace, step, 'name');
      }
      await page.selectOption(`${c} [data-testid=kernel-group-by]`, 'props');
      const props = await checkKernelsStep(page, c, sampleTrace, steps.at(-1), 'props');
      // The detail panel of a row in that step, as `kernels --detail ... --step N`.
      await checkKernelDetail(page, c, sampleTrace, (await tableRows(page, c, 'kernel'))[0], props.rows[0], 'props', steps.at(-1));

      // All steps again: the whole tables, and no step in the link.
      await chooseStep(page, c, null, 'kernels');
      await checkKernelsStep(page, c, sampleTrace, null, 'props');
      assert.equal(await hashStep(page), null);
    });
  });

  it('a selected row stays selected across steps and its detail follows the step', { ...T, skip: skipCli }, async () => {
    const steps = stepNames(sampleTrace);
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      const c = card('rank-0.json.gz');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      await page.click(`${c} [data-testid=tab-operators]`);
      const all = await checkOperatorsStep(page, c, sampleTrace, null, 'op');
      const top = (await tableRows(page, c, 'op'))[0];
      const whole = await checkOperatorDetail(page, c, sampleTrace, top, all.rows[0], 'op', { showGpu: all.show_gpu });
      // A step in which the operator ran: the same row, its detail counts that step only.
      const step = steps.find((s) => runCliJson(['operators', '--json', '--step', s, sampleTrace]).rows.some((r) => r.name === top.name));
      assert.ok(step, 'the top operator ran in a step');
      await chooseStep(page, c, step, 'operators');
      const one = await checkOperatorsStep(page, c, sampleTrace, step, 'op');
      const row = one.rows.find((r) => r.name === top.name);
      await page.fill(`${c} [data-testid=op-search]`, top.name);
      const shown = (await tableRows(page, c, 'op')).find((r) => r.name === top.name);
      assert.ok(shown.selected, 'the row is still selected in the step');
      const inStep = await checkOperatorDetail(page, c, sampleTrace, shown, row, 'op', { showGpu: one.show_gpu, step });
      assert.ok(inStep.kernels.reduce((a, k) => a + k.calls, 0) <= whole.kernels.reduce((a, k) => a + k.calls, 0));
    });
  });

  it('a deep link with step= opens the Kernels view on that step', { ...T, skip: skipCli }, async () => {
    const step = stepNames(sampleTrace).at(-1);
    await withCheckedPage(browser, `${server.url}#file=rank-0.json.gz&view=kernels&step=${step}`, async (page) => {
      await page.click('[data-testid=open-sample]');
      const c = card('rank-0.json.gz');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      await checkKernelsStep(page, c, sampleTrace, step, 'name');
      assert.equal(await page.$eval(`${c} [data-testid=step-select] option:checked`, (o) => o.textContent), step);
    });
  });

  it('resnet50: a middle step of Operators and Kernels equals the CLI', { ...T, skip: skipCli || (!hasShared && 'no ../shared/traces') }, async () => {
    const steps = stepNames(resnet);
    const step = steps[Math.floor(steps.length / 2)];
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, [resnet]);
      const name = path.basename(resnet);
      const c = card(name);
      assert.equal(await settled(page, name), 'done');
      await chooseStep(page, c, step, 'operators');
      await checkOperatorsStep(page, c, resnet, step, 'op');
      await page.click(`${c} [data-testid=tab-kernels]`);
      await checkKernelsStep(page, c, resnet, step, 'name');
    });
  });
});
