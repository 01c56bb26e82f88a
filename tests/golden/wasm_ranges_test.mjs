// Issue 12 §2 across heaps: one trace read in 2 and 3 byte ranges by separate wasm instances (as
// the page's workers would: each its own heap), the later ranges' partial models crossing as
// pieces of at most 64 KB copied out of one heap into the other, must give the sequential
// Session's summary, overview, operators and kernels. And when a helper is lost, the first
// Session reads on by itself (readOn) and still gives them. The order of the merge is the core's
// (RangeMerge through the binding, driven here as web/src/worker/split-read.ts mergeRanges drives it).
// usage: node tests/golden/wasm_ranges_test.mjs build/wasm/kinetoscope_node.js
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { traceFiles, readBytes } from './independent_count.mjs';

const require = createRequire(import.meta.url);
const createKinetoscope = require(path.resolve(process.argv[2]));
const first = await createKinetoscope();   // the first worker's module
const helper = await createKinetoscope();  // a helper worker's (another heap)
const CHUNK = 1 << 16;
const PIECE = 1 << 16;

// Feeds bytes[from..] until the Session stops at a split, fails, or the bytes end.
function feedFrom(mod, s, bytes, from) {
  for (let i = from; i < bytes.length && !s.failed() && !s.stopped(); i += CHUNK) {
    const part = bytes.subarray(i, Math.min(i + CHUNK, bytes.length));
    const off = s.prepare(part.length);
    mod.HEAPU8.set(part, off);
    s.commit(part.length);
  }
}

function views(s) {
  return [s.queryJson('summary', {}), s.queryJson('overview', {}), s.queryJson('operators', {}), s.queryJson('kernels', {})];
}

function splitsOf(bytes, ranges) {
  const out = [];
  for (let i = 1; i < ranges; i++) {
    const nominal = Math.floor(bytes.length / ranges) * i;
    const at = first.proposeSplit(bytes.subarray(nominal, Math.min(bytes.length, nominal + (1 << 20))));
    if (at >= 0) out.push(nominal + at);
  }
  return out;
}

// Reads `bytes` in ranges; `lose` (a range index) is a helper that dies before its pieces come.
function readInRanges(bytes, ranges, lose = -1) {
  const root = first.rootIsArray(bytes.subarray(0, 4096));
  const splits = root < 0 ? [] : splitsOf(bytes, ranges);
  const s = new first.Session();
  s.stopAt(splits);
  feedFrom(first, s, bytes, 0);
  const later = splits.map((at, i) => {
    const h = new helper.Session();
    h.startAt(at, root === 1);
    h.stopAt(splits.slice(i + 1));
    feedFrom(helper, h, bytes, at);
    h.finish();
    return h;
  });
  // The core's merge order (RangeMerge, as the page's mergeRanges drives it) across the heaps.
  const order = new first.RangeMerge(splits);
  let next = order.at(s.stopped(), s.coveredEnd());
  while (next === 'ask' || next === 'readOn') {
    if (next === 'readOn') {
      const from = order.from();
      s.readOn();
      feedFrom(first, s, bytes, from);
      next = order.at(s.stopped(), s.coveredEnd());
      continue;
    }
    const i = order.range();
    if (i === lose) {
      next = order.lost('test');
      assert.equal(next, 'readOn', 'a helper lost before its first piece: the first reads on');
      assert.equal(order.outcome().reason, 'its helper was lost (test)');
      continue;
    }
    const piece = later[i].nextPiece(PIECE);
    if (piece === null) {
      next = order.ended();
      continue;
    }
    assert.ok(piece.length <= PIECE || piece.length < 5 << 20);
    const off = s.mergePrepare(piece.length);
    first.HEAPU8.set(piece, off);
    next = order.piece(s.mergeCommit(piece.length), s.stopped(), s.coveredEnd());
  }
  assert.equal(next, 'finished');
  const outcome = order.outcome();
  order.delete();
  assert.equal(outcome.broken, false);
  const merged = outcome.merged;
  s.finish();
  for (const h of later) h.delete();
  return { s, merged, splits: splits.length };
}

const { files } = traceFiles();
let checked = 0, mergedTotal = 0;
for (const file of files) {
  const bytes = readBytes(file);
  const seq = new first.Session();
  feedFrom(first, seq, bytes, 0);
  seq.finish();
  if (seq.error()) { seq.delete(); continue; }
  const expected = views(seq);
  seq.delete();
  for (const [ranges, lose] of [[2, -1], [3, -1], [3, 1]]) {
    const { s, merged } = readInRanges(bytes, ranges, lose);
    assert.deepEqual(views(s), expected, `${path.basename(file)}: ${ranges} ranges${lose >= 0 ? ', helper lost' : ''}`);
    mergedTotal += merged;
    s.delete();
  }
  checked++;
}
assert.ok(checked >= 1 && mergedTotal >= checked, `${checked} traces, ${mergedTotal} ranges merged`);
console.log(`wasm ranges: ${checked} traces read in 2 and 3 ranges across two heaps (${mergedTotal} merges), as one range`);

// Issue 21: a 10 GB file's ranges start, stop and sample health past 4 GiB. Through the bindings
// (offsets in and out as doubles, uint64_t in the core) of this 32-bit wasm build, where a size_t
// or an unsigned int on the way would wrap: a first range [BASE, split) and a later one [split, end)
// on two heaps, merged, against one Session of the whole. The readers are told their absolute
// offsets, so the bytes are small.
{
  const BASE = 5_000_000_007; // past 2^32
  const parts = [];
  for (let i = 0; i < 3000; i++) {
    if (i === 2500) parts.push('{"ph": "X", "name": "odd", "pid": 1, "tid": 1, "ts": 1, "dur": -3}');
    parts.push(`{"ph": "X", "cat": "cpu_op", "name": "op${i % 7}", "pid": 1, "tid": 1, "ts": ${1000 + i * 10}, "dur": 5}`);
  }
  const text = parts.join(',\n') + ']';
  const bytes = new TextEncoder().encode(text); // ASCII: byte offsets are string offsets
  const odd = text.indexOf('{"ph": "X", "name": "odd"');
  const split = text.indexOf('\n{', text.length >> 1) + 1;
  const whole = new first.Session();
  whole.startAt(BASE, true);
  feedFrom(first, whole, bytes, 0);
  whole.finish();
  const s = new first.Session();
  s.startAt(BASE, true);
  s.stopAt([BASE + split]);
  feedFrom(first, s, bytes, 0);
  assert.ok(s.stopped(), 'the first range stops at its split past 4 GiB');
  assert.equal(s.coveredEnd(), BASE + split);
  const h = new helper.Session();
  h.startAt(BASE + split, true);
  feedFrom(helper, h, bytes, split);
  h.finish();
  // The merge order matches the stop to its split past 4 GiB (offsets as doubles through the binding).
  const order = new first.RangeMerge([BASE + split - 2 ** 32, BASE + split]);
  let next = order.at(s.stopped(), s.coveredEnd());
  assert.equal(next, 'ask');
  assert.equal(order.range(), 1, 'the range whose start is the stop, not one 2^32 before it');
  for (let piece; next === 'ask' && (piece = h.nextPiece(PIECE)) !== null;) {
    const off = s.mergePrepare(piece.length);
    first.HEAPU8.set(piece, off);
    next = order.piece(s.mergeCommit(piece.length), s.stopped(), s.coveredEnd());
  }
  assert.equal(next, 'finished', 'the range past 4 GiB is merged, not refused');
  assert.deepEqual(order.outcome(), { merged: 1, readOn: 0, broken: false, reason: null });
  order.delete();
  s.finish();
  const summary = JSON.parse(s.queryJson('summary', {}));
  assert.deepEqual(summary, JSON.parse(whole.queryJson('summary', {})));
  const sampled = JSON.stringify(summary).match(/"sample_offset":(\d+)/g) ?? [];
  assert.deepEqual(sampled, [`"sample_offset":${BASE + odd}`], 'the negative duration is sampled where it lies, past 4 GiB');
  for (const x of [whole, s, h]) x.delete();
  console.log(`wasm ranges: a range past 4 GiB (${BASE + split}) merged, its health sampled at ${BASE + odd}`);
}

