// The Snapshot page (issue 26): CUDA allocator snapshots dropped on the page are told by content
// (a pickle's first bytes, whatever the name) and read by the worker's SnapshotSession. The card's
// numbers per device equal `kinetoscope snapshot --json` on the same file; the OOM panel shows the
// hand-made snapshot's out-of-memory event (tests/data/README.md); the timeline is drawn, a band
// hovered reads the allocation worked out by hand, a click pins it and zooming narrows the window;
// the peak's sites equal the CLI's; a hostile pickle gets the reader's one sentence and a cut-off
// one what it could, with what was lost in its health table.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { card, cli, dropFiles, openSite, readTableRows, repo, runCliJson, settled, withCheckedPage } from './helpers.mjs';

const T = { timeout: 240_000 };
const gpt = path.join(repo, 'tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle');
const handMade = path.join(repo, 'tests/data/snapshots/hand-made-protocol5.pickle');
const hostileDir = path.join(repo, 'tests/data/hostile-snapshots');
const hostileExpected = JSON.parse(fs.readFileSync(path.join(hostileDir, 'expected.json'), 'utf8'));
const PLOT_H = 320; // views/snapshot-view.tsx

describe('the Snapshot page', { skip: !fs.existsSync(cli) && 'needs build/native/kinetoscope' }, () => {
  const site = openSite({ tmp: true });

  /** The card's numbers per device, read from the page. */
  async function readDevices(page, name) {
    return page.$$eval(`${card(name)} [data-testid=snapshot-device-row]`, (rows) =>
      rows.map((r) => {
        const o = { device: Number(r.getAttribute('data-device')) };
        for (const el of r.querySelectorAll('[data-value]')) o[el.getAttribute('data-testid').replace(/^snap-/, '')] = Number(el.getAttribute('data-value'));
        const at = r.querySelector('[data-testid=snap-peak_at]');
        o.peak_at_us = at.getAttribute('data-us') === '' ? null : Number(at.getAttribute('data-us'));
        o.peak_entry = Number(at.getAttribute('data-entry'));
        return o;
      }),
    );
  }

  function expectSameAsCli(got, file) {
    const want = runCliJson(['snapshot', '--json', file]).devices;
    assert.equal(got.length, want.length, 'one row per device');
    for (let i = 0; i < want.length; i++) {
      const w = want[i];
      for (const k of ['device', 'trace_entries', 'allocations', 'frees', 'peak_allocated_bytes', 'peak_at_us', 'peak_entry', 'peak_reserved_bytes', 'before_history_bytes', 'allocated_at_dump_bytes', 'reserved_at_dump_bytes', 'segments'])
        assert.equal(got[i][k], w[k], `device ${w.device}: ${k}`);
      assert.equal(got[i].oom_count, w.ooms.length, `device ${w.device}: ooms`);
    }
    return want;
  }

  it('reads the GPT sample and a hand-made snapshot (named as a trace) with the CLI numbers, the OOM and the peak', T, async () => {
    const { browser, server, tmp } = await site;
    // Told by content: the hand-made snapshot under a trace's name.
    const renamed = path.join(tmp, 'renamed-snapshot.pt.trace.json');
    fs.copyFileSync(handMade, renamed);
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await dropFiles(page, [gpt, renamed]);
      for (const name of [path.basename(gpt), 'renamed-snapshot.pt.trace.json']) {
        assert.equal(await settled(page, name), 'done', `${name} loads`);
        await page.waitForSelector(`${card(name)} [data-testid=snapshot-view]`);
      }
      const gptName = path.basename(gpt);
      await settled(page, gptName);
      const want = expectSameAsCli(await readDevices(page, gptName), gpt);
      await page.waitForSelector(`${card(gptName)} [data-testid=snapshot-no-oom]`);
      // The peak's sites at depth 1: the CLI's top sites, in its order.
      await page.waitForSelector(`${card(gptName)} [data-testid=snapshot-peak-row]`);
      const rows = await readTableRows(page, card(gptName), 'snapshot-peak');
      const top = want[0].top_sites;
      assert.ok(rows.length >= top.length, 'every site of the CLI is a row');
      for (let i = 0; i < top.length; i++) assert.equal(rows[i].cells[0], top[i].frame, `site ${i}`);
      // The flame graph of the peak's stacks is drawn.
      const boxes = Number(await page.getAttribute(`${card(gptName)} [data-testid=module-flame-canvas]`, 'data-box-count'));
      assert.ok(boxes > 10, `flame boxes drawn (${boxes})`);

      const hm = 'renamed-snapshot.pt.trace.json';
      await settled(page, hm);
      expectSameAsCli(await readDevices(page, hm), renamed);
      // The OOM: 8,000,000 bytes asked, 123,456 free; 3,724,288 allocated and 6,291,456 reserved then.
      const oom = `${card(hm)} [data-testid=snap-oom]`;
      await page.waitForSelector(oom);
      const v = (id) => page.getAttribute(`${oom} [data-testid=${id}]`, 'data-value').then(Number);
      assert.equal(await v('snap-oom-requested'), 8000000);
      assert.equal(await v('snap-oom-free'), 123456);
      assert.equal(await v('snap-oom-allocated'), 3724288);
      assert.equal(await v('snap-oom-reserved'), 6291456);
      // The fragmentation then, as the CLI's --json gives it (the segments replayed: 4,542,464
      // cached but free, the largest free block 2,097,152; 3 blocks alive holding 1,748,992).
      const cliOom = runCliJson(['snapshot', '--json', renamed]).devices[0].ooms[0];
      assert.equal(await v('snap-oom-inactive'), cliOom.inactive_bytes);
      assert.equal(await v('snap-oom-largest'), cliOom.largest_inactive_bytes);
      assert.equal(await v('snap-oom-alive-blocks'), cliOom.alive_block_bytes);
      assert.deepEqual([cliOom.inactive_bytes, cliOom.largest_inactive_bytes, cliOom.alive_block_bytes], [4542464, 2097152, 1748992]);
      assert.match(await page.textContent(`${oom} [data-testid=snap-oom-frag]`), /smaller than the request, so it needed a new segment\); 3 blocks alive holding/);
      // The allocator settings and the annotation the hand-made snapshot holds, as the CLI reads them.
      const cli = runCliJson(['snapshot', '--json', renamed]);
      const settings = await page.$$eval(`${card(hm)} [data-testid=snapshot-setting]`, (rows) => rows.map((r) => [r.getAttribute('data-key'), r.getAttribute('data-value')]));
      assert.deepEqual(settings, Object.entries(cli.allocator_settings));
      assert.deepEqual(settings.find(([k]) => k === 'expandable_segments'), ['expandable_segments', 'False']);
      assert.match(await page.textContent(`${card(hm)} [data-testid=snapshot-settings] summary`), /Allocator settings \(5\) · 1 external annotation/);
      assert.equal(await page.locator(`${card(hm)} [data-testid=snapshot-annotation]`).count(), cli.external_annotations.length);
      assert.equal((await page.textContent(`${oom} [data-testid=snap-oom-site]`)).trim(), 'model.py:7:forward');
      assert.equal((await page.textContent(`${oom} [data-testid=snap-oom-stack]`)).trim(), 'at::empty (aten/src/ATen/Empty.cpp:42)\nforward (model.py:7)\ntrain_step (train.py:20)');
    });
  });

  it('draws the timeline: a hovered band reads its allocation, a click pins it, zoom narrows the window', T, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await dropFiles(page, [handMade]);
      const name = path.basename(handMade);
      assert.equal(await settled(page, name), 'done');
      const cv = `${card(name)} [data-testid=snapshot-timeline-canvas][data-ready=true]`;
      await page.waitForSelector(cv);
      const win = `${card(name)} [data-testid=snapshot-window]`;
      assert.equal(await page.getAttribute(win, 'data-from'), '0');
      assert.equal(await page.getAttribute(win, 'data-to'), '13'); // 12 entries: positions 0 to 12
      await page.locator(cv).scrollIntoViewIfNeeded();
      const box = await page.locator(cv).boundingBox();
      // Position 5 (after entry 4, the peak) spans x in [5/13, 6/13) of the width. At 3,000,000
      // bytes lies the 2,000,000-byte allocation of entry 4 (on 500,000 + 1,000,000 + 524,288); the
      // y-axis goes to the reserved 6,291,456.
      const scale = (PLOT_H - 8) / 6291456;
      const x = box.x + (5.5 / 13) * box.width;
      const y = box.y + PLOT_H - 3000000 * scale;
      await page.mouse.move(x, y);
      const hover = `${card(name)} [data-testid=snapshot-hover]`;
      await page.waitForSelector(`${hover}[data-state=hover]`);
      assert.equal(await page.getAttribute(hover, 'data-size'), '2000000');
      assert.equal(await page.getAttribute(hover, 'data-address'), '0x500000');
      assert.match(await page.textContent(`${hover} [data-testid=snapshot-hover-life]`), /^Allocated at entry 4 \(1\.004 ms\); alive at the dump$/);
      assert.equal((await page.textContent(`${hover} [data-testid=snapshot-hover-site]`)).trim(), 'model.py:7:forward');
      assert.match(await page.textContent(`${hover} [data-testid=snapshot-hover-stack]`), /forward \(model\.py:7\)/);
      // Lower, at 1,000,000 bytes: the 1,000,000-byte allocation of entry 1, freed by entry 6.
      await page.mouse.move(x, box.y + PLOT_H - 1000000 * scale);
      await page.waitForSelector(`${hover}[data-size="1000000"]`);
      assert.match(await page.textContent(`${hover} [data-testid=snapshot-hover-life]`), /^Allocated at entry 1 \(1\.001 ms\); freed at entry 6 \(1\.006 ms\); alive 5 µs$/);
      // A click pins it: moving away keeps it shown.
      await page.mouse.click(x, box.y + PLOT_H - 1000000 * scale);
      await page.waitForSelector(`${hover}[data-state=pinned][data-size="1000000"]`);
      await page.mouse.move(box.x + 3, box.y + 3);
      assert.equal(await page.getAttribute(hover, 'data-state'), 'pinned');
      // Zoom: the window narrows to half around its middle, the core draws it again.
      await page.click(`${card(name)} [data-testid=snapshot-zoom-in]`);
      await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('data-to') !== '13', win);
      const from = Number(await page.getAttribute(win, 'data-from'));
      const to = Number(await page.getAttribute(win, 'data-to'));
      assert.equal(to - from, 6.5, 'half the window');
      assert.equal(from, 3.25, 'around its middle');
      // The keys: − back to the whole history's width, 0 the whole history.
      await page.focus(cv);
      await page.keyboard.press('-');
      await page.waitForSelector(`${win}[data-from="0"][data-to="13"]`);
      // By time: the axis of time_us, 1,000 to 1,011 µs.
      await page.selectOption(`${card(name)} [data-testid=snapshot-axis]`, 'time');
      await page.waitForSelector(`${win}[data-axis=time][data-from="1000"][data-to="1011"]`);
      await page.click(`${card(name)} [data-testid=snapshot-zoom-in]`);
      await page.waitForSelector(`${win}[data-axis=time][data-from="1002.75"][data-to="1008.25"]`);
    });
  });

  it('opens a gzipped snapshot by ?url= from another origin, told by content', T, async () => {
    const { browser, server } = await site;
    const body = zlib.gzipSync(fs.readFileSync(gpt));
    const srv = http.createServer((req, res) => {
      if (new URL(req.url, 'http://x').pathname !== '/gpt-memory.pickle.gz') return res.writeHead(404).end();
      res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Length': body.length, 'Cache-Control': 'no-store' });
      res.end(body);
    });
    await new Promise((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${srv.address().port}/gpt-memory.pickle.gz`;
      await withCheckedPage(browser, `${server.url}?url=${encodeURIComponent(url)}`, async (page) => {
        assert.equal(await settled(page, 'gpt-memory.pickle.gz'), 'done');
        await page.waitForSelector(`${card('gpt-memory.pickle.gz')} [data-testid=snapshot-view]`);
        expectSameAsCli(await readDevices(page, 'gpt-memory.pickle.gz'), gpt);
      });
    } finally {
      await new Promise((r) => srv.close(r));
    }
  });

  it("every hostile pickle gets the reader's sentence (as the CLI's); a cut-off one loads what it could and says what was lost", T, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      const files = fs.readdirSync(hostileDir).filter((f) => f.endsWith('.pickle')).sort();
      assert.ok(files.length >= 30, 'the hostile corpus');
      await dropFiles(page, files.map((f) => path.join(hostileDir, f)));
      for (const f of files) {
        const want = hostileExpected[f];
        assert.ok(want, `${f} in expected.json`);
        // The navigator shows only the rows in view: find the file by name, then pick it.
        await page.fill('[data-testid=nav-search]', f);
        assert.equal(await settled(page, f), want.ok ? 'done' : 'failed', `${f}: ${want.ok ? 'loads' : 'fails'}`);
        if (!want.ok) assert.equal((await page.textContent(`${card(f)} [data-testid=file-error]`)).trim(), want.error, `${f}: the sentence`);
        else await page.waitForSelector(`${card(f)} [data-testid=snapshot-view]`);
      }
      const cut = path.join(hostileDir, 'truncated-mid-entry.pickle');
      const c = path.basename(cut);
      await page.fill('[data-testid=nav-search]', c);
      assert.equal(await settled(page, c), 'done');
      await page.waitForSelector(`${card(c)} [data-testid=snapshot-health]`);
      const cli = runCliJson(['snapshot', '--json', cut]);
      assert.match(await page.textContent(`${card(c)} [data-testid=snapshot-health]`), new RegExp(cli.error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.equal(await page.getAttribute(`${card(c)} [data-testid=snap-trace_entries]`, 'data-value'), String(cli.devices[0].trace_entries));
    });
  });
});
