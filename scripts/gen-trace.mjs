// Writes a synthetic Kineto trace of a requested size by replicating the traceEvents of a real
// trace: copy k has every top-level "ts" shifted by k * (source span), every "ProfilerStep#N"
// renumbered, so steps keep increasing and never overlap, and every External id and correlation
// id moved past the previous copy's, so launches link to their own copy's operators and kernels.
// Usage: node scripts/gen-trace.mjs --size 1G [--shape modern|resnet50 | --from TRACE] --out FILE [--gzip] [--distinct-ops]
//                                  [--rank R --world-size W] [--ranks N]
// --rank/--world-size set distributedInfo's rank and world_size (one file per rank of a synthetic
// run: the run page and `kinetoscope distributed` then see W distinct ranks); the source must have
// a distributedInfo (the modern shape's has). --ranks N writes a whole run instead: --out is a
// folder, filled with rank0.pt.trace.json … rank<N-1>.pt.trace.json (world size N); rank 0 is
// generated, the others are copies of it whose head (where distributedInfo is) says their rank.
// --distinct-ops appends " ~k.i" to the cpu_op name of event i of copy k: every call is its own
// operator, so the operator table grows with the file (sort and search benchmarks on 100k+ rows).
//
// Speed and memory: the source (tens of MB) is loaded and scanned once; each event becomes a
// template (its raw text split around the ts value and the step number), and copies are
// streamed out in ~8 MB writes with backpressure, so a 3 GB output never sits in memory.
// The raw text is kept byte for byte (whitespace, key order, number spelling), and ts is
// shifted with decimal-string arithmetic so fractional timestamps (PyTorch >= 2.4) keep every
// digit a double would round away.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function usage(msg) {
  if (msg) console.error(`gen-trace: ${msg}`);
  console.error('usage: scripts/gen-trace --size 1G [--shape modern|resnet50 | --from TRACE] --out FILE [--gzip] [--distinct-ops] [--rank R --world-size W]');
  process.exit(2);
}

export function parseSize(s) {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$/i.exec(String(s).trim());
  if (!m) throw new Error(`bad size "${s}" (e.g. 256M, 1G, 3G)`);
  const mult = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 }[m[2].toUpperCase()];
  return Math.round(Number(m[1]) * mult);
}

// The trace each shape replicates. "modern" (the default): a PyTorch 2.x trace (ns timestamps
// with fractional digits, ac2g and fwdbwd flows, instants, ~224 bytes per event), kept in
// tests/data/sources so benchmarks run without ../shared. "resnet50": the 2021 ResNet-50 traces
// (PyTorch 1.9, ~465 bytes per event), the shape of the first benchmark tables.
export const SHAPES = {
  modern: [path.join(root, '..', 'shared', 'traces', 'v100_ns_resolution_rank0.pt.trace.json.gz'),
    path.join(root, 'tests', 'data', 'sources', 'v100_ns_resolution_rank0.pt.trace.json.gz')],
  resnet50: [path.join(root, '..', 'shared', 'traces', 'resnet50_num_workers_0', 'worker0.1623143566756.pt.trace.json.gz')],
};

function defaultSource(shape) {
  const found = (SHAPES[shape] ?? []).find((f) => fs.existsSync(f));
  if (found) return found;
  throw new Error(shape === 'resnet50'
    ? 'the resnet50 shape needs ../shared/traces/resnet50_num_workers_0: pass --from TRACE instead'
    : `unknown shape "${shape}" (modern or resnet50)`);
}

// --- a small string/escape-aware scanner over the source text --------------------------
const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);
function skipWs(s, i) { while (i < s.length && WS.has(s.charCodeAt(i))) i++; return i; }
function skipString(s, i) { // s[i] === '"'; returns index after the closing quote
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++; else if (c === 0x22) return i + 1;
  }
  throw new Error('unterminated string');
}
function skipValue(s, i) { // returns index after the value starting at i
  const c = s[i];
  if (c === '"') return skipString(s, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (; i < s.length; i++) {
      const ch = s[i];
      if (ch === '"') { i = skipString(s, i) - 1; continue; }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') { if (--depth === 0) return i + 1; }
    }
    throw new Error('unterminated container');
  }
  while (i < s.length && !',}] \n\r\t'.includes(s[i])) i++;
  return i;
}
// Top-level members of an object: [{key, keyStart, valStart, valEnd}]
function members(s, start) {
  const out = [];
  let i = skipWs(s, start);
  if (s[i] !== '{') throw new Error('expected an object');
  i = skipWs(s, i + 1);
  if (s[i] === '}') return out;
  for (;;) {
    const keyStart = i;
    const keyEnd = skipString(s, i);
    const key = JSON.parse(s.slice(keyStart, keyEnd));
    i = skipWs(s, keyEnd);
    if (s[i] !== ':') throw new Error(`expected ':' at ${i}`);
    const valStart = skipWs(s, i + 1);
    const valEnd = skipValue(s, valStart);
    out.push({ key, keyStart, valStart, valEnd });
    i = skipWs(s, valEnd);
    if (s[i] === ',') { i = skipWs(s, i + 1); continue; }
    if (s[i] === '}') return out;
    throw new Error(`expected ',' or '}' at ${i}`);
  }
}

// ts + shift on the decimal spelling (shift is an integer number of microseconds).
function addShift(raw, shift) {
  if (shift === 0) return raw;
  const m = /^(\d+)(\.\d+)?$/.exec(raw);
  if (m) {
    const v = Number(m[1]) + shift;
    if (Number.isSafeInteger(v)) return String(v) + (m[2] || '');
    return (BigInt(m[1]) + BigInt(shift)).toString() + (m[2] || '');
  }
  return String(Number(raw) + shift); // negative or exponent spelling: rare, keep it simple
}

const STEP_RE = /ProfilerStep#(\d+)/;
// Ids that link events within one copy: launches to operators and kernels, python frames to their
// parents. Flow ids ("id" of ph s/t/f: ac2g launches, fwdbwd autograd links) are moved too.
const ID_RE = /"(?:External id|external id|correlation|Python id|Python parent id)"\s*:\s*(\d+)/g;

function buildTemplates(text, distinctOps = false) {
  const top = members(text, 0);
  const te = top.find((m) => m.key === 'traceEvents');
  if (!te || text[te.valStart] !== '[') throw new Error('source has no traceEvents array');
  const events = [];
  let tsMin = Infinity, tsMax = -Infinity, stepMin = Infinity, stepMax = -Infinity, idMax = 0;
  let i = skipWs(text, te.valStart + 1);
  while (text[i] !== ']') {
    const end = skipValue(text, i);
    const raw = text.slice(i, end);
    const ev = { parts: [raw], ts: null, step: null, meta: false };
    if (raw[0] === '{') {
      const ms = members(raw, 0);
      const tsM = ms.find((m) => m.key === 'ts');
      const phM = ms.find((m) => m.key === 'ph');
      const durM = ms.find((m) => m.key === 'dur');
      ev.meta = phM && raw.slice(phM.valStart, phM.valEnd) === '"M"';
      // Split the raw text at the ts value and at the step number in "name".
      const cuts = [];
      if (tsM && /^-?[\d.eE+-]+$/.test(raw.slice(tsM.valStart, tsM.valEnd))) {
        const tsRaw = raw.slice(tsM.valStart, tsM.valEnd);
        cuts.push({ at: tsM.valStart, end: tsM.valEnd, kind: 'ts', raw: tsRaw });
        const t = Number(tsRaw);
        const d = durM ? Number(raw.slice(durM.valStart, durM.valEnd)) : 0;
        if (!ev.meta && Number.isFinite(t)) {
          tsMin = Math.min(tsMin, t);
          tsMax = Math.max(tsMax, t + (Number.isFinite(d) && d > 0 ? d : 0));
        }
      }
      const nameM = ms.find((m) => m.key === 'name');
      const catM = ms.find((m) => m.key === 'cat');
      if (distinctOps && nameM && catM && /^"(cpu_op|Operator)"$/.test(raw.slice(catM.valStart, catM.valEnd)) &&
          !raw.slice(nameM.valStart, nameM.valEnd).includes('ProfilerStep#')) {
        cuts.push({ at: nameM.valEnd - 1, end: nameM.valEnd - 1, kind: 'copy', n: events.length });
      }
      if (nameM) {
        const m = STEP_RE.exec(raw.slice(nameM.valStart, nameM.valEnd));
        if (m) {
          const at = nameM.valStart + m.index + 'ProfilerStep#'.length;
          const n = Number(m[1]);
          cuts.push({ at, end: at + m[1].length, kind: 'step', raw: m[1], n });
          stepMin = Math.min(stepMin, n); stepMax = Math.max(stepMax, n);
        }
      }
      for (const m of raw.matchAll(ID_RE)) {
        const at = m.index + m[0].length - m[1].length;
        const n = Number(m[1]);
        cuts.push({ at, end: at + m[1].length, kind: 'id', raw: m[1], n });
        idMax = Math.max(idMax, n);
      }
      const idM = ms.find((m) => m.key === 'id');
      if (idM && phM && /^"[stf]"$/.test(raw.slice(phM.valStart, phM.valEnd)) && /^\d+$/.test(raw.slice(idM.valStart, idM.valEnd))) {
        const n = Number(raw.slice(idM.valStart, idM.valEnd));
        cuts.push({ at: idM.valStart, end: idM.valEnd, kind: 'id', raw: String(n), n });
        idMax = Math.max(idMax, n);
      }
      cuts.sort((a, b) => a.at - b.at);
      if (cuts.length) {
        ev.parts = []; ev.holes = [];
        let p = 0;
        for (const c of cuts) { ev.parts.push(raw.slice(p, c.at)); ev.holes.push(c); p = c.end; }
        ev.parts.push(raw.slice(p));
      }
    }
    events.push(ev);
    i = skipWs(text, end);
    if (text[i] === ',') i = skipWs(text, i + 1);
    else if (text[i] !== ']') throw new Error(`expected ',' or ']' at ${i}`);
  }
  // Whitespace the source used between events, to keep its look.
  const sep = events.length > 1 ? ',\n  ' : ',';
  const head = text.slice(0, te.valStart) + '[\n  ';
  const tail = '\n' + text.slice(skipValue(text, te.valStart) - 1); // "]" and what follows
  const span = Number.isFinite(tsMin) ? Math.ceil(tsMax - tsMin) + 1 : 1;
  const steps = Number.isFinite(stepMin) ? stepMax - stepMin + 1 : 0;
  return { head, tail, sep, events, span, steps, ids: idMax + 1 };
}

function render(ev, copy, shift, stepShift, idShift) {
  if (!ev.holes) return ev.parts[0];
  let s = ev.parts[0];
  for (let k = 0; k < ev.holes.length; k++) {
    const h = ev.holes[k];
    s += h.kind === 'ts' ? addShift(h.raw, shift) : h.kind === 'copy' ? ` ~${copy}.${h.n}`
      : String(h.n + (h.kind === 'step' ? stepShift : idShift));
    s += ev.parts[k + 1];
  }
  return s;
}

/** The source's text with distributedInfo's rank and/or world_size replaced (top level only). */
export function setDistributedInfo(text, rank, worldSize) {
  for (const [key, v] of [['rank', rank], ['world_size', worldSize]]) {
    if (v == null) continue;
    if (!Number.isInteger(v) || v < 0) usage(`--${key.replace('_', '-')} needs a whole number`);
    const re = new RegExp(`("distributedInfo"\\s*:\\s*\\{[^{}]*?"${key}"\\s*:\\s*)-?\\d+`);
    if (!re.test(text)) usage(`the source has no distributedInfo.${key} to set`);
    text = text.replace(re, `$1${v}`);
  }
  return text;
}

// The options (set by main from the command line).
let size = null, from = null, out = null, gzip = false, distinctOps = false, shape = 'modern', rank = null, worldSize = null, ranks = null;

async function main() {
  const args = process.argv.slice(2);
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    const val = () => { if (k + 1 >= args.length) usage(`${a} needs a value`); return args[++k]; };
    if (a === '--size') size = parseSize(val());
    else if (a === '--from') from = val();
    else if (a === '--shape') shape = val();
    else if (a === '--out') out = val();
    else if (a === '--gzip') gzip = true;
    else if (a === '--distinct-ops') distinctOps = true;
    else if (a === '--rank') rank = Number(val());
    else if (a === '--world-size') worldSize = Number(val());
    else if (a === '--ranks') ranks = Number(val());
    else if (a === '-h' || a === '--help') usage();
    else usage(`unknown argument ${a}`);
  }
  if (!size || !out) usage('--size and --out are required');
  if (ranks != null) {
    if (!Number.isInteger(ranks) || ranks < 1) usage('--ranks needs a whole number >= 1');
    if (gzip) usage('--ranks writes plain JSON files (no --gzip)');
    const dir = out;
    fs.mkdirSync(dir, { recursive: true });
    out = path.join(dir, 'rank0.pt.trace.json');
    rank = 0;
    worldSize = ranks;
    await generate();
    for (let k = 1; k < ranks; k++) await copyAsRank(out, path.join(dir, `rank${k}.pt.trace.json`), k, ranks);
    console.error(`gen-trace: ${dir}: ${ranks} ranks`);
    return;
  }
  await generate();
}

/** `src` (a rank's trace) copied to `dst` with distributedInfo's rank and world_size set in its head. */
async function copyAsRank(src, dst, rank, worldSize) {
  const fd = fs.openSync(src, 'r');
  const head = Buffer.alloc(1 << 20);
  const n = fs.readSync(fd, head, 0, head.length, 0);
  fs.closeSync(fd);
  let text = head.subarray(0, n).toString('latin1');
  const cut = text.indexOf('"traceEvents"');
  if (cut < 0) throw new Error(`${src}: distributedInfo is not in the head (before traceEvents)`);
  const newHead = setDistributedInfo(text.slice(0, cut), rank, worldSize);
  const tmp = `${dst}.partial`;
  const outStream = fs.createWriteStream(tmp, { highWaterMark: 8 << 20 });
  outStream.write(Buffer.from(newHead, 'latin1'));
  const rest = fs.createReadStream(src, { start: cut, highWaterMark: 8 << 20 });
  await new Promise((resolve, reject) => {
    rest.on('error', reject);
    outStream.on('error', reject);
    outStream.on('finish', resolve);
    rest.pipe(outStream);
  });
  fs.renameSync(tmp, dst);
}

async function generate() {
  from ??= defaultSource(shape);

  const t0 = Date.now();
  let buf = fs.readFileSync(from);
  if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
  let text = buf.toString('utf8');
  buf = null;
  if (rank != null || worldSize != null) text = setDistributedInfo(text, rank, worldSize);
  const tpl = buildTemplates(text, distinctOps);
  if (!tpl.events.length) throw new Error('source has no events');

  // Write to FILE.partial, rename at the end: a half-written file never looks finished.
  const tmp = `${out}.partial`;
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const file = fs.createWriteStream(tmp, { highWaterMark: 8 << 20 });
  let sink = file;
  if (gzip) {
    sink = zlib.createGzip({ level: 1, chunkSize: 1 << 20 });
    sink.pipe(file);
  }
  const done = new Promise((resolve, reject) => {
    file.on('finish', resolve); file.on('error', reject); sink.on('error', reject);
  });
  const write = async (s) => {
    if (!sink.write(s)) await new Promise((r) => sink.once('drain', r));
  };

  // Size counts JSON bytes (before gzip). Stop at the first event that reaches it.
  const tailBytes = Buffer.byteLength(tpl.tail);
  const sepBytes = Buffer.byteLength(tpl.sep);
  let written = Buffer.byteLength(tpl.head);
  let pending = tpl.head, events = 0, copy = 0, first = true;
  outer: for (;;) {
    const shift = copy * tpl.span, stepShift = copy * tpl.steps, idShift = copy * tpl.ids;
    for (const ev of tpl.events) {
      if (ev.meta && copy > 0) continue; // process/thread names once, as in a real trace
      const s = (first ? '' : tpl.sep) + render(ev, copy, shift, stepShift, idShift);
      first = false;
      pending += s;
      // Events are almost always ASCII; count exactly only when not.
      written += s.length === Buffer.byteLength(s) ? s.length : Buffer.byteLength(s);
      events++;
      if (pending.length >= 8 << 20) { await write(pending); pending = ''; }
      if (written + tailBytes + sepBytes >= size) break outer;
    }
    copy++;
  }
  pending += tpl.tail;
  written += tailBytes;
  await write(pending);
  sink.end();
  await done;
  fs.renameSync(tmp, out);
  const secs = (Date.now() - t0) / 1000;
  console.error(`gen-trace: ${out}: ${written} JSON bytes, ${events} events (${(written / events).toFixed(0)} bytes/event), ${copy + 1} copies ` +
    `of ${path.basename(from)} (span ${tpl.span} us), ${secs.toFixed(1)} s`);
}

main().catch((e) => { console.error(`gen-trace: ${e.message}`); process.exit(1); });
