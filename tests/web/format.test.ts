import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCount,
  formatDeviceMemory,
  formatDurationUs,
  formatEta,
  formatRate,
  formatTimestampUs,
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
