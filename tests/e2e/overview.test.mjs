// Browser tests of the Overview (step-time breakdown, GPU summary): what the page shows for real
// traces must match the native CLI (`kinetoscope steps --json`, `gpus --json`, `summary --json`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, chartBox, hasShared, pickFiles, repo, ROLES, sampleTrace, settled, sharedTraces, withCheckedPage, openSite } from './helpers.mjs';

const cli = path.join(repo, 'build', 'native', 'kinetoscope');
const resnet = path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz');

assert.ok(fs.existsSync(cli), `${cli} is missing: run scripts/build`);
const { server, browser, tmp } = await openSite({ tmp: true });

function runCli(cmd, file) {
  return JSON.parse(execFileSync(cli, [cmd, '--json', file], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim().split('\n')[0]);
}

const withPage = (fn) => withCheckedPage(browser, server.url, fn);

/** The numbers of the testids in `ids` inside the card of `name` (null when absent). */
function readNums(page, name, ids) {
  return page.$eval(
    card(name),
    (root, ids) => {
      const out = {};
      for (const id of ids) {
        const el = root.querySelector(`[data-testid="${CSS.escape(id)}"]`);
        out[id] = el ? Number(el.textContent.replace(/[^0-9.-]/g, '')) : null;
      }
      return out;
    },
    ids,
  );
}

/** Displayed whole µs are within rounding (0.5 us) of the CLI's value. */
function assertUs(shown, expected, label) {
  assert.notEqual(shown, null, `${label}: not shown`);
  assert.ok(Math.abs(shown - expected) <= 0.5 + 1e-9, `${label}: page ${shown} us, CLI ${expected} us`);
}

/** Displayed percentages have two decimals. */
function assertPct(shown, expected, label) {
  assert.notEqual(shown, null, `${label}: not shown`);
  assert.ok(Math.abs(shown - expected) <= 0.005 + 1e-9, `${label}: page ${shown} %, CLI ${expected} %`);
}

async function checkOverview(page, name, file) {
  const steps = runCli('steps', file);
  const gpus = runCli('gpus', file);
  const summary = runCli('summary', file);
  const root = card(name);
  await page.waitForSelector(`${root} [data-testid=overview-card]`);
  assert.ok(steps.steps.length >= 2, `${name}: the trace has steps`);

  // Average (All steps).
  const valueIds = [...ROLES.map((r) => `step-value-${r}`), 'step-value-total'];
  const avg = await readNums(page, name, ['avg-total', 'avg-kernel', ...valueIds]);
  assertUs(avg['avg-total'], steps.average.total_us, `${name}: average total`);
  assertUs(avg['avg-kernel'], steps.average.kernel_us, `${name}: average kernel`);
  for (const r of ROLES) assertUs(avg[`step-value-${r}`], steps.average[`${r}_us`], `${name}: average ${r}`);
  assertUs(avg['step-value-total'], steps.average.total_us, `${name}: average total (detail)`);

  // One column per step plus the average in the step chart.
  const bars = await page.getAttribute(`${root} [data-testid=step-bars]`, 'data-columns');
  assert.equal(Number(bars), steps.steps.length + 1, `${name}: columns`);

  // Each step: its row in the step table, then its values once selected.
  const optionCount = await page.$eval(`${root} [data-testid=step-select]`, (s) => s.options.length);
  assert.equal(optionCount, steps.steps.length + 1, `${name}: step options`);
  for (let i = 0; i < steps.steps.length; i++) {
    const st = steps.steps[i];
    const row = await page.$eval(`${root} [data-testid="step-row-${st.name}"]`, (tr) =>
      [...tr.querySelectorAll('td')].map((td) => td.textContent),
    );
    assert.equal(row[0], st.name, `${name}: step row name`);
    assertUs(Number(row[1].replace(/[^0-9.-]/g, '')), st.total_us, `${name}: step ${st.name} total (row)`);
    assertUs(Number(row[2].replace(/[^0-9.-]/g, '')), st.kernel_us, `${name}: step ${st.name} kernel (row)`);

    await page.selectOption(`${root} [data-testid=step-select]`, { value: String(i) });
    await page.waitForFunction(
      ([sel, n]) => document.querySelector(`${sel} [data-testid=step-detail] caption`)?.textContent === `Step ${n}`,
      [root, st.name],
    );
    const v = await readNums(page, name, [...valueIds, 'step-pct-kernel']);
    for (const r of ROLES) assertUs(v[`step-value-${r}`], st[`${r}_us`], `${name}: step ${st.name} ${r}`);
    assertUs(v['step-value-total'], st.total_us, `${name}: step ${st.name} total`);
    assertPct(v['step-pct-kernel'], (st.kernel_us / st.total_us) * 100, `${name}: step ${st.name} kernel %`);
  }
  await page.selectOption(`${root} [data-testid=step-select]`, { value: 'all' });
  const back = await readNums(page, name, ['step-value-kernel']);
  assertUs(back['step-value-kernel'], steps.average.kernel_us, `${name}: back to the average`);

  // Hovering the average's column reads it out: its total and each category's value and share.
  const box = await chartBox(page, `${root} [data-testid=step-chart]`);
  const n = steps.steps.length + 1;
  const colX = (i) => box.x + ((i + 0.5) / n) * box.width;
  await page.mouse.move(colX(n - 1), box.y + box.height - 5);
  await page.waitForSelector(`${root} [data-testid=step-hover-title]`);
  assert.equal(await page.textContent(`${root} [data-testid=step-hover-title]`), `Average step: ${(Math.round(steps.average.total_us) / 1000).toFixed(3)} ms`);
  const hover = await page.textContent(`${root} [data-testid=step-hover-line][data-role=kernel]`);
  const kpct = ((steps.average.kernel_us / steps.average.total_us) * 100).toFixed(2);
  assert.match(hover, new RegExp(`^Kernel: .* us .*${kpct.replace('.', '\\.')} % of the average step$`), `${name}: hover text`);
  // Clicking the first step's column shows that step (in the breakdown table and the step select).
  await page.mouse.click(colX(0), box.y + box.height - 5);
  await page.waitForFunction(
    ([sel, n]) => document.querySelector(`${sel} [data-testid=step-detail] caption`)?.textContent === `Step ${n}`,
    [root, steps.steps[0].name],
  );
  assert.equal(await page.inputValue(`${root} [data-testid=step-select]`), '0');
  await page.selectOption(`${root} [data-testid=step-select]`, { value: 'all' });

  // GPU summary.
  assert.ok(gpus.gpus.length >= 1, `${name}: the trace has GPU kernels`);
  for (const g of gpus.gpus) {
    const d = g.device;
    const ids = [`gpu-util-${d}`, `gpu-sm-eff-${d}`, `gpu-occupancy-${d}`];
    const shown = await readNums(page, name, ids);
    assertPct(shown[`gpu-util-${d}`], g.utilization_pct, `${name}: GPU ${d} utilization`);
    if (g.sm_efficiency_pct == null) assert.equal(shown[`gpu-sm-eff-${d}`], null);
    else assertPct(shown[`gpu-sm-eff-${d}`], g.sm_efficiency_pct, `${name}: GPU ${d} SM efficiency`);
    if (g.achieved_occupancy_pct == null) assert.equal(shown[`gpu-occupancy-${d}`], null);
    else assertPct(shown[`gpu-occupancy-${d}`], g.achieved_occupancy_pct, `${name}: GPU ${d} occupancy`);
    // The utilization chart: every sample, in ms from the trace's first event, the steps shaded.
    const fig = await page.$eval(`${root} [data-testid="gpu-timeline-${d}"]`, (f) => ({ ...f.dataset }));
    assert.equal(Number(fig.points), g.timeline.length, `${name}: GPU ${d} timeline points`);
    const ms = (us) => (us - summary.start_us) / 1000;
    assert.ok(Math.abs(Number(fig.x0) - ms(g.timeline[0][0])) < 1e-6 && Number(fig.x0) >= 0, `${name}: GPU ${d} chart starts at ${fig.x0} ms, not before the trace`);
    assert.ok(Math.abs(Number(fig.x1) - ms(g.timeline.at(-1)[0])) < 1e-6, `${name}: GPU ${d} chart ends at ${fig.x1} ms`);
    const [ws, we] = fig.window.split(',').map(Number);
    assert.ok(Math.abs(ws - ms(gpus.window_start_us)) < 1e-6 && Math.abs(we - ms(gpus.window_end_us)) < 1e-6, `${name}: GPU ${d} shaded window ${fig.window}`);
    const dev = summary.devices.find((x) => x.id === d);
    const devName = (await page.textContent(`${root} [data-testid="gpu-name-${d}"]`)).trim();
    // A trace without deviceProperties (the bundled sample) says so instead of an empty name.
    assert.equal(devName, dev ? dev.name : '(the trace does not name this GPU: no deviceProperties)', `${name}: GPU ${d} name`);
  }
}

const T = { timeout: 180_000 };

describe('overview', () => {
  it('"Open sample": step breakdown and GPU summary match the CLI', T, async () => {
    await withPage(async (page) => {
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      await checkOverview(page, 'rank-0.json.gz', sampleTrace);
    });
  });

  it('resnet50 (6 steps, DataLoader, one V100): matches the CLI', { ...T, skip: !hasShared && 'no ../shared/traces' }, async () => {
    await withPage(async (page) => {
      await pickFiles(page, [resnet]);
      const name = path.basename(resnet);
      assert.equal(await settled(page, name), 'done');
      await checkOverview(page, name, resnet);
      // The device comes from the summary: memory and compute capability are shown too.
      const cc = await page.textContent(`${card(name)} [data-testid=gpu-cc-0]`);
      assert.equal(cc, runCli('summary', resnet).devices[0].compute_capability);
    });
  });

  it('a CPU-only trace says it has no GPU summary', T, async () => {
    const f = path.join(tmp, 'cpu-only.json');
    fs.writeFileSync(
      f,
      JSON.stringify({ traceEvents: [{ ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 1, ts: 10, dur: 5 }] }),
    );
    await withPage(async (page) => {
      await pickFiles(page, [f]);
      assert.equal(await settled(page, 'cpu-only.json'), 'done');
      assert.deepEqual(runCli('gpus', f).gpus, []);
      await page.waitForSelector(`${card('cpu-only.json')} [data-testid=no-gpus]`);
      const total = await readNums(page, 'cpu-only.json', ['avg-total']);
      assertUs(total['avg-total'], runCli('steps', f).average.total_us, 'cpu-only average total');
    });
  });
});
