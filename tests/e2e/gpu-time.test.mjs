// The GPU time view (issue 24 §1, HTA's temporal breakdown) in Chromium: a tab of every analysed
// trace; its table equals `kinetoscope gpu-time --csv` row for row on the hand-made fixture
// (whose numbers tests/data/README.md works out by hand) and on the GPT recorded on an H200; the
// fixture's sub-µs memset, which makes HTA fail, is counted and said; a trace without GPU work
// gets one sentence instead of a table.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { card, cellNum, cli, cliHas, launch, parseCsv, pickFiles, repo, serveDist, settled, tableRows, withCheckedPage } from './helpers.mjs';

const T = { timeout: 120_000 };
const skip = !cliHas('gpu-time') && 'the CLI has no gpu-time command';
const FIXTURE = path.join(repo, 'tests/data/gpu-time-sub-us-memset.json');
const gptDir = path.join(repo, 'tests/data/h200_pt211/gpt_modulelist');
const GPT = path.join(gptDir, fs.readdirSync(gptDir).find((f) => f.endsWith('.json.gz')));
const NUMBERS = ['span_us', 'compute_us', 'non_compute_us', 'idle_us', 'compute_pct', 'non_compute_pct', 'idle_pct', 'events'];

let server, browser;
before(async () => {
  server = await serveDist();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const csvRows = (file) => {
  const [head, ...rows] = parseCsv(execFileSync(cli, ['gpu-time', '--csv', file], { encoding: 'utf8' })).filter((r) => r.length > 1);
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
};

async function openGpuTime(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name), 'done');
  const c = card(name);
  // The Modules and Ranges tabs come before it once their questions are answered: click it
  // when the tab bar no longer moves.
  await page.waitForSelector(`${c} [role=tablist]:not([data-modules=loading]):not([data-ranges=loading])`);
  await page.click(`${c} [data-testid=tab-gpu-time]`);
  await page.waitForSelector(`${c} [data-testid=gpu-time-view][data-ready=true]`, { timeout: 90_000 });
  return c;
}

/** The page's rows against the CLI's, in the same order: each number within the cells' 2 decimals. */
function sameAsCli(rows, want) {
  assert.equal(rows.length, want.length, 'a row per CLI row');
  rows.forEach((r, i) => {
    const w = want[i];
    assert.equal(r.cells.row, w.scope === 'trace' ? 'Trace' : `Step ${w.step}`);
    for (const f of NUMBERS) {
      const shown = cellNum(r.cells[f]);
      if (w[f] === '') assert.equal(shown, null, `${f} of ${r.cells.row} is blank`);
      else assert.ok(Math.abs(shown - Number(w[f])) <= 0.0051, `${f} of ${r.cells.row}: page ${r.cells[f]}, CLI ${w[f]}`);
    }
  });
}

describe('GPU time view', () => {
  it('the sub-µs memset fixture: numbers by hand, equal to `kinetoscope gpu-time --csv`', { ...T, skip }, async () => {
    const want = csvRows(FIXTURE);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openGpuTime(page, FIXTURE);
      const rows = await tableRows(page, c, 'gpu-time');
      sameAsCli(rows, want);
      // By hand (tests/data/README.md): the trace's row is steps 1-2's work, span 110 µs.
      const [trace, , , step3] = rows.map((r) => Object.fromEntries(NUMBERS.map((f) => [f, cellNum(r.cells[f])])));
      assert.deepEqual(
        { span: trace.span_us, compute: trace.compute_us, non: trace.non_compute_us, idle: trace.idle_us, events: trace.events },
        { span: 110, compute: 40, non: 0.5, idle: 69.5, events: 5 },
      );
      assert.equal(trace.idle_pct, 63.18);
      assert.equal(trace.compute_pct, 36.36);
      assert.equal(trace.non_compute_pct, 0.45);
      assert.deepEqual([step3.span_us, step3.compute_us, step3.non_compute_us, step3.idle_us], [44, 30, 14, 0]);
      // What the page says beside the table: HTA's scope, the memset HTA's rounding inverts, the shares.
      assert.match(await page.textContent(`${c} [data-testid=gpu-time-scope]`), /before the last step started \(200 µs from the trace start\)/);
      assert.match(await page.textContent(`${c} [data-testid=gpu-time-rounding-note]`), /^1 GPU event starts and ends within one µs/);
      assert.match(await page.textContent(`${c} [data-testid=gpu-time-summary-compute]`), /Compute 36\.36 %/);
      await page.waitForSelector(`${c} [data-testid=gpu-time-chart] canvas`);
    });
  });

  it('a real trace (the GPT on an H200): every row equals the CLI', { ...T, skip }, async () => {
    const want = csvRows(GPT);
    assert.ok(want.length >= 2, 'the trace and its steps');
    const meta = JSON.parse(execFileSync(cli, ['gpu-time', '--json', GPT], { encoding: 'utf8' }));
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openGpuTime(page, GPT);
      sameAsCli(await tableRows(page, c, 'gpu-time'), want);
      // The events HTA's rounding would invert are said when there are some, with their count.
      const note = await page.$(`${c} [data-testid=gpu-time-rounding-note]`);
      if (meta.negative_when_rounded === 0) assert.equal(note, null);
      else assert.match(await note.textContent(), new RegExp(`^${meta.negative_when_rounded.toLocaleString('en-US')} GPU event`));
    });
  });

  it('the idle time and kernel breakdowns below it: by hand on a fixture, equal to the CLI on the GPT', { ...T, skip }, async () => {
    const IDLE_FIXTURE = path.join(repo, 'tests/data/gpu-idle-overlapping-sync.json');
    for (const file of [IDLE_FIXTURE, GPT]) {
      const want = JSON.parse(execFileSync(cli, ['gpu-time', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
      await withCheckedPage(browser, server.url, async (page) => {
        const c = await openGpuTime(page, file);
        await page.waitForSelector(`${c} [data-testid=gpu-idle][data-ready=true] [data-testid=gpu-idle-row]`);
        await page.waitForSelector(`${c} [data-testid=gpu-kernels][data-ready=true] [data-testid=gpu-top-kernels-row]`);
        await page.waitForSelector(`${c} [data-testid=gpu-idle-intervals-row]`);
        // Each table row for row as the CLI's --json members, numbers to the cells' 2 decimals.
        const same = async (stem, rows, fields, key) => {
          const shown = await tableRows(page, c, stem);
          assert.equal(shown.length, rows.length, `${stem}: a row per CLI row`);
          rows.forEach((w, i) => {
            const r = shown[i].cells;
            assert.equal(r[key], String(w[key]), `${stem} row ${i}`);
            for (const [f, scale] of fields) {
              const got = cellNum(r[f]);
              if (w[f] == null) assert.equal(got, null, `${stem} ${f} of row ${i} is blank`);
              else assert.ok(Math.abs(got - scale * w[f]) <= (scale === 1 ? 0.0051 : 0.051), `${stem} ${f} of row ${i}: page ${r[f]}, CLI ${w[f]}`);
            }
          });
        };
        await same('gpu-idle', want.idle, [['idle_us', 1], ['host_wait_us', 1], ['kernel_wait_us', 1], ['other_us', 1], ['host_wait_ratio', 100], ['other_ratio', 100]], 'stream');
        await same('gpu-idle-intervals', want.idle_intervals, [['count', 1], ['mean_us', 1], ['p50_us', 1], ['max_us', 1]], 'category');
        await same('gpu-kernel-types', want.kernel_types, [['us', 1], ['pct', 1]], 'type');
        await same('gpu-top-kernels', want.top_kernels, [['calls', 1], ['sum_us', 1], ['max_us', 1], ['min_us', 1], ['mean_us', 1], ['stddev_us', 1]], 'name');
        if (file === IDLE_FIXTURE) {
          // By hand (tests/data/README.md): stream 7 waits 50 µs on the host, 2 µs between kernels, 70 µs otherwise.
          const [s7] = await tableRows(page, c, 'gpu-idle');
          assert.deepEqual([s7.cells.stream, cellNum(s7.cells.host_wait_us), cellNum(s7.cells.kernel_wait_us), cellNum(s7.cells.other_us)], ['7', 50, 2, 70]);
          assert.match(await page.textContent(`${c} [data-testid=gpu-idle-intro]`), /under 30 µs/);
          const types = await tableRows(page, c, 'gpu-kernel-types');
          assert.deepEqual(types.map((r) => [r.cells.type, cellNum(r.cells.us)]), [
            ['COMPUTATION', 63], ['COMMUNICATION', 50], ['MEMORY', 40], ['COMPUTATION overlapping COMMUNICATION', 10],
            ['COMPUTATION overlapping MEMORY', 10], ['COMPUTATION overlapping COMMUNICATION overlapping MEMORY', 5],
          ]);
          assert.match(await page.textContent(`${c} [data-testid=gpu-kernels-intro]`), /busy time \(178 µs\)/);
        }
      });
    }
  });

  it('overlap, launch statistics, queue length and bandwidth: by hand on a fixture, equal to the CLI on real traces', { ...T, skip }, async () => {
    const LAUNCH_FIXTURE = path.join(repo, 'tests/data/gpu-launch-without-kernel.json');
    const OVERLAP_FIXTURE = path.join(repo, 'tests/data/gpu-idle-overlapping-sync.json');
    const RANK1 = path.join(repo, 'tests/data/two-rank-sampled-rank-1.json.gz');
    for (const file of [LAUNCH_FIXTURE, OVERLAP_FIXTURE, RANK1, GPT]) {
      const want = JSON.parse(execFileSync(cli, ['gpu-time', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
      await withCheckedPage(browser, server.url, async (page) => {
        const c = await openGpuTime(page, file);
        await page.waitForSelector(`${c} [data-testid=gpu-overlap][data-ready=true]`);
        await page.waitForSelector(`${c} [data-testid=gpu-launches][data-ready=true]`);
        await page.waitForSelector(`${c} [data-testid=gpu-queue][data-ready=true]`);
        const pct = (t) => Number(t.replace(/\s*%$/, ''));
        // §4: HTA's share (null: the note) and the Distributed view's beside it.
        if (want.comm_comp_overlap_pct == null) {
          assert.equal(await page.textContent(`${c} [data-testid=gpu-overlap-none]`), want.comm_comp_overlap_note);
        } else {
          assert.ok(Math.abs(pct(await page.textContent(`${c} [data-testid=gpu-overlap-pct]`)) - want.comm_comp_overlap_pct) <= 0.0051);
          const dist = await page.textContent(`${c} [data-testid=gpu-overlap-distributed]`);
          if (want.distributed_overlap_pct == null) assert.equal(dist, 'none');
          else assert.ok(Math.abs(pct(dist) - want.distributed_overlap_pct) <= 0.0051, `distributed ${dist} vs ${want.distributed_overlap_pct}`);
        }
        // §5: describe() of the three durations, the flags, the operators' table.
        const l = want.launches;
        if (l.count === 0) assert.equal(await page.textContent(`${c} [data-testid=gpu-launches-none]`), l.note);
        else {
          assert.equal(cellNum(await page.textContent(`${c} [data-testid=gpu-launches-count]`)), l.count);
          for (const key of ['cpu_duration_us', 'gpu_duration_us', 'launch_delay_us'])
            for (const stat of ['mean', 'p25', 'p50', 'p75', 'max']) {
              const v = await page.getAttribute(`${c} [data-testid=gpu-launches-${key}] [data-stat=${stat}]`, 'data-value');
              assert.ok(Math.abs(Number(v) - l[key][stat]) < 1e-9, `${key} ${stat}: page ${v}, CLI ${l[key][stat]}`);
            }
          for (const [id, n] of [['short', l.short_kernels], ['runtime-outliers', l.runtime_outliers], ['delay-outliers', l.launch_delay_outliers]])
            assert.equal(Number(await page.getAttribute(`${c} [data-testid=gpu-launches-${id}]`, 'data-value')), n, id);
          await page.waitForSelector(`${c} [data-testid=gpu-launch-histogram] canvas`);
          await page.waitForSelector(`${c} [data-testid=gpu-launch-operators-row]`);
          // The rows the table draws (a long one draws those in view), in the CLI's order.
          const ops = await tableRows(page, c, 'gpu-launch-operators');
          assert.ok(ops.length === want.launch_operators.length || (ops.length >= 8 && ops.length < want.launch_operators.length), `${ops.length} operator rows`);
          ops.forEach((r, i) => {
            const w = want.launch_operators[i];
            if (w.operator != null) assert.equal(r.cells.operator, w.operator, `operator row ${i}`);
            assert.equal(cellNum(r.cells.launches), w.launches);
            assert.ok(Math.abs(cellNum(r.cells.mean_launch_delay_us) - w.mean_launch_delay_us) <= 0.0051, `mean delay of ${w.operator}`);
          });
        }
        // §6: each stream's queue summary; the charted streams drawn; the bandwidth per kind.
        const queue = await tableRows(page, c, 'gpu-queue');
        assert.equal(queue.length, want.queue.length);
        queue.forEach((r, i) => {
          const w = want.queue[i];
          assert.equal(r.cells.stream, String(w.stream));
          for (const f of ['launches', 'count', 'mean', 'p50', 'max', 'time_at_limit_us'])
            assert.ok(Math.abs(cellNum(r.cells[f]) - w[f]) <= 0.0051, `queue ${w.stream} ${f}: page ${r.cells[f]}, CLI ${w[f]}`);
        });
        if (want.queue.length) await page.waitForSelector(`${c} [data-testid=gpu-queue-chart] canvas`);
        const bw = want.memory_bandwidth.length ? await tableRows(page, c, 'gpu-memory-bandwidth') : [];
        assert.deepEqual(bw.map((r) => r.cells.kind), want.memory_bandwidth.map((k) => k.kind));
        if (file === LAUNCH_FIXTURE) {
          // By hand (tests/data/README.md): 5 launches, the call without a kernel said, delays 5/7/10/148/0.
          assert.deepEqual([l.count, l.calls_without_gpu_event, l.launch_delay_us.mean, l.short_kernels], [5, 1, 34, 3]);
          assert.match(await page.textContent(`${c} [data-testid=gpu-launches-intro]`), /1 launch call has no recorded GPU event/);
          assert.deepEqual(queue.map((r) => [r.cells.stream, cellNum(r.cells.mean), cellNum(r.cells.max)]), [['7', 1, 2], ['8', 0.5, 1]]);
          assert.match(await page.textContent(`${c} [data-testid=gpu-queue-limit]`), /No stream reached the limit/);
          // The operator's row opens the Operators view on it.
          await page.click(`${c} [data-testid=gpu-launch-operators-row] >> text=aten::mm`);
          await page.click(`${c} [data-testid=gpu-launch-operator-link] button`);
          await page.waitForSelector(`${c} [data-testid=panel-operators]:not([hidden])`);
        }
        if (file === OVERLAP_FIXTURE) {
          // By hand: NCCL [140,205) = 65 µs, under computation [140,150) and [200,205): 15 µs.
          assert.equal(await page.textContent(`${c} [data-testid=gpu-overlap-pct]`), '23.08 %');
        }
        if (file === RANK1) assert.equal(await page.textContent(`${c} [data-testid=gpu-overlap-pct]`), '20.05 %');
      });
    }
  });

  it('a trace without GPU work: one sentence, no table', { ...T, skip }, async () => {
    const file = path.join(repo, 'tests/data/begin-end-pairs.json');
    assert.equal(csvRows(file).length, 0, 'the CLI has no rows either');
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openGpuTime(page, file);
      assert.match(await page.textContent(`${c} [data-testid=gpu-time-none]`), /no GPU work on a stream/);
      assert.equal(await page.$(`${c} [data-testid=gpu-time-table]`), null);
    });
  });
});
