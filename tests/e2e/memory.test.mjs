// The Memory view (issue 10): its tables equal `kinetoscope memory --json` (read through the
// tables' CSV export, which holds the raw bytes and µs), a drag on the curve narrows both tables
// and the link to that range and a double-click brings the whole trace back, the allocations alive
// at the peak on tests/data/memory-alive-at-peak.json (worked out by hand in
// tests/core/memory_test.cpp), the Overview's peak memory, the keyboard (key 4 opens the view,
// the From/To fields set a range), dark mode, and a trace without memory events saying what to
// record. Waits on the data-* attributes the view sets, never on time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cliHas, hasShared, openSite, parseCsv, pickFiles, repo, runCliJson, sampleTrace, settled, sharedTraces, withCheckedPage } from './helpers.mjs';

const fixture = path.join(repo, 'tests', 'data', 'memory-alive-at-peak.json');
const resnet = path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz');
const { server, browser } = await openSite();
const T = { timeout: 180_000 };
const skipCli = !cliHas('memory') && 'the CLI has no memory command';
const MiB = 1048576;

const hashParams = (page) => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.slice(1))));

/** Opens `file` and its Memory tab; waits for the view to have its tables. */
async function openMemory(page, file) {
  await pickFiles(page, [file]);
  const name = path.basename(file);
  assert.equal(await settled(page, name), 'done');
  const c = card(name);
  await page.click(`${c} [data-testid=tab-memory]`);
  await page.waitForSelector(`${c} [data-testid=memory-view][data-state=ready]`);
  return c;
}

/** The rows of a table's CSV export (raw values), as objects keyed by header. */
async function exportCsv(page, c, stem) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${c} [data-testid=${stem}-export]`)]);
  const [head, ...rows] = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
  return rows.map((r) => Object.fromEntries(head.map((h, k) => [h, r[k]])));
}

const num = (s) => (s === '' || s == null ? null : Number(s));
const near = (a, b) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)));

/** The page's statistics table equals the CLI's rows of `device`. */
async function checkStats(page, c, want, label) {
  const got = await exportCsv(page, c, 'mem-stat');
  assert.equal(got.length, want.length, `${label}: statistics rows`);
  const byName = new Map(got.map((r) => [r.Operator, r]));
  for (const w of want) {
    const g = byName.get(w.name);
    assert.ok(g, `${label}: row ${w.name}`);
    assert.deepEqual(
      [num(g.Calls), num(g['Size increase (bytes)']), num(g['Self size increase (bytes)']), num(g['Allocation count']), num(g['Self allocation count']),
        num(g['Allocation size (bytes)']), num(g['Self allocation size (bytes)'])],
      [w.calls, w.size_increase_bytes, w.self_size_increase_bytes, w.allocation_count, w.self_allocation_count, w.allocation_size_bytes, w.self_allocation_size_bytes],
      `${label}: ${w.name}`,
    );
  }
}

/** The page's events table equals the CLI's rows of `device` (as multisets: the page sorts). */
async function checkEvents(page, c, want, label) {
  const got = (await exportCsv(page, c, 'mem-event')).map((r) => [r.Operator, num(r['Size (bytes)']), num(r['Allocation time (us)']), num(r['Release time (us)']), num(r['Duration (us)'])]);
  const exp = want.map((w) => [w.operator, w.size_bytes, w.alloc_us, w.release_us, w.duration_us]);
  const key = (r) => JSON.stringify([r[0], r[1], r[2] ?? -1, r[3] ?? -1]);
  got.sort((a, b) => key(a).localeCompare(key(b)));
  exp.sort((a, b) => key(a).localeCompare(key(b)));
  assert.equal(got.length, exp.length, `${label}: event rows`);
  got.forEach((g, k) => {
    const e = exp[k];
    assert.ok(g[0] === e[0] && g[1] === e[1] && near(g[2], e[2]) && near(g[3], e[3]) && near(g[4], e[4]), `${label}: event ${JSON.stringify(g)} vs ${JSON.stringify(e)}`);
  });
}

/**
 * Drags over the curve from fraction a to b of its plot width; returns the range the view took.
 * The mouse events are dispatched in the page with their movement set: uPlot ignores moves without
 * movement while a button is down (a Chrome quirk it works around), and CDP's moves carry none.
 */
async function dragCurve(page, c, a, b) {
  await page.waitForSelector(`${c} [data-testid=memory-curve][data-state=ready] .u-over`);
  await page.$eval(`${c} [data-testid=memory-curve] .u-over`, (over, [a, b]) => {
    const r = over.getBoundingClientRect();
    const y = r.top + r.height / 2;
    const at = (f) => r.left + r.width * f;
    const ev = (type, f, dx) => new MouseEvent(type, { clientX: at(f), clientY: y, movementX: dx, movementY: 0, bubbles: true, button: 0, buttons: type === 'mouseup' ? 0 : 1 });
    over.dispatchEvent(ev('mousedown', a, 0));
    for (let k = 1; k <= 8; k++) over.dispatchEvent(ev('mousemove', a + ((b - a) * k) / 8, 5));
    document.dispatchEvent(ev('mouseup', b, 0));
  }, [a, b]);
  const view = await page.waitForSelector(`${c} [data-testid=memory-view][data-range]:not([data-range=""])[data-state=ready]`);
  return (await view.getAttribute('data-range')).split(',').map(Number);
}

describe('Memory view', () => {
  it('fixture: tables equal the CLI, the allocations alive at the peak, drag and double-click, the link, the keyboard', { ...T, skip: skipCli }, async () => {
    const cli = runCliJson(['memory', '--json', fixture]);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openMemory(page, fixture);
      assert.deepEqual(await page.$$eval(`${c} [data-testid=memory-device] option`, (os) => os.map((o) => o.value)), ['CPU', 'GPU0']);
      assert.equal(await page.inputValue(`${c} [data-testid=memory-device]`), 'GPU0', 'the first GPU by default, as tb_plugin');
      assert.equal(await page.getAttribute(`${c} [data-testid=memory-peak-allocated]`, 'data-bytes'), String(3 * MiB + 4096));

      // What holds the memory at the peak: three allocations, largest first, adding up to the total.
      await page.waitForSelector(`${c} [data-testid=memory-alive][data-state=ready]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=memory-alive]`, 'data-at'), '220');
      const alive = await page.$$eval(`${c} [data-testid=memory-alive-row]`, (rs) => rs.map((r) => [Number(r.dataset.bytes), r.dataset.operator]));
      assert.deepEqual(alive, [[2 * MiB, 'aten::relu'], [MiB, 'aten::matmul'], [4096, 'aten::linear (aten::empty)']]);
      assert.match(await page.textContent(`${c} [data-testid=memory-alive-summary]`), /3 allocations holding 3 MB of the 3 MB the allocator counted/);
      await page.click(`${c} [data-testid=memory-alive-row] >> nth=2 >> [data-testid=memory-alive-stack-toggle]`);
      assert.equal(await page.textContent(`${c} [data-testid=memory-alive-frames] li >> nth=0`), 'model.py(10): forward');

      // The curve is drawn with its peak.
      await page.waitForSelector(`${c} [data-testid=memory-curve][data-state=ready]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=memory-chart]`, 'data-peak'), String(3 * MiB + 4096));

      // The whole trace: both tables are the CLI's.
      await checkStats(page, c, cli.stats.GPU0, 'GPU0 whole trace');
      await checkEvents(page, c, cli.events.GPU0, 'GPU0 whole trace');
      // An event's detail shows its allocating operator's call stack.
      await page.fill(`${c} [data-testid=mem-event-search]`, 'aten::linear');
      await page.click(`${c} [data-testid=mem-event-row] >> nth=0`);
      assert.equal(await page.textContent(`${c} [data-testid=mem-event-detail-frames] li >> nth=0`), 'model.py(10): forward');
      await page.fill(`${c} [data-testid=mem-event-search]`, '');

      // A drag selects a range: both tables and the link follow, as `--from-us/--to-us`.
      const [from, to] = await dragCurve(page, c, 0.3, 0.7);
      assert.ok(from > 0 && to > from, `range ${from}..${to}`);
      const h = await hashParams(page);
      assert.equal(h.view, 'memory');
      assert.ok(h.mem_from && h.mem_to, `the range is in the link: ${JSON.stringify(h)}`);
      const win = runCliJson(['memory', '--json', '--from-us', h.mem_from, '--to-us', h.mem_to, fixture]);
      assert.ok(win.events.GPU0.length < cli.events.GPU0.length, 'the range holds fewer events');
      await checkStats(page, c, win.stats.GPU0, `GPU0 ${h.mem_from}..${h.mem_to}`);
      await checkEvents(page, c, win.events.GPU0, `GPU0 ${h.mem_from}..${h.mem_to}`);
      assert.equal(await page.getAttribute(`${c} [data-testid=memory-curve]`, 'data-from'), String(from), 'the curve zoomed to the range');

      // Double-click: the whole trace again, and out of the link.
      await page.dblclick(`${c} [data-testid=memory-curve] .u-over`);
      await page.waitForSelector(`${c} [data-testid=memory-view][data-range=""][data-state=ready]`);
      assert.equal((await hashParams(page)).mem_from, undefined);
      await checkEvents(page, c, cli.events.GPU0, 'GPU0 after double-click');

      // The keyboard: key N is the Nth tab (the Memory tab's place depends on which views the
      // trace has); the From/To fields set a range with Enter; another device is in the link too.
      const tabs = await page.$$eval(`${c} [role=tab]`, (ts) => ts.map((t) => t.getAttribute('data-testid')));
      const key = tabs.indexOf('tab-memory') + 1;
      assert.ok(key >= 1 && key <= 9, `the Memory tab has a key: ${tabs.join(', ')}`);
      await page.click(`${c} [data-testid=tab-overview]`);
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press(String(key));
      assert.equal(await page.getAttribute(`${c} [data-testid=tab-memory]`, 'aria-selected'), 'true');
      await page.focus(`${c} [data-testid=memory-from]`);
      await page.keyboard.type('0.1');
      await page.keyboard.press('Tab');
      await page.keyboard.type('0.3');
      await page.keyboard.press('Enter');
      await page.waitForSelector(`${c} [data-testid=memory-view][data-range="100,300"][data-state=ready]`);
      const kw = runCliJson(['memory', '--json', '--from-us', '100', '--to-us', '300', fixture]);
      await checkEvents(page, c, kw.events.GPU0, 'GPU0 100..300 from the keyboard');
      // Another moment for the alive list, typed: 60 µs after the origin, aten::matmul's 1 MiB
      // has just been allocated and aten::empty's 4096 bytes are still held.
      await page.fill(`${c} [data-testid=memory-alive-at]`, '0.06');
      await page.press(`${c} [data-testid=memory-alive-at]`, 'Enter');
      await page.waitForSelector(`${c} [data-testid=memory-alive][data-at="60"][data-state=ready]`);
      assert.deepEqual(
        await page.$$eval(`${c} [data-testid=memory-alive-row]`, (rs) => rs.map((r) => [Number(r.dataset.bytes), r.dataset.operator])),
        [[MiB, 'aten::matmul'], [4096, 'aten::linear (aten::empty)']],
      );
      await page.selectOption(`${c} [data-testid=memory-device]`, 'CPU');
      await page.waitForSelector(`${c} [data-testid=memory-view][data-device=CPU][data-state=ready]`);
      assert.equal((await hashParams(page)).device, 'CPU');
      await checkStats(page, c, kw.stats.CPU, 'CPU 100..300');
      await page.click(`${c} [data-testid=memory-reset]`);
      await page.waitForSelector(`${c} [data-testid=memory-view][data-range=""][data-state=ready]`);
      await checkEvents(page, c, cli.events.CPU, 'CPU whole trace');

      // The Overview's peak memory per device.
      await page.click(`${c} [data-testid=tab-overview]`);
      for (const d of cli.devices) {
        assert.equal(await page.getAttribute(`${c} [data-testid=overview-memory-${d.device}]`, 'data-bytes'), String(d.peak_allocated_bytes));
      }
    });
  });

  it('a deep link opens the Memory view on its device and range; dark mode draws it', { ...T, skip: skipCli }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(`${server.url}#file=memory-alive-at-peak.json&view=memory&device=GPU0&mem_from=100&mem_to=300`);
      await page.waitForSelector('[data-testid=drop-zone]');
      const c = await openMemory(page, fixture);
      await page.waitForSelector(`${c} [data-testid=memory-view][data-range="100,300"][data-state=ready]`);
      await page.waitForSelector(`${c} [data-testid=memory-curve][data-state=ready]`);
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const [r, g, b] = bg.match(/\d+/g).map(Number);
      assert.ok(r + g + b < 200, `a dark page: ${bg}`);
      // The alive list follows the range: its peak is the range's (320 µs absolute = 220 from the origin).
      await page.waitForSelector(`${c} [data-testid=memory-alive][data-state=ready]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=memory-alive]`, 'data-count'), '3');
    });
  });

  it('a trace without memory events says what to record', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      const name = path.basename(sampleTrace);
      assert.equal(await settled(page, name), 'done');
      await page.click(`${card(name)} [data-testid=tab-memory]`);
      assert.match(await page.textContent(`${card(name)} [data-testid=memory-none]`), /profile_memory=True/);
    });
  });

  it('resnet50 (PyTorch 1.9, no addresses or totals): statistics equal the CLI, whole and dragged; a curve from Bytes', { ...T, skip: skipCli || (!hasShared && '../shared is absent') }, async () => {
    const cli = runCliJson(['memory', '--json', resnet]);
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await openMemory(page, resnet);
      assert.equal(await page.inputValue(`${c} [data-testid=memory-device]`), cli.default_device);
      await checkStats(page, c, cli.stats.GPU0, 'GPU0 whole trace');
      await page.waitForSelector(`${c} [data-testid=memory-curve][data-state=ready]`);
      const gpu = cli.devices.find((d) => d.device === 'GPU0');
      assert.ok(gpu.allocated_from_bytes);
      assert.equal(await page.getAttribute(`${c} [data-testid=memory-chart]`, 'data-peak'), String(gpu.peak_allocated_bytes), 'the drawn curve keeps the exact peak');
      assert.ok(Number(await page.getAttribute(`${c} [data-testid=memory-curve]`, 'data-points')) <= 6 * 1500, 'down-sampled to the pixel columns');
      await page.waitForSelector(`${c} [data-testid=memory-alive][data-state=no-addresses]`);
      await dragCurve(page, c, 0.2, 0.5);
      const h = await hashParams(page);
      const win = runCliJson(['memory', '--json', '--from-us', h.mem_from, '--to-us', h.mem_to, resnet]);
      assert.ok(win.stats.GPU0.length > 0 && JSON.stringify(win.stats.GPU0) !== JSON.stringify(cli.stats.GPU0), 'the range counts less');
      await checkStats(page, c, win.stats.GPU0, `GPU0 ${h.mem_from}..${h.mem_to}`);
      await page.click(`${c} [data-testid=tab-overview]`);
      assert.equal(await page.getAttribute(`${c} [data-testid=overview-memory-GPU0]`, 'data-bytes'), String(gpu.peak_allocated_bytes));
    });
  });
});
