// The GPU time tab on a big trace in the page (issue 24 "Scale and speed"): from the tab clicked,
// once the Overview is complete, to each of its sections drawn, and the native CLI's gpu-time on
// the same file.
//   node scripts/bench-gpu-time.mjs [--file TRACE] [--runs N] [--after DIST]
// TRACE: by default /tmp/kinetoscope-bench/gpu-time-1G.json, made once with `gen-trace --size 1G
// --from` the H100 ViT trace of ../shared (a PyTorch 2.11 trace: the modern shape). Each run: a
// fresh page at 1440x900, the file given, the Overview complete (the load's own answers), then
// the GPU time tab clicked and, per section, the time to the first frame painted with it ready
// (its data-ready section; the queue section's charts and the launch-delay histogram drawn as
// well: no "-loading" line left in the tab). Prints a markdown table of medians.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildsInTurns, median, option, printTable, root, sidesFrom } from './bench-common.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const runs = Number(opt('--runs', '3'));
const sides = sidesFrom(args);
const log = (m) => process.stderr.write(`[bench-gpu-time] ${m}\n`);
const SOURCE = path.join(root, '..', 'shared', 'traces', 'h100_pt211', 'vit_timm', 'vit_timm_rank0.1795712510372129229.pt.trace.json.gz');

let file = opt('--file', '');
if (!file) {
  file = '/tmp/kinetoscope-bench/gpu-time-1G.json';
  if (!fs.existsSync(file)) {
    if (!fs.existsSync(SOURCE)) throw new Error(`no --file given and ${SOURCE} (the source of the default trace) is missing`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const r = spawnSync('node', [path.join(root, 'scripts', 'gen-trace.mjs'), '--size', '1G', '--from', SOURCE, '--out', file], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('gen-trace failed');
  }
}
file = path.resolve(file);

const SECTIONS = ['gpu-time-view', 'gpu-idle', 'gpu-kernels', 'gpu-recommendations', 'gpu-idle-gaps', 'gpu-critical-path', 'gpu-kernel-sequences', 'gpu-overlap', 'gpu-launches', 'gpu-queue'];

// In the page: from the tab's click to the first frame in which each section is ready, and to the
// frame in which all are and nothing in the tab says it is loading. (The page's CSP allows no
// eval: the selectors are data.)
async function timedTab(page, sections) {
  return page.evaluate(async (sections) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
    const tab = document.querySelector('[data-testid="tab-gpu-time"]');
    const t0 = performance.now();
    tab.click();
    const out = {};
    for (;;) {
      const t = await frame();
      const view = document.querySelector('[data-testid="gpu-time-view"][data-ready="true"]');
      for (const s of sections)
        if (out[s] == null && document.querySelector(`[data-testid="${s}"][data-ready="true"]`)) out[s] = t - t0;
      if (view && sections.every((s) => out[s] != null) && !view.querySelector('[data-testid$="-loading"]')) {
        out.all = t - t0;
        return out;
      }
      if (t - t0 > 600000) return out;
    }
  }, sections);
}

async function one(browser, url) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await ctx.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const t0 = Date.now();
    await page.locator('input[type=file]').first().setInputFiles(file);
    await page.waitForSelector('[data-testid=file-card][data-status=done] [data-testid="tab-gpu-time"]', { timeout: 900000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid=overview-pending]'), null, { timeout: 900000, polling: 200 });
    const overview = Date.now() - t0;
    return { overview, ...(await timedTab(page, SECTIONS)) };
  } finally {
    await ctx.close();
  }
}

// The CLI: the whole gpu-time --json (every analysis of the tab, the load included), wall time.
function cli() {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(path.join(root, 'build', 'native', 'kinetoscope'), ['gpu-time', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`kinetoscope gpu-time failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

await buildsInTurns(sides, runs, one, log);
const cliMs = [];
for (let i = 0; i < runs; i++) {
  cliMs.push(cli());
  log(`cli run ${i + 1}: ${cliMs.at(-1).toFixed(0)} ms`);
}
const keys = ['overview', ...SECTIONS, 'all'];
const label = { overview: 'drop → Overview (s)', 'gpu-time-view': 'temporal', all: 'every section drawn' };
console.log(`${path.basename(file)} (${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB), medians of ${runs} runs; page times from the GPU time tab's click, ms\n`);
printTable(
  ['build', ...keys.map((k) => label[k] ?? k.replace(/^gpu-/, ''))],
  sides.map((s) => [`${s.name} (${path.relative(root, s.dist) || s.dist})`, ...keys.map((k) => {
    const m = median(s.results.map((r) => r[k]));
    return k === 'overview' ? (m / 1000).toFixed(1) : m.toFixed(0);
  })]),
);
console.log(`\nCLI \`kinetoscope gpu-time --json\` (read + every analysis): median ${(median(cliMs) / 1000).toFixed(2)} s of ${runs}`);
