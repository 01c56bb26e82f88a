// The GPU time tab's last parts (issue 24 §2 end, §7, §8, §9) in Chromium: the recommendations,
// the largest idle gaps, the critical path and the frequent kernel sequences read against
// `kinetoscope gpu-time --json` on the hand-made fixtures (tests/data/README.md works their numbers
// out by hand); a gap and the path's step open the Timeline on their window.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { card, cellNum, cli, cliHas, launch, pickFiles, received, repo, serveDist, serveFakePerfetto, settled, tableRows, withCheckedPage } from './helpers.mjs';

const T = { timeout: 120_000 };
const skip = !cliHas('gpu-time') && 'the CLI has no gpu-time command';
const BOUNDS = path.join(repo, 'tests/data/critical-path-bounds.json');
const SEQUENCES = path.join(repo, 'tests/data/kernel-sequences-nested-roots.json');

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

const gpuTime = (file) => JSON.parse(execFileSync(cli, ['gpu-time', '--json', file], { encoding: 'utf8' }).split('\n')[0]);

async function openGpuTime(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name), 'done');
  const c = card(name);
  await page.waitForSelector(`${c} [role=tablist]:not([data-modules=loading]):not([data-ranges=loading])`);
  await page.click(`${c} [data-testid=tab-gpu-time]`);
  for (const part of ['gpu-recommendations', 'gpu-idle-gaps', 'gpu-critical-path', 'gpu-kernel-sequences'])
    await page.waitForSelector(`${c} [data-testid=${part}][data-ready=true]`, { timeout: 90_000 });
  return c;
}

const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 0.051, `${what}: page ${a}, CLI ${b}`);

describe('GPU time: gaps, critical path, sequences, recommendations', () => {
  it('critical-path-bounds: every part equal to `kinetoscope gpu-time --json`, worked by hand', { ...T, skip }, async () => {
    const want = gpuTime(BOUNDS);
    const summary = JSON.parse(execFileSync(cli, ['summary', '--json', BOUNDS], { encoding: 'utf8' }).split('\n')[0]);
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}`, async (page) => {
      const c = await openGpuTime(page, BOUNDS);
      // Recommendations: stream 7 host-bound, step 1 launch-bound, as the CLI says.
      const recs = await page.$$eval(`${c} [data-testid=gpu-recommendation]`, (li) => li.map((x) => ({ kind: x.dataset.kind, text: x.textContent })));
      assert.deepEqual(recs.map((r) => r.kind), want.recommendations.map((r) => r.kind));
      assert.deepEqual(recs.map((r) => r.kind), ['host_bound_stream', 'launch_bound_step']);
      recs.forEach((r, i) => assert.ok(r.text.startsWith(want.recommendations[i].text), r.text));
      // The largest gaps: 205 (k_late, from ProfilerStep#2), 67 (gemm_big, aten::mm), 3 (relu_kernel, aten::relu).
      const gaps = await tableRows(page, c, 'gpu-idle-gaps');
      assert.equal(gaps.length, want.idle_gaps.length);
      gaps.forEach((g, i) => {
        const w = want.idle_gaps[i];
        near(cellNum(g.cells.gap_us), w.gap_us, 'gap');
        near(cellNum(g.cells.start_us), w.start_us, 'gap start');
        assert.equal(g.cells.category, w.category);
        assert.equal(g.cells.event, w.event);
        assert.equal(g.cells.operator, w.operator ?? '');
      });
      assert.deepEqual(gaps.map((g) => cellNum(g.cells.gap_us)), [205, 67, 3]);
      assert.deepEqual(gaps.map((g) => g.cells.operator), ['ProfilerStep#2', 'aten::mm', 'aten::relu']);
      // The critical path of step 1: 100 µs, 75 CPU and 25 data loading; its parts in order.
      const cp = want.critical_path;
      assert.equal(cp.total_us, 100);
      assert.match(await page.textContent(`${c} [data-testid=gpu-critical-path-total]`), /^Total 100(\.0)? µs of a 100(\.0)? µs step/);
      for (const b of ['cpu', 'launch_overhead', 'gpu_compute', 'gpu_comm', 'kernel_kernel', 'data_loading'])
        assert.equal(Number(await page.getAttribute(`${c} [data-testid=gpu-critical-path-${b}]`, 'data-us')), cp.by_bound[`${b}_us`], b);
      const parts = await tableRows(page, c, 'gpu-critical-path');
      assert.deepEqual(
        parts.map((p) => [p.cells.name, p.cells.bound, cellNum(p.cells.time_us), cellNum(p.cells.pct)]),
        cp.path.map((p) => [p.name, p.bound, p.time_us, p.pct]),
      );
      // No aten:: call launched 3 kernels: the sequences say so.
      assert.equal(want.kernel_sequences.length, 0);
      assert.match(await page.textContent(`${c} [data-testid=gpu-kernel-sequences-none]`), /launched 3 or more GPU events/);
      // A gap opens the Timeline on its window: from before the previous event's end to after the next event's start.
      await page.click(`${c} [data-testid=gpu-idle-gaps-row][data-name="0"]`);
      await page.click(`${c} [data-testid=gpu-idle-gap-show-in-timeline]`);
      await page.waitForSelector(`${c} [data-testid=tab-timeline][aria-selected=true]`);
      const got = await received(page, fake.origin, 2);
      assert.deepEqual(got.map((m) => m.kind), ['trace', 'scroll']);
      const from = (summary.start_us + want.idle_gaps[0].start_us - 20.5) / 1e6;
      const to = (summary.start_us + want.idle_gaps[0].event_start_us + 20.5) / 1e6;
      assert.ok(Math.abs(got[1].timeStart - from) < 2e-6, `scroll from ${got[1].timeStart}, gap window from ${from}`);
      assert.ok(Math.abs(got[1].timeEnd - to) < 2e-6, `scroll to ${got[1].timeEnd}, gap window to ${to}`);
      assert.ok(JSON.parse(got[0].text).traceEvents.some((e) => e.name === 'k_late'), 'the window holds the kernel after the gap');
    });
  });

  it('the critical path opens its step on the Timeline; another step by the CLI', { ...T, skip }, async () => {
    const step3 = JSON.parse(execFileSync(cli, ['gpu-time', '--json', '--step', '3', BOUNDS], { encoding: 'utf8' }).split('\n')[0]).critical_path;
    // By hand: launch 4, gemm 68, the gap 3, relu 5 on the GPU; 18 of host.
    assert.deepEqual(step3.by_bound, { cpu_us: 18, launch_overhead_us: 4, gpu_compute_us: 73, gpu_comm_us: 0, kernel_kernel_us: 3, data_loading_us: 0 });
    assert.equal(step3.total_us, 98);
    const summary = JSON.parse(execFileSync(cli, ['summary', '--json', BOUNDS], { encoding: 'utf8' }).split('\n')[0]);
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}`, async (page) => {
      const c = await openGpuTime(page, BOUNDS);
      assert.match(await page.textContent(`${c} [data-testid=gpu-critical-path] h3`), /Critical path of step 1/);
      await page.click(`${c} [data-testid=gpu-critical-path-show-in-timeline]`);
      await page.waitForSelector(`${c} [data-testid=tab-timeline][aria-selected=true]`);
      const got = await received(page, fake.origin, 2);
      assert.ok(Math.abs(got[1].timeStart - summary.start_us / 1e6) < 2e-6, `scroll from ${got[1].timeStart}`);
      assert.ok(Math.abs(got[1].timeEnd - (summary.start_us + 100) / 1e6) < 2e-6, `scroll to ${got[1].timeEnd}`);
    });
  });

  it('kernel-sequences-nested-roots: the fusion candidate, its evidence a click away', { ...T, skip }, async () => {
    const want = gpuTime(SEQUENCES);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openGpuTime(page, SEQUENCES);
      const rows = await tableRows(page, c, 'gpu-kernel-sequences');
      assert.equal(rows.length, 1);
      const w = want.kernel_sequences[0];
      assert.deepEqual(
        [rows[0].cells.operator, cellNum(rows[0].cells.count), cellNum(rows[0].cells.length), cellNum(rows[0].cells.gpu_us), rows[0].cells.kernels, rows[0].cells.stack],
        [w.operator, w.count, w.length, w.gpu_us, w.kernels, w.stack],
      );
      // By hand: aten::layer_norm's three 2 µs kernels, twice, under ## block ##.
      assert.deepEqual([w.operator, w.count, w.gpu_us, w.kernels, w.stack], ['aten::layer_norm', 2, 12, 'ln_stats | ln_apply | ln_cast', '## block ##']);
      const fusion = `${c} [data-testid=gpu-recommendation][data-kind=fusion_candidate]`;
      assert.match(await page.textContent(fusion), /aten::layer_norm launches the same 3 GPU kernels 2 times/);
      await page.click(`${fusion} [data-testid=gpu-recommendation-evidence]`);
      await page.waitForFunction((sel) => {
        const r = document.querySelector(sel)?.getBoundingClientRect();
        return r && r.top >= -1 && r.top < window.innerHeight;
      }, `${c} [data-testid=gpu-kernel-sequences]`);
    });
  });
});
