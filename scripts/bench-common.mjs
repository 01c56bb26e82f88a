// What the page benchmarks share (scripts/bench.mjs, bench-view-tables.mjs, bench-run-page.mjs):
// the repository root, Playwright's Chromium, the median, a static server on a free port, and
// "builds in turns" — one or two built sites measured run by run in one browser, so that a slow
// minute falls on both sides of a comparison.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const { chromium } = createRequire(path.join(root, 'web', 'package.json'))('playwright-core');

/** Debian's Chromium, headless, without the background work that would add noise (TOOLCHAIN.md). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** `--name value` from argv, else `dflt`. */
export function option(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
}

/** The median of the finite values; NaN when there are none. */
export function median(xs) {
  const v = xs.filter((x) => Number.isFinite(x)).sort((p, q) => p - q);
  if (!v.length) return NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/** scripts/static-server.py serving `dir` on a free port; resolves once it says where. */
export async function staticServer(dir = path.join(root, 'web', 'dist'), extra = []) {
  const p = spawn('python3', [path.join(root, 'scripts', 'static-server.py'), dir,
    '--port', '0', '--quiet', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    p.stdout.on('data', (d) => {
      buf += d;
      const m = /serving (http:\S+)/.exec(buf);
      if (m) resolve(m[1]);
    });
    p.on('exit', (c) => reject(new Error(`static server exited ${c}`)));
  });
  return { url, stop: () => p.kill() };
}

/** The sides `--before DIST` (when given) and `--after DIST` (web/dist by default) of a comparison. */
export function sidesFrom(args) {
  const sides = [];
  if (option(args, '--before')) sides.push({ name: 'before', dist: path.resolve(option(args, '--before')) });
  sides.push({ name: 'after', dist: path.resolve(option(args, '--after', path.join(root, 'web', 'dist')))});
  return sides;
}

/**
 * Serves each side's site and calls `one(browser, url)` `runs` times per side, the sides taking
 * turns run by run; each side gets `url` and `results` (what `one` returned, in order).
 */
export async function buildsInTurns(sides, runs, one, log) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const servers = [];
  try {
    for (const s of sides) {
      if (!fs.existsSync(path.join(s.dist, 'index.html'))) throw new Error(`${s.dist}/index.html is missing`);
      const srv = await staticServer(s.dist);
      servers.push(srv);
      s.url = srv.url;
      s.results = [];
    }
    for (let i = 0; i < runs; i++) {
      for (const s of sides) {
        const r = await one(browser, s.url);
        log(`${s.name} run ${i + 1}: ${JSON.stringify(r)}`);
        s.results.push(r);
      }
    }
  } finally {
    for (const srv of servers) srv.stop();
    await browser.close();
  }
}

/** Prints a markdown table: `head` the column titles, `rows` arrays of cells. */
export function printTable(head, rows) {
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}
