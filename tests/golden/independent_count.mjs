// An independent count of what a trace holds, with Node's own gzip and JSON.parse: the
// reference the core's streaming reader is checked against on every real trace.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const shared = path.resolve(repo, '..', 'shared');

export function readBytes(file) {
  const raw = fs.readFileSync(file);
  return raw[0] === 0x1f && raw[1] === 0x8b ? zlib.gunzipSync(raw) : raw;
}

// Every trace file the tests use: the project's own (always), ../shared/traces (when present).
export function traceFiles() {
  const files = [path.join(repo, 'web/public/samples/rank-0.json.gz')].filter((f) => fs.existsSync(f));
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.json(\.gz)?$/.test(e.name)) files.push(p);
    }
  };
  const sharedTraces = path.join(shared, 'traces');
  const haveShared = fs.existsSync(sharedTraces);
  if (haveShared) walk(sharedTraces);
  else console.log('../shared/traces is absent: checking the bundled sample only');
  return { files, haveShared };
}

// Whether a file of traceFiles() is a trace: the views' tests skip the JSON files that are not
// (the summary test checks that the CLI says so).
export function isTrace(file) {
  return independentCount(file)?.ok !== false;
}

// null when the file is not strict JSON (then the Catch2 quirk tests cover it).
export function independentCount(file) {
  let doc;
  try {
    doc = JSON.parse(readBytes(file).toString('utf8'));
  } catch {
    return null;
  }
  const events = Array.isArray(doc) ? doc : doc && doc.traceEvents;
  if (!Array.isArray(events)) return { ok: false };
  // A bare array that holds no object is other JSON (export_memory_timeline's [times, sizes]).
  if (Array.isArray(doc) && !doc.some((e) => e && typeof e === 'object' && !Array.isArray(e))) return { ok: false };
  const count = { ok: true, events: 0, categories: {}, phases: {}, devices: [], distributed: null };
  let lo = Infinity, hi = -Infinity;
  const open = new Map();
  const slice = (ts, end) => { lo = Math.min(lo, ts); hi = Math.max(hi, end); };
  for (const e of events) {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) continue;
    count.events++;
    const cat = e.cat === undefined || e.cat === null ? '' : String(e.cat);
    count.categories[cat] = (count.categories[cat] || 0) + 1;
    const ph = e.ph === undefined || e.ph === null ? '' : String(e.ph);
    count.phases[ph] = (count.phases[ph] || 0) + 1;
    const ts = Number(e.ts);
    if (ph === 'X' && Number.isFinite(ts)) slice(ts, ts + Math.max(0, Number(e.dur) || 0));
    const key = `${e.pid}/${e.tid}`;
    if (ph === 'B') { if (!open.has(key)) open.set(key, []); open.get(key).push(ts); }
    if (ph === 'E' && open.get(key)?.length) slice(open.get(key).pop(), ts);
  }
  if (hi >= lo) { count.start_us = lo; count.end_us = hi; count.span_us = hi - lo; }
  if (!Array.isArray(doc)) {
    const props = doc.deviceProperties || doc.computeProperties || [];
    count.devices = props.map((d) => ({ name: d.name, memory_bytes: d.totalGlobalMem,
      sms: d.numSms ?? d.multiProcessorCount }));
    const di = doc.distributedInfo;
    if (di) count.distributed = { rank: di.rank ?? -1, world_size: di.world_size ?? -1, backend: di.backend ?? '' };
  }
  return count;
}

// Compares a summary object with the independent count; returns a list of differences.
export function compare(summary, count) {
  const diffs = [];
  const eq = (what, a, b) => { if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push(`${what}: got ${JSON.stringify(a)}, expected ${JSON.stringify(b)}`); };
  eq('ok', summary.ok, count.ok);
  if (!count.ok) return diffs;
  eq('events', summary.events, count.events);
  eq('categories', summary.categories, sortKeys(count.categories));
  eq('phases', summary.phases, sortKeys(count.phases));
  eq('devices', summary.devices.map((d) => ({ name: d.name, memory_bytes: d.memory_bytes, sms: d.sms })), count.devices);
  eq('distributed', summary.distributed, count.distributed);
  if (count.span_us !== undefined) {
    for (const k of ['start_us', 'end_us', 'span_us']) {
      // doubles near 1.7e15 µs hold ~0.25 µs; the core keeps exact ns
      if (Math.abs(summary[k] - count[k]) > 0.5) diffs.push(`${k}: got ${summary[k]}, expected ${count[k]}`);
    }
  }
  return diffs;
}

function sortKeys(o) {
  // The core sorts by byte order of the UTF-8 name; so does this for the names in these traces.
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (Buffer.from(a) < Buffer.from(b) ? -1 : Buffer.from(a) > Buffer.from(b) ? 1 : 0)));
}

// Runs the named checks, prints one line per check and the closing "N passed, N failed".
export function report(results, skipped) {
  let passed = 0, failed = 0;
  for (const r of results) {
    if (r.diffs.length) {
      failed++;
      console.log(`FAIL ${r.name}\n  ${r.diffs.join('\n  ')}`);
    } else {
      passed++;
      console.log(`ok   ${r.name}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exitCode = failed ? 1 : 0;
}
