// One big file read by several trace workers (web/src/worker/split-read.ts) with fakes: how many
// workers and where the splits go, the helper's pieces crossing to the first worker in order with
// back-pressure, and the first worker's fallbacks (a range refused, a helper lost before or during
// its pieces) — the same protocol tests/golden/wasm_ranges_test.mjs drives on real heaps.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  defaultSplitWorkers,
  HelperPort,
  mergeRanges,
  PIECES_AHEAD,
  PieceSource,
  planSplits,
  rangeCount,
  SPLIT_MIN_BYTES,
  SPLIT_WINDOW,
  type MergeTarget,
  type RangeMergeCore,
} from '../../web/src/worker/split-read';
import { parsePlan } from '../../web/src/worker/test-faults';
import { readChunks } from '../../web/src/worker/feeder';
import { WorkerPool, type Started } from '../../web/src/worker/worker-pool';
import type { Port } from '../../web/src/worker/protocol';

// The merge order is the core's (core/trace/model_merge.h RangeMerge): the fakes below drive the
// real one, from the Node build of the wasm module (scripts/build makes it before these tests run).
const nodeBuild = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../build/wasm/kinetoscope_node.js');
if (!fs.existsSync(nodeBuild)) throw new Error(`${nodeBuild} is missing: build the core first (./scripts/build)`);
const kinetoscope = (await createRequire(import.meta.url)(nodeBuild)()) as { RangeMerge: new (splits: readonly number[]) => RangeMergeCore };

/** Two ends of a channel whose messages arrive on a later microtask, in order (a MessageChannel's way). */
function channel(): [Port, Port] {
  const listeners: ((ev: MessageEvent) => void)[][] = [[], []];
  const end = (me: number): Port => ({
    postMessage: (m: unknown) => queueMicrotask(() => listeners[1 - me].forEach((l) => l({ data: m } as MessageEvent))),
    addEventListener: (_t: 'message', l: (ev: MessageEvent) => void) => listeners[me].push(l),
  });
  return [end(0), end(1)];
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('rangeCount', () => {
  const s = { minBytes: SPLIT_MIN_BYTES };
  it('reads a small, gzip or single-worker file in one range', () => {
    expect(rangeCount(SPLIT_MIN_BYTES - 1, true, 4, 4, s)).toBe(1);
    expect(rangeCount(SPLIT_MIN_BYTES * 4, false, 4, 4, s)).toBe(1);
    expect(rangeCount(SPLIT_MIN_BYTES * 4, true, 1, 1, s)).toBe(1);
  });
  it('uses the idle workers, capped by the pool and the setting', () => {
    expect(rangeCount(SPLIT_MIN_BYTES, true, 2, 2, s)).toBe(2);
    expect(rangeCount(SPLIT_MIN_BYTES * 8, true, 4, 3, s)).toBe(3);
    expect(rangeCount(SPLIT_MIN_BYTES * 8, true, 4, 1, s)).toBe(1);
    expect(rangeCount(SPLIT_MIN_BYTES * 8, true, 4, 4, { ...s, workers: 2 })).toBe(2);
    expect(rangeCount(SPLIT_MIN_BYTES * 8, true, 4, 4, { ...s, workers: 1 })).toBe(1);
  });
  it('by default gives a file all the cores but one (the browser reads and draws on the other)', () => {
    expect(defaultSplitWorkers(2)).toBe(1);
    expect(defaultSplitWorkers(4)).toBe(3);
    expect(defaultSplitWorkers(8)).toBe(7); // the pool's size caps it (MAX_WORKERS)
    expect(defaultSplitWorkers(1)).toBe(1);
    expect(defaultSplitWorkers(undefined)).toBe(1);
    expect(defaultSplitWorkers(NaN)).toBe(1);
    expect(rangeCount(SPLIT_MIN_BYTES * 8, true, 2, 2, { ...s, workers: defaultSplitWorkers(2) })).toBe(1);
    expect(rangeCount(SPLIT_MIN_BYTES * 8, true, 4, 4, { ...s, workers: defaultSplitWorkers(4) })).toBe(3);
  });
  it('takes a lowered threshold, but keeps every range at least two windows long', () => {
    expect(rangeCount(1_700_000, true, 2, 2, { minBytes: 1 })).toBe(2);
    expect(rangeCount(3 * SPLIT_WINDOW, true, 4, 4, { minBytes: 1 })).toBe(1);
  });
});

describe('pieces from a helper to the first worker', () => {
  it('come in order, never more than PIECES_AHEAD ahead of the merge, then the end', async () => {
    const [a, b] = channel();
    const first = new PieceSource(a);
    const helper = new HelperPort(b);
    first.assign({ kind: 'range', start: 100, stopAt: [200], root: true });
    expect(await helper.assigned()).toEqual({ kind: 'range', start: 100, stopAt: [200], root: true });
    let given = 0, merged = 0, most = 0;
    const serving = helper.servePieces(() => {
      if (given === 7) return null;
      given++;
      most = Math.max(most, given - merged);
      return Uint8Array.of(given);
    });
    const got: number[] = [];
    for (let p; (p = await first.next()) !== null; ) {
      await settle(); // let the helper run ahead as far as it may
      got.push(p[0]);
      merged++;
    }
    expect(got).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBeLessThanOrEqual(PIECES_AHEAD + 1);
    expect(await serving).toEqual({ sent: 7, all: true });
  });

  it('stop when the first worker skips them (the helper deletes its Session)', async () => {
    const [a, b] = channel();
    const first = new PieceSource(a);
    const helper = new HelperPort(b);
    first.assign({ kind: 'range', start: 1, stopAt: [], root: true });
    await helper.assigned();
    const serving = helper.servePieces(() => Uint8Array.of(1));
    expect(await first.next()).not.toBeNull();
    first.close();
    const r = await serving;
    expect(r.all).toBe(false);
    expect(r.sent).toBeLessThanOrEqual(PIECES_AHEAD + 1);
    expect(helper.wanted).toBe(false);
  });

  it('a helper given no range, or told to skip before it came, has none', async () => {
    const [a, b] = channel();
    new PieceSource(a).assign({ kind: 'none' });
    expect(await new HelperPort(b).assigned()).toBeNull();
    const [c, d] = channel();
    new PieceSource(c).close();
    expect(await new HelperPort(d).assigned()).toBeNull();
  });

  it('a helper that fails says so, and the pending next() throws', async () => {
    const [a, b] = channel();
    const first = new PieceSource(a);
    const helper = new HelperPort(b);
    const waiting = first.next();
    helper.fail('read error');
    await expect(waiting).rejects.toThrow('read error');
    expect(first.lost).toBe(true);
  });
});

/**
 * The first worker's Session, faked: the file is `size` bytes with helpers' ranges at `splits`;
 * it stops at each split, a helper's range is a run of pieces [range, index, last], and reading
 * on moves it to the next split (or the end).
 */
class FakeFirst implements MergeTarget {
  at: number;
  isStopped = true;
  readOns: number[] = [];
  log: string[] = [];
  constructor(private readonly splits: number[], private readonly size: number, private readonly refuse = new Set<number>()) {
    this.at = splits[0];
  }
  stopped() {
    return this.isStopped;
  }
  coveredEnd() {
    return this.at;
  }
  readOn() {
    this.readOns.push(this.at);
    this.isStopped = false;
  }
  private after(range: number) {
    const next = this.splits[range + 1];
    this.at = next ?? this.size;
    this.isStopped = next != null;
  }
  merge(piece: Uint8Array) {
    const [range, index, last, damaged] = piece;
    if (this.refuse.has(range)) return 'refused' as const;
    if (damaged) return 'broken' as const;
    this.log.push(`${range}.${index}`);
    if (!last) return 'merging' as const;
    this.after(range);
    return 'done' as const;
  }
  rangeMerge(splits: readonly number[]) {
    return new kinetoscope.RangeMerge(splits);
  }
  /** Reads from `from` (after readOn) until the next split or the end. */
  readRest = async (from: number) => {
    this.log.push(`read@${from}`);
    this.after(this.splits.indexOf(from));
  };
}

/**
 * A helper over a fake channel serving `count` pieces of range `range`; `die`: lost after that many;
 * `damaged`: that piece does not merge; `whole` false: no piece says it is the last.
 */
function helperOf(range: number, count: number, die = -1, damaged = -1, whole = true) {
  const [a, b] = channel();
  const source = new PieceSource(a);
  const port = new HelperPort(b);
  let i = 0;
  void port.assigned().then((r) =>
    r && port.servePieces(() => {
      if (i === die) {
        source.lose('helper died');
        return null; // (never seen: the source is lost)
      }
      const at = i++;
      return at < count ? Uint8Array.of(range, at, whole && i === count ? 1 : 0, at === damaged ? 1 : 0) : null;
    }),
  );
  source.assign({ kind: 'range', start: 0, stopAt: [], root: true });
  return { source, port };
}

describe('mergeRanges (the first worker)', () => {
  it('merges every helper range in order', async () => {
    const t = new FakeFirst([100, 200], 300);
    const hs = [helperOf(0, 3), helperOf(1, 2)];
    const out = await mergeRanges(t, [100, 200], hs.map((h) => h.source), t.readRest);
    expect(out).toEqual({ merged: 2, readOn: 0, broken: false, reason: null });
    expect(t.log).toEqual(['0.0', '0.1', '0.2', '1.0', '1.1']);
    expect(t.stopped()).toBe(false);
  });

  it('reads on itself where a range is refused, and merges the next', async () => {
    const t = new FakeFirst([100, 200], 300, new Set([0]));
    const hs = [helperOf(0, 3), helperOf(1, 2)];
    const out = await mergeRanges(t, [100, 200], hs.map((h) => h.source), t.readRest);
    expect(out.merged).toBe(1);
    expect(out.readOn).toBe(1);
    expect(t.readOns).toEqual([100]);
    expect(t.log).toEqual(['read@100', '1.0', '1.1']);
    expect(hs[0].port.wanted).toBe(false); // told to delete its Session
  });

  it('reads on itself when a helper is lost before its pieces (the page said so)', async () => {
    const t = new FakeFirst([100], 200);
    const h = helperOf(0, 3);
    h.source.lose('The analysis worker stopped (test).');
    const out = await mergeRanges(t, [100], [h.source], t.readRest);
    expect(out).toMatchObject({ merged: 0, readOn: 1, broken: false });
    expect(out.reason).toMatch(/lost/);
    expect(t.log).toEqual(['read@100']);
  });

  it('reads on itself when no helper has the range', async () => {
    const t = new FakeFirst([100], 200);
    const out = await mergeRanges(t, [100], [null], t.readRest);
    expect(out).toMatchObject({ merged: 0, readOn: 1, broken: false });
  });

  it('a helper lost part-way through its pieces breaks the merge: the file is read again', async () => {
    const t = new FakeFirst([100, 200], 300);
    const hs = [helperOf(0, 4, 2), helperOf(1, 2)];
    const out = await mergeRanges(t, [100, 200], hs.map((h) => h.source), t.readRest);
    expect(out.broken).toBe(true);
    expect(out.merged).toBe(0);
    expect(hs[1].port.wanted).toBe(false); // the other helper's pieces are not wanted either
  });

  it('a piece that does not merge breaks the merge: the file is read again', async () => {
    const t = new FakeFirst([100, 200], 300);
    const hs = [helperOf(0, 3, -1, 1), helperOf(1, 2)];
    const out = await mergeRanges(t, [100, 200], hs.map((h) => h.source), t.readRest);
    expect(out).toEqual({ merged: 0, readOn: 0, broken: true, reason: 'a piece of it could not be merged' });
    expect(t.log).toEqual(['0.0']);
    expect(hs[1].port.wanted).toBe(false);
  });

  it('pieces that end before their range is whole: read on if none merged, read again if some were', async () => {
    const none = new FakeFirst([100], 200);
    const empty = helperOf(0, 0);
    expect(await mergeRanges(none, [100], [empty.source], none.readRest)).toEqual({ merged: 0, readOn: 1, broken: false, reason: 'its pieces ended early' });
    expect(none.log).toEqual(['read@100']);
    const some = new FakeFirst([100], 200);
    const cut = helperOf(0, 2, -1, -1, false);
    expect(await mergeRanges(some, [100], [cut.source], some.readRest)).toEqual({ merged: 0, readOn: 0, broken: true, reason: 'its pieces ended early' });
    expect(some.log).toEqual(['0.0', '0.1']);
  });

  it('stops when cancelled while waiting for pieces', async () => {
    const t = new FakeFirst([100], 200);
    const [a] = channel(); // a helper that never answers
    const source = new PieceSource(a);
    let cancelled = false;
    const merging = mergeRanges(t, [100], [source], t.readRest, () => {
      if (cancelled) throw new Error('cancelled');
    });
    await settle();
    cancelled = true;
    source.close(); // what the worker does on a cancel
    await expect(merging).rejects.toThrow('cancelled');
  });
});

describe('the pool gives helpers', () => {
  const fake = (): Started => ({
    endpoint: { postMessage: () => {}, addEventListener: () => {} },
    terminate: () => {},
    onDeath: () => {},
  });
  it('only workers with no load under way, never the first', () => {
    const pool = new WorkerPool(3, fake);
    const first = pool.forLoad();
    first.loads++;
    expect(pool.idleOthers(first)).toBe(2);
    const hs = pool.helpersFor(first, 2);
    expect(hs.map((h) => h.slot)).toEqual([1, 2]);
    hs[0].loads++;
    expect(pool.idleOthers(first)).toBe(1);
    expect(pool.helpersFor(first, 2).map((h) => h.slot)).toEqual([2]);
    expect(pool.usedSlots.size).toBe(3);
  });
});

describe('the test hook', () => {
  it('reads a helper fault and the split settings, and drops bad ones', () => {
    const p = parsePlan(JSON.stringify({
      faults: { 'a.json': { kind: 'throw', target: 'helper' }, 'b.json': { kind: 'hang', target: 'elsewhere' } },
      split: { minBytes: 1, workers: 2.5 },
    }));
    expect([...p!.faults]).toEqual([
      ['a.json', { kind: 'throw', target: 'helper' }],
      ['b.json', { kind: 'hang' }],
    ]);
    expect(p!.split).toEqual({ minBytes: 1, workers: 2 });
    expect(parsePlan(JSON.stringify({ split: { minBytes: -1, workers: 0 } }))!.split).toBeUndefined();
  });
});

// Issue 21: a 10 GB file's splits lie past 4 GiB. The page's side of the plan and of the reads is
// JavaScript numbers (exact to 2^53); checked here with a source of 10^10 bytes whose bytes are
// made up as they are read (nothing that size is ever held), so no 10 GB file is needed. The
// core's side past 4 GiB (start_at, stop_at, covered end, health offsets in 32-bit wasm) is
// tests/core/model_merge_test.cpp and tests/golden/wasm_ranges_test.mjs.
describe('offsets past 4 GiB', () => {
  const HEAD = '{"traceEvents": [\n';
  // One event per line, all of one length, so where each starts is known: HEAD + i * EVENT.length.
  const EVENT = '{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 1},\n';
  const byteAt = (o: number) => (o < HEAD.length ? HEAD.charCodeAt(o) : EVENT.charCodeAt((o - HEAD.length) % EVENT.length));

  /** A File stand-in of `size` bytes from absolute offset `base` (slice() as Blob's: clamped, relative). */
  class MadeUpFile {
    readonly asked: [number, number][] = [];
    constructor(readonly size: number, readonly base = 0, private readonly log: [number, number][] | null = null) {
      this.asked = log ?? [];
    }
    slice(start = 0, end = this.size) {
      const s = Math.max(0, Math.min(this.size, start));
      const e = Math.max(s, Math.min(this.size, end));
      return new MadeUpFile(e - s, this.base + s, this.asked);
    }
    async arrayBuffer(): Promise<ArrayBuffer> {
      this.asked.push([this.base, this.base + this.size]);
      const b = new Uint8Array(this.size);
      for (let i = 0; i < b.length; i++) b[i] = byteAt(this.base + i);
      return b.buffer;
    }
  }

  // The core's proposal as the contract says it (docs/contracts.md): the first '{' after '}' ','
  // (whitespace allowed between); the root from the first non-blank byte.
  const core = {
    rootIsArray: (b: Uint8Array) => {
      const t = new TextDecoder().decode(b).trimStart();
      return t[0] === '[' ? 1 : t[0] === '{' ? 0 : -1;
    },
    proposeSplit: (w: Uint8Array) => {
      const m = /\}\s*,\s*\{/.exec(new TextDecoder().decode(w));
      return m ? m.index + m[0].length - 1 : -1;
    },
    // The plan as core/trace/model_merge.h states it (tests/core/model_merge_test.cpp checks the
    // core's; tests/golden/wasm_session_test.mjs the wasm binding's, past 4 GiB).
    nominalSplits: (size: number, k: number) => Array.from({ length: Math.max(0, k - 1) }, (_, i) => Math.floor(size / k) * (i + 1)),
    chooseSplits: (nominal: number[], found: number[], size: number) => {
      const out: number[] = [];
      nominal.forEach((n, i) => {
        const at = n + found[i];
        if (found[i] >= 0 && at > 0 && at < size && (!out.length || at > out[out.length - 1])) out.push(at);
      });
      return out;
    },
  };

  it('the plan of a 10^10-byte file: windows read at size/k*i, splits on event starts, exact', async () => {
    const file = new MadeUpFile(1e10);
    for (const k of [2, 3, 4]) {
      file.asked.length = 0;
      const { splits, root } = await planSplits(core, file, k);
      expect(root).toBe(0);
      const nominal = core.nominalSplits(1e10, k);
      expect(nominal).toEqual(Array.from({ length: k - 1 }, (_, i) => Math.floor(1e10 / k) * (i + 1)));
      expect(splits.length).toBe(k - 1);
      for (const [i, s] of splits.entries()) {
        // On the first event start after its nominal offset (beyond 2^32 from k = 2 on).
        const first = HEAD.length + Math.ceil((nominal[i] - HEAD.length) / EVENT.length) * EVENT.length;
        expect(s).toBe(first);
        expect(byteAt(s)).toBe('{'.charCodeAt(0));
      }
      expect(splits.at(-1)!).toBeGreaterThan(2 ** 32);
      // The windows asked for: the head, then SPLIT_WINDOW bytes at each nominal offset.
      expect(file.asked).toEqual([[0, 4096], ...nominal.map((n) => [n, n + SPLIT_WINDOW])]);
    }
  });

  it("a helper's range past 4 GiB is read from its first byte to the file's end, bytes and counts exact", async () => {
    const size = 2 ** 32 + 24 * 2 ** 20 + 5; // 4 GiB + 24 MiB + 5
    const file = new MadeUpFile(size);
    // A last range that starts 1 MiB past 4 GiB, found as planSplits finds one (its window, the proposal).
    const nominal = 2 ** 32 + 2 ** 20;
    const start = nominal + core.proposeSplit(new Uint8Array(await file.slice(nominal, nominal + SPLIT_WINDOW).arrayBuffer()));
    expect((start - HEAD.length) % EVENT.length).toBe(0);
    // What a helper reads (worker.ts readRange): File.slice(start), in 4 MB chunks, the last shorter.
    const range = file.slice(start);
    const chunk = 4 << 20;
    let off = start;
    let last = 0;
    for await (const c of readChunks(range as unknown as Blob, false, chunk)) {
      expect(c.bytes.length).toBe(Math.min(chunk, size - off));
      for (const at of [0, c.bytes.length - 1]) expect(c.bytes[at]).toBe(byteAt(off + at));
      off += c.bytes.length;
      expect(c.bytesRead).toBe(off - start);
      last = c.bytesRead;
    }
    expect(off).toBe(size);
    expect(last).toBe(size - start);
    // The first worker reading on from a range's end past 4 GiB (readFrom: File.slice(from)).
    const from = start + 10 * EVENT.length;
    const on = file.slice(from);
    expect(on.size).toBe(size - from);
    const head = new Uint8Array(await on.slice(0, 3).arrayBuffer());
    expect([...head]).toEqual([byteAt(from), byteAt(from + 1), byteAt(from + 2)]);
    expect(String.fromCharCode(head[0])).toBe('{');
  });
});
