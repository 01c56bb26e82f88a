import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPickle, readAsSnapshot } from '../../web/src/lib/pickle';
import type { Chunk, ChunkSource } from '../../web/src/worker/feeder';
import { PeekedSource } from '../../web/src/worker/peek';

const data = path.resolve(__dirname, '..', 'data');

describe('isPickle (a snapshot told by its first bytes, not its name)', () => {
  it('accepts the snapshots PyTorch writes (protocols 2-5)', () => {
    for (const p of [2, 3, 4, 5]) expect(isPickle(new Uint8Array(fs.readFileSync(path.join(data, `snapshots/hand-made-protocol${p}.pickle`))))).toBe(true);
    expect(isPickle(new Uint8Array(fs.readFileSync(path.join(data, 'h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle'))))).toBe(true);
  });
  it('rejects traces, protocols 0 and 1 (no PROTO opcode), other protocols, and short input', () => {
    expect(isPickle(new TextEncoder().encode('{"traceEvents":[]}'))).toBe(false);
    expect(isPickle(new Uint8Array(fs.readFileSync(path.join(data, 'snapshots/protocol0.pickle'))))).toBe(false);
    expect(isPickle(new Uint8Array(fs.readFileSync(path.join(data, 'snapshots/protocol1.pickle'))))).toBe(false);
    expect(isPickle(new Uint8Array([0x80, 6]))).toBe(false);
    expect(isPickle(new Uint8Array([0x80]))).toBe(false);
    expect(isPickle(new Uint8Array(0))).toBe(false);
  });
});

describe('readAsSnapshot (by content, or a .pickle that is not JSON)', () => {
  const head = (rel: string) => new Uint8Array(fs.readFileSync(path.join(data, rel))).subarray(0, 8);
  it('reads any protocol 2-5 pickle whatever its name, and protocol 0 and 1 pickles named as pickles', () => {
    expect(readAsSnapshot(head('snapshots/hand-made-protocol4.pickle'), 'trace.json')).toBe(true);
    expect(readAsSnapshot(head('snapshots/protocol0.pickle'), 'protocol0.pickle')).toBe(true);
    expect(readAsSnapshot(head('snapshots/protocol1.pickle'), 'x.PKL')).toBe(true);
  });
  it('leaves JSON to the trace reader, even named .pickle, and a protocol 0 pickle named otherwise', () => {
    expect(readAsSnapshot(new TextEncoder().encode('{"traceEvents":[]}'), 'x.pickle')).toBe(false);
    expect(readAsSnapshot(new TextEncoder().encode('\n[{}]'), 'x.pickle')).toBe(false);
    expect(readAsSnapshot(head('snapshots/protocol0.pickle'), 'protocol0.bin')).toBe(false);
    expect(readAsSnapshot(new Uint8Array(0), 'empty.pickle')).toBe(false);
  });
});

class Chunks implements ChunkSource {
  closed = false;
  constructor(private readonly parts: Uint8Array[], private readonly failAt = -1) {}
  private i = 0;
  async next(): Promise<Chunk | null> {
    if (this.i === this.failAt) throw new Error('read failed');
    const b = this.parts[this.i++];
    return b ? { bytes: b, bytesRead: this.i } : null;
  }
  close() {
    this.closed = true;
  }
  kept() {
    return null;
  }
}

describe('PeekedSource', () => {
  it('hands out the chunk it read ahead first, then the rest, once each', async () => {
    const s = new PeekedSource(new Chunks([new Uint8Array([0x80, 4, 1]), new Uint8Array([2])]));
    expect(Array.from(await s.head(2))).toEqual([0x80, 4]);
    expect(Array.from(await s.head(2))).toEqual([0x80, 4]);
    expect(Array.from((await s.next())!.bytes)).toEqual([0x80, 4, 1]);
    expect(Array.from((await s.next())!.bytes)).toEqual([2]);
    expect(await s.next()).toBeNull();
  });
  it('an empty input has an empty head; a failed first read is thrown by the first next()', async () => {
    expect((await new PeekedSource(new Chunks([])).head()).length).toBe(0);
    const failing = new PeekedSource(new Chunks([new Uint8Array([1])], 0));
    expect((await failing.head()).length).toBe(0);
    await expect(failing.next()).rejects.toThrow('read failed');
  });
  it('passes close on', () => {
    const c = new Chunks([]);
    new PeekedSource(c).close();
    expect(c.closed).toBe(true);
  });
});
