import { describe, expect, it } from 'vitest';
import { progressStats, Throttle } from '../../web/src/lib/progress';

describe('progressStats', () => {
  it('computes fraction, rate and time left from compressed bytes', () => {
    const s = progressStats({ bytesRead: 50_000_000, totalBytes: 200_000_000, elapsedMs: 500 });
    expect(s.fraction).toBe(0.25);
    expect(s.bytesPerSecond).toBe(100_000_000);
    expect(s.secondsLeft).toBe(1.5);
  });
  it('has no rate before 50 ms or before the first byte', () => {
    expect(progressStats({ bytesRead: 10, totalBytes: 100, elapsedMs: 10 })).toEqual({
      fraction: 0.1,
      bytesPerSecond: null,
      secondsLeft: null,
    });
    expect(progressStats({ bytesRead: 0, totalBytes: 100, elapsedMs: 1000 }).bytesPerSecond).toBeNull();
  });
  it('clamps the fraction and time left at the end and for empty files', () => {
    const s = progressStats({ bytesRead: 120, totalBytes: 100, elapsedMs: 1000 });
    expect(s.fraction).toBe(1);
    expect(s.secondsLeft).toBe(0);
    expect(progressStats({ bytesRead: 0, totalBytes: 0, elapsedMs: 0 }).fraction).toBe(0);
  });
  it('a download without a known total has a rate but no fraction and no time left', () => {
    expect(progressStats({ bytesRead: 3_000_000, totalBytes: null, elapsedMs: 1500 })).toEqual({
      fraction: null,
      bytesPerSecond: 2_000_000,
      secondsLeft: null,
    });
    expect(progressStats({ bytesRead: 0, totalBytes: null, elapsedMs: 0 }).fraction).toBeNull();
  });
});

describe('Throttle', () => {
  it('lets one event through per interval (about 10 per second at 100 ms)', () => {
    const t = new Throttle(100);
    const passed = [0, 30, 99, 100, 150, 199, 200, 205, 450].filter((ms) => t.ready(ms));
    expect(passed).toEqual([0, 100, 200, 450]);
  });
});
