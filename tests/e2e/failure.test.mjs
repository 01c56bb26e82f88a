// Issue 12, "never a silent hang": a trace worker that runs out of memory, aborts, stops
// answering or dies while computing the overview. The card says in one sentence what happened,
// what is still shown (the summary) and what to do; the other traces keep answering their views
// (read again into the restarted worker); Retry loads the file again.
//
// The failures are made by the failure-test hook (docs/contracts.md, "Failure paths and their test
// hooks"): localStorage "kinetoscope-failure-test", set before the page loads, names the files
// whose load fails and how, once each. "oom" and "abort" fail inside the wasm core, the way the
// core's own failures do (Emscripten's Aborted(OOM) and Aborted()).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { card, openSite, repo, runCliJson, sampleTrace, settled, showTrace } from './helpers.mjs';

const site = await openSite({ tmp: true });

/** Copies of the bundled sample under the names given (each loads as a trace of its own). */
function copies(...names) {
  return names.map((n) => {
    const f = path.join(site.tmp, n);
    fs.copyFileSync(sampleTrace, f);
    return f;
  });
}

/** A page whose loads of the files named fail as `faults` says (and the watchdog as set). */
async function pageWithFaults(faults, watchdog, extra = {}, cores = null) {
  const plan = JSON.stringify({ faults, ...(watchdog ? { watchdog } : {}), ...extra });
  const context = await site.browser.newContext();
  await context.addInitScript((p) => localStorage.setItem('kinetoscope-failure-test', p), plan);
  // `cores` pins the pool's size (worker/worker-pool.ts sizes it from navigator.hardwareConcurrency).
  if (cores != null) await context.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n, configurable: true }), cores);
  const page = await context.newPage();
  // As openPage (helpers.mjs) records them: uncaught errors and console errors, page and workers.
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && errors.push(`worker: ${m.text()}`)));
  await page.goto(site.server.url);
  await page.waitForSelector('[data-testid=drop-zone]');
  return { page, context, errors };
}

/** The failed card's sentence, after checking what it shows. */
async function failedCard(page, name, failure) {
  assert.equal(await settled(page, name), 'failed', `${name} failed`);
  const c = card(name);
  await page.waitForSelector(`${c} [data-testid=load-failure][data-failure=${failure}]`);
  const text = (await page.textContent(`${c} [data-testid=failure-message]`)).trim();
  // The summary arrived before the overview: it is still shown.
  assert.ok(await page.isVisible(`${c} [data-testid=trace-view]`), `${name}: the summary is still shown`);
  assert.match(await page.textContent(`${c} [data-testid=header-events]`), /\d/);
  assert.ok(await page.isVisible(`${c} [data-testid=retry]`), `${name}: a Retry button`);
  return text;
}

/** The trace `name` still answers a view: its Operators table fills. */
async function answers(page, name) {
  await showTrace(page, name);
  await page.click(`${card(name)} [data-testid=tab-operators]`);
  try {
    await page.waitForSelector(`${card(name)} [data-testid=op-row]`, { timeout: 60_000 });
  } catch (e) {
    // Say what the card shows instead: its model's state and its text.
    const c = await page.$(card(name));
    const state = c ? `model ${await c.getAttribute('data-model')}: ${(await c.textContent()).replace(/\s+/g, ' ').slice(0, 600)}` : 'no card';
    throw new Error(`${name}: no Operators rows (${state})`, { cause: e });
  }
  assert.equal(await page.$(`${card(name)} [data-testid$=-gone]`), null, `${name}: no "gone" message`);
}

/**
 * A failure in the operator trees came after the overview's steps and GPU metrics: the card still
 * draws those (the step chart, one column per step plus the average, as `kinetoscope steps`).
 */
async function keptSteps(page, name) {
  const c = card(name);
  const steps = runCliJson(['steps', '--json', sampleTrace]).steps;
  assert.ok(steps.length >= 2, 'the sample has steps');
  await page.waitForSelector(`${c} [data-testid=overview-early] [data-testid=step-bars]`);
  assert.equal(Number(await page.getAttribute(`${c} [data-testid=overview-early] [data-testid=step-bars]`, 'data-columns')), steps.length + 1);
  assert.equal(await page.$(`${c} [data-testid=tab-operators]`), null, `${name}: no view tabs without the operator trees`);
}

async function retried(page, name) {
  await showTrace(page, name);
  await page.click(`${card(name)} [data-testid=retry]`);
  assert.equal(await settled(page, name), 'done', `${name} loads on Retry`);
  await page.waitForSelector(`${card(name)} [data-testid=panel-overview]`);
  assert.equal(await page.$(`${card(name)} [data-testid=load-failure]`), null);
}

/** Only the failures made on purpose were logged (Emscripten prints its abort; the dead worker's error). */
function onlyExpected(errors, allowed) {
  const other = errors.filter((e) => !allowed.some((re) => re.test(e)));
  assert.deepEqual(other, [], 'no other errors');
}

describe('a worker that fails while computing the overview', () => {
  it('out of memory and an abort: one sentence each, the summary kept, other traces answer, Retry works', async () => {
    const files = copies('good.json.gz', 'oom.json.gz', 'abort.json.gz');
    const { page, context, errors } = await pageWithFaults({ 'oom.json.gz': { kind: 'oom' }, 'abort.json.gz': { kind: 'abort' } });
    try {
      await page.setInputFiles('[data-testid=file-input]', files);
      assert.equal(await settled(page, 'good.json.gz'), 'done');

      const oom = await failedCard(page, 'oom.json.gz', 'oom');
      assert.match(oom, /^The analysis ran out of memory .* while computing the overview \(operator trees\); the steps, their time breakdown and the GPU metrics are shown below, with the summary of what was read; /);
      await keptSteps(page, 'oom.json.gz');
      assert.match(oom, /kinetoscope trim --step N -o part\.json oom\.json\.gz/);
      assert.match(oom, /kinetoscope overview oom\.json\.gz/);
      const abort = await failedCard(page, 'abort.json.gz', 'abort');
      assert.match(abort, /^The analysis core stopped on an internal error while computing the overview \(operator trees\); the steps, their time breakdown and the GPU metrics are shown below, with the summary of what was read; retry/);
      // The navigator says the same.
      assert.equal(await page.getAttribute('[data-testid=nav-trace][data-file="oom.json.gz"]', 'data-status'), 'failed');

      // The worker was restarted twice since good.json.gz was loaded: it is read again when asked.
      await answers(page, 'good.json.gz');
      await retried(page, 'oom.json.gz');
      await retried(page, 'abort.json.gz');
      await answers(page, 'abort.json.gz');
      assert.equal(await page.$('[data-testid=app-error]'), null);
      onlyExpected(errors, [/Aborted\(/]);
    } finally {
      await context.close();
    }
  });

  it('a worker that stops answering (the watchdog) and one that dies (an error event)', async () => {
    const files = copies('good.json.gz', 'hang.json.gz', 'dies.json.gz');
    // A short watchdog: silence for 5 s while a call is pending is a stall here (90 s by default).
    const { page, context, errors } = await pageWithFaults(
      { 'hang.json.gz': { kind: 'hang' }, 'dies.json.gz': { kind: 'throw', phase: 'steps' } },
      { pingMs: 250, stallMs: 5_000 },
    );
    try {
      await page.setInputFiles('[data-testid=file-input]', files);
      assert.equal(await settled(page, 'good.json.gz'), 'done');
      const hang = await failedCard(page, 'hang.json.gz', 'stalled');
      assert.match(hang, /^The analysis worker stopped answering and was stopped while computing the overview \(operator trees\); the steps, their time breakdown and the GPU metrics are shown below, with the summary of what was read; /);
      await keptSteps(page, 'hang.json.gz');
      const dies = await failedCard(page, 'dies.json.gz', 'died');
      // It died before the steps were computed: only the summary is kept.
      assert.match(dies, /^The analysis worker was ended .* while computing the overview \(steps\); the summary of what was read is shown below; /);
      assert.equal(await page.$(`${card('dies.json.gz')} [data-testid=overview-early]`), null);
      await answers(page, 'good.json.gz');
      await retried(page, 'hang.json.gz');
      await retried(page, 'dies.json.gz');
      assert.equal(await page.$('[data-testid=app-error]'), null);
      onlyExpected(errors, [/Test fault: the analysis worker dies/]);
    } finally {
      await context.close();
    }
  });
});

// A worker holds the models of the traces loaded into it. When another trace's load kills it, their
// models are lost, not broken: the failure is that load's, and they are read again when shown.
// (Found by CI: which worker a trace landed in depended on the machine's load.)
describe('a trace whose worker another load killed', () => {
  it('with one worker: the trace shown before is read again when shown, its views answer', async () => {
    const [good, dies] = copies('first.json.gz', 'killer.json.gz');
    const { page, context, errors } = await pageWithFaults({ 'killer.json.gz': { kind: 'throw', phase: 'steps' } }, undefined, {}, 1);
    try {
      await page.setInputFiles('[data-testid=file-input]', good);
      assert.equal(await settled(page, 'first.json.gz'), 'done');
      await answers(page, 'first.json.gz');
      assert.equal(await page.getAttribute(card('first.json.gz'), 'data-model'), 'loaded');
      // The second file loads into the same (only) worker and kills it.
      await page.setInputFiles('[data-testid=file-input]', dies);
      await failedCard(page, 'killer.json.gz', 'died');
      assert.equal(await page.getAttribute('[data-testid=analysis]', 'data-pool'), '1');
      // The first trace's card offers no "Try again": its model is read again once it is shown.
      await showTrace(page, 'first.json.gz');
      await page.waitForSelector(`${card('first.json.gz')}[data-model=loaded]`, { timeout: 60_000 });
      assert.equal(await page.$(`${card('first.json.gz')} [data-testid=file-reread][data-state=failed]`), null);
      assert.equal(await page.getAttribute('[data-testid=analysis]', 'data-rereads'), '1');
      await answers(page, 'first.json.gz');
      onlyExpected(errors, [/Test fault: the analysis worker dies/]);
    } finally {
      await context.close();
    }
  });
});

// Issue 21: a 10 GB load stopped at 55 % and said nothing, for minutes: the trace worker waited for
// its reader's next chunk, answering every ping, so the worker watchdog saw it alive. The page's
// load watch (web/src/worker/load-watch.ts) watches what the load delivers instead.
describe('a load whose bytes stop coming', () => {
  it('a reader that stops sending: the bar stops showing a time left, then one sentence; Retry loads it', async () => {
    // 24 MiB: more than the four 4 MB chunks the reader may send ahead, so bytes are left when it stops.
    const f = path.join(site.tmp, 'reader-stops.json');
    execFileSync('node', [path.join(repo, 'scripts', 'gen-trace.mjs'), '--size', '24M', '--out', f], { stdio: 'ignore' });
    // The reader is told to send nothing more once the first chunk came ("stall"); it stays alive.
    const { page, context, errors } = await pageWithFaults({ 'reader-stops.json': { kind: 'stall', phase: 'reading' } }, undefined, {
      loadWatch: { stillMs: 1_000, readStallMs: 6_000 },
    });
    try {
      await page.setInputFiles('[data-testid=file-input]', f);
      // Progress that stops does not look like progress: no rate, no time left, but how long nothing came.
      const still = await page.waitForSelector('[data-testid=progress] [data-testid=progress-still]', { timeout: 60_000 });
      assert.match(await still.textContent(), /^nothing has come for \d+ s$/);
      assert.equal(await page.$('[data-testid=progress] [data-testid=progress-eta]'), null, 'no time left while nothing moves');
      assert.equal(await page.$('[data-testid=progress] [data-testid=progress-rate]'), null, 'no rate while nothing moves');
      const read = Number(await page.getAttribute('[data-testid=progress] [role=progressbar]', 'data-read'));
      assert.ok(read > 0 && read < fs.statSync(f).size, `stopped part-way (${read} bytes)`);
      assert.equal(await settled(page, 'reader-stops.json'), 'failed');
      const c = card('reader-stops.json');
      await page.waitForSelector(`${c} [data-testid=load-failure][data-failure=read-stall]`);
      const text = (await page.textContent(`${c} [data-testid=failure-message]`)).trim();
      assert.match(
        text,
        /^Reading the file stopped at [\d.]+ MiB of 24\.0 MiB: no bytes came for \d+ s, so the load was stopped; nothing of the file could be shown; retry, or use the command line \(kinetoscope overview reader-stops\.json\), which reads the file without the browser\.$/,
      );
      // One worker read it: no "Open with one worker" (that is Retry).
      assert.equal(await page.$(`${c} [data-testid=retry-one-worker]`), null);
      // The navigator's row says the same sentence.
      await retried(page, 'reader-stops.json');
      onlyExpected(errors, []);
    } finally {
      await context.close();
    }
  });
});
