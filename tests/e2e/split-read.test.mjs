// Issue 12 §2 in the page: one plain trace read by two trace workers at once (byte ranges, the
// second worker's partial model sent as pieces to the first and merged; web/src/worker/split-read.ts)
// must show the numbers of `kinetoscope summary/overview --json` of the same file, say that two
// workers read it (the card's data-read-workers), and still load with the same numbers when the
// helper worker dies or stops answering (the first worker reads its range itself).
//
// The bundled sample (1.7 MB gunzipped) is far below the page's threshold (64 MB): the test hook
// of docs/contracts.md ("Failure paths and their test hooks", localStorage
// "kinetoscope-failure-test") lowers it with {"split": {"minBytes": 1, "workers": 2}} (two
// workers: by default a file gets all the cores but one, so one on the two cores the page is told
// it has), and names the helper's fault with {"faults": {"<file>": {"kind": "throw", "target": "helper"}}}.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { card, checkNumbers, openSite, repo, sampleTrace, settled } from './helpers.mjs';

const site = await openSite({ tmp: true });
/** The sample, gunzipped under `name` (a plain file can be read in ranges; gzip cannot). */
function plainSample(name) {
  const f = path.join(site.tmp, name);
  fs.writeFileSync(f, zlib.gunzipSync(fs.readFileSync(sampleTrace)));
  return f;
}

/** A page with two trace workers whatever the machine, the split threshold lowered, and `faults`. */
async function splitPage(faults = {}, watchdog, extra = {}) {
  const plan = JSON.stringify({ faults, split: { minBytes: 1, workers: 2 }, ...(watchdog ? { watchdog } : {}), ...extra });
  const context = await site.browser.newContext();
  await context.addInitScript((p) => localStorage.setItem('kinetoscope-failure-test', p), plan);
  await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 2, configurable: true }));
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  await page.goto(site.server.url);
  await page.waitForSelector('[data-testid=drop-zone]');
  return { page, context, errors };
}

const readWith = (page, name) =>
  page.$eval(card(name), (el) => ({ workers: el.getAttribute('data-read-workers'), merged: el.getAttribute('data-read-merged') }));

const T = { timeout: 180_000 };

describe('one plain file read by two workers', () => {
  it('gives the numbers of the CLI, read by 2 workers and merged', T, async () => {
    const f = plainSample('split.json');
    const { page, context, errors } = await splitPage();
    try {
      await page.locator('input[type=file]').first().setInputFiles(f);
      assert.equal(await settled(page, 'split.json'), 'done');
      assert.deepEqual(await readWith(page, 'split.json'), { workers: '2', merged: '1' });
      await checkNumbers(page, 'split.json', f);
      // The first worker holds the model; the helper's Session was deleted.
      const analysis = '[data-testid=analysis]';
      assert.equal(await page.getAttribute(analysis, 'data-pool-used'), '2');
      assert.equal(await page.getAttribute(analysis, 'data-models'), '1');
      // Its views answer from that model (the operator table fills).
      await page.click(`${card('split.json')} [data-testid=tab-operators]`);
      await page.waitForSelector(`${card('split.json')} [data-testid=op-row]`, { timeout: 60_000 });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('a gzip file is read by one worker', T, async () => {
    const f = path.join(site.tmp, 'one.json.gz');
    fs.copyFileSync(sampleTrace, f);
    const { page, context, errors } = await splitPage();
    try {
      await page.locator('input[type=file]').first().setInputFiles(f);
      assert.equal(await settled(page, 'one.json.gz'), 'done');
      assert.deepEqual(await readWith(page, 'one.json.gz'), { workers: '1', merged: null });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('still loads with the same numbers when the helper worker dies', T, async () => {
    const f = plainSample('helper-dies.json');
    const { page, context, errors } = await splitPage({ 'helper-dies.json': { kind: 'throw', target: 'helper' } });
    try {
      await page.locator('input[type=file]').first().setInputFiles(f);
      assert.equal(await settled(page, 'helper-dies.json'), 'done');
      // Two workers started on it; the first read the helper's range itself.
      assert.deepEqual(await readWith(page, 'helper-dies.json'), { workers: '2', merged: '0' });
      await checkNumbers(page, 'helper-dies.json', f);
      // The helper's death is the test's own doing; nothing else went wrong.
      assert.deepEqual(errors.filter((e) => !/Test fault/.test(e)), []);
    } finally {
      await context.close();
    }
  });

  it('reads the file again in one range when the helper dies part-way through its pieces', T, async () => {
    const f = plainSample('helper-dies-part-way.json');
    // Pieces of 64 KiB: the helper's half of the sample makes several; it dies after sending the
    // first, which the first worker has merged by then or merges next — a half-merged model.
    const { page, context, errors } = await splitPage({ 'helper-dies-part-way.json': { kind: 'throw', target: 'helper', phase: 'pieces', pieceBytes: 65536 } });
    try {
      await page.locator('input[type=file]').first().setInputFiles(f);
      assert.equal(await settled(page, 'helper-dies-part-way.json'), 'done');
      const c = card('helper-dies-part-way.json');
      assert.deepEqual(await readWith(page, 'helper-dies-part-way.json'), { workers: '2', merged: '0' });
      assert.equal(await page.getAttribute(c, 'data-read-again'), 'true', 'read again in one range');
      await checkNumbers(page, 'helper-dies-part-way.json', f);
      assert.deepEqual(errors.filter((e) => !/Test fault/.test(e)), []);
    } finally {
      await context.close();
    }
  });

  it('still loads with the same numbers when the helper stops answering (the watchdog)', T, async () => {
    const f = plainSample('helper-hangs.json');
    const { page, context, errors } = await splitPage({ 'helper-hangs.json': { kind: 'hang', target: 'helper' } }, { pingMs: 250, stallMs: 5_000 });
    try {
      await page.locator('input[type=file]').first().setInputFiles(f);
      assert.equal(await settled(page, 'helper-hangs.json', 120_000), 'done');
      assert.deepEqual(await readWith(page, 'helper-hangs.json'), { workers: '2', merged: '0' });
      await checkNumbers(page, 'helper-hangs.json', f);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  // Issue 21: the helper killed while it reads its range (its first chunk in), not after.
  it('still loads with the same numbers when the helper dies mid-range', T, async () => {
    const f = plainSample('helper-dies-mid-range.json');
    const { page, context, errors } = await splitPage({ 'helper-dies-mid-range.json': { kind: 'throw', target: 'helper', phase: 'reading' } });
    try {
      await page.locator('input[type=file]').first().setInputFiles(f);
      assert.equal(await settled(page, 'helper-dies-mid-range.json'), 'done');
      assert.deepEqual(await readWith(page, 'helper-dies-mid-range.json'), { workers: '2', merged: '0' });
      await checkNumbers(page, 'helper-dies-mid-range.json', f);
      assert.deepEqual(errors.filter((e) => !/Test fault/.test(e)), []);
    } finally {
      await context.close();
    }
  });

  // Issue 21: the helper's reader stops sending mid-range; the helper and the first worker both
  // answer every ping (each waits, idle), so only the page's load watch sees that nothing moves.
  it('a helper whose reader stops: one sentence with "Open with one worker", which then loads it', T, async () => {
    // 48 MiB: the helper's half holds more than the four chunks its reader may send ahead.
    const f = path.join(site.tmp, 'helper-reader-stops.json');
    execFileSync('node', [path.join(repo, 'scripts', 'gen-trace.mjs'), '--size', '48M', '--out', f], { stdio: 'ignore' });
    const { page, context, errors } = await splitPage({ 'helper-reader-stops.json': { kind: 'stall', target: 'helper', phase: 'reading' } }, undefined, {
      loadWatch: { readStallMs: 6_000 },
    });
    try {
      await page.locator('input[type=file]').first().setInputFiles(f);
      assert.equal(await settled(page, 'helper-reader-stops.json', 120_000), 'failed');
      const c = card('helper-reader-stops.json');
      await page.waitForSelector(`${c} [data-testid=load-failure][data-failure=read-stall]`);
      const text = (await page.textContent(`${c} [data-testid=failure-message]`)).trim();
      assert.match(
        text,
        /^Reading the file stopped at [\d.]+ MiB of 48\.0 MiB: no bytes came for \d+ s, so the load was stopped; nothing of the file could be shown; retry, open it with one worker, or use the command line \(kinetoscope overview helper-reader-stops\.json\), which reads the file without the browser\.$/,
      );
      assert.ok(await page.isVisible(`${c} [data-testid=retry]`));
      await page.click(`${c} [data-testid=retry-one-worker]`);
      assert.equal(await settled(page, 'helper-reader-stops.json', 120_000), 'done');
      assert.deepEqual(await readWith(page, 'helper-reader-stops.json'), { workers: '1', merged: null });
      await checkNumbers(page, 'helper-reader-stops.json', f);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
