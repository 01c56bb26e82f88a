// Browser tests of the rest of the Overview against `kinetoscope overview --json`: the GPU
// summary's "Kernel time using Tensor Cores" line and the recommendations, whose buttons switch
// to the view they name. Also: closing a card, and the tabs of a file.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cliHas, hasShared, pickFiles, runCliJson, sampleTrace, settled, sharedTraces, withCheckedPage, openSite } from './helpers.mjs';

const { server, browser } = await openSite();

async function checkOverviewExtras(page, name, file) {
  const c = card(name);
  const ov = runCliJson(['overview', '--json', file]);
  await page.waitForSelector(`${c} [data-testid=overview-card]`);
  assert.equal(await page.getAttribute(`${c} [data-testid=tab-overview]`, 'aria-selected'), 'true');

  for (const g of ov.gpus) {
    const el = await page.$(`${c} [data-testid=gpu-tc-${g.device}]`);
    if (g.tensor_core_pct == null) assert.equal(el, null, `${name}: GPU ${g.device} has no TC line`);
    else {
      assert.equal(await el.textContent(), `${g.tensor_core_pct.toFixed(2)} %`, `${name}: GPU ${g.device} TC share`);
      assert.equal(await page.textContent(`${c} [data-testid=gpu-tc-label-${g.device}]`), `Kernel time using ${ov.tensor_cores.term}`);
      const unknown = await page.$(`${c} [data-testid=gpu-tc-unknown-${g.device}]`);
      if (!g.tensor_core_unknown_pct) assert.equal(unknown, null, `${name}: GPU ${g.device} has no unknown share`);
      else assert.equal(await unknown.textContent(), `${g.tensor_core_unknown_pct.toFixed(2)} %`, `${name}: GPU ${g.device} unknown share`);
    }
  }
  if (ov.gpus.some((g) => g.tensor_core_pct != null)) {
    // What each figure covers, in the core's words.
    assert.equal(await page.textContent(`${c} [data-testid=tc-scope-gpu]`), ov.tensor_cores.scope.gpu);
    // One definition (issue 22 §5): the GPU figure is the Kernels pie's, so the footnote no longer
    // sets a second one beside it.
    assert.equal(ov.tensor_cores.gpu_of, 'all_kernels');
    assert.equal(await page.$(`${c} [data-testid=tc-scope-kernel]`), null);
  }

  const shown = await page.$$eval(`${c} [data-testid=recommendation]`, (lis) =>
    lis.map((li) => ({
      id: li.getAttribute('data-id'),
      text: li.querySelector('[data-testid=recommendation-text]').textContent,
      button: li.querySelector('button')?.textContent ?? null,
    })),
  );
  const tabs = await page.$$eval(`${c} [role=tab]`, (ts) => ts.map((t) => t.getAttribute('data-testid').slice(4)));
  const labels = { operators: 'Operators', kernels: 'Kernels', memory: 'Memory', distributed: 'Distributed' };
  // Each recommendation links to its evidence: another view of this trace, the run page (the
  // Distributed view, which every trace's run has), or a step of the Overview.
  const buttonOf = (r) => {
    const view = r.evidence?.view ?? r.view;
    if (view === 'distributed') return 'Show in Distributed';
    if (view !== 'overview') return tabs.includes(view) ? `Show in ${labels[view]}` : null;
    return r.evidence?.step != null ? `Show step ${r.evidence.step}` : null;
  };
  assert.deepEqual(
    shown,
    ov.recommendations.map((r) => ({ id: r.id, text: r.text, button: buttonOf(r) })),
    `${name}: recommendations`,
  );
  if (!ov.recommendations.length) {
    assert.equal(await page.textContent(`${c} [data-testid=no-recommendations]`), 'No recommendations.');
  }

  // Each button opens the evidence: the view, sorted as named, with the named row selected; or
  // the named step in the Overview. The Overview tab comes back.
  const steps = runCliJson(['steps', '--json', file]).steps;
  for (const r of ov.recommendations.filter((r) => buttonOf(r))) {
    const view = r.evidence?.view ?? r.view;
    await page.click(`${c} [data-testid="recommendation-show-${r.id}"]`);
    if (view === 'distributed') {
      // The run page replaces the trace, at the evidence's step; the navigator brings it back.
      // (Files opened on their own form one run with everyone's steps: the step is chosen when the
      // run's view lists it.)
      await page.waitForSelector('[data-testid=run-page] [data-testid=distributed]');
      const listed = await page.$$eval('[data-testid=dist-step] option', (os) => os.map((o) => o.value));
      const want = r.evidence?.step != null && listed.includes(r.evidence.step) ? r.evidence.step : 'all';
      await page.waitForSelector(`[data-testid=distributed][data-step="${want}"]`);
      assert.equal(await page.isVisible(c), false, `${name}: the run page is shown instead of the trace`);
      await page.click(`[data-testid=nav-trace][data-file="${name}"]`);
      await page.waitForSelector(`${c} [data-testid=overview-card]`, { state: 'visible' });
      continue;
    }
    if (view === 'overview') {
      const i = steps.findIndex((st) => st.name === r.evidence.step);
      assert.ok(i >= 0, `${name}: ${r.id} names a step the trace has`);
      await page.waitForFunction(([sel, n]) => document.querySelector(`${sel} [data-testid=step-detail] caption`)?.textContent === `Step ${n}`, [c, r.evidence.step]);
      assert.equal(await page.inputValue(`${c} [data-testid=step-select]`), String(i));
      await page.selectOption(`${c} [data-testid=step-select]`, { value: 'all' });
      continue;
    }
    assert.equal(await page.getAttribute(`${c} [data-testid=tab-${view}]`, 'aria-selected'), 'true');
    await page.waitForSelector(`${c} [data-testid=${view}-view]`, { state: 'visible' });
    assert.equal(await page.isVisible(`${c} [data-testid=overview-card]`), false, 'the overview is hidden');
    const stem = view === 'operators' ? 'op' : 'kernel';
    if (r.evidence?.sort) {
      const [col, dir] = r.evidence.sort.split('.');
      await page.waitForSelector(`${c} [data-testid=${stem}-header-${col}][aria-sort=${dir === 'asc' ? 'ascending' : 'descending'}]`);
    }
    if (r.evidence?.row) await page.waitForSelector(`${c} [data-testid=${stem}-row][data-name="${r.evidence.row.replace(/"/g, '\\"')}"][aria-selected=true]`);
    await page.click(`${c} [data-testid=tab-overview]`);
    await page.waitForSelector(`${c} [data-testid=overview-card]`, { state: 'visible' });
  }
  return ov;
}

const T = { timeout: 180_000 };
const skipCli = !cliHas('overview') && 'the CLI has no overview command';
const shared = (f) => path.join(sharedTraces, f);

describe('overview: Tensor Cores and recommendations', () => {
  it('"Open sample": the TC line and the recommendations match the CLI', { ...T, skip: skipCli }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      const ov = await checkOverviewExtras(page, 'rank-0.json.gz', sampleTrace);
      assert.ok(ov.gpus[0].tensor_core_pct > 0);
    });
  });

  it('real traces: TC lines, recommendations and their view buttons match the CLI', { ...T, skip: skipCli || (!hasShared && 'no ../shared/traces') }, async () => {
    const files = [
      shared('resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz'), // DataLoader + AMP (-> Operators)
      shared('cpu_only_rank34.pt.trace.json.gz'), // communication (-> the run page's Distributed view)
      shared('cupti_profiler_counters.json.gz'), // none
      shared('nccl_data.json.gz'),
    ];
    await withCheckedPage(browser, server.url, async (page) => {
      await pickFiles(page, files);
      for (const f of files) {
        const name = path.basename(f);
        assert.equal(await settled(page, name), 'done', name);
        await checkOverviewExtras(page, name, f);
      }
      const resnet = runCliJson(['overview', '--json', files[0]]);
      assert.ok(resnet.recommendations.some((r) => r.view === 'operators'), 'resnet50 has a recommendation pointing at Operators');
    });
  });

  it('closing a card removes it; the file opens again with working views', { ...T, skip: !cliHas('operators') && 'the CLI has no operators command' }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const name = 'rank-0.json.gz';
      for (let round = 0; round < 2; round++) {
        await page.click('[data-testid=open-sample]');
        assert.equal(await settled(page, name), 'done');
        await page.click(`${card(name)} [data-testid=tab-operators]`);
        await page.waitForSelector(`${card(name)} [data-testid=op-row]`);
        const top = await page.getAttribute(`${card(name)} [data-testid=op-row] >> nth=0`, 'data-name');
        assert.equal(top, runCliJson(['operators', '--json', sampleTrace]).rows[0].name);
        await page.click(`${card(name)} [data-testid=remove-file]`);
        await page.waitForSelector(card(name), { state: 'detached' });
      }
      assert.equal(await page.$$eval('[data-testid=file-card]', (els) => els.length), 0);

      // A card closed while its file loads: the load stops, and the next file loads as usual.
      if (hasShared) {
        const big = path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz');
        await pickFiles(page, [big]);
        await page.click(`${card(path.basename(big))} [data-testid=remove-file]`);
        await page.waitForSelector(card(path.basename(big)), { state: 'detached' });
      }
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, name), 'done');
      await page.click(`${card(name)} [data-testid=tab-kernels]`);
      await page.waitForSelector(`${card(name)} [data-testid=kernel-row]`);
    });
  });
});

describe('a trap in a query', () => {
  it('restarts the worker: the views say the file is gone, the page keeps working', { timeout: 180_000, skip: !cliHas('operators') && 'the CLI has no operators command' }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const name = 'rank-0.json.gz';
      const c = card(name);
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, name), 'done');
      // Make the trace worker's next table query throw what a wasm trap throws, from inside the
      // core's call: Session.query reads its parameters through Object.keys (the answer itself
      // crosses as typed arrays, with no JSON.parse left to break).
      const worker = page.workers().find((w) => /\/worker[-.][^/]*\.js/.test(w.url()));
      assert.ok(worker, `the trace worker among ${page.workers().map((w) => w.url())}`);
      await worker.evaluate(() => {
        const keys = Object.keys;
        Object.keys = (o) => {
          if (o && typeof o === 'object' && 'group_by' in o) {
            Object.keys = keys;
            throw new WebAssembly.RuntimeError('simulated trap');
          }
          return keys(o);
        };
      });
      const closed = new Promise((resolve) => worker.once('close', resolve));
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-gone]`);
      await closed; // the trapped worker was terminated
      assert.match(await page.textContent(`${c} [data-testid=op-gone]`), /no longer loaded .*Open the file again/);
      // Asking again (another grouping) says the same, at once, and never hangs.
      await page.selectOption(`${c} [data-testid=op-group-by]`, 'op+shape');
      await page.waitForSelector(`${c} [data-testid=op-gone]`);
      // The Overview is still there, and a file opened now gets a fresh worker with working views.
      await page.click(`${c} [data-testid=tab-overview]`);
      await page.waitForSelector(`${c} [data-testid=overview-card]`, { state: 'visible' });
      await page.click(`${c} [data-testid=remove-file]`);
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, name), 'done');
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=op-row] >> nth=0`, 'data-name'), runCliJson(['operators', '--json', sampleTrace]).rows[0].name);
    });
  });
});
