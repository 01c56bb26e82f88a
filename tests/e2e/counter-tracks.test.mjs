// The GPU time tab's counters as Timeline counter tracks (issue 24 §6) in Chromium, against the
// stand-in Perfetto UI (fake-perfetto/index.html records what it is sent): "Add … to the Timeline"
// opens the Timeline, and the trace Perfetto gets is the file's own events with the counter events
// ("ph":"C") the core gives (`kinetoscope gpu-counter-track --json`) spliced into its traceEvents —
// for a plain file (a Blob of the File's slices) and a gzipped one (decompressed, then spliced) —
// and a step sent alone carries the counters of that step only. The queue-limit recommendation's
// link leads to the queue section.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { card, cli, cliHas, launch, pickFiles, received, repo, sampleTrace, serveDist, serveFakePerfetto, settled, tableRows, tmpDir, withCheckedPage } from './helpers.mjs';

const T = { timeout: 120_000 };
const skip = !cliHas('gpu-counter-track') && 'the CLI has no gpu-counter-track view';
const WAITS = path.join(repo, 'tests/data/critical-path-stream-wait-event.json');

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

const cliJson = (args) => JSON.parse(execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n')[0]);
const traceEvents = (file) => {
  const bytes = fs.readFileSync(file);
  return JSON.parse((bytes[0] === 0x1f && bytes[1] === 0x8b ? zlib.gunzipSync(bytes) : bytes).toString('utf8')).traceEvents;
};

async function openGpuTime(page, file) {
  const name = path.basename(file);
  await pickFiles(page, [file]);
  assert.equal(await settled(page, name), 'done');
  const c = card(name);
  await page.click(`${c} [data-testid=tab-gpu-time]`);
  await page.waitForSelector(`${c} [data-testid=gpu-queue][data-ready=true]`, { timeout: 90_000 });
  return c;
}

/** The counter events the CLI gives, as the page writes them. */
function expectedCounters(file, counter, extra = []) {
  const a = cliJson(['gpu-counter-track', '--json', '--counter', counter, ...extra, file]);
  const arg = counter === 'queue' ? 'launches' : 'GB/s';
  return a.rows.map((r) => ({
    ph: 'C',
    cat: 'kinetoscope',
    name: counter === 'queue' ? `Queue length (stream ${r.series})` : `Memory bandwidth (${r.series})`,
    pid: /^-?\d+$/.test(r.pid) ? Number(r.pid) : r.pid,
    ts: r.ts,
    args: { [arg]: r.value },
  }));
}

describe('GPU time counters on the Timeline', () => {
  it('a plain file: its events, then the queue counters the CLI gives, spliced into traceEvents', { ...T, skip }, async () => {
    const want = expectedCounters(WAITS, 'queue');
    assert.equal(want.length, 5); // streams 7 and 20 in step 1 (tests/core/gpu_path_test.cpp works them out)
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}`, async (page) => {
      const c = await openGpuTime(page, WAITS);
      await page.click(`${c} [data-testid=gpu-queue-timeline]`);
      await page.waitForSelector(`${c} [data-testid=timeline-counters]`);
      const [msg] = await received(page, fake.origin, 1);
      assert.equal(msg.kind, 'trace');
      const sent = JSON.parse(msg.text);
      const counters = sent.traceEvents.filter((e) => e.ph === 'C');
      assert.deepEqual(counters, want);
      // Every event of the file, in its order, after them; the other members kept.
      assert.deepEqual(sent.traceEvents.slice(want.length), traceEvents(WAITS));
      assert.equal(sent.schemaVersion, 1);
      assert.match(await page.textContent(`${c} [data-testid=timeline-sent]`), /with 5 counter events \(queue length\)/);
    });
  });

  it('a gzipped file: decompressed and spliced; both counters; a step alone carries its own window', { ...T, skip }, async () => {
    const queue = expectedCounters(sampleTrace, 'queue');
    const bandwidth = expectedCounters(sampleTrace, 'bandwidth');
    assert.ok(queue.length > 0 && bandwidth.length > 0);
    const name = path.basename(sampleTrace);
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}`, async (page) => {
      const c = await openGpuTime(page, sampleTrace);
      await page.click(`${c} [data-testid=gpu-bandwidth-timeline]`);
      const [first] = await received(page, fake.origin, 1);
      const sent = JSON.parse(first.text);
      const original = traceEvents(sampleTrace);
      assert.deepEqual(sent.traceEvents.slice(0, bandwidth.length), bandwidth);
      assert.equal(sent.traceEvents.length, original.length + bandwidth.length);
      assert.deepEqual(sent.traceEvents.slice(bandwidth.length, bandwidth.length + 50), original.slice(0, 50));
      // Then the queue too: the second send carries both kinds.
      await page.click(`${c} [data-testid=tab-gpu-time]`);
      await page.click(`${c} [data-testid=gpu-queue-timeline]`);
      const got = await received(page, fake.origin, 2);
      const both = JSON.parse(got[1].text).traceEvents.filter((e) => e.ph === 'C' && e.cat === 'kinetoscope');
      assert.deepEqual(both, [...bandwidth, ...queue]);
      // A step alone: the trimmed window's events, with the counters of that window.
      const steps = cliJson(['steps', '--json', sampleTrace]).steps;
      const summary = cliJson(['summary', '--json', sampleTrace]);
      const s = steps[0];
      await page.click(`${c} [data-testid=timeline-mode-step]`);
      await page.click(`${c} [data-testid=timeline-send]`);
      const three = await received(page, fake.origin, 4); // the trace, then the zoom
      const trimmed = JSON.parse(three.filter((m) => m.kind === 'trace')[2].text);
      const from = (s.start_us - summary.start_us).toString();
      const to = (s.end_us - summary.start_us).toString();
      const windowed = [...expectedCounters(sampleTrace, 'bandwidth', ['--from-us', from, '--to-us', to]), ...expectedCounters(sampleTrace, 'queue', ['--from-us', from, '--to-us', to])];
      assert.deepEqual(
        trimmed.traceEvents.filter((e) => e.ph === 'C' && e.cat === 'kinetoscope'),
        windowed,
      );
      for (const e of windowed) assert.ok(e.ts >= s.start_us - 1e-3 && e.ts <= s.end_us + 1e-3, `${e.ts} in the step`);
      // Left out: the next send is the file as dropped again.
      await page.click(`${c} [data-testid=timeline-counters-remove]`);
      await page.click(`${c} [data-testid=timeline-mode-whole]`);
      await page.click(`${c} [data-testid=timeline-send]`);
      const five = await received(page, fake.origin, 5);
      const last = five.filter((m) => m.kind === 'trace').at(-1);
      assert.equal(last.byteLength, fs.statSync(sampleTrace).size, `${name} sent as dropped`);
    });
  });

  it('the queue-limit recommendation links to the queue section', { ...T, skip }, async () => {
    // queue-at-the-limit (tests/data/README.md): 1,030 launches onto stream 7 from 1000 µs, one
    // every 0.01 µs, their kernels back to back from 2000 µs, 1 µs each: 995.77 µs at the limit.
    const ev = [];
    for (let i = 0; i < 1030; i++) {
      const ts = `${1000 + Math.floor(i / 100)}.${String((i % 100) * 10).padStart(3, '0')}`;
      ev.push(`{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":${ts},"dur":0.005,"args":{"correlation":${i + 1}}}`);
      ev.push(`{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":${2000 + i},"dur":1,"args":{"correlation":${i + 1},"device":0,"stream":7}}`);
    }
    const file = path.join(tmpDir(), 'queue-at-the-limit.json');
    fs.writeFileSync(file, `{"traceEvents":[${ev.join(',')}]}`);
    const want = cliJson(['gpu-time', '--json', file]);
    const rec = want.recommendations.find((r) => r.kind === 'queue_limit_stream');
    assert.ok(rec, 'the CLI recommends it');
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}`, async (page) => {
      const c = await openGpuTime(page, file);
      await page.waitForSelector(`${c} [data-testid=gpu-recommendations][data-ready=true]`);
      const li = `${c} [data-testid=gpu-recommendation][data-kind=queue_limit_stream]`;
      assert.ok((await page.textContent(li)).startsWith(rec.text));
      const top = () => page.$eval(`${c} [data-testid=gpu-queue]`, (el) => el.getBoundingClientRect().top);
      const height = await page.evaluate(() => innerHeight);
      assert.ok((await top()) > height, 'the queue section is below the fold at first');
      await page.click(`${li} [data-testid=gpu-recommendation-evidence]`);
      const now = await top();
      assert.ok(now >= -1 && now < height, `the link scrolled the queue section into view (${now})`);
      assert.match(await page.textContent(`${c} [data-testid=gpu-queue-limit]`), /Stream 7 sat at the limit for 995\.77 µs/);
      // The queue table's counts are grouped as every count on the page (1,024, not 1024).
      const q = want.queue.find((r) => r.stream === 7);
      assert.ok(q.max >= 1000, `the fixture's queue reaches ${q.max}`);
      const row = (await tableRows(page, c, 'gpu-queue')).find((r) => r.name === '7');
      assert.equal(row.cells.max, q.max.toLocaleString('en-US'));
    });
  });
});
