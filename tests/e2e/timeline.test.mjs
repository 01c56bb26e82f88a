// Browser tests of the Timeline view against a stand-in Perfetto UI (fake-perfetto/index.html)
// served on another port, i.e. another origin, as ui.perfetto.dev is. It answers PING with PONG
// and records what it receives; the tests read that through its frame. Checked: nothing reaches
// "Perfetto" before the Timeline tab is clicked; the buffer is the dropped file byte for byte; a
// step sent alone holds exactly the events overlapping it plus every metadata event, followed by
// the zoom message; the no-answer message and its fallbacks; a bad perfetto= parameter.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { card, cli, fakeFrame, launch, pickFiles, readTraceText, received, runCliJson, sampleTrace, serveDist, serveFakePerfetto, settled, withCheckedPage } from './helpers.mjs';

const NAME = path.basename(sampleTrace);
const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

let server;
let fake;
let silentFake;
let browser;

before(async () => {
  assert.ok(fs.existsSync(cli), `${cli} is missing: run scripts/build`);
  server = await serveDist();
  fake = await serveFakePerfetto();
  silentFake = await serveFakePerfetto({ silent: true });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await fake?.close();
  await silentFake?.close();
});

const appUrl = (perfetto) => `${server.url}?perfetto=${encodeURIComponent(perfetto)}`;

async function openSample(page) {
  await pickFiles(page, [sampleTrace]);
  assert.equal(await settled(page, NAME), 'done');
  await page.waitForSelector(`${card(NAME)} [data-testid=tab-timeline]`);
}

describe('Timeline view (stand-in Perfetto UI)', () => {
  it('contacts Perfetto only after the Timeline tab is clicked, then sends the file byte for byte', async () => {
    await withCheckedPage(browser, appUrl(fake.origin), async (page) => {
      fake.requests.length = 0;
      await openSample(page);
      // Overview, Operators and Kernels opened: still nothing sent, no frame made.
      for (const t of ['operators', 'kernels', 'overview']) await page.click(`${card(NAME)} [data-testid=tab-${t}]`);
      await page.waitForTimeout(300);
      assert.deepEqual(fake.requests, [], 'no request reached Perfetto before the Timeline tab was clicked');
      assert.equal(await page.$('[data-testid=timeline-frame]'), null);

      await page.click(`${card(NAME)} [data-testid=tab-timeline]`);
      const privacy = await page.textContent(`${card(NAME)} [data-testid=timeline-privacy]`);
      assert.equal(privacy, `The trace is sent to the Perfetto UI page loaded from ${fake.origin} inside this tab; it stays in your browser.`);
      const [msg] = await received(page, fake.origin, 1);
      assert.ok(fake.requests.length > 0, 'the frame was loaded from the stand-in');
      assert.equal(msg.kind, 'trace');
      assert.equal(msg.from, 'parent');
      assert.equal(msg.origin, new URL(server.url).origin);
      assert.equal(msg.keepApiOpen, true);
      assert.equal(msg.fileName, NAME);
      assert.equal(msg.title, NAME);
      const file = fs.readFileSync(sampleTrace);
      assert.equal(msg.byteLength, file.length);
      assert.equal(msg.sha256, sha256(file), 'the buffer is the dropped file (gzip included)');
      assert.ok((await fakeFrame(page, fake.origin).evaluate(() => window.pings)) >= 1);
      await page.waitForSelector(`${card(NAME)} [data-testid=timeline-sent]`);
      // The whole file has no window to zoom to.
      await page.waitForTimeout(200);
      assert.equal((await received(page, fake.origin, 1)).length, 1);
    });
  });

  it('"Show in timeline" on a step sends only that step (every metadata event kept) and zooms to it', async () => {
    const steps = runCliJson(['steps', '--json', sampleTrace]).steps;
    assert.ok(steps.length >= 2);
    const k = 1;
    const { start_us: start, end_us: end } = steps[k];
    await withCheckedPage(browser, appUrl(fake.origin), async (page) => {
      await openSample(page);
      await page.selectOption(`${card(NAME)} [data-testid=step-select]`, String(k));
      // The button names the chosen step (rendered after the selection: wait for it, with a limit).
      await page.waitForFunction(
        ([sel, text]) => document.querySelector(sel)?.textContent === text,
        [`${card(NAME)} [data-testid=step-show-in-timeline]`, `Show step ${steps[k].name} in timeline`],
        { timeout: 5000 },
      );
      await page.click(`${card(NAME)} [data-testid=step-show-in-timeline]`);
      await page.waitForSelector(`${card(NAME)} [data-testid=tab-timeline][aria-selected=true]`, { timeout: 5000 });
      const got = await received(page, fake.origin, 2);
      assert.deepEqual(got.map((m) => m.kind), ['trace', 'scroll']);
      const [trace, scroll] = got;
      assert.equal(trace.fileName, 'rank-0.step-' + steps[k].name + '.json');
      assert.ok(trace.title.startsWith(NAME));
      // The jump: Perfetto's scroll-to-range message, in seconds of trace time.
      assert.equal(scroll.timeStart, start / 1e6);
      assert.equal(scroll.timeEnd, end / 1e6);
      assert.ok(scroll.viewPercentage > 0 && scroll.viewPercentage <= 1);

      const out = JSON.parse(trace.text);
      const doc = JSON.parse(readTraceText(sampleTrace));
      const key = (e) => JSON.stringify(e, Object.keys(e).sort());
      const count = (evs) => evs.reduce((m, e) => m.set(key(e), (m.get(key(e)) ?? 0) + 1), new Map());
      const outCount = count(out.traceEvents);
      // Every metadata event of the file, and every event strictly inside or across the step.
      const meta = doc.traceEvents.filter((e) => e.ph === 'M');
      assert.ok(meta.length > 0);
      const overlapping = doc.traceEvents.filter((e) => e.ph !== 'M' && e.ts < end && e.ts + (e.dur ?? 0) > start);
      for (const [kk, n] of count([...meta, ...overlapping])) assert.ok((outCount.get(kk) ?? 0) >= n, `missing from the window: ${kk}`);
      // Nothing else: every non-metadata event kept touches the step.
      for (const e of out.traceEvents) {
        if (e.ph === 'M') continue;
        assert.ok(e.ts <= end && e.ts + (e.dur ?? 0) >= start, `outside the step: ${key(e)}`);
      }
      assert.ok(out.traceEvents.length < doc.traceEvents.length, 'the window is smaller than the file');
      const sent = await page.textContent(`${card(NAME)} [data-testid=timeline-sent]`);
      // The trim report (the trim view's answer): the events kept, of every event the file holds.
      assert.match(sent, new RegExp(`Sent step ${steps[k].name} \\(.*${out.traceEvents.length.toLocaleString('en-US')} of ${doc.traceEvents.length.toLocaleString('en-US')} events`));

      // From the Operators view, the same step again.
      await page.click(`${card(NAME)} [data-testid=tab-operators]`);
      await page.click(`${card(NAME)} [data-testid=panel-operators] [data-testid=show-in-timeline]`);
      const again = await received(page, fake.origin, 4);
      assert.deepEqual(again.slice(2).map((m) => m.kind), ['trace', 'scroll']);
      assert.equal(again[2].sha256, trace.sha256, 'the same step cut twice gives the same bytes');
    });
  });

  it('a time window in ms from the trace start', async () => {
    const summary = runCliJson(['summary', '--json', sampleTrace]);
    await withCheckedPage(browser, appUrl(fake.origin), async (page) => {
      await openSample(page);
      await page.click(`${card(NAME)} [data-testid=tab-timeline]`);
      await received(page, fake.origin, 1);
      await page.fill(`${card(NAME)} [data-testid=timeline-from]`, '1000');
      await page.fill(`${card(NAME)} [data-testid=timeline-to]`, '1200');
      await page.click(`${card(NAME)} [data-testid=timeline-send]`);
      const got = await received(page, fake.origin, 3);
      assert.deepEqual(got.map((m) => m.kind), ['trace', 'trace', 'scroll']);
      const start = summary.start_us + 1_000_000;
      const end = summary.start_us + 1_200_000;
      assert.equal(got[2].timeStart, start / 1e6);
      assert.equal(got[2].timeEnd, end / 1e6);
      const out = JSON.parse(got[1].text);
      assert.ok(out.traceEvents.some((e) => e.ph !== 'M'));
      for (const e of out.traceEvents) if (e.ph !== 'M') assert.ok(e.ts <= end && e.ts + (e.dur ?? 0) >= start);
    });
  });

  it('says so when Perfetto does not answer, with "Open in new tab" and "Download trace"', async () => {
    await withCheckedPage(browser, appUrl(silentFake.origin), async (page) => {
      await openSample(page);
      await page.click(`${card(NAME)} [data-testid=tab-timeline]`);
      await page.waitForSelector(`${card(NAME)} [data-testid=timeline-connecting]`);
      const t0 = Date.now();
      const msg = await page.waitForSelector(`${card(NAME)} [data-testid=timeline-no-answer]`, { timeout: 25_000 });
      assert.ok(Date.now() - t0 > 10_000, 'waited about 15 s before giving up');
      assert.match(await msg.textContent(), new RegExp(`did not answer within 15 s`));
      assert.ok((await fakeFrame(page, silentFake.origin).evaluate(() => window.pings)) > 10, 'kept pinging');
      assert.ok(await page.isVisible(`${card(NAME)} [data-testid=timeline-open-tab]`));
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${card(NAME)} [data-testid=timeline-download]`)]);
      assert.equal(download.suggestedFilename(), NAME);
      assert.equal(sha256(fs.readFileSync(await download.path())), sha256(fs.readFileSync(sampleTrace)));
    });
  });

  it('"Open in new tab" speaks the same protocol to the opened window', async () => {
    await withCheckedPage(browser, appUrl(fake.origin), async (page) => {
      await openSample(page);
      await page.click(`${card(NAME)} [data-testid=tab-timeline]`);
      await received(page, fake.origin, 1);
      const [tab] = await Promise.all([page.context().waitForEvent('page'), page.click(`${card(NAME)} [data-testid=timeline-open-tab]`)]);
      await tab.waitForFunction(() => window.received?.length >= 1 && window.received[0].sha256, null, { timeout: 30_000 });
      const got = await tab.evaluate(() => window.received);
      assert.equal(got[0].from, 'opener');
      assert.equal(got[0].sha256, sha256(fs.readFileSync(sampleTrace)));
      assert.ok(tab.url().startsWith(fake.origin + '/#!/'));
      await tab.close();
    });
  });

  it('a Perfetto UI served under a path (a GitHub Pages project site) is loaded from that path and gets the trace', async () => {
    const base = `${fake.origin}/org/perfetto/`;
    await withCheckedPage(browser, appUrl(base.slice(0, -1)), async (page) => {
      fake.requests.length = 0;
      await openSample(page);
      await page.click(`${card(NAME)} [data-testid=tab-timeline]`);
      const [msg] = await received(page, fake.origin, 1);
      assert.equal(msg.kind, 'trace');
      assert.equal(msg.sha256, sha256(fs.readFileSync(sampleTrace)));
      assert.equal(await page.getAttribute(`${card(NAME)} [data-testid=timeline-frame]`, 'src'), `${base}#!/?mode=embedded`);
      assert.ok(fake.requests.some((r) => r.startsWith('/org/perfetto/')), `requests: ${fake.requests}`);
      // Once it answered, the frame is shown.
      await page.waitForSelector(`${card(NAME)} [data-testid=timeline-frame][data-state=ready]`, { state: 'visible' });
      // The page's policy names that folder.
      const csp = await page.$eval('meta[http-equiv=Content-Security-Policy]', (m) => m.content);
      assert.match(csp, new RegExp(`frame-src ${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(;|$)`));
    });
  });

  it('in dark mode the frame stays out of sight until the UI answers (no light box or broken-page icon)', async () => {
    const context = await browser.newContext({ colorScheme: 'dark' });
    try {
      const page = await context.newPage();
      await page.goto(appUrl(silentFake.origin));
      await openSample(page);
      await page.click(`${card(NAME)} [data-testid=tab-timeline]`);
      await page.waitForSelector(`${card(NAME)} [data-testid=timeline-connecting]`);
      const frame = `${card(NAME)} [data-testid=timeline-frame]`;
      assert.equal(await page.$eval(frame, (f) => getComputedStyle(f).visibility), 'hidden', 'not shown while connecting');
      await page.waitForSelector(`${card(NAME)} [data-testid=timeline-no-answer]`, { timeout: 25_000 });
      assert.equal(await page.isVisible(frame), false, 'not shown when it did not answer');
    } finally {
      await context.close();
    }
  });

  for (const bad of ['javascript:alert(1)', 'ftp://127.0.0.1', 'https://perfetto.example/a;script-src/', 'not a url']) {
    it(`a bad perfetto= value (${bad}) is an error and loads nothing`, async () => {
      await withCheckedPage(browser, appUrl(bad), async (page) => {
        await openSample(page);
        await page.click(`${card(NAME)} [data-testid=tab-timeline]`);
        const err = await page.textContent(`${card(NAME)} [data-testid=perfetto-origin-error]`);
        assert.match(err, /^The perfetto= parameter: /);
        assert.equal(await page.$('[data-testid=timeline-frame]'), null);
      });
    });
  }
});
