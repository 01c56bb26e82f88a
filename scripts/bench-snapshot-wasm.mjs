// `scripts/bench --snapshot --wasm`: a CUDA allocator snapshot through the wasm core in Node (the
// code the page's worker runs), as the Snapshot page opens it: read in 4 MB chunks
// (prepare/commit), the page's first answers (summary, ooms, sites, the timeline's bands and
// columns of the whole history, the peak by site and as a tree), then zooms (each halving the
// window around its middle) and pans, the timeline's two answers per window as the page asks
// them. Prints one JSON line: seconds and the heap (HEAPU8.length: a wasm heap never shrinks, so
// it is the peak) after reading and with the views built, and each window's milliseconds.
// usage: node scripts/bench-snapshot-wasm.mjs MODULE FILE [--width 1360] [--height 320] [--zooms 8] [--pans 4]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return Number(v);
};
const width = opt('--width', 1360), height = opt('--height', 320), zooms = opt('--zooms', 8), pans = opt('--pans', 4);
const [modPath, file] = args;
if (!modPath || !file) throw new Error('usage: bench-snapshot-wasm.mjs MODULE FILE [--width N] [--height N] [--zooms N] [--pans N]');
const require = createRequire(import.meta.url);
const mod = await require(path.resolve(modPath))();
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

const size = fs.statSync(file).size;
const fd = fs.openSync(file, 'r');
const chunk = Buffer.alloc(4 << 20);
const s = new mod.SnapshotSession();
s.setFile(path.basename(file));
s.setTotalSize(size);
let t0 = process.hrtime.bigint();
for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0 && !s.failed(); ) {
  const off = s.prepare(n);
  mod.HEAPU8.set(chunk.subarray(0, n), off); // HEAPU8 re-read after prepare: memory may have grown
  s.commit(n);
}
s.finish();
fs.closeSync(fd);
const out = { file: path.basename(file), bytes: size, read_s: ms(t0) / 1e3, heap_after_reading: mod.HEAPU8.length };
if (s.failed()) throw new Error(s.error());

const q = (view, params) => {
  const a = s.query(view, params);
  if (a.error) throw new Error(`${view}: ${a.error}`);
  return a;
};
const base = { width: String(width), height: String(height) };
t0 = process.hrtime.bigint();
const sum = q('snapshot-summary', {});
q('snapshot-ooms', {});
q('snapshot-sites', {});
out.summary_ms = ms(t0);
t0 = process.hrtime.bigint();
const cols = q('snapshot-timeline-columns', base);
q('snapshot-timeline', base);
out.timeline_ms = ms(t0);
out.entries = JSON.parse(cols.meta).entries; // meta: the metadata's JSON text

out.open_s = out.read_s + (out.summary_ms + out.timeline_ms) / 1e3;
t0 = process.hrtime.bigint();
q('snapshot-peak', {});
q('snapshot-peak-tree', {});
out.peak_views_ms = ms(t0);
out.heap_with_views = mod.HEAPU8.length;
out.devices = sum.rowCount;

// Zoom in around the middle, then pan by a third of the window.
const windows = [];
let from = 0, to = out.entries + 1;
for (let k = 0; k < zooms + pans; k++) {
  const span = to - from;
  if (k < zooms) {
    from += span / 4;
    to -= span / 4;
  } else {
    from += span / 3;
    to += span / 3;
  }
  const p = { ...base, from: String(from), to: String(to) };
  t0 = process.hrtime.bigint();
  const b = q('snapshot-timeline', p);
  q('snapshot-timeline-columns', p);
  windows.push({ from: Math.round(from), to: Math.round(to), ms: +ms(t0).toFixed(1), bands: b.rowCount });
}
out.windows = windows;
const sorted = windows.map((w) => w.ms).sort((a, b) => a - b);
out.window_ms_median = sorted[Math.floor(sorted.length / 2)];
out.heap_end = mod.HEAPU8.length;
console.log(JSON.stringify(out));
