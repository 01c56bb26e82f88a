// Opening a folder of runs: the folder picker (webkitdirectory) and a real folder drop (a drag
// driven through the DevTools protocol, with a directory path, as the OS hands it over) both walk
// the folder, open only the files named as tb_plugin names traces, label each card with its run,
// worker and span rank, and say how many other files were skipped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import { card, expectedFor, hasShared, navRows, openSite, readCard, repo, sampleTrace, settled, shared, sharedTraces, withCheckedPage } from './helpers.mjs';

const { server, browser, tmp } = await openSite({ tmp: true });

// logs/run1: two workers, worker1 with two spans ("100" sorts before "20" as a string: rank 1);
// logs/run2: one worker without a span; plus files that are not traces.
const logs = path.join(tmp, 'logs');
const small = path.join(repo, 'tests', 'data', 'gpu-metrics-by-hand.json');
const layout = {
  'run1/worker0.20.pt.trace.json.gz': fs.readFileSync(sampleTrace),
  'run1/worker1.20.pt.trace.json': zlib.gunzipSync(fs.readFileSync(sampleTrace)),
  'run1/worker1.100.pt.trace.json': fs.readFileSync(small),
  'run1/notes.txt': Buffer.from('not a trace'),
  'run2/host_7.pt.trace.json': fs.readFileSync(small),
  'run2/config.json': Buffer.from('{"lr": 0.1}'),
};
for (const [rel, bytes] of Object.entries(layout)) {
  fs.mkdirSync(path.dirname(path.join(logs, rel)), { recursive: true });
  fs.writeFileSync(path.join(logs, rel), bytes);
}
// The navigator's order (run, worker, span 1..n) with each trace's place and the label its card shows.
const expected = [
  { file: 'worker0.20.pt.trace.json.gz', run: 'logs/run1', worker: 'worker0', span: '1', label: 'run logs/run1 · worker worker0 · span 20' },
  { file: 'worker1.100.pt.trace.json', run: 'logs/run1', worker: 'worker1', span: '1', label: 'run logs/run1 · worker worker1 · span 1 of 2' },
  { file: 'worker1.20.pt.trace.json', run: 'logs/run1', worker: 'worker1', span: '2', label: 'run logs/run1 · worker worker1 · span 2 of 2' },
  { file: 'host_7.pt.trace.json', run: 'logs/run2', worker: 'host_7', span: '', label: 'run logs/run2 · worker host_7' },
];
// The navigator's rows: each run, worker1 as a group of its two spans (span 1 before span 2).
const expectedRows = [
  'run logs/run1',
  'trace worker0.20.pt.trace.json.gz',
  'worker worker1',
  'trace worker1.100.pt.trace.json',
  'trace worker1.20.pt.trace.json',
  'run logs/run2',
  'trace host_7.pt.trace.json',
];
const sources = {
  'worker0.20.pt.trace.json.gz': sampleTrace,
  'worker1.100.pt.trace.json': small,
  'worker1.20.pt.trace.json': sampleTrace,
  'host_7.pt.trace.json': small,
};

async function checkCards(page) {
  for (const e of expected) assert.equal(await settled(page, e.file), 'done', `${e.file} loads`);
  const rows = await navRows(page);
  assert.deepEqual(rows.map((r) => `${r.kind} ${r.kind === 'run' ? r.run : r.kind === 'worker' ? r.worker : r.file}`), expectedRows);
  const traces = rows.filter((r) => r.kind === 'trace');
  assert.deepEqual(traces.map(({ file, run, worker, span }) => ({ file, run, worker, span })), expected.map(({ file, run, worker, span }) => ({ file, run, worker, span })));
  // The span rows say their rank.
  assert.deepEqual(traces.filter((r) => r.worker === 'worker1').map((r) => r.text.includes(`span ${r.span}`)), [true, true]);
  // Each card, once shown, says its place and shows its own file's numbers (not another worker's).
  for (const e of expected) {
    await settled(page, e.file);
    const l = await page.$eval(`${card(e.file)} [data-testid=file-label]`, (l) => ({ run: l.dataset.run, worker: l.dataset.worker, span: l.dataset.span, label: l.textContent }));
    assert.deepEqual(l, { run: e.run, worker: e.worker, span: e.span, label: e.label });
    assert.equal((await readCard(page, e.file)).events, expectedFor(sources[e.file]).events, `${e.file}: events`);
  }
  // Once every trace has loaded, "Opening …" is put in the past (it stayed "Opening" for good);
  // what was skipped is still said.
  await page.waitForFunction(() => !/^Opening /.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''));
  const notice = await page.textContent('[data-testid=notice]');
  assert.equal(notice, 'Opened 4 traces from 2 runs; 2 other files were skipped (only <worker>[.<span>].pt.trace.json[.gz] files are traces).');
  assert.equal(await page.getAttribute('[data-testid=notice]', 'data-kind'), 'info', 'what was opened and skipped is information, not an error');
  assert.equal(await page.$(`[data-testid=nav-trace][data-file="config.json"]`), null, 'a non-trace file of the folder is not opened');
}

describe('a folder of runs', () => {
  it('"Choose folder…" opens its traces with their runs, workers and spans', async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setInputFiles('[data-testid=folder-input]', logs);
      await checkCards(page);
    });
  });

  it('dropping the folder does the same (the drop walks its entries)', async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const box = await page.locator('[data-testid=drop-zone]').boundingBox();
      const x = box.x + box.width / 2;
      const y = box.y + box.height / 2;
      const cdp = await page.context().newCDPSession(page);
      const data = { items: [], files: [logs], dragOperationsMask: 1 };
      await cdp.send('Input.dispatchDragEvent', { type: 'dragEnter', x, y, data });
      await cdp.send('Input.dispatchDragEvent', { type: 'dragOver', x, y, data });
      await cdp.send('Input.dispatchDragEvent', { type: 'drop', x, y, data });
      await checkCards(page);
    });
  });

  it('a folder without trace-named files opens its .json files instead and says so', async () => {
    const plain = path.join(tmp, 'plain');
    fs.mkdirSync(plain, { recursive: true });
    fs.copyFileSync(small, path.join(plain, 'trace.json'));
    fs.writeFileSync(path.join(plain, 'readme.md'), '# notes');
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setInputFiles('[data-testid=folder-input]', plain);
      assert.equal(await settled(page, 'trace.json'), 'done');
      assert.equal(await page.$(`${card('trace.json')} [data-testid=file-label]`), null, 'no run/worker label: not named as a trace');
      assert.match(await page.textContent('[data-testid=notice]'), /^No file in the dropped folder is named as a trace .* so its \.json and \.json\.gz files are opened instead\.$/);
    });
  });

  // tb_plugin's own reading of the real traces: for every run it loaded from a directory as it is,
  // ../shared/golden/tb_plugin lists the workers and their span ranks. Picking the whole traces
  // folder must label the cards of that run with the same workers and spans.
  it('the real traces folder gets tb_plugin\'s runs, workers and span ranks', { skip: !hasShared && 'no ../shared/traces' }, async () => {
    const goldenDir = path.join(shared, 'golden', 'tb_plugin');
    const expectedRuns = {};
    const walk = (dir) => {
      for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, f.name);
        if (f.isDirectory()) walk(p);
        else if (f.name.endsWith('.json')) {
          const run = JSON.parse(fs.readFileSync(p, 'utf8')).run;
          if (run?.run_dir_mode !== 'directory-as-is') continue;
          // The run's folder under traces/, as golden names it (tb_unit/<name> or <name>).
          const rel = path.relative(goldenDir, p).replace(/\.json$/, '');
          if (!fs.existsSync(path.join(sharedTraces, rel))) continue;
          expectedRuns[`traces/${rel}`] = Object.entries(run.spans_by_worker)
            .flatMap(([w, spans]) => spans.map((s) => `${w}/${s === 'default' ? '' : s}`))
            .sort();
        }
      }
    };
    walk(goldenDir);
    assert.ok(Object.keys(expectedRuns).length >= 10, 'golden lists the runs of the shared traces');
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setInputFiles('[data-testid=folder-input]', sharedTraces);
      await page.waitForSelector('[data-testid=nav-trace]');
      // The labels are what this test is about: stop the queued loads, then read the navigator.
      await page.click('[data-testid=cancel]').catch(() => {});
      const labels = (await navRows(page)).filter((r) => r.kind === 'trace');
      const shown = {};
      for (const l of labels) (shown[l.run] ??= []).push(`${l.worker}/${l.span}`);
      for (const [run, profiles] of Object.entries(expectedRuns)) {
        assert.deepEqual((shown[run] ?? []).sort(), profiles, `run ${run}: workers/spans as tb_plugin lists them`);
      }
    });
  });
});

