// `scripts/bench --snapshot --page`: a CUDA allocator snapshot opened in the page (web/dist in
// Debian's Chromium, 1440x900, one file picked): seconds from the pick to the active memory
// timeline drawn (its canvas ready, then a frame), then each zoom (the zoom-in button, then the
// zoom-out button back) from the click to the new window drawn. Prints one JSON line.
// usage: node scripts/bench-snapshot-page.mjs FILE [--zooms 6] [--timeout-s 300]
import path from 'node:path';
import { card, launch, openPage, pickFiles, serveDist } from '../tests/e2e/helpers.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  return v;
};
const zooms = opt('--zooms', 6), timeout = opt('--timeout-s', 300) * 1000;
const file = args[0];
if (!file) throw new Error('usage: bench-snapshot-page.mjs FILE [--zooms N] [--timeout-s S]');
const name = path.basename(file);
const server = await serveDist();
const browser = await launch();
const out = { file: name };
try {
  const { page, errors } = await openPage(browser, server.url);
  await page.setViewportSize({ width: 1440, height: 900 });
  const cv = `${card(name)} [data-testid=snapshot-timeline-canvas]`;
  const win = `${card(name)} [data-testid=snapshot-window]`;
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  let t0 = performance.now();
  await pickFiles(page, [file]);
  await page.waitForSelector(`${cv}[data-ready=true]`, { timeout });
  await frame();
  out.open_to_timeline_s = +((performance.now() - t0) / 1000).toFixed(2);
  out.columns = await page.$eval(cv, (c) => c.clientWidth);
  // Zooms in around the middle, then back out: each from the click to the window drawn.
  const zoom = async (testid) => {
    const before = await page.getAttribute(win, 'data-to');
    const t = performance.now();
    await page.click(`${card(name)} [data-testid=${testid}]`);
    await page.waitForFunction(
      ([w, c, b]) => document.querySelector(w)?.getAttribute('data-to') !== b && document.querySelector(c)?.getAttribute('data-ready') === 'true',
      [win, cv, before],
      { timeout },
    );
    await frame();
    return +(performance.now() - t).toFixed(1);
  };
  out.zoom_in_ms = [];
  out.zoom_out_ms = [];
  for (let k = 0; k < zooms; k++) out.zoom_in_ms.push(await zoom('snapshot-zoom-in'));
  for (let k = 0; k < zooms; k++) out.zoom_out_ms.push(await zoom('snapshot-zoom-out'));
  const all = [...out.zoom_in_ms, ...out.zoom_out_ms].sort((a, b) => a - b);
  out.zoom_ms_median = all[Math.floor(all.length / 2)];
  out.errors = errors;
} finally {
  await browser.close();
  await server.close();
}
console.log(JSON.stringify(out));
