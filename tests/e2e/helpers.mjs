// Shared pieces of the browser tests: a static server for web/dist, Debian's Chromium through
// playwright-core, independent expected numbers (node zlib + JSON.parse), and page readers.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// KINETOSCOPE_DIST points the tests at another build of the site (e.g. `vite build --outDir`).
export const dist = path.resolve(process.env.KINETOSCOPE_DIST || path.join(repo, 'web', 'dist'));
export const shared = path.resolve(repo, '..', 'shared');
export const sharedTraces = path.join(shared, 'traces');
export const hasShared = fs.existsSync(sharedTraces);
export const sampleTrace = path.join(repo, 'web', 'public', 'samples', 'rank-0.json.gz');

// playwright-core lives in web/node_modules; ESM ignores NODE_PATH, so resolve from there.
const requireWeb = createRequire(path.join(repo, 'web', 'package.json'));
const { chromium } = requireWeb('playwright-core');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.gz': 'application/gzip',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
};

/**
 * Serves web/dist on 127.0.0.1 at a free port, under a sub-path to prove `base: './'` works. With
 * `cors`, every answer lets any origin read it (a bucket set up for "open a trace from a URL").
 */
export async function serveDist(prefix = '/kinetoscope/', { cors = false } = {}) {
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: build the site first (scripts/build or npm --prefix web run build)`);
  }
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404).end();
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(prefix.length)) || 'index.html';
    const file = path.resolve(dist, rel);
    if (!file.startsWith(dist + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': fs.statSync(file).size,
      'Cache-Control': 'no-store',
      ...(cors ? { 'Access-Control-Allow-Origin': '*' } : {}),
    });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((r) => server.close(r)) };
}

export function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh page that records uncaught errors and console errors (page and workers). */
export async function openPage(browser, url, { cores } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  // The page sizes its pool of trace workers from navigator.hardwareConcurrency (worker/worker-pool.ts):
  // `cores` pins it, for tests that need one worker (a queue) or several whatever the machine.
  if (cores != null) await page.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n, configurable: true }), cores);
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => r.status() >= 400 && errors.push(`http ${r.status()}: ${r.url()}`));
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && errors.push(`worker: ${m.text()}`)));
  await page.goto(url);
  await page.waitForSelector('[data-testid=drop-zone]');
  return { page, context, errors };
}

/** Runs `fn` on a fresh page, then fails on the error boundary or any uncaught or console error. */
export async function withCheckedPage(browser, url, fn, options = {}) {
  const { page, context, errors } = await openPage(browser, url, options);
  try {
    await fn(page);
    assert.equal(await page.$('[data-testid=app-error]'), null, 'the error boundary was shown');
    assert.deepEqual(errors, [], 'no uncaught errors or console errors');
  } finally {
    await context.close();
  }
}

export function tmpDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kinetoscope-e2e-'));
}

/**
 * What a test file needs: web/dist served under a sub-path and a browser (and, with `tmp`, a
 * temporary folder), opened now and closed after the file's tests.
 */
export async function openSite({ tmp = false } = {}) {
  const site = { server: await serveDist(), browser: await launch(), tmp: tmp ? tmpDir() : undefined };
  after(async () => {
    await site.browser.close();
    await site.server.close();
    if (site.tmp) fs.rmSync(site.tmp, { recursive: true, force: true });
  });
  return site;
}

// --- independent expectations ------------------------------------------------------------

export function readTraceText(file) {
  const buf = fs.readFileSync(file);
  return (buf[0] === 0x1f && buf[1] === 0x8b ? zlib.gunzipSync(buf) : buf).toString('utf8');
}

/** What the summary must say, computed without the core: JSON.parse and counting. */
export function expectedFor(file) {
  const doc = JSON.parse(readTraceText(file));
  const events = Array.isArray(doc) ? doc : doc.traceEvents ?? [];
  const categories = {};
  const phases = {};
  for (const e of events) {
    const cat = typeof e?.cat === 'string' ? e.cat : '';
    categories[cat] = (categories[cat] ?? 0) + 1;
    if (typeof e?.ph === 'string') phases[e.ph] = (phases[e.ph] ?? 0) + 1;
  }
  const devices = Array.isArray(doc) ? [] : (doc.deviceProperties ?? []).map((d) => d.name);
  const di = Array.isArray(doc) ? null : doc.distributedInfo ?? null;
  return {
    events: events.length,
    categories,
    phases,
    devices,
    distributed: di ? { rank: Number(di.rank), worldSize: Number(di.world_size) } : null,
  };
}

// --- reading the page --------------------------------------------------------------------

/** What a table's status line says of `shown` rows of `total` (the page's words: "1 row", "3 of 12 rows"). */
export const rowsLabel = (shown, total = shown) => `${shown === total ? '' : `${shown} of `}${total} ${total === 1 ? 'row' : 'rows'}`;
export const card = (name) => `[data-testid=file-card][data-file="${name}"]`;
/** The navigator's row of a trace (rendered while it is scrolled into view: few files in tests). */
export const navRow = (name) => `[data-testid=nav-trace][data-file="${name}"]`;

/**
 * Shows the trace `name` (clicks its row in the run navigator unless it is shown already) and
 * waits for its card to be the visible one.
 */
export async function showTrace(page, name, timeout = 60_000) {
  if (!(await page.isVisible(card(name)))) await page.click(navRow(name), { timeout });
  await page.waitForSelector(card(name), { state: 'visible', timeout });
}

/**
 * Waits until the trace `name` is no longer queued or loading (its navigator row says so), shows
 * it, and returns its status.
 */
export async function settled(page, name, timeout = 60_000) {
  const el = await page.waitForSelector(
    `${navRow(name)}[data-status=done], ${navRow(name)}[data-status=failed], ${navRow(name)}[data-status=cancelled]`,
    { timeout, state: 'attached' },
  );
  const status = await el.getAttribute('data-status');
  await showTrace(page, name, timeout);
  // The card has the same status once it is rendered (it may lag the row by one render).
  await page.waitForSelector(`${card(name)}[data-status=${status}]`, { state: 'attached', timeout });
  return status;
}

/**
 * Every row of the run navigator, in order, read by scrolling its list from top to bottom (only
 * the rows in view are in the page): {kind: run|worker|trace, text, and for traces file, run,
 * worker, span, status, health, selected}.
 */
export async function navRows(page) {
  // Rows move while traces load (a trace's rank is known once it is read): read a settled list.
  await page.waitForFunction(() => !/loading/.test(document.querySelector('[data-testid=nav-count]')?.textContent ?? 'loading'), null, { timeout: 240_000 });
  const total = await page.$eval('[data-testid=run-nav] .nav-rows', (el) => Number(el.dataset.rows));
  const rows = new Map();
  for (let index = 0; rows.size < total; ) {
    await page.$eval('[data-testid=run-nav] .nav-scroll', (el, top) => (el.scrollTop = top), index * 30);
    await page.waitForSelector(`[data-testid=run-nav] .nav-row-slot[data-index="${index}"]`, { state: 'attached' });
    const seen = await page.$$eval('[data-testid=run-nav] .nav-row-slot', (slots) =>
      slots.map((slot) => {
        const r = slot.firstElementChild;
        const id = r.getAttribute('data-testid');
        return {
          index: Number(slot.dataset.index),
          kind: id === 'nav-run' ? 'run' : id === 'nav-worker' ? 'worker' : 'trace',
          text: r.textContent,
          ...(id === 'nav-trace'
            ? { file: r.dataset.file, run: r.dataset.run, worker: r.dataset.worker, span: r.dataset.span, status: r.dataset.status, health: r.dataset.health, selected: r.getAttribute('aria-selected') === 'true' }
            : id === 'nav-run'
              ? { run: r.dataset.run }
              : { worker: r.dataset.worker }),
        };
      }),
    );
    for (const r of seen) rows.set(r.index, r);
    const next = Math.max(...seen.map((r) => r.index)) + 1;
    if (next <= index) break;
    index = next;
  }
  return [...rows.values()].sort((a, b) => a.index - b.index);
}

/** The numbers a summary card shows, parsed back from its text. */
export async function readCard(page, name) {
  return page.$eval(card(name), (root) => {
    const num = (el) => (el ? Number(el.textContent.replace(/[^0-9.-]/g, '')) : null);
    const q = (id) => root.querySelector(`[data-testid="${id}"]`);
    const table = (stem) => {
      const out = {};
      const rows = root.querySelectorAll(`[data-testid="${stem}-row"]`);
      // The tables render only the rows in view: a table taller than its window cannot be read here.
      const el = root.querySelector(`[data-testid="${stem}-table"]`);
      if (el && rows.length !== Number(el.getAttribute('aria-rowcount')) - 1) {
        throw new Error(`${stem} table: ${rows.length} of ${Number(el.getAttribute('aria-rowcount')) - 1} rows rendered`);
      }
      for (const row of rows) {
        const name = row.getAttribute('data-name');
        out[name] = num(row.querySelector(`[data-testid="${stem}-count-${CSS.escape(name)}"]`));
      }
      return out;
    };
    const devices = [];
    for (let i = 0; q(`device-name-${i}`); i++) devices.push(q(`device-name-${i}`).textContent);
    const health = {};
    for (const row of root.querySelectorAll('[data-testid^="health-row-"]')) {
      const reason = row.getAttribute('data-testid').slice('health-row-'.length);
      health[reason] = num(row.querySelector(`[data-testid="health-count-${reason}"]`));
    }
    return {
      events: num(q('events-total')),
      categories: table('category'),
      phases: table('phase'),
      devices,
      distributed: q('distributed-rank')
        ? { rank: num(q('distributed-rank')), worldSize: num(q('distributed-world-size')) }
        : null,
      notDistributed: !!q('distributed-none'),
      health,
      healthOk: !!q('health-ok'),
      error: q('file-error')?.textContent ?? null,
    };
  });
}

// --- a stand-in Perfetto UI (fake-perfetto/index.html) on another origin ----------------------

const fakePerfettoPage = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-perfetto', 'index.html'), 'utf8');

/** The stand-in on its own port; `silent` never answers PING. Records every request it gets. */
export async function serveFakePerfetto({ silent = false } = {}) {
  const requests = [];
  const body = silent ? fakePerfettoPage.replace('<html lang="en">', '<html lang="en" data-silent="1">') : fakePerfettoPage;
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    // The UI's page at the root or under a folder (self-hosted under a path, as on GitHub Pages).
    if (new URL(req.url, 'http://x').pathname.endsWith('/')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(body);
    } else res.writeHead(204).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

/** The stand-in's frame inside the page (null until the iframe exists). */
export const fakeFrame = (page, origin) => page.frames().find((f) => f.url().startsWith(origin + '/')) ?? null;

export async function received(page, origin, n, timeout = 30_000) {
  const t0 = Date.now();
  for (;;) {
    const f = fakeFrame(page, origin);
    const got = f ? await f.evaluate(() => window.received.map((r) => ({ ...r }))).catch(() => null) : null;
    if (got && got.length >= n && got.every((r) => r.kind !== 'trace' || r.sha256)) return got;
    if (Date.now() - t0 > timeout) throw new Error(`the stand-in got ${got?.length ?? 0} of ${n} messages`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Drops files on the drop zone the way a person does (a DataTransfer built in the page). */
export async function dropFiles(page, files) {
  const payload = files.map((f) => ({ name: path.basename(f), b64: fs.readFileSync(f).toString('base64') }));
  const dt = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of items) {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], name));
    }
    return dt;
  }, payload);
  await page.dispatchEvent('[data-testid=drop-zone]', 'drop', { dataTransfer: dt });
}

export async function pickFiles(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files);
}

/** A small hand-made Kineto trace covering what the summary shows (written out as .json). */
export function handMadeTrace() {
  const ev = [];
  ev.push({ ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: 'python' } });
  ev.push({ ph: 'M', name: 'thread_name', pid: 1, tid: 7, args: { name: 'main' } });
  for (let i = 0; i < 5; i++) {
    ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${i}`, pid: 1, tid: 7, ts: 1000 + i * 100, dur: 90 });
    ev.push({ ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 1, tid: 7, ts: 1001 + i * 100, dur: 20, args: { 'External id': i } });
    ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: 1, tid: 7, ts: 1005 + i * 100, dur: 5, args: { correlation: i } });
    ev.push({ ph: 'X', cat: 'kernel', name: 'sgemm_<b>"quoted"</b>', pid: 0, tid: 7, ts: 1010 + i * 100, dur: 30, args: { device: 0, stream: 7, correlation: i } });
    ev.push({ ph: 'f', cat: 'ac2g', name: 'ac2g', id: i, pid: 0, tid: 7, ts: 1010 + i * 100, bp: 'e' });
    ev.push({ ph: 's', cat: 'ac2g', name: 'ac2g', id: i, pid: 1, tid: 7, ts: 1005 + i * 100 });
  }
  ev.push({ ph: 'i', cat: 'cpu_instant_event', name: '[memory]', pid: 1, tid: 7, ts: 1200, s: 't', args: { Bytes: 1024 } });
  ev.push({ ph: 'i', name: 'no category here', pid: 1, tid: 7, ts: 1300, s: 't' });
  return {
    schemaVersion: 1,
    deviceProperties: [
      { id: 0, name: 'Tesla V100-SXM2-32GB', totalGlobalMem: 34079637504, computeMajor: 7, computeMinor: 0, numSms: 80 },
      { id: 1, name: 'NVIDIA A100-SXM4-40GB', totalGlobalMem: 42505273344, computeMajor: 8, computeMinor: 0, numSms: 108 },
    ],
    distributedInfo: { backend: 'nccl', rank: 3, world_size: 8 },
    traceEvents: ev,
    traceName: 'hand-made.json',
    displayTimeUnit: 'ms',
    baseTimeNanoseconds: 1700000000000000000,
  };
}

/** The rows a data table renders, in page order: key, every cell's text, selected or not. */
export async function readTableRows(page, scope, stem) {
  return page.$eval(scope, (root, stem) => {
    const out = [];
    for (const row of root.querySelectorAll(`[data-testid="${stem}-row"]`)) {
      out.push({
        name: row.getAttribute('data-name'),
        cells: [...row.querySelectorAll('td')].map((td) => td.textContent),
        selected: row.getAttribute('aria-selected') === 'true',
      });
    }
    return out;
  }, stem);
}

/** RFC 4180 CSV text as rows of fields (quoted fields may hold commas, quotes and newlines). */
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) row.push(field), rows.push(row);
  return rows;
}

// --- the native CLI as the expected values, and the views' data tables ---------------------

export const cli = path.join(repo, 'build', 'native', 'kinetoscope');

/** The CLI's answer (first line of --json output) for `args`. */
export function runCliJson(args) {
  return JSON.parse(execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 256 << 20 }).trim().split('\n')[0]);
}

/** Whether this build of the CLI has `cmd` (its usage text lists it). */
export function cliHas(cmd) {
  if (!fs.existsSync(cli)) return false;
  try {
    return execFileSync(cli, [], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).includes(`kinetoscope ${cmd}`);
  } catch (e) {
    return (String(e.stdout ?? '') + String(e.stderr ?? '')).includes(`kinetoscope ${cmd}`);
  }
}

/** A number read off a cell: "1,234.5" -> 1234.5; "—" and "" -> null. */
export const cellNum = (t) => (t == null || /^\s*(—)?\s*$/.test(t) ? null : Number(t.replace(/[^0-9.eE+-]/g, '')));

/** Shown with at most two decimals: within 0.005 of the CLI's value. */
export function assertClose(shown, expected, label) {
  if (expected == null) return assert.equal(shown, null, `${label}: expected no value, page shows ${shown}`);
  assert.notEqual(shown, null, `${label}: not shown`);
  assert.ok(Math.abs(shown - expected) <= 0.005 + 1e-9, `${label}: page ${shown}, CLI ${expected}`);
}

/** The column ids of a data table, in page order. */
export function columnIds(page, scope, stem) {
  return page.$$eval(`${scope} [data-testid^="${stem}-header-"]`, (ths, stem) => ths.map((th) => th.getAttribute('data-testid').slice(stem.length + 8)), stem);
}

/** The rendered rows as {name, selected, cells: {columnId: text}}. */
export async function tableRows(page, scope, stem) {
  const ids = await columnIds(page, scope, stem);
  return (await readTableRows(page, scope, stem)).map((r) => ({ ...r, cells: Object.fromEntries(ids.map((id, k) => [id, r.cells[k]])) }));
}

export const waitStatus = (page, scope, stem, text) =>
  page.waitForFunction(([sel, text]) => document.querySelector(sel)?.textContent === text, [`${scope} [data-testid=${stem}-status]`, text]);

/** Stable sort of CLI rows by a key (desc or asc), ties kept in CLI order, missing values last. */
export function sortedBy(rows, key, dir) {
  const s = dir === 'desc' ? -1 : 1;
  return rows
    .map((r, i) => [r, i])
    .sort(([a, i], [b, j]) => {
      const x = a[key];
      const y = b[key];
      if (x == null || y == null) return x == null && y == null ? i - j : x == null ? 1 : -1;
      return x < y ? -s : x > y ? s : i - j;
    })
    .map(([r]) => r);
}

/**
 * The page box of a uPlot chart's plotting area (`.u-over`) under `chart` (a selector), once the
 * chart is drawn. uPlot is made in an effect after the chart's box is measured, and remade when
 * its width changes (a panel arriving later adds a scrollbar): wait for it, and read the box in
 * one evaluation instead of through a handle the remake may detach.
 */
export async function chartBox(page, chart, timeout = 30_000) {
  const sel = `${chart} .u-over`;
  await page.waitForFunction((s) => {
    const r = document.querySelector(s)?.getBoundingClientRect();
    return !!r && r.width > 0 && r.height > 0;
  }, sel, { timeout });
  return page.$eval(sel, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
}

// --- a card against the CLI -----------------------------------------------------------------

/** The step-time breakdown's roles, as the card's test ids name them. */
export const ROLES = ['kernel', 'memcpy', 'memset', 'communication', 'runtime', 'dataloader', 'cpu_exec', 'other'];

/** The overview's numbers on the card: each step's row (total, kernel) and the average's breakdown. */
export function readOverview(page, name) {
  return page.$eval(
    card(name),
    (root, roles) => {
      const num = (el) => (el ? Number(el.textContent.replace(/[^0-9.-]/g, '')) : null);
      const steps = [...root.querySelectorAll('[data-testid^="step-row-"]')]
        .filter((tr) => tr.getAttribute('data-testid') !== 'step-row-average')
        .map((tr) => {
          const td = [...tr.querySelectorAll('td')].map((c) => c.textContent);
          return { name: td[0], total: Number(td[1].replace(/[^0-9.-]/g, '')), kernel: Number(td[2].replace(/[^0-9.-]/g, '')) };
        });
      const average = {};
      for (const r of [...roles, 'total']) average[r] = num(root.querySelector(`[data-testid="step-value-${r}"]`));
      return { steps, average, util: num(root.querySelector('[data-testid="gpu-util-0"]')) };
    },
    ROLES,
  );
}

export const near = (shown, expected, tol, label) => assert.ok(shown != null && Math.abs(shown - expected) <= tol, `${label}: page ${shown}, CLI ${expected}`);

/** The card of `name` shows what the CLI computes for `file`: the summary's counts and the Overview. */
export async function checkNumbers(page, name, file) {
  const summary = runCliJson(['summary', '--json', file]);
  const overview = runCliJson(['overview', '--json', file]);
  const c = card(name);
  await page.waitForSelector(`${c} [data-testid=overview-card]`);
  const ov = await readOverview(page, name);
  assert.ok(overview.steps.length >= 2, 'the sample has steps');
  assert.deepEqual(ov.steps.map((s) => s.name), overview.steps.map((s) => s.name), `${name}: steps`);
  overview.steps.forEach((s, i) => {
    near(ov.steps[i].total, s.total_us, 0.5, `${name}: step ${s.name} total`);
    near(ov.steps[i].kernel, s.kernel_us, 0.5, `${name}: step ${s.name} kernel`);
  });
  for (const r of ROLES) near(ov.average[r], overview.average[`${r}_us`], 0.5, `${name}: average ${r}`);
  near(ov.average.total, overview.average.total_us, 0.5, `${name}: average total`);
  near(ov.util, overview.gpus[0].utilization_pct, 0.005, `${name}: GPU utilization`);
  await page.click(`${c} [data-testid=tab-trace]`);
  await page.waitForSelector(`${c} [data-testid=events-total]`);
  const shown = await readCard(page, name);
  assert.equal(shown.events, summary.events, `${name}: events`);
  assert.deepEqual(shown.categories, summary.categories, `${name}: events per category`);
  assert.deepEqual(shown.phases, summary.phases, `${name}: events per phase`);
  assert.deepEqual(shown.distributed, { rank: summary.distributed.rank, worldSize: summary.distributed.world_size }, `${name}: rank`);
  assert.equal(shown.healthOk, summary.health.length === 0, `${name}: health`);
}
