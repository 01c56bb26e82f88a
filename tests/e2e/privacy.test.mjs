// Privacy and safety of the built site (docs/privacy.md): the Content-Security-Policy the page
// computes for itself, no request leaving the site's origin while traces are analyzed, and trace
// strings (op, kernel and file names, call stacks) shown as text, never run as HTML.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { card, dropFiles, handMadeTrace, launch, openPage, serveDist, settled, tmpDir, withCheckedPage } from './helpers.mjs';

let server;
let other; // a second origin: the same files on another port, readable by any origin (CORS)
let browser;
let tmp;

before(async () => {
  server = await serveDist();
  other = await serveDist('/elsewhere/', { cors: true });
  browser = await launch();
  tmp = tmpDir();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await other?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const T = { timeout: 180_000 };
const origin = () => new URL(server.url).origin;

const readPolicy = (page) =>
  page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => {
    const out = {};
    for (const part of m.content.split(';')) {
      const [name, ...values] = part.trim().split(/\s+/);
      if (name) out[name] = values;
    }
    return out;
  });

/** Fetches `url` from the page; resolves to the CSP violation it caused (or null) and the outcome. */
const fetchFromPage = (page, url, mode = 'no-cors') =>
  page.evaluate(
    async ([url, mode]) => {
      let violation = null;
      const onViolation = (e) => (violation ??= { directive: e.effectiveDirective, blocked: e.blockedURI });
      document.addEventListener('securitypolicyviolation', onViolation);
      let outcome;
      try {
        await fetch(url, { mode, cache: 'no-store' });
        outcome = 'fetched';
      } catch (e) {
        outcome = `failed: ${e.message}`;
      }
      // The violation event is queued as a task: let it arrive.
      await new Promise((r) => setTimeout(r, 50));
      document.removeEventListener('securitypolicyviolation', onViolation);
      return { outcome, violation };
    },
    [url, mode],
  );

/** Clicks through every view of a card (the timeline, which talks to Perfetto, aside). */
async function openEveryTab(page, name, scope = card(name)) {
  const tabs = await page.$$eval(`${scope} [role=tab]`, (els) => els.map((e) => e.getAttribute('data-testid')));
  assert.ok(tabs.includes('tab-overview') && tabs.includes('tab-operators'), `tabs shown: ${tabs}`);
  for (const t of tabs) {
    if (t === 'tab-timeline') continue;
    await page.click(`${scope} [data-testid=${t}]`);
    await page.waitForSelector(`${scope} [data-testid=panel-${t.slice(4)}]:not([hidden])`);
  }
  if (tabs.includes('tab-operators')) {
    await page.click(`${scope} [data-testid=tab-operators]`);
    await page.waitForSelector(`${scope} [data-testid=op-row]`);
  }
  if (tabs.includes('tab-kernels')) {
    await page.click(`${scope} [data-testid=tab-kernels]`);
    await page.waitForSelector(`${scope} [data-testid=kernel-row]`);
  }
  return tabs;
}

describe('Content-Security-Policy', () => {
  it('is the first thing in <head> after the charset and allows only the site, wasm and Perfetto', T, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const order = await page.$eval('head', (h) => [...h.children].slice(0, 3).map((e) => e.outerHTML.slice(0, 60)));
      assert.match(order[0], /^<meta charset/i);
      assert.match(order[1], /^<script>/, 'the policy script runs before any other');
      assert.match(order[2], /^<meta http-equiv="Content-Security-Policy"/);
      assert.equal(await page.$$eval('script:not([src])', (s) => s.length), 1, 'one inline script: the policy itself');
      const p = await readPolicy(page);
      assert.deepEqual(p['default-src'], ["'none'"]);
      assert.deepEqual(p['script-src'], ["'self'", "'wasm-unsafe-eval'"], 'no unsafe-eval, no inline, no other origin');
      assert.deepEqual(p['connect-src'], ["'self'"]);
      assert.deepEqual(p['worker-src'], ["'self'"]);
      assert.deepEqual(p['frame-src'], ['https://ui.perfetto.dev']);
      assert.deepEqual(p['style-src'], ["'self'"]);
      assert.deepEqual(p['font-src'], ["'self'"]);
      assert.deepEqual(p['object-src'], ["'none'"]);
    });
  });

  it('blocks a fetch to another origin with a CSP violation; the site itself is allowed', T, async () => {
    // Not withCheckedPage: Chromium logs the blocked fetch as console errors, which are expected here.
    const { page, context, errors } = await openPage(browser, server.url);
    try {
      const foreign = `${other.url}favicon.svg`;
      const blocked = await fetchFromPage(page, foreign);
      assert.match(blocked.outcome, /^failed/);
      assert.equal(blocked.violation?.directive, 'connect-src');
      assert.equal(blocked.violation?.blocked, foreign);
      const own = await fetchFromPage(page, './favicon.svg', 'same-origin');
      assert.deepEqual(own, { outcome: 'fetched', violation: null });
      assert.ok(errors.length > 0, 'Chromium reported the violation');
      for (const e of errors) assert.match(e, /Content Security Policy/, 'only the expected CSP errors');
    } finally {
      await context.close();
    }
  });

  it('does not reach the workers: a worker from a script URL takes its policy from its own headers', T, async () => {
    // docs/privacy.md states this limit of a <meta> policy on hosts without headers (GitHub
    // Pages). If Chromium ever applies the page's policy to them, this fails: update the docs.
    await withCheckedPage(browser, server.url, async (page) => {
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      const worker = page.workers().find((w) => /\/assets\/worker-[^/]+\.js$/.test(w.url()));
      assert.ok(worker, 'the trace worker is running');
      const got = await worker.evaluate((u) => fetch(u, { mode: 'no-cors', cache: 'no-store' }).then(() => 'fetched', (e) => `failed: ${e.message}`), `${other.url}favicon.svg`);
      assert.equal(got, 'fetched');
    });
  });

  it('allows the origins of ?url= and ?perfetto= and nothing else', T, async () => {
    const otherOrigin = new URL(other.url).origin;
    const link = `${server.url}?url=${encodeURIComponent(`${other.url}samples/rank-0.json.gz`)}&perfetto=${encodeURIComponent(`${otherOrigin}/perfetto/`)}`;
    await withCheckedPage(browser, link, async (page) => {
      const p = await readPolicy(page);
      assert.deepEqual(p['connect-src'], ["'self'", otherOrigin]);
      // A Perfetto UI under a path is allowed that folder only (a GitHub Pages project site).
      assert.deepEqual(p['frame-src'], [`${otherOrigin}/perfetto/`]);
      const got = await fetchFromPage(page, `${other.url}favicon.svg`);
      assert.deepEqual(got, { outcome: 'fetched', violation: null });
      // And the page opens the url= trace from there.
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
    });
    // A value that is not an http(s) URL never reaches the policy.
    const bad = `${server.url}?url=${encodeURIComponent("javascript:alert(1)")}&perfetto=${encodeURIComponent("x; script-src *")}`;
    await withCheckedPage(browser, bad, async (page) => {
      const p = await readPolicy(page);
      assert.deepEqual(p['connect-src'], ["'self'"]);
      assert.deepEqual(p['frame-src'], ["'none'"], 'a bad perfetto= loads no Perfetto, so none is allowed');
      assert.deepEqual(p['script-src'], ["'self'", "'wasm-unsafe-eval'"]);
    });
  });
});

describe('no request leaves the site', () => {
  it('while the sample and a dropped trace load and every view is opened', T, async () => {
    const file = path.join(tmp, 'hand-made.json');
    fs.writeFileSync(file, JSON.stringify(handMadeTrace()));
    await withCheckedPage(browser, server.url, async (page) => {
      const context = page.context();
      const seen = [];
      context.on('request', (r) => seen.push({ url: r.url(), from: r.serviceWorker() ? 'service worker' : 'page or worker' }));
      // Routing sees what the page's workers ask too; every request goes on unchanged.
      await context.route('**/*', (route) => {
        seen.push({ url: route.request().url(), from: 'route' });
        return route.continue();
      });
      await page.reload(); // the first load, recorded this time
      await page.waitForSelector('[data-testid=drop-zone]');
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      await openEveryTab(page, 'rank-0.json.gz');
      await dropFiles(page, [file]);
      assert.equal(await settled(page, 'hand-made.json'), 'done');
      await openEveryTab(page, 'hand-made.json');

      const urls = seen.map((s) => s.url);
      assert.ok(urls.some((u) => u.endsWith('.wasm')), 'the worker fetching the wasm is recorded (worker requests are seen)');
      assert.ok(urls.some((u) => u.includes('/samples/rank-0.json.gz')));
      const away = seen.filter((s) => !s.url.startsWith('data:') && !s.url.startsWith('blob:') && new URL(s.url).origin !== origin());
      assert.deepEqual(away, [], 'requests to other origins');
    });
  });
});

describe('trace strings are text, never HTML', () => {
  const img = '<img src=x onerror="window.__xss=1">';
  const script = '<script>window.__xss=2</script>';

  function hostileTrace() {
    const doc = handMadeTrace();
    for (const e of doc.traceEvents) {
      if (e.cat === 'cpu_op') {
        e.name = `aten::mm ${img}`;
        e.args = { ...e.args, 'Input Dims': [[2, 2]], 'Call stack': `evil.py(1): ${img};${script};train.py(7): main` };
      }
      if (e.cat === 'kernel') e.name = `gemm_${img}_${script}`;
    }
    doc.deviceProperties[0].name = `GPU ${img}`;
    doc.traceName = script;
    return doc;
  }

  it('names, call stacks, device and file names with <img onerror> and <script> render inert', T, async () => {
    // The file name itself carries both payloads (a name cannot hold the "/" of "</script>").
    const name = `${img}<script>.json`;
    const file = path.join(tmp, name);
    // The only card on the page (its data-file holds quotes, awkward in a selector).
    const one = '[data-testid=file-card]';
    fs.writeFileSync(file, JSON.stringify(hostileTrace()));
    await withCheckedPage(browser, server.url, async (page) => {
      await page.evaluate(() => delete window.__xss);
      await dropFiles(page, [file]);
      await page.waitForSelector(`${one}[data-status=done]`, { timeout: 60_000 });
      const tabs = await openEveryTab(page, name, one);
      assert.ok(tabs.includes('tab-kernels'));
      // The operator's call stacks: select it so its panel lists the frames.
      await page.click(`${one} [data-testid=tab-operators]`);
      await page.click(`${one} [data-testid=op-row][data-name="aten::mm ${img.replace(/"/g, '\\"')}"]`);
      await page.waitForSelector(`${one} [data-testid=op-stack]`);
      const frames = await page.$$eval(`${one} [data-testid=op-stack-frames] li`, (lis) => lis.map((li) => li.textContent));
      assert.ok(frames.includes(`evil.py(1): ${img}`), `frames: ${JSON.stringify(frames)}`);
      assert.ok(frames.includes(script), `frames: ${JSON.stringify(frames)}`);
      // Back through every view once more, so each has rendered the names.
      await openEveryTab(page, name, one);
      await page.waitForTimeout(200);

      assert.equal(await page.evaluate(() => window.__xss), undefined, 'no payload ran');
      assert.equal(await page.$$eval('#app img, #app script, #app iframe', (els) => els.length), 0, 'no element came from a trace string');
      const text = await page.$eval(one, (el) => el.textContent);
      for (const literal of [name, `aten::mm ${img}`, `GPU ${img}`]) assert.ok(text.includes(literal), `literal text shown: ${literal}`);
      const kernelText = await page.$eval(`${one} [data-testid=panel-kernels]`, (el) => el.textContent);
      assert.ok(kernelText.includes(`gemm_${img}_${script}`), 'kernel name shown as text');
      // Visible, not only present: the file name heading renders the characters.
      assert.equal(await page.innerText(`${one} [data-testid=file-name]`), name);
    });
  });
});
