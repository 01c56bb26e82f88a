import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  BufferPool,
  ChunkFeeder,
  Gatherer,
  InputError,
  Keeper,
  LocalChunks,
  MAX_CHUNK,
  RemoteChunks,
  readChunks,
  serveChunks,
  streamChunks,
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

/**
 * Every chunk of `src`, each copied before the next next(): a chunk's bytes are the caller's only
 * until then (RemoteChunks hands their buffer back to the reader, which reads the next chunks into
 * it; over these in-memory ports the buffer is shared, not moved, so a kept chunk would change).
 */
async function drain(src: ChunkSource): Promise<Chunk[]> {
  const out: Chunk[] = [];
  for (let c = await src.next(); c; c = await src.next()) out.push({ ...c, bytes: c.bytes.slice() });
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

describe('BufferPool', () => {
  it('keeps buffers of its size only, at most `most` of them, and gives them back last in first out, to chunks of that size', () => {
    const pool = new BufferPool(8, 2);
    const a = new ArrayBuffer(8), b = new ArrayBuffer(8), c = new ArrayBuffer(8);
    pool.give(new ArrayBuffer(7)); // another size: a last, shorter chunk
    pool.give(structuredClone(new ArrayBuffer(8), { transfer: [] }).slice(0, 0)); // empty, as a detached one is
    expect(pool.length).toBe(0);
    pool.give(a);
    pool.give(b);
    pool.give(c); // full
    expect(pool.length).toBe(2);
    expect(pool.take(7)).toBeUndefined(); // a chunk of another size gets none
    expect(pool.length).toBe(2);
    expect(pool.take(8)).toBe(b);
    expect(pool.take(8)).toBe(a);
    expect(pool.take(8)).toBeUndefined();
  });

  it('the Gatherer gathers into pooled buffers when it has any', () => {
    const pool = new BufferPool(10);
    const lent = new ArrayBuffer(10);
    pool.give(lent);
    const g = new Gatherer(10, pool);
    const out = g.push(bytes(25, 5));
    expect(out[0].buffer).toBe(lent); // the first buffer came from the pool
    expect(pool.length).toBe(0);
    expect(concat([...out, g.rest()!])).toEqual(bytes(25, 5));
  });
});

describe('readChunks', () => {
  it('reads whole chunks into pooled buffers, and the shorter last one into a buffer of its own', async () => {
    const pool = new BufferPool(10);
    const lent = [new ArrayBuffer(10), new ArrayBuffer(10)];
    for (const b of lent) pool.give(b);
    const data = bytes(35, 9);
    const got: Chunk[] = [];
    for await (const c of readChunks(new Blob([data]), false, 10, pool)) {
      got.push({ ...c, bytes: c.bytes.slice() });
      if (got.length === 2) expect(pool.length).toBe(0); // both taken, one per whole chunk
    }
    expect(lent.every((b) => b.byteLength === 0)).toBe(true); // moved into the stream's reads
    expect(got.map((c) => c.bytes.length)).toEqual([10, 10, 10, 5]);
    expect(concat(got.map((c) => c.bytes))).toEqual(data);
  });

  it('reads a plain file in chunkBytes slices, counting bytes read', async () => {
    const data = bytes(25, 5);
    const cs: Chunk[] = [];
    for await (const c of readChunks(new Blob([data]), false, 10)) cs.push(c);
    expect(cs.map((c) => c.bytes.length)).toEqual([10, 10, 5]);
    expect(cs.map((c) => c.bytesRead)).toEqual([10, 20, 25]);
    expect(cs.every((c) => ownsBuffer(c.bytes))).toBe(true);
    expect(concat(cs.map((c) => c.bytes))).toEqual(data);
  });

  it('fills whole chunks from a byte stream whose reads come in other sizes (a Blob of many parts)', async () => {
    // A Blob of 7-byte parts: its stream's reads need not match the 64-byte chunks asked for.
    const data = bytes(1000, 3);
    const parts: Uint8Array[] = [];
    for (let i = 0; i < data.length; i += 7) parts.push(data.slice(i, i + 7));
    const cs: Chunk[] = [];
    for await (const c of readChunks(new Blob(parts), false, 64)) cs.push(c);
    expect(cs.map((c) => c.bytes.length)).toEqual([...Array(15).fill(64), 40]);
    expect(cs.at(-1)!.bytesRead).toBe(1000);
    expect(cs.every((c) => ownsBuffer(c.bytes))).toBe(true);
    expect(concat(cs.map((c) => c.bytes))).toEqual(data);
  });

  // Issue 21: Chromium stopped delivering a 10 GiB File's stream part-way (a BYOB read that never
  // resolved) on a busy machine, and the load waited for good. Here a stream that hangs after 25
  // bytes, in the middle of the third chunk: that chunk is read again from its first byte on
  // file.slice(20).stream(), and every byte comes once, in order.
  it('a read that never comes back: the chunk is read again from its start on a new stream', async () => {
    const data = bytes(100, 7);
    const real = new Blob([data]);
    const hanging = () => {
      let pos = 0;
      return new ReadableStream({
        type: 'bytes',
        pull(ctl) {
          if (pos >= 25) return new Promise<void>(() => {}); // never delivers again, never fails
          const v = ctl.byobRequest!.view!;
          const n = Math.min(v.byteLength, 25 - pos);
          new Uint8Array(v.buffer, v.byteOffset, n).set(data.subarray(pos, pos + n));
          pos += n;
          ctl.byobRequest!.respond(n);
        },
      });
    };
    const file = { size: real.size, slice: (a?: number, b?: number) => real.slice(a, b), stream: hanging } as unknown as Blob;
    const restarts: number[] = [];
    const cs: Chunk[] = [];
    for await (const c of readChunks(file, false, 10, null, 20, (off) => restarts.push(off))) cs.push({ ...c, bytes: c.bytes.slice() });
    expect(restarts).toEqual([20]);
    expect(cs.map((c) => c.bytesRead)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(concat(cs.map((c) => c.bytes))).toEqual(data);
  });

  it('reads a Blob without a byte stream by slices', async () => {
    const data = bytes(25, 5);
    const blob = new Blob([data]);
    // A stream without BYOB support, as some non-browser Blobs have.
    const plain = { size: blob.size, slice: blob.slice.bind(blob), stream: () => new ReadableStream({ start: (c) => c.close() }) } as unknown as Blob;
    const cs: Chunk[] = [];
    for await (const c of readChunks(plain, false, 10)) cs.push(c);
    expect(cs.map((c) => c.bytes.length)).toEqual([10, 10, 5]);
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

/**
 * A download's body stand-in: hands out `pieces` one per read, then ends, or fails with `fail`
 * (a connection that broke off), or with `fail` 'stall' never answers again (a server that hangs).
 * Records whether it was cancelled and how many pieces it gave.
 */
function bodyOf(pieces: Uint8Array[], fail?: Error | 'stall') {
  const state = { given: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(ctl) {
        if (state.given < pieces.length) ctl.enqueue(pieces[state.given++].slice());
        else if (fail === 'stall') return new Promise<void>(() => {});
        else if (fail) ctl.error(fail);
        else ctl.close();
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

/** `data` cut into pieces of the given sizes (the rest as one last piece). */
function split(data: Uint8Array, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let off = 0;
  for (const n of sizes) (out.push(data.subarray(off, off + n)), (off += n));
  if (off < data.length) out.push(data.subarray(off));
  return out;
}

async function collect(it: AsyncGenerator<Chunk>): Promise<{ chunks: Chunk[]; error: unknown }> {
  const chunks: Chunk[] = [];
  try {
    for await (const c of it) chunks.push(c);
  } catch (e) {
    return { chunks, error: e };
  }
  return { chunks, error: null };
}

const traceJson = (n: number) =>
  new TextEncoder().encode(JSON.stringify({ traceEvents: Array.from({ length: n }, (_, i) => ({ ph: 'X', ts: i * 13.7, name: `op${i % 97}` })) }));

describe('streamChunks (gzip files and downloads share it)', () => {
  it('a plain body in small pieces: gathered into chunkBytes chunks, every raw piece kept', async () => {
    const json = traceJson(400);
    const pieces = split(json, [1, 3, 700, 5, 2000]);
    const { stream } = bodyOf(pieces);
    const keep = new Keeper(100); // folds into Blobs every 100 bytes: both parts are checked
    const { chunks, error } = await collect(streamChunks(stream, { gzip: 'detect', chunkBytes: 1024, keep }));
    expect(error).toBeNull();
    expect(concat(chunks.map((c) => c.bytes))).toEqual(json);
    expect(chunks.slice(0, -1).every((c) => c.bytes.length === 1024)).toBe(true);
    expect(chunks.every((c) => ownsBuffer(c.bytes))).toBe(true);
    expect(chunks.at(-1)!.bytesRead).toBe(json.length);
    expect(new Uint8Array(await keep.file('t').arrayBuffer())).toEqual(json);
  });

  it('tells gzip by its first two bytes, even split over two pieces, and keeps the compressed bytes', async () => {
    const json = traceJson(3000);
    const gz = new Uint8Array(gzipSync(json));
    const { stream } = bodyOf(split(gz, [1, 1, 10, 4000]));
    const keep = new Keeper(100); // folds into Blobs every 100 bytes: both parts are checked
    const { chunks, error } = await collect(streamChunks(stream, { gzip: 'detect', chunkBytes: 4096, keep }));
    expect(error).toBeNull();
    expect(concat(chunks.map((c) => c.bytes))).toEqual(json);
    expect(chunks.at(-1)!.bytesRead).toBe(gz.length); // compressed bytes, as received
    expect(new Uint8Array(await keep.file('t').arrayBuffer())).toEqual(gz);
  });

  it('a body of one byte, or none, is plain (too short for the gzip magic)', async () => {
    expect((await collect(streamChunks(bodyOf([new Uint8Array([0x1f])]).stream, { gzip: 'detect' }))).chunks.map((c) => [...c.bytes])).toEqual([[0x1f]]);
    expect(await collect(streamChunks(bodyOf([]).stream, { gzip: 'detect' }))).toEqual({ chunks: [], error: null });
  });

  it('a download that breaks off yields what came, then an InputError of the read (not gzip)', async () => {
    const json = traceJson(2000);
    const pieces = split(json, [5000, 5000]);
    const { stream } = bodyOf(pieces.slice(0, 2), new TypeError('network error'));
    const { chunks, error } = await collect(streamChunks(stream, { gzip: 'detect', chunkBytes: 4096 }));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).gzip).toBe(false);
    expect((error as InputError).bytesRead).toBe(10000);
    expect(error).toMatchObject({ name: 'TypeError', message: 'network error' });
    expect(concat(chunks.map((c) => c.bytes))).toEqual(json.subarray(0, 10000));
  });

  it('a gzip download that breaks off is a read error too; a gzip that ends cut off is a gzip error', async () => {
    const json = traceJson(6000);
    const gz = new Uint8Array(gzipSync(json));
    const half = Math.floor(gz.length / 2);
    const broken = await collect(streamChunks(bodyOf(split(gz.subarray(0, half), [2, 1000]), new TypeError('network error')).stream, { gzip: 'detect', chunkBytes: 4096 }));
    expect(broken.error).toBeInstanceOf(InputError);
    expect((broken.error as InputError).gzip).toBe(false);
    const decoded = concat(broken.chunks.map((c) => c.bytes));
    expect(decoded.length).toBeGreaterThan(0);
    expect(decoded).toEqual(json.subarray(0, decoded.length));

    const cut = await collect(streamChunks(bodyOf([gz.subarray(0, half)]).stream, { gzip: 'detect', chunkBytes: 4096 }));
    expect(cut.error).toBeInstanceOf(InputError);
    expect((cut.error as InputError).gzip).toBe(true);
    expect((cut.error as InputError).bytesRead).toBe(half);
  });

  it('stopping early cancels the body (the download ends)', async () => {
    const { stream, state } = bodyOf(split(bytes(100_000), Array(20).fill(1000)));
    const it = streamChunks(stream, { gzip: 'detect', chunkBytes: 1024 });
    expect((await it.next()).done).toBe(false);
    await it.return(undefined);
    expect(state.cancelled).toBe(true);
    expect(state.given).toBeLessThan(10);
  });
});

describe('reader worker protocol (serveChunks <-> RemoteChunks)', () => {
  it('delivers every byte in order, never more than `ahead` chunks ahead, then null', async () => {
    const data = bytes(95, 3);
    const p = portPair();
    serveChunks(p.reader);
    const src = new RemoteChunks(p.trace, { file: new Blob([data]), gzip: false }, 10, 2);
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

  it('hands each fed chunk back to the reader at the next next(), which reads into it: bytes stay exact', async () => {
    const data = bytes(95, 4);
    const p = portPair();
    serveChunks(p.reader);
    const src = new RemoteChunks(p.trace, { file: new Blob([data]), gzip: false }, 10, 1);
    const got = await drain(src);
    expect(concat(got.map((c) => c.bytes))).toEqual(data);
    // Every whole chunk but the last went back; the short last one is not of the pool's size.
    const back = p.traceSent.filter((m) => (m as { kind: string }).kind === 'recycle') as { buffer: ArrayBuffer }[];
    expect(back.length).toBe(9);
    expect(back.every((m) => m.buffer.byteLength === 10 || m.buffer.byteLength === 0)).toBe(true);
  });

  it('over a real MessageChannel the handed-back buffer moves: the chunk before is emptied, not overwritten', async () => {
    const data = bytes(40, 6);
    const { port1, port2 } = new MessageChannel();
    serveChunks(port2 as unknown as Port);
    const src = new RemoteChunks(port1 as unknown as Port, { file: new Blob([data]), gzip: false }, 10, 1);
    port1.start();
    port2.start();
    try {
      const first = (await src.next())!;
      expect(Array.from(first.bytes)).toEqual(Array.from(data.subarray(0, 10)));
      const second = (await src.next())!;
      expect(first.bytes.byteLength).toBe(0); // transferred back to the reader
      const kept = second.bytes.slice();
      expect(Array.from(kept)).toEqual(Array.from(data.subarray(10, 20)));
      const rest = await drain(src);
      expect(concat([kept, ...rest.map((c) => c.bytes)])).toEqual(data.subarray(10));
    } finally {
      src.close();
      port1.close();
      port2.close();
    }
  });

  it("the reader's 'ready' (sent as its script starts, for the warm-up) is no chunk: every byte still comes", async () => {
    const data = bytes(35, 2);
    const p = portPair();
    const src = new RemoteChunks(p.trace, { file: new Blob([data]), gzip: false }, 10, 2);
    p.reader.postMessage({ kind: 'ready' }); // before the reader serves, as reader.ts does
    serveChunks(p.reader);
    const got = await drain(src);
    expect(got.map((c) => c.bytes.length)).toEqual([10, 10, 10, 5]);
    expect(concat(got.map((c) => c.bytes))).toEqual(data);
  });

  it('a failing input arrives as InputError after the bytes decoded before it', async () => {
    const gz = gzipSync(bytes(20000, 1));
    const cut = gz.subarray(0, gz.length - 10);
    const p = portPair();
    serveChunks(p.reader);
    const src = new RemoteChunks(p.trace, { file: new Blob([cut]), gzip: true }, 4096, 3);
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
    const src = new RemoteChunks(p.trace, { file: new Blob([bytes(10)]), gzip: false }, 10, 3, () => closes++);
    const pending = src.next();
    src.close();
    src.close();
    expect(await pending).toBeNull();
    expect(await src.next()).toBeNull();
    expect(closes).toBe(1);
  });

  it('a dead reader fails the pending next() with its error, not as input', async () => {
    const p = portPair();
    const src = new RemoteChunks(p.trace, { file: new Blob([bytes(10)]), gzip: false }, 10, 3);
    const pending = src.next();
    src.fail(new Error('reader died'));
    await expect(pending).rejects.toThrow('reader died');
    await expect(src.next()).rejects.not.toBeInstanceOf(InputError);
  });
});

describe('a download through the reader (serveChunks <-> RemoteChunks, LocalChunks)', () => {
  it('delivers the JSON and hands back the bytes as received as a File of the given name', async () => {
    const json = traceJson(3000);
    const gz = new Uint8Array(gzipSync(json));
    const p = portPair();
    serveChunks(p.reader);
    const src = new RemoteChunks(p.trace, { stream: bodyOf(split(gz, [700, 700])).stream, name: 'rank 0.json.gz' }, 4096, 2);
    expect(src.kept()).toBeNull(); // not before the end
    const got = await drain(src);
    expect(concat(got.map((c) => c.bytes))).toEqual(json);
    const kept = src.kept()!;
    expect(kept.name).toBe('rank 0.json.gz');
    expect(new Uint8Array(await kept.arrayBuffer())).toEqual(gz);
  });

  it('a broken download arrives as a read InputError, with the bytes that came kept', async () => {
    const json = traceJson(2000);
    const p = portPair();
    serveChunks(p.reader);
    const src = new RemoteChunks(p.trace, { stream: bodyOf([json.subarray(0, 9000)], new TypeError('network error')).stream, name: 'x.json' }, 4096, 3);
    const got: Chunk[] = [];
    let err: unknown = null;
    try {
      for (let c = await src.next(); c; c = await src.next()) got.push(c);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).gzip).toBe(false);
    expect(concat(got.map((c) => c.bytes))).toEqual(json.subarray(0, 9000));
    expect(new Uint8Array(await src.kept()!.arrayBuffer())).toEqual(json.subarray(0, 9000));
  });

  it('close() cancels a stalled download in the reader (its request ends), then the reader stops', async () => {
    const body = bodyOf([traceJson(50)], 'stall');
    const p = portPair();
    let stopped = 0;
    serveChunks(p.reader, () => stopped++);
    const src = new RemoteChunks(p.trace, { stream: body.stream, name: 'x.json' }, 4096, 3);
    await new Promise((r) => setTimeout(r, 20)); // the reader now waits on the stalled body
    expect(body.state.cancelled).toBe(false);
    const pending = src.next();
    src.close();
    expect(await pending).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(body.state.cancelled).toBe(true);
    expect(stopped).toBe(1);
    expect(p.readerSent.filter((m) => (m as ReaderResponse).kind !== 'chunk')).toEqual([]); // nothing after the stop
  });

  it('LocalChunks.close() cancels a stalled download too', async () => {
    const body = bodyOf([traceJson(50)], 'stall');
    const local = new LocalChunks({ stream: body.stream, name: 'x.json' }, 4096);
    const pending = local.next();
    await new Promise((r) => setTimeout(r, 20));
    local.close();
    expect(await pending).toBeNull();
    expect(body.state.cancelled).toBe(true);
  });

  it('LocalChunks keeps a download too; a File input keeps nothing', async () => {
    const json = traceJson(100);
    const local = new LocalChunks({ stream: bodyOf(split(json, [10])).stream, name: 'a.json' }, 1024);
    expect(concat((await drain(local)).map((c) => c.bytes))).toEqual(json);
    expect(new Uint8Array(await local.kept()!.arrayBuffer())).toEqual(json);
    const file = new LocalChunks({ file: new Blob([json]), gzip: false }, 1024);
    await drain(file);
    expect(file.kept()).toBeNull();
  });
});

describe('LocalChunks', () => {
  it('reads in this thread and stops at close()', async () => {
    const src = new LocalChunks({ file: new Blob([bytes(35)]), gzip: false }, 10);
    const first = await src.next();
    expect(first!.bytes).toEqual(bytes(35).subarray(0, 10));
    src.close();
    expect(await src.next()).toBeNull();
    expect(await drain(new LocalChunks({ file: new Blob([bytes(35)]), gzip: false }, 10)).then((cs) => cs.map((c) => c.bytesRead))).toEqual([10, 20, 30, 35]);
  });
});
