import { describe, expect, it } from 'vitest';
import { isMemoryTimeline } from '../../web/src/lib/memory-timeline';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('isMemoryTimeline', () => {
  it('knows export_memory_timeline JSON by its first bytes', () => {
    expect(isMemoryTimeline(bytes('[[1795712509935910, 1795712509935910], [[0, 1, 2'))).toBe(true);
    expect(isMemoryTimeline(bytes(' \n[ [ 100,'))).toBe(true);
    expect(isMemoryTimeline(bytes('[[], []]'))).toBe(true);
    expect(isMemoryTimeline(bytes('\ufeff[[5'))).toBe(true);
  });
  it('tells it from traces and other files', () => {
    expect(isMemoryTimeline(bytes('{"traceEvents": ['))).toBe(false);
    expect(isMemoryTimeline(bytes('[{"ph": "X"'))).toBe(false);
    expect(isMemoryTimeline(bytes('[["a"]]'))).toBe(false);
    expect(isMemoryTimeline(new Uint8Array([0x80, 0x05, 0x95]))).toBe(false);
    expect(isMemoryTimeline(new Uint8Array(0))).toBe(false);
  });
});
