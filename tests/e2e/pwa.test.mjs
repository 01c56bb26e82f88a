// The installable, offline site (vite-plugin-pwa / Workbox): the manifest and its file handlers,
// the precache (app, workers, wasm, sample), working offline after the first visit, under any
// sub-path, and the "Update available" prompt instead of a silent swap.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, dist, launch, openPage, sampleTrace, serveDist, settled, withCheckedPage, openSite } from './helpers.mjs';

const { server, browser } = await openSite();

const T = { timeout: 180_000 };

/** Waits until a service worker is active, then reloads so that it controls the page. */
async function controlled(page) {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) {
    await page.reload();
    await page.waitForSelector('[data-testid=drop-zone]');
  }
  await page.waitForFunction(() => !!navigator.serviceWorker.controller);
}

/**
 * Waits until every trace worker of the page has readied itself on the sample (data-pool-warm of
 * data-pool-size): offline, it reads the sample from the service worker's cache. A page left
 * before that aborts the warm-up's request (net::ERR_ABORTED), which is not an offline failure.
 */
const warmWorkers = (page) =>
  page.waitForFunction(() => {
    const el = document.querySelector('[data-pool-warm]');
    return !!el && Number(el.dataset.poolWarm) > 0 && el.dataset.poolWarm === el.dataset.poolSize;
  });

/** Every URL in the page's Cache Storage. */
const cachedUrls = (page) =>
  page.evaluate(async () => {
    const out = [];
    for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) out.push(req.url);
    return out;
  });

async function openSampleEverywhere(page) {
  await page.click('[data-testid=open-sample]');
  assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
  const c = card('rank-0.json.gz');
  const tabs = await page.$$eval(`${c} [role=tab]`, (els) => els.map((e) => e.getAttribute('data-testid')));
  for (const t of tabs) {
    if (t === 'tab-timeline') continue; // Perfetto is another origin: not part of the offline app
    await page.click(`${c} [data-testid=${t}]`);
    await page.waitForSelector(`${c} [data-testid=panel-${t.slice(4)}]:not([hidden])`);
  }
  await page.click(`${c} [data-testid=tab-operators]`);
  await page.waitForSelector(`${c} [data-testid=op-row]`);
}

describe('web app manifest', () => {
  it('is linked, served, lists icons and file handlers for .json and .json.gz, and Chromium parses it cleanly', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const href = await page.$eval('link[rel=manifest]', (l) => l.href);
      assert.equal(href, `${server.url}manifest.webmanifest`);
      const res = await page.request.get(href);
      assert.equal(res.status(), 200);
      const m = await res.json();
      assert.equal(m.short_name, 'Kinetoscope');
      assert.equal(m.display, 'standalone');
      // Relative, so that the site works from whatever sub-path it is hosted under.
      assert.equal(m.start_url, './');
      assert.equal(m.scope, './');
      assert.ok(m.theme_color && m.background_color);
      const sizes = m.icons.map((i) => i.sizes);
      assert.ok(sizes.includes('192x192') && sizes.includes('512x512'));
      assert.ok(m.icons.some((i) => i.purpose === 'maskable'));
      for (const icon of m.icons) assert.equal((await page.request.get(new URL(icon.src, href).href)).status(), 200, icon.src);
      assert.equal(m.file_handlers.length, 1);
      const accept = m.file_handlers[0].accept;
      assert.deepEqual(accept['application/json'], ['.json']);
      assert.ok(accept['application/gzip'].includes('.gz') && accept['application/gzip'].includes('.json.gz'));

      // What Chromium itself made of it: no parse errors, scoped to the sub-path, installable
      // (a test context is incognito, which is the one reason it gives not to install). This
      // headless build does not report file handlers back, so their check is the JSON above.
      const cdp = await page.context().newCDPSession(page);
      const got = await cdp.send('Page.getAppManifest');
      assert.deepEqual(got.errors, [], 'manifest errors reported by Chromium');
      assert.equal(got.manifest.scope, server.url);
      assert.equal(got.manifest.startUrl, server.url);
      const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
      assert.deepEqual(installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito'), [], 'reasons not to install');
    });
  });
});

describe('file handlers', () => {
  it('files the OS opens with the installed app (launchQueue) load like a drop', T, async () => {
    const context = await browser.newContext();
    try {
      const bytes = [...fs.readFileSync(sampleTrace)];
      // Stands in for Chromium's File Handling API: one launch with the sample, queued before
      // the app sets its consumer, as the browser does.
      await context.addInitScript((bytes) => {
        const launch = { files: [{ kind: 'file', name: 'launched.json.gz', getFile: async () => new File([new Uint8Array(bytes)], 'launched.json.gz') }] };
        // Chromium has a read-only window.launchQueue of its own: shadow it.
        Object.defineProperty(window, 'launchQueue', { configurable: true, value: { setConsumer: (fn) => fn(launch) } });
      }, bytes);
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.url);
      assert.equal(await settled(page, 'launched.json.gz'), 'done');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

describe('offline', () => {
  it('precaches the app, both workers, the wasm and the sample', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await controlled(page);
      const urls = await cachedUrls(page);
      const has = (re, what) => assert.ok(urls.some((u) => re.test(u)), `${what} precached: ${urls.join(' ')}`);
      has(/\/kinetoscope\/index\.html/, 'index.html');
      has(/\/assets\/index-[^/]+\.js/, 'the app bundle');
      has(/\/assets\/index-[^/]+\.css/, 'the stylesheet');
      has(/\/assets\/worker-[^/]+\.js/, 'the trace worker');
      has(/\/assets\/reader-[^/]+\.js/, 'the reader worker');
      has(/\.wasm(\?|$)/, 'the wasm');
      has(/\/samples\/rank-0\.json\.gz/, 'the sample');
      // Everything built into assets/ is there (no file skipped for its size).
      for (const f of fs.readdirSync(path.join(dist, 'assets'))) has(new RegExp(`/assets/${f.replace(/[.]/g, '\\.')}`), f);
    });
  });

  it('after the first visit, the app and "Open sample" work with the network off', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await controlled(page);
      await warmWorkers(page); // before the reload below leaves this page
      const context = page.context();
      const failed = [];
      page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
      await context.setOffline(true);
      try {
        assert.equal(await page.evaluate(() => navigator.onLine), false);
        await page.reload();
        await page.waitForSelector('[data-testid=drop-zone]');
        assert.ok(await page.evaluate(() => !!navigator.serviceWorker.controller), 'served by the service worker');
        await warmWorkers(page);
        // A link with parameters is a navigation the cache answers too.
        await page.goto(`${server.url}?perfetto=${encodeURIComponent('https://perfetto.example.com')}`);
        await page.waitForSelector('[data-testid=drop-zone]');
        await warmWorkers(page);
        await openSampleEverywhere(page);
      } finally {
        await context.setOffline(false);
      }
      assert.deepEqual(failed, [], 'requests that failed offline');
    });
  });
});

describe('sub-path hosting', () => {
  it('a deeper sub-path works, and the service worker is scoped to it', T, async () => {
    const deep = await serveDist('/org/team/tools/kinetoscope/');
    try {
      await withCheckedPage(browser, deep.url, async (page) => {
        await controlled(page);
        const reg = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).scope);
        assert.equal(reg, deep.url);
        await openSampleEverywhere(page);
      });
    } finally {
      await deep.close();
    }
  });
});

/** web/dist under /kinetoscope/, with a build stamp appended to sw.js that the test can change. */
async function serveVersioned() {
  const state = { version: 1 };
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png', '.gz': 'application/gzip', '.webmanifest': 'application/manifest+json' };
  const srv = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname.replace(/^\/kinetoscope\//, '')) || 'index.html';
    const file = path.resolve(dist, rel);
    if (!file.startsWith(dist + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return res.writeHead(404).end();
    let body = fs.readFileSync(file);
    if (rel === 'sw.js') body = Buffer.concat([body, Buffer.from(`\n// build ${state.version}\n`)]);
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
    res.end(body);
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${srv.address().port}/kinetoscope/`, state, close: () => new Promise((r) => srv.close(r)) };
}

describe('updates', () => {
  it('a new version waits for "Reload" in the page; loaded traces stay until then', T, async () => {
    const site = await serveVersioned();
    const { page, context, errors } = await openPage(browser, site.url);
    try {
      await controlled(page);
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      const first = await page.evaluate(() => navigator.serviceWorker.controller.scriptURL);

      site.state.version = 2;
      await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
      await page.waitForSelector('[data-testid=update-prompt]', { timeout: 60_000 });
      assert.match(await page.textContent('[data-testid=update-prompt]'), /Update available/);
      // No silent swap: the old worker still controls, a new one waits, the trace is still there.
      assert.ok(await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => !!r.waiting)));
      assert.equal(await page.evaluate(() => navigator.serviceWorker.controller.scriptURL), first);
      assert.ok(await page.$(card('rank-0.json.gz')));

      await Promise.all([page.waitForEvent('load'), page.click('[data-testid=update-reload]')]);
      await page.waitForSelector('[data-testid=drop-zone]');
      assert.equal(await page.$('[data-testid=update-prompt]'), null);
      assert.ok(await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => !r.waiting && !!r.active)));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await site.close();
    }
  });
});
