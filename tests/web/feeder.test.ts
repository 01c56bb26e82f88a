import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ChunkFeeder,
  Gatherer,
  InputError,
  LocalChunks,
  MAX_CHUNK,
  RemoteChunks,
  readChunks,
  serveChunks,
  type Chunk,
  type ChunkSource,
  type SessionLike,
} from '../../web/src/worker/feeder';
import type { Port, ReaderResponse } from '../../web/src/worker/protocol';

/**
 * Models the Session contract: prepare(n) returns an offset in HEAPU8 and may grow memory (which
 * replaces the HEAPU8 view), commit(n) consumes the n bytes written there.
 */
class RecordingSession implements SessionLike {
  mod = { HEAPU8: new Uint8Array(16) };
  received: number[] = [];
  commits: number[] = [];
  failAfterBytes = Infinity;
  private pendingAt = -1;
  prepare(n: number) {
    // Always grow: a feeder that kept the old view would write into a detached/stale array.
    this.mod.HEAPU8 = new Uint8Array(n + 64);
    this.pendingAt = 32;
    return this.pendingAt;
  }
  commit(n: number) {
    this.commits.push(n);
    for (const b of this.mod.HEAPU8.subarray(this.pendingAt, this.pendingAt + n)) this.received.push(b);
  }
  failed() {
    return this.received.length >= this.failAfterBytes;
  }
}

const bytes = (n: number, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff);
const concat = (cs: Uint8Array[]) => {
  const out = new Uint8Array(cs.reduce((s, c) => s + c.length, 0));
  let o = 0;
  for (const c of cs) (out.set(c, o), (o += c.length));
  return out;
};
const ownsBuffer = (c: Uint8Array) => c.byteOffset === 0 && c.byteLength === c.buffer.byteLength;

async function drain(src: ChunkSource): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for (let c = await src.next(); c; c = await src.next()) out.push(c);
  return out;
}

/** Two connected in-memory ports; messages arrive asynchronously and are counted, like a MessageChannel. */
function portPair() {
  type L = (ev: MessageEvent) => void;
  const make = () => ({ listeners: [] as L[], sent: [] as unknown[] });
  const a = make();
  const b = make();
  const port = (self: typeof a, other: typeof a): Port => ({
    postMessage(m: unknown) {
      self.sent.push(m);
      queueMicrotask(() => other.listeners.forEach((l) => l({ data: m } as MessageEvent)));
    },
    addEventListener(_t: 'message', l: L) {
      self.listeners.push(l);
    },
  });
  return { trace: port(a, b), reader: port(b, a), traceSent: a.sent, readerSent: b.sent };
}

describe('ChunkFeeder', () => {
  it('defaults to 4 MB pieces', () => {
    expect(MAX_CHUNK).toBe(4 * 1024 * 1024);
  });

  it('copies each chunk straight into the heap, splitting big ones into pieces of at most maxChunk', () => {
    const s = new RecordingSession();
    const f = new ChunkFeeder(s.mod, s, 10);
    const input = [bytes(3, 1), bytes(10, 2), bytes(25, 3)];
    for (const c of input) f.feed(c);
    expect(s.commits).toEqual([3, 10, 10, 10, 5]);
    expect(s.received).toEqual(input.flatMap((c) => Array.from(c)));
    expect(f.fed).toBe(38);
  });

  it('reads HEAPU8 after prepare, so memory growth is handled', () => {
    const s = new RecordingSession();
    const f = new ChunkFeeder(s.mod, s, 8);
    f.feed(bytes(20));
    expect(s.received).toEqual(Array.from(bytes(20)));
  });

  it('stops once the session says the input is not a trace', () => {
    const s = new RecordingSession();
    s.failAfterBytes = 8;
    const f = new ChunkFeeder(s.mod, s, 8);
    f.feed(bytes(40));
    expect(f.stopped).toBe(true);
    f.feed(bytes(8));
    expect(s.commits).toEqual([8]);
    expect(f.fed).toBe(8);
  });

  it('an empty chunk commits nothing', () => {
    const s = new RecordingSession();
    const f = new ChunkFeeder(s.mod, s, 8);
    f.feed(new Uint8Array(0));
    expect(s.commits).toEqual([]);
  });
});

describe('Gatherer', () => {
  it('turns small chunks into exactly sized chunks that own their buffers, then the rest', () => {
    const g = new Gatherer(10);
    const input = [bytes(3, 1), bytes(4, 2), bytes(25, 3), bytes(1, 4)];
    const out = input.flatMap((c) => g.push(c));
    expect(out.map((c) => c.length)).toEqual([10, 10, 10]);
    const rest = g.rest()!;
    expect(rest.length).toBe(3);
    expect([...out, rest].every(ownsBuffer)).toBe(true);
    expect(new Set(out.map((c) => c.buffer)).size).toBe(3); // none reused after being handed out
    expect(concat([...out, rest])).toEqual(concat(input));
    expect(g.rest()).toBeNull();
  });
});

describe('readChunks', () => {
  it('reads a plain file in chunkBytes slices, counting bytes read', async () => {
    const data = bytes(25, 5);
    const cs: Chunk[] = [];
    for await (const c of readChunks(new Blob([data]), false, 10)) cs.push(c);
    expect(cs.map((c) => c.bytes.length)).toEqual([10, 10, 5]);
    expect(cs.map((c) => c.bytesRead)).toEqual([10, 20, 25]);
    expect(cs.every((c) => ownsBuffer(c.bytes))).toBe(true);
    expect(concat(cs.map((c) => c.bytes))).toEqual(data);
  });

  it('yields nothing for an empty file', async () => {
    const cs: Chunk[] = [];
    for await (const c of readChunks(new Blob([]), false, 10)) cs.push(c);
    expect(cs).toEqual([]);
  });

  it('gunzips and gathers into chunkBytes chunks; bytesRead counts compressed bytes', async () => {
    const json = bytes(5000, 9);
    const gz = gzipSync(json);
    const cs: Chunk[] = [];
    for await (const c of readChunks(new Blob([gz]), true, 1024)) cs.push(c);
    expect(cs.map((c) => c.bytes.length)).toEqual([1024, 1024, 1024, 1024, 904]);
    expect(concat(cs.map((c) => c.bytes))).toEqual(json);
    expect(cs.at(-1)!.bytesRead).toBe(gz.length);
  });

  it('a cut-off gzip yields what was decoded, then throws an InputError', async () => {
    const json = new TextEncoder().encode(JSON.stringify({ traceEvents: Array.from({ length: 3000 }, (_, i) => ({ ph: 'X', ts: i * 13.7, name: `op${i % 97}` })) }));
    const gz = gzipSync(json);
    const cut = gz.subarray(0, Math.floor(gz.length / 2));
    const got: Uint8Array[] = [];
    let err: unknown = null;
    try {
      for await (const c of readChunks(new Blob([cut]), true, 4096)) got.push(c.bytes);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).bytesRead).toBe(cut.length);
    const decoded = concat(got);
    expect(decoded.length).toBeGreaterThan(0);
    expect(decoded).toEqual(json.subarray(0, decoded.length)); // a true prefix of the JSON
    expect(gunzipSync(gz)).toEqual(Buffer.from(json));
  });
});

describe('reader worker protocol (serveChunks <-> RemoteChunks)', () => {
  it('delivers every byte in order, never more than `ahead` chunks ahead, then null', async () => {
    const data = bytes(95, 3);
    const p = portPair();
    serveChunks(p.reader);
    const src = new RemoteChunks(p.trace, new Blob([data]), false, 10, 2);
    const chunks = (n: number) => p.readerSent.filter((m) => (m as ReaderResponse).kind === 'chunk').length >= n;
    // Give the reader time to run ahead: it must stop at the 2 chunks of credit.
    await new Promise((r) => setTimeout(r, 20));
    expect(chunks(2) && !chunks(3)).toBe(true);
    const got = await drain(src);
    expect(got.map((c) => c.bytes.length)).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 10, 5]);
    expect(got.at(-1)!.bytesRead).toBe(95);
    expect(concat(got.map((c) => c.bytes))).toEqual(data);
    expect(src.received).toBe(10);
    expect(await src.next()).toBeNull();
    expect(p.readerSent.at(-1)).toEqual({ kind: 'end', bytesRead: 95 });
  });

  it('a failing input arrives as InputError after the bytes decoded before it', async () => {
    const gz = gzipSync(bytes(20000, 1));
    const cut = gz.subarray(0, gz.length - 10);
    const p = portPair();
    serveChunks(p.reader);
    const src = new RemoteChunks(p.trace, new Blob([cut]), true, 4096, 3);
    const got: Chunk[] = [];
    const err = await (async () => {
      try {
        for (let c = await src.next(); c; c = await src.next()) got.push(c);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(InputError);
    expect(concat(got.map((c) => c.bytes))).toEqual(bytes(20000, 1).subarray(0, got.reduce((s, c) => s + c.bytes.length, 0)));
  });

  it('close() resolves a pending next() with null and calls onClose once', async () => {
    const p = portPair(); // no reader behind it: next() would wait forever
    let closes = 0;
    const src = new RemoteChunks(p.trace, new Blob([bytes(10)]), false, 10, 3, () => closes++);
    const pending = src.next();
    src.close();
    src.close();
    expect(await pending).toBeNull();
    expect(await src.next()).toBeNull();
    expect(closes).toBe(1);
  });

  it('a dead reader fails the pending next() with its error, not as input', async () => {
    const p = portPair();
    const src = new RemoteChunks(p.trace, new Blob([bytes(10)]), false, 10, 3);
    const pending = src.next();
    src.fail(new Error('reader died'));
    await expect(pending).rejects.toThrow('reader died');
    await expect(src.next()).rejects.not.toBeInstanceOf(InputError);
  });
});

describe('LocalChunks', () => {
  it('reads in this thread and stops at close()', async () => {
    const src = new LocalChunks(new Blob([bytes(35)]), false, 10);
    const first = await src.next();
    expect(first!.bytes).toEqual(bytes(35).subarray(0, 10));
    src.close();
    expect(await src.next()).toBeNull();
    expect(await drain(new LocalChunks(new Blob([bytes(35)]), false, 10)).then((cs) => cs.map((c) => c.bytesRead))).toEqual([10, 20, 30, 35]);
  });
});
