import { describe, expect, it } from 'vitest';
import type { Summary } from '../../web/src/lib/summary';
import { addStreamError } from '../../web/src/worker/stream-error';

const base = (): Summary =>
  ({
    ok: true,
    error: '',
    events: 120,
    health: [{ reason: 'truncated', severity: 'error', count: 1, sample_offset: 5000, message: 'cut' }],
  }) as unknown as Summary;

describe('addStreamError', () => {
  it('keeps the summary of what was read and adds a gzip-error row after the core rows', () => {
    const s = addStreamError(base(), new TypeError('Compressed input was truncated.'), true, 989713);
    expect(s.ok).toBe(true);
    expect(s.events).toBe(120);
    expect(s.health.map((r) => r.reason)).toEqual(['truncated', 'gzip-error']);
    expect(s.health[1]).toEqual({
      reason: 'gzip-error',
      severity: 'error',
      count: 1,
      sample_offset: 989713,
      message:
        'The gzip stream is corrupt or cut off after 989,713 decompressed bytes (Compressed input was truncated); what came before was loaded.',
    });
  });
  it('turns a stream that yielded nothing into one error sentence', () => {
    const s = addStreamError(base(), new Error('bad header'), true, 0);
    expect(s.ok).toBe(false);
    expect(s.error).toBe('The file starts like a gzip file but could not be decompressed.');
    const r = addStreamError(base(), 'io', false, 0);
    expect(r.error).toBe('The file could not be read.');
    expect(r.health.at(-1)!.reason).toBe('read-error');
  });
});
