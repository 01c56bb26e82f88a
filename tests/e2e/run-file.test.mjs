// Run files in the page (issue 27): `*.kinetoscope-run.json`, the reduce of a run made by
// kinetoscope-fleet, opened without any of its traces. The run file is made by the real fleet
// (scripts/kinetoscope-fleet --local 2, a Dask LocalCluster) where Python has Dask's distributed,
// else by the CLI's equivalent (rank-summary per trace, distributed --from-summaries, and its
// --gpu-time), from the repo's two-rank gloo run (plus a file that is no trace: a failed rank) and
// a few generated ranks. Checked in Chromium: the Distributed view's numbers equal
// `kinetoscope distributed --json`, the GPU time per rank equals `kinetoscope gpu-time --json` on
// each rank's trace, the failed rank is listed with its error, a rank row with a URL the page can
// fetch opens that trace, one without says how to open it, a bad run file gets one sentence, and
// a generated run of 1,024 ranks sorts and searches.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, describe, it } from 'node:test';
import { cli, cliHas, dist, dropFiles, launch, parseCsv, repo, settled, tmpDir, waitStatus, withCheckedPage } from './helpers.mjs';
import { expectedDistributed, readDistributed } from './view-checks.mjs';
import { genRunFile } from '../../scripts/gen-run-file.mjs';

const T = { timeout: 300_000 };
const FLEET = path.join(repo, 'scripts', 'kinetoscope-fleet');
const GLOO = path.join(repo, 'tests', 'data', 'h200_pt211', 'ddp_gloo2');
const skip = !cliHas('rank-summary') || !fs.existsSync(path.join(dist, 'index.html')) ? 'needs build/native/kinetoscope with rank-summary and web/dist' : false;
// The real fleet where this machine's Python has Dask's distributed (scripts/setup installs it).
const fleetReason = spawnSync('bash', ['-c', 'for p in python3 /usr/bin/python3; do "$p" -c "import distributed" 2>/dev/null && exit 0; done; exit 1']).status === 0
  ? null
  : "no python3 with Dask's distributed: the run files are made by the CLI's equivalent of the fleet";

const tmp = skip ? '' : tmpDir();
after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

const lines = (text) => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

/** The run file of the traces in `dir`, by the fleet or the CLI's equivalent of it. */
function makeRunFile(dir, out) {
  if (!fleetReason) {
    const r = spawnSync(FLEET, ['--local', '2', '--kinetoscope', cli, dir, '-o', out], { encoding: 'utf8' });
    assert.ok(fs.existsSync(out), `kinetoscope-fleet wrote no run file: ${r.stderr}`);
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  }
  const names = fs.readdirSync(dir).filter((n) => /\.pt\.trace\.json(\.gz)?$/.test(n)).sort();
  const sums = fs.mkdtempSync(path.join(tmp, 'sums-'));
  const ranks = names.map((n) => {
    const file = path.join(dir, n);
    const x = JSON.parse(spawnSync(cli, ['rank-summary', '--json', '-o', sums, file], { encoding: 'utf8' }).stdout.trim());
    return x.status === 'ok'
      ? { file, rank: x.rank, world_size: x.world_size, status: x.problems.length ? 'partial' : 'ok', error: x.problems.length ? x.problems.join('; ') : null, steps: x.steps, calls: x.calls }
      : { file, rank: null, world_size: null, status: 'failed', error: x.error, steps: null, calls: null };
  });
  const reduce = (extra) => lines(spawnSync(cli, ['distributed', '--from-summaries', '--json', ...extra, sums], { encoding: 'utf8' }).stdout);
  const run = {
    kinetoscope_run: 1,
    version: execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim(),
    mode: 'default',
    sources: [dir],
    distributed: reduce([]),
    gpu_time: reduce(['--gpu-time']),
    reduce_error: null,
    ranks,
    failed: ranks.filter((r) => r.status === 'failed').length,
  };
  fs.writeFileSync(out, JSON.stringify(run) + '\n');
  return run;
}

/** web/dist under /kinetoscope/ and the test's folder under /data/, one origin (a rank's URL the page may fetch). */
async function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const [root, prefix] = url.pathname.startsWith('/data/') ? [tmp, '/data/'] : [dist, '/kinetoscope/'];
    const file = path.resolve(root, decodeURIComponent(url.pathname.slice(prefix.length)) || 'index.html');
    if (!url.pathname.startsWith(prefix) || !file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.webmanifest': 'application/manifest+json' };
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': fs.statSync(file).size, 'Cache-Control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, page: `${origin}/kinetoscope/`, close: () => new Promise((r) => server.close(r)) };
}

const site = skip ? null : { server: await serve(), browser: await launch() };
after(async () => {
  if (!site) return;
  await site.browser.close();
  await site.server.close();
});

/** The run page of a run file, once drawn. */
async function runPage(page) {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.waitForSelector('[data-testid=run-page][data-state=run-file] [data-testid=distributed]', { timeout: 60_000 });
}

/** A table's rows as the CSV export gives them (raw numbers, every column), as objects by header. */
async function exportRows(page, stem) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${stem}-export]`)]);
  const [head, ...rows] = parseCsv(fs.readFileSync(await download.path(), 'utf8')).filter((r) => r.length > 1);
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}
const num = (v) => (v === '' || v == null ? null : Number(v));

describe('run files (kinetoscope-fleet) in the page', { skip }, () => {
  if (fleetReason) console.log(`# ${fleetReason}`);

  it("the two-rank gloo run with a failed rank: the Distributed view and the GPU time per rank equal the CLI's", T, async () => {
    const dir = path.join(tmp, 'gloo');
    fs.cpSync(GLOO, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'broken.pt.trace.json'), 'this is not a trace\n');
    const out = path.join(tmp, 'gloo.kinetoscope-run.json');
    const run = makeRunFile(dir, out);
    const traces = fs.readdirSync(GLOO).sort().map((n) => path.join(GLOO, n));
    const cliSpan = lines(execFileSync(cli, ['distributed', '--json', ...traces], { encoding: 'utf8' }))[0];
    assert.deepEqual(run.distributed, [cliSpan], 'the run file holds what distributed --json prints');

    await withCheckedPage(site.browser, site.server.page, async (page) => {
      await dropFiles(page, [out]);
      await runPage(page);
      assert.match(await page.textContent('[data-testid=run-counts]'), /^Run file: 3 ranks · 1 failed \(left out\)/);
      const failed = await page.textContent('[data-testid=run-failed-rank]');
      const broken = run.ranks.find((r) => r.status === 'failed');
      assert.ok(failed.includes('broken.pt.trace.json') && failed.includes(broken.error), `the failed rank and its error: ${failed}`);

      // The Distributed view: as `kinetoscope distributed --json` on the traces, all steps and each step.
      assert.deepEqual(await readDistributed(page), expectedDistributed(cliSpan));
      for (const st of cliSpan.steps) {
        await page.selectOption('[data-testid=dist-step]', st);
        await page.waitForSelector(`[data-testid=distributed][data-step="${st}"]`);
        assert.deepEqual(await readDistributed(page), expectedDistributed(cliSpan, st), `step ${st}`);
      }
      await page.selectOption('[data-testid=dist-step]', 'all');

      // GPU time per rank: each rank's trace row is `kinetoscope gpu-time --json` on its trace.
      const ranks = await exportRows(page, 'run-gpu');
      assert.equal(ranks.length, 2);
      for (const f of traces) {
        const g = lines(execFileSync(cli, ['gpu-time', '--json', f], { encoding: 'utf8' }))[0];
        const row = ranks.find((r) => num(r.Rank) === g.rank);
        assert.ok(row, `rank ${g.rank} listed`);
        const t = g.rows[0];
        assert.equal(num(row['GPU span (first to last GPU event) (us)']), t.span_us, `rank ${g.rank} span`);
        assert.equal(num(row['Idle time (us)']), t.idle_us, `rank ${g.rank} idle`);
        assert.equal(num(row['Idle share (%)']), t.idle_pct, `rank ${g.rank} idle %`);
        assert.equal(num(row['Compute time (us)']), t.compute_us, `rank ${g.rank} compute`);
        assert.equal(num(row['Non-compute time (communication, copies, syncs not under compute) (us)']), t.non_compute_us, `rank ${g.rank} non-compute`);
        assert.equal(num(row['Communication overlapped by computation, HTA (%)']), g.comm_comp_overlap_pct, `rank ${g.rank} overlap`);
        // And its steps, in the step table.
        const steps = (await exportRows(page, 'run-steps')).filter((r) => num(r.Rank) === g.rank);
        assert.equal(steps.length, g.rows.length - 1, `rank ${g.rank} steps`);
        for (const s of g.rows.slice(1)) {
          const r = steps.find((x) => x.Step === s.step);
          assert.equal(num(r['GPU idle time (us)']), s.idle_us, `rank ${g.rank} step ${s.step} idle`);
          assert.equal(num(r['Compute time (us)']), s.compute_us, `rank ${g.rank} step ${s.step} compute`);
          assert.ok(num(r['Step time (us)']) > s.span_us - 1e-6, `rank ${g.rank} step ${s.step}: its window holds its GPU span`);
        }
      }
      // Sortable and searchable: by idle share, then one worker.
      await page.click('[data-testid=run-gpu-header-idle_pct]');
      await page.fill('[data-testid=run-gpu-search]', 'gloo_rank1');
      await waitStatus(page, '[data-testid=run-gpu-ranks]', 'run-gpu', '1 of 2 rows');
      await page.screenshot({ path: path.join(tmp, 'run-file-gloo.png'), fullPage: false });
    });
  });

  it('a gzipped run file under another name is told by its content', T, async () => {
    const src = path.join(tmp, 'gloo.kinetoscope-run.json');
    assert.ok(fs.existsSync(src), 'made by the first test');
    const renamed = path.join(tmp, 'job42-results.json.gz');
    fs.writeFileSync(renamed, zlib.gzipSync(fs.readFileSync(src)));
    await withCheckedPage(site.browser, site.server.page, async (page) => {
      await dropFiles(page, [renamed]);
      await runPage(page);
      assert.match(await page.textContent('[data-testid=run-counts]'), /^Run file: 3 ranks · 1 failed \(left out\)/);
      assert.equal(await page.$('[data-testid=nav-trace]'), null, 'not opened as a trace');
    });
  });

  it("a rank's row opens its trace from a URL the page can fetch (?url= to the run file), else says how", T, async () => {
    const dir = path.join(tmp, 'gen');
    execFileSync('node', [path.join(repo, 'scripts', 'gen-trace.mjs'), '--size', '300K', '--ranks', '4', '--out', dir], { stdio: 'ignore' });
    const out = path.join(tmp, 'gen.kinetoscope-run.json');
    const run = makeRunFile(dir, out);
    assert.equal(run.ranks.length, 4);
    // Rank 2's trace by URL on the page's own origin; the others keep their paths.
    const two = run.ranks.find((r) => r.rank === 2);
    const name = path.basename(two.file);
    two.file = `${site.server.origin}/data/gen/${name}`;
    fs.writeFileSync(out, JSON.stringify(run));
    const url = `${site.server.page}?url=${encodeURIComponent(`${site.server.origin}/data/gen.kinetoscope-run.json`)}`;
    await withCheckedPage(site.browser, url, async (page) => {
      await runPage(page);
      assert.match(await page.textContent('[data-testid=run-counts]'), /^Run file: 4 ranks/);
      // A rank whose trace is a path: one sentence saying where and how.
      await page.fill('[data-testid=run-ranks-search]', 'rank1.');
      await waitStatus(page, '[data-testid=run-ranks]', 'run-ranks', '1 of 4 rows');
      await page.click('[data-testid=run-ranks-row]');
      const how = await page.textContent('[data-testid=run-rank-how]');
      assert.equal(how, `This rank's trace is at ${run.ranks.find((r) => r.rank === 1).file} on the machine that ran kinetoscope-fleet: copy it here and drop it on the page to open it.`);
      // Rank 2's trace by its URL: opened in the page, its card loads.
      await page.fill('[data-testid=run-ranks-search]', '/data/gen/');
      await waitStatus(page, '[data-testid=run-ranks]', 'run-ranks', '1 of 4 rows');
      await page.click('[data-testid=run-ranks-row]');
      await page.click('[data-testid=run-rank-open-button]');
      assert.equal(await settled(page, name), 'done');
      // The run file is a click away again.
      await page.click('[data-testid=run-file-show]');
      await page.waitForSelector('[data-testid=run-page][data-state=run-file]');
    });
  });

  it("a run of loaded traces (a folder): its run page's GPU time per rank is `gpu-time --json` on each trace", T, async () => {
    const dir = path.join(tmp, 'folder', 'gloo');
    fs.cpSync(GLOO, dir, { recursive: true });
    const traces = fs.readdirSync(GLOO).sort().map((n) => path.join(GLOO, n));
    await withCheckedPage(site.browser, site.server.page, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.setInputFiles('[data-testid=folder-input]', dir);
      await page.click('[data-testid=nav-run][data-run="gloo"]', { timeout: 120_000 });
      await page.waitForSelector('[data-testid=run-page][data-state=ready] [data-testid=run-gpu-row]', { timeout: 120_000 });
      const ranks = await exportRows(page, 'run-gpu');
      const steps = await exportRows(page, 'run-steps');
      assert.equal(ranks.length, 2);
      for (const f of traces) {
        const g = lines(execFileSync(cli, ['gpu-time', '--json', f], { encoding: 'utf8' }))[0];
        const row = ranks.find((r) => num(r.Rank) === g.rank);
        const t = g.rows[0];
        assert.equal(num(row['GPU span (first to last GPU event) (us)']), t.span_us, `rank ${g.rank} span`);
        assert.equal(num(row['Idle time (us)']), t.idle_us, `rank ${g.rank} idle`);
        assert.equal(num(row['Idle share (%)']), t.idle_pct, `rank ${g.rank} idle %`);
        assert.equal(num(row['Compute share (%)']), t.compute_pct, `rank ${g.rank} compute %`);
        assert.equal(num(row['Non-compute share (%)']), t.non_compute_pct, `rank ${g.rank} non-compute %`);
        assert.equal(num(row['Communication overlapped by computation, HTA (%)']), g.comm_comp_overlap_pct, `rank ${g.rank} overlap`);
        const mine = steps.filter((r) => num(r.Rank) === g.rank);
        assert.deepEqual(mine.map((r) => [r.Step, num(r['GPU idle time (us)']), num(r['Non-compute time (us)'])]).sort(),
          g.rows.slice(1).map((s) => [s.step, s.idle_us, s.non_compute_us]).sort(), `rank ${g.rank} steps`);
      }
    });
  });

  it('a bad run file gets one sentence', T, async () => {
    const cases = [
      ['damaged.kinetoscope-run.json', '{"kinetoscope_run": 1, "distributed": 5, "ranks": []}', 'damaged.kinetoscope-run.json is a damaged run file: its "distributed" or "ranks" list is missing or not a list of objects.'],
      ['cut.kinetoscope-run.json', '{"kinetoscope_run": 1, "distributed": [{"span": "def', /^cut\.kinetoscope-run\.json is not a readable Kinetoscope run file: its JSON is broken \(.+\); write it again with kinetoscope-fleet\.$/],
      ['future.kinetoscope-run.json', '{"kinetoscope_run": 7, "distributed": [], "ranks": []}', 'future.kinetoscope-run.json is a run file of format 7; this page reads format 1: open it with the Kinetoscope that wrote it.'],
    ];
    await withCheckedPage(site.browser, site.server.page, async (page) => {
      for (const [name, body, want] of cases) {
        const f = path.join(tmp, name);
        fs.writeFileSync(f, body);
        await dropFiles(page, [f]);
        await page.waitForSelector('[data-testid=notice][data-kind=error]');
        const text = await page.textContent('[data-testid=notice]');
        if (typeof want === 'string') assert.equal(text, want);
        else assert.match(text, want);
        assert.equal(await page.$('[data-testid=run-page]'), null, 'no run page for a bad run file');
        await page.click('[data-testid=notice-close]');
      }
    });
  });

  it('a generated run of 1,024 ranks: drawn, sorted and searched', T, async () => {
    const out = path.join(tmp, 'big.kinetoscope-run.json');
    const run = genRunFile({ ranks: 1024, steps: 4, failed: 3 });
    fs.writeFileSync(out, JSON.stringify(run));
    await withCheckedPage(site.browser, site.server.page, async (page) => {
      await dropFiles(page, [out]);
      await runPage(page);
      assert.match(await page.textContent('[data-testid=run-counts]'), /^Run file: 1,024 ranks · 3 failed \(left out\)/);
      await waitStatus(page, '[data-testid=run-gpu-ranks]', 'run-gpu', '1,021 rows');
      // The Distributed view's per-worker tables are windowed too: every worker listed, few rows in the page.
      await waitStatus(page, '[data-testid=dist-devices]', 'dist-devices', '1,021 rows');
      await waitStatus(page, '[data-testid=dist-overlap]', 'overlap-numbers', '1,021 rows');
      const inPage = await page.$$eval('[data-testid=dist-devices-row], [data-testid=overlap-numbers-row], [data-testid=waittime-numbers-row]', (r) => r.length);
      assert.ok(inPage < 300, `${inPage} per-worker rows in the page`);
      // Sorted by idle share (a number column: highest first), then lowest first: the first row
      // is the data's maximum, then its minimum.
      await page.click('[data-testid=run-gpu-header-idle_pct]');
      assert.equal(await page.getAttribute('[data-testid=run-gpu-header-idle_pct]', 'aria-sort'), 'descending');
      const trace = run.gpu_time[0].rows.filter((r) => r.scope === 'trace');
      const top = trace.reduce((a, b) => (b.idle_pct > a.idle_pct ? b : a));
      const first = (w) => page.waitForFunction((w) => document.querySelector('[data-testid=run-gpu-ranks] [data-testid=run-gpu-row] td')?.textContent === w, w);
      await first(top.worker);
      await page.click('[data-testid=run-gpu-header-idle_pct]');
      await first(trace.reduce((a, b) => (b.idle_pct < a.idle_pct ? b : a)).worker);
      await page.fill('[data-testid=run-gpu-search]', 'rank1000');
      await waitStatus(page, '[data-testid=run-gpu-ranks]', 'run-gpu', '1 of 1,021 rows');
      await page.fill('[data-testid=run-ranks-search]', 'failed');
      await waitStatus(page, '[data-testid=run-ranks]', 'run-ranks', '3 of 1,024 rows');
    });
  });
});
