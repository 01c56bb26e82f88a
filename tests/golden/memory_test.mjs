// `kinetoscope memory --json --tb-plugin` against tb_plugin's own Memory view on every profile of
// ../shared/golden/tb_plugin that has one (profiles[].memory: stats, events, curve, and the same
// for the first step's window; internals.memory_raw): the time origin, devices and default
// device, every statistics row, every event row in tb_plugin's order, every curve point. tb_plugin
// serves sizes in KB / MB and times in ms through its display rounder (spec §13.6); ours are bytes
// and µs, so each of ours is rounded the same way and must equal theirs within 0.1 %, 1 µs or
// 1 byte (or the rounding step of the number tb_plugin printed). Then the default mode's
// deliberate differences (docs/compatibility.md). Skips without ../shared.
// usage: node tests/golden/memory_test.mjs build/native/kinetoscope
import { execFileSync } from 'node:child_process';
import { report } from './independent_count.mjs';
import { goldenProfiles, haveGoldens } from './tb_plugin_goldens.mjs';

const cli = process.argv[2];
if (!haveGoldens) {
  console.log('../shared/golden is absent: nothing to compare');
  console.log('0 passed, 0 failed, 1 skipped');
  process.exit(0);
}

const run = (args) => JSON.parse(execFileSync(cli, ['memory', '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }));

// tb_plugin's DisplayRounder(2): 2 decimals, or one significant digit below 0.01.
function rounder(v) {
  if (v === 0 || Math.abs(v) >= 0.01) return Number(v.toFixed(2));
  const k = Math.abs(Math.floor(Math.log10(Math.abs(v))));
  return Number(v.toFixed(k));
}
// The decimals tb_plugin printed `v` with: what our rounded value may differ by (Python rounds
// half to even on the exact binary value, JavaScript's toFixed half up).
const step = (v) => (v === 0 || Math.abs(v) >= 0.01 ? 0.01 : 10 ** Math.floor(Math.log10(Math.abs(v))));
// ours (bytes or µs) / unit against theirs (KB, MB or ms, as tb_plugin printed it); `abs` is 1 byte
// or 1 µs in tb_plugin's unit.
function near(ours, theirs, unit, abs) {
  if (ours === null || theirs === null) return ours === theirs;
  const v = ours / unit;
  const r = rounder(v);
  return Math.abs(r - theirs) <= Math.max(1e-9, 0.001 * Math.abs(theirs)) ||
    Math.abs(v - theirs) <= step(theirs) / 2 + abs + 1e-12;
}
const KB = 1024, MB = 1024 * 1024;

function compareStats(diffs, what, ours, theirs) {
  for (const [dev, rows] of Object.entries(theirs.rows ?? {})) {
    const mine = new Map((ours.stats[dev] ?? []).map((r) => [r.name, r]));
    if ((ours.stats[dev] ?? []).length !== rows.length) diffs.push(`${what} ${dev}: ${(ours.stats[dev] ?? []).length} rows vs ${rows.length}`);
    for (const [name, calls, inc, selfInc, cnt, selfCnt, size, selfSize] of rows) {
      const o = mine.get(name);
      if (!o) { diffs.push(`${what} ${dev}: no row ${name}`); continue; }
      if (o.calls !== calls) diffs.push(`${what} ${dev} ${name} calls ${o.calls} vs ${calls}`);
      if (o.allocation_count !== cnt || o.self_allocation_count !== selfCnt) diffs.push(`${what} ${dev} ${name} counts ${o.allocation_count}/${o.self_allocation_count} vs ${cnt}/${selfCnt}`);
      for (const [label, a, b] of [['size increase', o.size_increase_bytes, inc], ['self size increase', o.self_size_increase_bytes, selfInc],
        ['allocation size', o.allocation_size_bytes, size], ['self allocation size', o.self_allocation_size_bytes, selfSize]]) {
        if (!near(a, b, KB, 1 / KB)) diffs.push(`${what} ${dev} ${name} ${label} ${a} B vs ${b} KB`);
      }
    }
  }
  for (const dev of Object.keys(ours.stats)) {
    if (ours.stats[dev].length && !(dev in (theirs.rows ?? {}))) diffs.push(`${what}: ours has rows for ${dev}, tb_plugin none`);
  }
}

function compareEvents(diffs, what, ours, theirs) {
  for (const [dev, rows] of Object.entries(theirs.rows ?? {})) {
    const mine = ours.events[dev] ?? [];
    if (mine.length !== rows.length) diffs.push(`${what} ${dev}: ${mine.length} rows vs ${rows.length}`);
    rows.forEach(([op, size, alloc, release, duration], i) => {
      const o = mine[i];
      if (!o) return;
      const bad = o.operator !== op || !near(o.size_bytes, size, KB, 1 / KB) || !near(o.alloc_us, alloc, 1000, 1e-3) ||
        !near(o.release_us, release, 1000, 1e-3) || !near(o.duration_us, duration, 1000, 1e-3);
      if (bad) diffs.push(`${what} ${dev} row ${i}: ${JSON.stringify(o)} vs ${JSON.stringify([op, size, alloc, release, duration])}`);
    });
  }
}

const results = [];
let checked = 0;
for (const { name, profile: p, trace } of goldenProfiles()) {
  if (!p.memory || !trace) continue;
  checked++;
  const diffs = [];
  const got = run(['--tb-plugin', trace]);
  const { stats, events, curve } = p.memory;
  const raw = p.internals?.memory_raw;
  if (Math.abs(got.origin_us - curve.metadata.first_ts) > 1) diffs.push(`origin ${got.origin_us} vs ${curve.metadata.first_ts}`);
  // tb_plugin names the default device per table, from the devices that table has rows for: ours
  // is the first GPU with records, so it is compared with each table that has rows.
  for (const [table, body] of [['stats', stats], ['events', events], ['curve', curve]]) {
    if (Object.keys(body.rows ?? {}).length && got.default_device !== body.metadata.default_device) {
      diffs.push(`${table} default device ${got.default_device} vs ${body.metadata.default_device}`);
    }
  }
  if (raw) {
    const records = Object.fromEntries(got.devices.map((d) => [d.device, d.records]));
    if (JSON.stringify(records) !== JSON.stringify(raw.records_by_device)) diffs.push(`records ${JSON.stringify(records)} vs ${JSON.stringify(raw.records_by_device)}`);
    for (const [dev, peak] of Object.entries(raw.peak_total_allocated)) {
      const d = got.devices.find((x) => x.device === dev);
      if (d?.peak_allocated_bytes !== peak) diffs.push(`${dev} peak ${d?.peak_allocated_bytes} vs ${peak}`);
    }
  }
  compareStats(diffs, 'stats', got, stats);
  compareEvents(diffs, 'events', got, events);
  // The curve: tb_plugin's step plot after LTTB, in ms and MB.
  for (const [dev, rows] of Object.entries(curve.rows ?? {})) {
    const mine = got.curve[dev] ?? [];
    if (mine.length !== rows.length) diffs.push(`curve ${dev}: ${mine.length} points vs ${rows.length}`);
    rows.forEach(([t, a, r], i) => {
      const o = mine[i];
      if (o && !(Math.abs(o[0] / 1000 - t) <= 1e-3 + 1e-9 && Math.abs(o[1] / MB - a) <= 1 / MB && Math.abs(o[2] / MB - r) <= 1 / MB)) diffs.push(`curve ${dev} point ${i}: ${o} vs ${[t, a, r]}`);
    });
    const peak = got.devices.find((x) => x.device === dev)?.peak_allocated_bytes;
    const text = `Peak Memory Usage: ${(peak / MB).toFixed(1)}MB`;
    if (curve.metadata.peaks[dev] !== text) diffs.push(`peak ${text} vs ${curve.metadata.peaks[dev]}`);
  }
  for (const dev of Object.keys(got.curve)) {
    if (got.curve[dev].length && !(dev in (curve.rows ?? {}))) diffs.push(`curve: ours has points for ${dev}, tb_plugin none`);
  }
  results.push({ name: `${name} memory (whole trace)`, diffs: diffs.slice(0, 10) });

  // The golden's window (the first step, absolute µs as int()).
  const win = p.memory.window;
  if (win && win.start_ts > win.end_ts) {
    // A trace without host operators has tb_plugin's sentinel step (start +max, end -max): an
    // empty window. The CLI refuses a reversed window; tb_plugin's tables for it are empty.
    const empty = !Object.keys(win.stats.rows ?? {}).length && !Object.keys(win.events.rows ?? {}).length;
    results.push({ name: `${name} memory (reversed first-step window: empty)`, diffs: empty ? [] : ['tb_plugin has rows'] });
  } else if (win) {
    const wd = [];
    const from = win.start_ts - got.origin_us, to = win.end_ts - got.origin_us;
    const w = run(['--tb-plugin', '--from-us', String(from), '--to-us', String(to), trace]);
    compareStats(wd, 'window stats', w, win.stats);
    compareEvents(wd, 'window events', w, win.events);
    results.push({ name: `${name} memory (window ${from}..${to} us)`, diffs: wd.slice(0, 10) });
  }
}
if (!checked) results.push({ name: 'some golden profile has memory data', diffs: ['none found'] });

// Default mode (docs/compatibility.md): the same statistics and events as tb_plugin; traces
// without "Total Allocated" (PyTorch 1.9-era) get a curve from the running sum of Bytes, which
// tb_plugin leaves empty; and the down-sampled curve the page draws keeps the exact peak.
const seen = new Set();
for (const { name, profile: p, trace } of goldenProfiles()) {
  if (!p.memory || !trace || seen.has(trace)) continue;
  seen.add(trace);
  const diffs = [];
  const tb = run(['--tb-plugin', trace]);
  const plain = run([trace]);
  if (JSON.stringify(plain.stats) !== JSON.stringify(tb.stats)) diffs.push('statistics differ from --tb-plugin');
  if (JSON.stringify(plain.events) !== JSON.stringify(tb.events)) diffs.push('events differ from --tb-plugin');
  for (const d of plain.devices) {
    const points = plain.curve[d.device];
    if (d.allocated_from_bytes) {
      if (tb.curve[d.device].length !== 0) diffs.push(`${d.device}: tb_plugin has a curve without totals?`);
      if (points.length !== d.records) diffs.push(`${d.device}: ${points.length} curve points for ${d.records} records`);
      const peak = points.reduce((mx, q) => Math.max(mx, q[1]), -Infinity);
      if (peak !== d.peak_allocated_bytes) diffs.push(`${d.device}: peak ${d.peak_allocated_bytes} vs curve max ${peak}`);
    }
  }
  results.push({ name: `${name.split(' ')[0]} memory default mode: tb_plugin's tables, a curve without totals`, diffs });
}
report(results, 0);
