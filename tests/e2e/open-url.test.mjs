// Opening a trace from a URL: `?url=` in the link and the "paste a URL" field. A second local
// server on another port (another origin, as a bucket is) serves the traces: the sample with
// Access-Control-Allow-Origin, the same trace gunzipped without Content-Length, the gzip bytes under
// a .json name, the sample without the CORS header, a 404, a redirect to an origin the page's
// CSP does not allow, a download that breaks off and one that stalls. Checked: a URL-loaded card
// shows what a dropped file's card shows; the paste field navigates with ?url= (or opens a same-
// origin URL at once); each failure says why in one sentence; a broken download keeps what came;
// Cancel ends a download; the Timeline gets the downloaded bytes unchanged; and no request goes
// anywhere but the site and the trace server.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import {
  card,
  dropFiles,
  navRows,
  expectedFor,
  openPage,
  openSite,
  readCard,
  received,
  sampleTrace,
  serveFakePerfetto,
  settled,
  withCheckedPage,
} from './helpers.mjs';

const { server, browser, tmp } = await openSite({ tmp: true });

const NAME = path.basename(sampleTrace);
const gz = fs.readFileSync(sampleTrace);
const plain = zlib.gunzipSync(gz);
const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
const T = { timeout: 120_000 };

/** The trace server. Records each request as host + path; `stalled` counts the stalled responses. */
async function serveTraces() {
  const requests = [];
  const stalled = { open: 0, closed: 0 };
  const breakers = [];
  const cors = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' };
  const srv = http.createServer((req, res) => {
    requests.push(`${req.headers.host}${req.url}`);
    const route = new URL(req.url, 'http://x').pathname;
    switch (route) {
      case '/cors/rank-0.json.gz':
        res.writeHead(200, { ...cors, 'Content-Type': 'application/gzip', 'Content-Length': gz.length }).end(gz);
        return;
      case '/cors/rank-0.json': // no Content-Length: sent chunked, in pieces
        res.writeHead(200, { ...cors, 'Content-Type': 'application/json' });
        for (let off = 0; off < plain.length; off += 256 << 10) res.write(plain.subarray(off, off + (256 << 10)));
        res.end();
        return;
      case '/cors/renamed.json': // gzip bytes under a plain name: told by content
        res.writeHead(200, { ...cors, 'Content-Type': 'application/json', 'Content-Length': gz.length }).end(gz);
        return;
      case '/nocors/rank-0.json.gz':
        res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': gz.length, 'Cache-Control': 'no-store' }).end(gz);
        return;
      case '/cors/redirect.json.gz': // to "localhost": the same server, another origin
        res.writeHead(302, { ...cors, Location: `http://localhost:${srv.address().port}/cors/rank-0.json.gz` }).end();
        return;
      case '/cors/broken.json':
      case '/cors/broken-at-0.json': {
        // Promises the whole trace, sends 60% of it (or nothing), then drops the connection when
        // the test says so: once the page shows it has those bytes, whatever the machine's speed.
        res.writeHead(200, { ...cors, 'Content-Type': 'application/json', 'Content-Length': plain.length });
        if (route === '/cors/broken.json') res.write(plain.subarray(0, Math.floor(plain.length * 0.6)));
        else res.flushHeaders();
        breakers.push(() => res.destroy());
        return;
      }
      case '/cors/stalled.json': {
        // 1 MiB, then nothing until the client goes away.
        stalled.open++;
        res.writeHead(200, { ...cors, 'Content-Type': 'application/json' });
        res.write(plain.subarray(0, 1 << 20));
        res.on('close', () => stalled.closed++);
        return;
      }
      default:
        res.writeHead(404, { ...cors, 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${srv.address().port}`;
  return {
    origin,
    requests,
    stalled,
    /** Drops the connections of the broken downloads answered so far. */
    breakNow: () => breakers.splice(0).forEach((b) => b()),
    close: () => {
      srv.closeAllConnections();
      return new Promise((r) => srv.close(r));
    },
  };
}

let traces;
let fake;
before(async () => {
  traces = await serveTraces();
  fake = await serveFakePerfetto();
});
after(async () => {
  await traces?.close();
  await fake?.close();
});

/** The site's link opening `urls` (each a path on the trace server, or a full URL) as url=. */
const linkTo = (urls, extra = '') =>
  `${server.url}?${urls.map((u) => `url=${encodeURIComponent(u.startsWith('/') ? traces.origin + u : u)}`).join('&')}${extra}`;

/** Records every request of the page's context (page, workers, service worker). */
async function recordRequests(page) {
  const seen = [];
  const context = page.context();
  context.on('request', (r) => seen.push(r.url()));
  await context.route('**/*', (route) => {
    seen.push(route.request().url());
    return route.continue();
  });
  return seen;
}

const fileError = (page, name) => page.textContent(`${card(name)} [data-testid=file-error]`);

describe('open a trace from a URL', () => {
  it('?url= (several) loads each as if dropped: same summary as the dropped file, only the site and the trace server asked', T, async () => {
    // What the dropped sample's card shows.
    let dropped;
    await withCheckedPage(browser, server.url, async (page) => {
      await dropFiles(page, [sampleTrace]);
      assert.equal(await settled(page, NAME), 'done');
      dropped = await readCard(page, NAME);
    });
    const expected = expectedFor(sampleTrace);
    assert.equal(dropped.events, expected.events);

    await withCheckedPage(browser, server.url, async (page) => {
      const seen = await recordRequests(page);
      await page.goto(linkTo(['/cors/rank-0.json.gz', '/cors/rank-0.json', '/cors/renamed.json']));
      // In link order, one at a time: the first is loading or done before the others start.
      for (const name of [NAME, 'rank-0.json', 'renamed.json']) {
        assert.equal(await settled(page, name), 'done', name);
        assert.deepEqual(await readCard(page, name), dropped, `${name}: the card shows what the dropped file's does`);
      }
      // Filed in the navigator as opened files: all three are rank 0, so by name.
      assert.deepEqual((await navRows(page)).map((r) => (r.kind === 'trace' ? r.file : r.kind)), ['run', 'rank-0.json', NAME, 'renamed.json']);
      await settled(page, NAME);
      assert.equal(await page.textContent(`${card(NAME)} [data-testid=file-url]`), `From ${traces.origin}/cors/rank-0.json.gz`);
      // Sizes as downloaded: the gzip as received, the plain one (no Content-Length) once complete.
      const size = async (name) => {
        await settled(page, name);
        return page.textContent(`${card(name)} [data-testid=file-size]`);
      };
      assert.equal(await size(NAME), '121 KiB');
      assert.equal(await size('rank-0.json'), '1.68 MiB');
      assert.equal(await page.$('[data-testid=notice]'), null);

      const site = new URL(server.url).origin;
      const away = seen.filter((u) => !u.startsWith('data:') && !u.startsWith('blob:') && ![site, traces.origin].includes(new URL(u).origin));
      assert.deepEqual(away, [], 'requests to neither the site nor the trace server');
      for (const p of ['/cors/rank-0.json.gz', '/cors/rank-0.json', '/cors/renamed.json']) {
        assert.ok(seen.includes(traces.origin + p), `${p} was fetched`);
      }
    });
  });

  it('the paste field: a bad value says why; a same-origin URL opens at once; another origin reloads with ?url=', T, async () => {
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}`, async (page) => {
      const start = page.url();
      for (const [bad, message] of [
        ['ftp://127.0.0.1/x.json', 'Only http and https addresses can be opened, not ftp: ones.'],
        ['javascript:alert(1)', 'Only http and https addresses can be opened, not javascript: ones.'],
        ['not a url', '“not a url” is not a URL: a URL has no spaces (write them as %20).'],
        ['', 'Enter the address of a trace (http or https).'],
      ]) {
        await page.fill('[data-testid=url-input]', bad);
        await page.click('[data-testid=url-open]');
        assert.equal(await page.textContent('[data-testid=url-error]'), message);
      }
      assert.equal(page.url(), start);
      assert.equal(await page.$('[data-testid=file-card]'), null, 'nothing opened');

      // The site's own origin (relative to the page): opened here, no reload.
      await page.evaluate(() => (window.__stayed = true));
      await page.fill('[data-testid=url-input]', 'samples/rank-0.json.gz');
      assert.equal(await page.$('[data-testid=url-error]'), null, 'typing clears the message');
      await page.click('[data-testid=url-open]');
      assert.equal(await settled(page, NAME), 'done');
      assert.equal(await page.evaluate(() => window.__stayed), true, 'the page was not reloaded');
      assert.equal(page.url(), start);

      // Another origin with a trace open here: a new tab with the link, this one kept.
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        (async () => {
          await page.fill('[data-testid=url-input]', `${traces.origin}/cors/renamed.json`);
          await page.click('[data-testid=url-open]');
        })(),
      ]);
      await tab.waitForSelector('[data-testid=drop-zone]');
      assert.equal(await settled(tab, 'renamed.json'), 'done');
      assert.equal(await page.evaluate(() => window.__stayed), true);
      await tab.close();
    });

    // Another origin on a page with nothing open: this page loads again with ?url=, replacing
    // the url= it had and keeping perfetto=.
    await withCheckedPage(browser, `${server.url}?perfetto=${encodeURIComponent(fake.origin)}&url=samples%2Frank-0.json.gz`, async (page) => {
      assert.equal(await settled(page, NAME), 'done');
      await page.click(`${card(NAME)} [data-testid=remove-file]`);
      await page.evaluate(() => (window.__stayed = true));
      await page.fill('[data-testid=url-input]', `${traces.origin}/cors/renamed.json`);
      await page.click('[data-testid=url-open]');
      await page.waitForURL((u) => u.searchParams.has('url') && u.searchParams.get('url') !== 'samples/rank-0.json.gz');
      const u = new URL(page.url());
      assert.deepEqual(u.searchParams.getAll('url'), [`${traces.origin}/cors/renamed.json`], 'the old url= replaced');
      assert.equal(u.searchParams.get('perfetto'), fake.origin, 'perfetto= kept');
      assert.equal(await settled(page, 'renamed.json'), 'done');
      assert.equal(await page.evaluate(() => window.__stayed), undefined, 'the page was loaded again');
      assert.equal((await readCard(page, 'renamed.json')).events, expectedFor(sampleTrace).events);
      const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.content);
      assert.match(csp, new RegExp(`connect-src 'self' ${traces.origin};`));
    });
  });

  it('a refused or missing URL says why in one sentence: CORS, HTTP status, CSP', T, async () => {
    // Not withCheckedPage: Chromium logs the CORS refusal, the 404 and the CSP block as console errors.
    const links = ['/nocors/rank-0.json.gz', '/cors/missing.json.gz', '/cors/redirect.json.gz'];
    const { page, context, errors } = await openPage(browser, linkTo(links));
    try {
      for (const name of [NAME, 'missing.json.gz', 'redirect.json.gz']) assert.equal(await settled(page, name), 'failed', name);
      assert.equal(
        await fileError(page, NAME),
        `The trace at ${traces.origin}/nocors/rank-0.json.gz could not be fetched: the server may not allow this site to read it (CORS: it must send Access-Control-Allow-Origin), or it is unreachable.`,
      );
      assert.equal(await fileError(page, 'missing.json.gz'), `The server answered 404 Not Found for ${traces.origin}/cors/missing.json.gz.`);
      assert.equal(
        await fileError(page, 'redirect.json.gz'),
        `The trace at ${traces.origin}/cors/redirect.json.gz could not be fetched: this page may only download from the addresses it was opened with (as ?url=), and the request went elsewhere (the server may have redirected it to another host). Give the final address as ?url= in the link (the "paste a URL" field opens the page that way).`,
      );
      // The redirect was not followed: the CSP stopped it in the browser.
      assert.ok(traces.requests.includes(`${new URL(traces.origin).host}/cors/redirect.json.gz`));
      assert.deepEqual(traces.requests.filter((r) => r.startsWith('localhost')), []);
      // Nothing else went wrong on the page.
      assert.equal(await page.$('[data-testid=app-error]'), null);
      for (const e of errors) assert.match(e, /CORS policy|Content Security Policy|404|Failed to load resource/, `unexpected: ${e}`);
    } finally {
      await context.close();
    }
  });

  it('a download that breaks off keeps the events that came, and the card says so', T, async () => {
    const { page, context, errors } = await openPage(browser, linkTo(['/cors/broken.json']));
    try {
      // The connection drops only once the page shows it has the 60% that was sent.
      const sent = Math.floor(plain.length * 0.6);
      await page.waitForFunction((sent) => Number(document.querySelector('[data-testid=progress] [role=progressbar]')?.dataset.read) >= sent, sent);
      // While the download waits there, the bar is drawn filled to the percentage it states (the
      // fill is scaled by a transform: its drawn box, not its width, is what the user sees).
      const pct = Number(await page.getAttribute('[data-testid=progress] [role=progressbar]', 'aria-valuenow'));
      assert.ok(pct >= 59 && pct <= 61, `aria-valuenow ${pct}`);
      await page.waitForFunction((pct) => {
        const bar = document.querySelector('[data-testid=progress] [role=progressbar]');
        const fill = bar?.querySelector('.bar-fill');
        if (!bar || !fill) return false;
        const drawn = (100 * fill.getBoundingClientRect().width) / bar.getBoundingClientRect().width;
        return Math.abs(drawn - pct) < 1;
      }, pct);
      traces.breakNow();
      assert.equal(await settled(page, 'broken.json'), 'done');
      const shown = await readCard(page, 'broken.json');
      assert.ok(shown.events > 0 && shown.events < expectedFor(sampleTrace).events, `events: ${shown.events}`);
      assert.equal(shown.health['read-error'], 1);
      assert.match(await page.textContent(`${card('broken.json')} [data-testid=file-note]`), /^The download broke off after .+: the events received before that were loaded\.$/);
      assert.ok(await page.$(`${card('broken.json')} [data-testid=truncated]`), 'the summary says the trace is cut off');
      for (const e of errors) assert.match(e, /ERR_CONTENT_LENGTH_MISMATCH|network error|Failed to load|Failed to fetch/i, `unexpected: ${e}`);
    } finally {
      await context.close();
    }
  });

  it('a download that breaks off before any byte says nothing was loaded, without contradicting itself', T, async () => {
    const { page, context, errors } = await openPage(browser, linkTo(['/cors/broken-at-0.json']));
    try {
      // The answer's headers came (the total is known), no byte of the body.
      await page.waitForSelector('[data-testid=progress] [role=progressbar][data-total]');
      traces.breakNow();
      const status = await settled(page, 'broken-at-0.json');
      assert.equal(status, 'failed');
      assert.equal(await page.textContent(`${card('broken-at-0.json')} [data-testid=file-note]`), 'The download broke off before any byte of the trace arrived, so nothing could be loaded.');
      assert.equal(await page.getAttribute(`[data-testid=nav-trace][data-file="broken-at-0.json"]`, 'data-status'), 'failed');
      for (const e of errors) assert.match(e, /ERR_CONTENT_LENGTH_MISMATCH|network error|Failed to load|Failed to fetch/i, `unexpected: ${e}`);
    } finally {
      await context.close();
    }
  });

  it('shows bytes so far for a download of unknown size, and Cancel ends the download', T, async () => {
    const before = { ...traces.stalled };
    await withCheckedPage(browser, linkTo(['/cors/stalled.json', '/cors/rank-0.json.gz']), async (page) => {
      await page.waitForFunction(() => /^1(\.00)? MiB so far$/.test(document.querySelector('[data-testid=progress-bytes]')?.textContent ?? ''), null, { timeout: 20_000 });
      assert.equal(await page.getAttribute('[data-testid=progress] [role=progressbar]', 'aria-valuenow'), null, 'no percentage without a total');
      assert.equal(await page.$('[data-testid=progress-eta]'), null);
      assert.equal(await page.textContent(`${card('stalled.json')} [data-testid=file-size]`).then((t) => t.startsWith('size not known yet')), true);
      assert.equal(traces.stalled.open, before.open + 1);
      await page.click('[data-testid=cancel]');
      assert.equal(await settled(page, 'stalled.json'), 'cancelled');
      // Cancel stops the queue too, as for files.
      assert.equal(await settled(page, NAME), 'cancelled');
      const t0 = Date.now();
      while (traces.stalled.closed <= before.closed && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50));
      assert.equal(traces.stalled.closed, before.closed + 1, 'the server saw the download end');
      assert.equal(await page.$('[data-testid=progress]'), null);
      // One trace worker, so the second URL waits in the queue (with several it would load beside the first).
    }, { cores: 1 });
  });

  it('the Timeline of a URL-loaded trace sends Perfetto the downloaded bytes unchanged', T, async () => {
    for (const [p, name, bytes] of [
      ['/cors/rank-0.json.gz', NAME, gz],
      ['/cors/rank-0.json', 'rank-0.json', plain],
    ]) {
      await withCheckedPage(browser, linkTo([p], `&perfetto=${encodeURIComponent(fake.origin)}`), async (page) => {
        assert.equal(await settled(page, name), 'done');
        await page.click(`${card(name)} [data-testid=tab-timeline]`);
        const [msg] = await received(page, fake.origin, 1);
        assert.equal(msg.kind, 'trace');
        assert.equal(msg.fileName, name);
        assert.equal(msg.byteLength, bytes.length);
        assert.equal(msg.sha256, sha256(bytes), `${name}: the buffer is the file as served`);
        // A step cut out of it (the worker reads the kept File again) works as for a dropped file.
        await page.click(`${card(name)} [data-testid=timeline-mode-step]`);
        await page.click(`${card(name)} [data-testid=timeline-send]`);
        const got = await received(page, fake.origin, 3);
        assert.deepEqual(got.map((m) => m.kind), ['trace', 'trace', 'scroll']);
        const out = JSON.parse(got[1].text);
        assert.ok(out.traceEvents.length > 0 && out.traceEvents.length < expectedFor(sampleTrace).events);
      });
    }
  });
});
