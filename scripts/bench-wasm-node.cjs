// One run of the wasm core in Node, as the browser worker does it: the file in 4 MB chunks
// through Session.prepare/commit, then finish() and query('summary').
// usage: node scripts/bench-wasm-node.cjs [--module build/wasm/kinetoscope_node.js]
//          [--overview] [--views] [--stats] FILE
// Prints one JSON line: {seconds, cpu_seconds, bytes, wasm_heap_bytes, max_rss_bytes, summary}.
// cpu_seconds is the process's user+system CPU time over the reading span: on a machine shared
// with other jobs it moves far less than the wall time, so compare builds by it.
// --overview: then the Overview as the page computes it (the overview view's answer: steps, breakdown, GPU
//   metrics, operator trees), adding overview_seconds and wasm_heap_after_overview_bytes.
// --views: then the Operators and Kernels tables too (views_seconds, wasm_heap_after_views_bytes).
// --stats: the heap per structure (Session.heapStatsJson) after reading and after each step
//   (heap_stats: {load, overview, views}).
// --phases: where the Overview's heap grows: for each part it reports (steps, step breakdown,
//   GPU metrics, operator trees, ...) the heap when it began and the most bytes in use seen at
//   the core's heartbeats inside it, and the most the allocator's chunks spanned (max_top: in use
//   plus the holes between, heap_top) (phases: [{phase, heap_at_start, max_in_use, max_top}]; the
//   heartbeat samples every 2^18 units of work, so a short-lived peak between two samples is missed).
// An abort in the Overview or the views (out of memory at 4 GB) is reported as `error` with
// `wasm_heap_at_error_bytes`, beside what was measured before it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const CHUNK = 4 << 20;

async function main() {
  const args = process.argv.slice(2);
  let modPath = path.join(__dirname, '..', 'build', 'wasm', 'kinetoscope_node.js');
  if (args[0] === '--module') { modPath = path.resolve(args[1]); args.splice(0, 2); }
  const flag = (name) => {
    const i = args.indexOf(name);
    if (i >= 0) args.splice(i, 1);
    return i >= 0;
  };
  const withViews = flag('--views');
  const withOverview = flag('--overview') || withViews;
  const withStats = flag('--stats');
  const withPhases = flag('--phases');
  const file = args[0];
  if (!file) throw new Error('usage: bench-wasm-node.cjs [--module M] FILE');

  const exported = require(path.resolve(modPath));
  const factory = typeof exported === 'function' ? exported
    : exported.createKinetoscope || exported.default;
  const mod = await factory();
  const s = new mod.Session();

  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let input = fs.createReadStream(file, { highWaterMark: CHUNK });
  if (file.endsWith('.gz')) input = input.pipe(zlib.createGunzip({ chunkSize: CHUNK }));
  let bytes = 0;
  for await (const chunk of input) {
    const off = s.prepare(chunk.length);
    mod.HEAPU8.set(chunk, off); // HEAPU8 re-read after prepare: memory may have grown
    s.commit(chunk.length);
    bytes += chunk.length;
    if (s.failed()) break;
  }
  s.finish();
  const summary = JSON.parse(s.queryJson('summary', {}));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const heap = mod.HEAPU8.length;
  const extra = {};
  const stats = withStats ? { load: JSON.parse(s.heapStatsJson()) } : null;
  const phases = [];
  if (withPhases) {
    const heapNow = () => JSON.parse(s.heapStatsJson());
    s.setProgress((phase) => {
      const h = heapNow();
      phases.push({ phase, heap_at_start: mod.HEAPU8.length, max_in_use: h.in_use, max_top: h.top });
    });
    mod.setHeartbeat(() => {
      const p = phases[phases.length - 1];
      if (!p) return;
      const h = heapNow();
      p.max_in_use = Math.max(p.max_in_use, h.in_use);
      p.max_top = Math.max(p.max_top, h.top);
    });
    extra.phases = phases;
  }
  // An abort (out of memory at the 4 GB limit) still prints what was measured up to it.
  const measureViews = () => {
    if (withOverview && !s.failed()) {
      const t1 = process.hrtime.bigint();
      JSON.parse(s.queryJson('overview', {}));
      extra.overview_seconds = Number(process.hrtime.bigint() - t1) / 1e9;
      extra.wasm_heap_after_overview_bytes = mod.HEAPU8.length;
      if (stats) stats.overview = JSON.parse(s.heapStatsJson());
    }
    if (withViews && !s.failed()) {
      const t2 = process.hrtime.bigint();
      if (withPhases) phases.push({ phase: 'views', heap_at_start: mod.HEAPU8.length, max_in_use: 0, max_top: 0 });
      s.query('operators', { group_by: 'op' });
      s.query('operators', { group_by: 'op+shape' });
      s.query('kernels', { group_by: 'name' });
      s.query('kernels', { group_by: 'props' });
      extra.views_seconds = Number(process.hrtime.bigint() - t2) / 1e9;
      extra.wasm_heap_after_views_bytes = mod.HEAPU8.length;
      if (stats) stats.views = JSON.parse(s.heapStatsJson());
    }
  };
  try {
    measureViews();
  } catch (e) {
    extra.error = String(e.message || e).split('\n')[0];
    extra.wasm_heap_at_error_bytes = mod.HEAPU8.length;
  }
  if (stats) extra.heap_stats = stats;
  if (withPhases && !extra.error) {
    const h = JSON.parse(s.heapStatsJson());
    phases.push({ phase: 'end', heap_at_start: mod.HEAPU8.length, max_in_use: h.in_use, max_top: h.top });
  }
  if (!extra.error) s.delete();
  process.stdout.write(JSON.stringify({
    seconds, cpu_seconds: cpuSeconds, bytes, wasm_heap_bytes: heap,
    max_rss_bytes: process.resourceUsage().maxRSS * 1024, ...extra, summary,
  }) + '\n');
}

main().catch((e) => { console.error(`bench-wasm-node: ${e.stack || e}`); process.exit(1); });
