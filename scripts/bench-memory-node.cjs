// The Memory view's cost in the wasm core, in Node (scripts/bench --only memory): the trace is read
// as the worker reads it and the Overview computed (the operator trees the page builds at load),
// then the Memory view is built (records attributed to operators: the memory_devices answer) — its time,
// the bytes its index holds and how much the wasm heap grew — and the curve and tables are asked
// for the whole trace and for zoomed ranges (a tenth of the trace, at five places), as the page
// asks after a drag.
// usage: node scripts/bench-memory-node.cjs [--module build/wasm/kinetoscope_node.js] FILE
// Prints one JSON line.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const CHUNK = 4 << 20;
const COLUMNS = 1200; // about the curve's width in pixels at 1440x900

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const args = process.argv.slice(2);
  let modPath = path.join(__dirname, '..', 'build', 'wasm', 'kinetoscope_node.js');
  if (args[0] === '--module') { modPath = path.resolve(args[1]); args.splice(0, 2); }
  const file = args[0];
  if (!file) throw new Error('usage: bench-memory-node.cjs [--module M] FILE');
  const exported = require(path.resolve(modPath));
  const mod = await (typeof exported === 'function' ? exported : exported.createKinetoscope || exported.default)();
  const s = new mod.Session();
  let input = fs.createReadStream(file, { highWaterMark: CHUNK });
  if (file.endsWith('.gz')) input = input.pipe(zlib.createGunzip({ chunkSize: CHUNK }));
  for await (const chunk of input) {
    const off = s.prepare(chunk.length);
    mod.HEAPU8.set(chunk, off);
    s.commit(chunk.length);
    if (s.failed()) break;
  }
  s.finish();
  const summary = JSON.parse(s.queryJson('summary', {}));
  s.queryJson('overview', {});
  const heapBefore = mod.HEAPU8.length;
  let t0 = process.hrtime.bigint();
  const query = (view, params) => {
    const a = s.query(view, params);
    if (a.error) throw new Error(a.error);
    return a;
  };
  const devices = JSON.parse(s.queryJson('memory_devices', {}));
  const buildMs = ms(t0);
  const heapAfter = mod.HEAPU8.length;
  const indexBytes = s.memoryIndexBytes();
  const out = { file: path.basename(file), events: summary.events, memory_events: summary.kinds.memory, build_ms: buildMs,
    index_bytes: indexBytes, heap_growth_bytes: heapAfter - heapBefore, devices: devices.devices.length };
  const dev = devices.default_device;
  if (dev) {
    t0 = process.hrtime.bigint();
    const whole = query('memory_curve', { device: dev, columns: String(COLUMNS) });
    out.curve_whole_ms = ms(t0);
    out.curve_whole_points = whole.rowCount;
    const end = whole.rowCount ? whole.columns.t_us[whole.rowCount - 1] : 0;
    const curve = [], tables = [];
    for (const f of [0.1, 0.3, 0.5, 0.7, 0.85]) {
      const a = end * f, b = a + end / 10;
      t0 = process.hrtime.bigint();
      const win = { device: dev, from_us: String(a), to_us: String(b) };
      const z = query('memory_curve', { ...win, columns: String(COLUMNS) });
      curve.push(ms(t0));
      out.curve_zoom_points = z.rowCount;
      t0 = process.hrtime.bigint();
      query('memory_stats', win);
      query('memory_events', win);
      tables.push(ms(t0));
    }
    out.curve_zoom_ms = median(curve);
    out.tables_zoom_ms = median(tables);
    out.device = dev;
    out.device_records = devices.devices.find((d) => d.device === dev).records;
  }
  s.delete();
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => { console.error(`bench-memory-node: ${e.stack || e}`); process.exit(1); });
