import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCount,
  formatDeviceMemory,
  formatDurationUs,
  formatEta,
  formatRate,
  formatTimestampUs,
  traceClock,
  brokenDownloadNote,
} from '../../web/src/lib/format';

describe('formatCount', () => {
  it('groups thousands in en-US whatever the machine locale', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1234567)).toBe('1,234,567');
  });
});

describe('formatBytes', () => {
  it('uses binary units with 3 significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(4 * 1024 * 1024)).toBe('4.00 MiB');
    expect(formatBytes(124247)).toBe('121 KiB');
    expect(formatBytes(15.5 * 1024 ** 3)).toBe('15.5 GiB');
    expect(formatBytes(-1)).toBe('—');
  });
});

describe('formatDeviceMemory', () => {
  it('matches tb_plugin: bytes / 2^30 with two decimals', () => {
    expect(formatDeviceMemory(34079637504)).toBe('31.74 GB'); // V100 32 GB
    expect(formatDeviceMemory(0)).toBe('—');
    expect(formatDeviceMemory(null)).toBe('—');
  });
});

describe('formatDurationUs', () => {
  it('picks µs, ms, s or minutes', () => {
    expect(formatDurationUs(0)).toBe('0 µs');
    expect(formatDurationUs(12.3456)).toBe('12.346 µs');
    expect(formatDurationUs(1500)).toBe('1.5 ms');
    expect(formatDurationUs(999999)).toBe('999.999 ms');
    expect(formatDurationUs(2_500_000)).toBe('2.5 s');
    expect(formatDurationUs(125_000_000)).toBe('2 min 5 s');
    expect(formatDurationUs(Number.NaN)).toBe('—');
  });
});

describe('formatTimestampUs', () => {
  it('shows relative timestamps as ms with µs precision, epoch ones as UTC clock time', () => {
    expect(formatTimestampUs(1234567.5)).toBe('1,234.568 ms');
    expect(formatTimestampUs(1712195495403123.5)).toBe('2024-04-04 01:51:35.403 UTC');
    expect(formatTimestampUs(0)).toBe('0.000 ms');
    expect(formatTimestampUs(null)).toBe('—');
  });
});

describe('formatEta and formatRate', () => {
  it('rounds seconds up and pads minutes', () => {
    expect(formatEta(0)).toBe('0 s');
    expect(formatEta(2.1)).toBe('3 s');
    expect(formatEta(65)).toBe('1 min 05 s');
    expect(formatEta(null)).toBe('—');
    expect(formatEta(Infinity)).toBe('—');
  });
  it('quotes decimal MB/s', () => {
    expect(formatRate(160e6)).toBe('160.0 MB/s');
    expect(formatRate(1_250_000)).toBe('1.3 MB/s');
    expect(formatRate(null)).toBe('—');
  });
});

describe('traceClock', () => {
  it('adds baseTimeNanoseconds to the timestamps (PyTorch >= 2.4), giving the UTC clock time', () => {
    // cpu_only_rank34 (HTA): baseTimeNanoseconds 1719853884000000000, start 1212075525586.016 µs.
    const c = traceClock(1212075525586.016, 1212076815112.118, 1719853884000000000);
    expect(c.kind).toBe('clock');
    // 1719853884 s + 1212075.525586 s = 1721065959.525586 s = 2024-07-15 17:52:39.525 UTC
    expect(c.start).toBe('2024-07-15 17:52:39.525 UTC');
    expect(c.end).toBe('2024-07-15 17:52:40.815 UTC'); // 1,289.526 ms later
  });
  it('reads Unix microseconds as clock time without a base', () => {
    expect(traceClock(1712195495403123.5, 1712195495997097, null)).toMatchObject({ kind: 'clock', start: '2024-04-04 01:51:35.403 UTC' });
  });
  it('gives other times from the first event, and says so', () => {
    const c = traceClock(1000, 1234567.5, null);
    expect(c).toMatchObject({ kind: 'relative', start: '0.000 ms', end: '1,233.568 ms' });
    expect(c.note).toMatch(/from its first event/);
    expect(traceClock(null, null, null).start).toBe('—');
  });
});

describe('brokenDownloadNote', () => {
  it('says how far a broken download came, and never that 0 bytes were loaded', () => {
    expect(brokenDownloadNote(3 * 1024 * 1024)).toBe('The download broke off after 3.00 MiB: the events received before that were loaded.');
    expect(brokenDownloadNote(0)).toBe('The download broke off before any byte of the trace arrived, so nothing could be loaded.');
  });
});
