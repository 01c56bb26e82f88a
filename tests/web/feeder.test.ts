import { describe, expect, it } from 'vitest';
import { ChunkFeeder, MAX_CHUNK, type SessionLike } from '../../web/src/worker/feeder';

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

describe('ChunkFeeder', () => {
  it('defaults to 4 MB pieces', () => {
    expect(MAX_CHUNK).toBe(4 * 1024 * 1024);
  });

  it('gathers small chunks and splits big ones into pieces of at most maxChunk, bytes in order', () => {
    const s = new RecordingSession();
    const f = new ChunkFeeder(s.mod, s, 10);
    const input = [bytes(3, 1), bytes(4, 2), bytes(25, 3), bytes(1, 4)];
    for (const c of input) f.push(c);
    f.flush();
    const all = input.flatMap((c) => Array.from(c));
    expect(s.commits).toEqual([10, 10, 10, 3]);
    expect(s.received).toEqual(all);
    expect(f.fed).toBe(33);
  });

  it('reads HEAPU8 after prepare, so memory growth is handled', () => {
    const s = new RecordingSession();
    const f = new ChunkFeeder(s.mod, s, 8);
    f.push(bytes(20));
    f.flush();
    expect(s.received).toEqual(Array.from(bytes(20)));
  });

  it('stops once the session says the input is not a trace', () => {
    const s = new RecordingSession();
    s.failAfterBytes = 8;
    const f = new ChunkFeeder(s.mod, s, 8);
    f.push(bytes(40));
    expect(f.stopped).toBe(true);
    f.flush();
    expect(s.commits).toEqual([8]);
    expect(f.fed).toBe(8);
  });

  it('flush with nothing staged commits nothing', () => {
    const s = new RecordingSession();
    const f = new ChunkFeeder(s.mod, s, 8);
    f.flush();
    expect(s.commits).toEqual([]);
  });
});
