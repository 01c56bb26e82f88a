import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isGzip } from '../../web/src/lib/gzip';

describe('isGzip (magic bytes, not file names)', () => {
  it('accepts what zlib writes', () => {
    const gz = new Uint8Array(gzipSync(Buffer.from('{"traceEvents":[]}')));
    expect(isGzip(gz)).toBe(true);
    expect(isGzip(gz.subarray(0, 2))).toBe(true);
  });
  it('rejects JSON, empty and one-byte input, and the magic in the wrong order', () => {
    expect(isGzip(new TextEncoder().encode('{"traceEvents":[]}'))).toBe(false);
    expect(isGzip(new Uint8Array([]))).toBe(false);
    expect(isGzip(new Uint8Array([0x1f]))).toBe(false);
    expect(isGzip(new Uint8Array([0x8b, 0x1f, 0x08]))).toBe(false);
    expect(isGzip(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe(false); // PNG
  });
});
