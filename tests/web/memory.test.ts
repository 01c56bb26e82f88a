import { describe, expect, it } from 'vitest';
import { formatPlace, parsePlace } from '../../web/src/lib/deep-link';
import { byteSplits, checkMemoryEvents, formatMemBytes, formatMemMs, linkRange, parseMemoryAlive, parseMemoryCurve, parseMemoryDevices, parseMemoryStats } from '../../web/src/lib/memory';

const device = { device: 'GPU0', peak_allocated_bytes: 3149824, peak_reserved_bytes: null, records: 9, peak_us: 220, allocated_from_bytes: false, has_addresses: true };

describe('memory answers', () => {
  it('reads devices, statistics, curve and the alive list, and refuses a wrong shape', () => {
    const d = parseMemoryDevices(JSON.stringify({ origin_us: 100, default_device: 'GPU0', devices: [device] }));
    expect(d.devices[0]).toMatchObject({ device: 'GPU0', peakAllocatedBytes: 3149824, peakReservedBytes: null, peakUs: 220, hasAddresses: true });
    const s = parseMemoryStats(
      JSON.stringify({ device, rows: [{ name: 'aten::relu', calls: 1, size_increase_bytes: -5, self_size_increase_bytes: -5, allocation_count: 1, self_allocation_count: 1, allocation_size_bytes: 8, self_allocation_size_bytes: 8 }] }),
    );
    expect(s.rowCount).toBe(1);
    expect(s.sizeIncrease[0]).toBe(-5);
    const c = parseMemoryCurve(JSON.stringify({ device: 'GPU0', points: [[0, 10, null], [1.5, 20, 64]] }));
    expect([...c.t]).toEqual([0, 1.5]);
    expect(Number.isNaN(c.reserved[0])).toBe(true);
    expect(c.reserved[1]).toBe(64);
    expect(() => parseMemoryCurve(JSON.stringify({ device: 'GPU0', points: [[0, '10', null]] }))).toThrow(/points\[0\]/);
    expect(() => parseMemoryStats(JSON.stringify({ error: 'no device GPU3 (the devices are CPU)' }))).toThrow(/no device GPU3/);
    const a = parseMemoryAlive(JSON.stringify({ device: 'GPU0', at_us: 220, allocated_bytes: 3149824, alive_bytes: 3149824, addresses: true, count: 1, rows: [{ operator: 'aten::relu', size_bytes: 2097152, alloc_us: 220, age_us: 0, call_stack: '', no_stack: 'No Python frames around it on its thread.' }] }));
    expect(a.rows[0]).toEqual({ operator: 'aten::relu', sizeBytes: 2097152, allocUs: 220, ageUs: 0, callStack: '', noStack: 'No Python frames around it on its thread.' });
  });

  it('checks the events columns', () => {
    const ok = { names: ['a'], op: new Uint32Array([0]), size: new Float64Array([4]), alloc_us: new Float64Array([1]), release_us: new Float64Array([NaN]), duration_us: new Float64Array([NaN]), stacks: [''], stack: new Uint32Array([0]) };
    expect(checkMemoryEvents(ok).rowCount).toBe(1);
    expect(checkMemoryEvents(ok).stackNotes).toEqual([]);
    expect(checkMemoryEvents({ ...ok, stack_notes: ['not recorded'] }).stackNotes).toEqual(['not recorded']);
    expect(() => checkMemoryEvents({ ...ok, stack_notes: [1] })).toThrow(/stack_notes/);
    expect(() => checkMemoryEvents({ ...ok, size: new Float64Array(2) })).toThrow(/lengths/);
    expect(() => checkMemoryEvents({ ...ok, op: [0] })).toThrow(/op/);
    expect(() => checkMemoryEvents({ error: 'no device X' })).toThrow('no device X');
  });
});

describe('memory formatting', () => {
  it('prints bytes in units of 1024 and times in ms', () => {
    expect(formatMemBytes(512)).toBe('512 B');
    expect(formatMemBytes(-4096)).toBe('-4 KB');
    expect(formatMemBytes(3 * 1048576 + 4096)).toBe('3 MB');
    expect(formatMemBytes(2.5 * 1024 ** 3)).toBe('2.5 GB');
    expect(formatMemMs(220)).toBe('0.22 ms');
    expect(formatMemMs(NaN)).toBe('');
  });

  it('picks round byte ticks in one unit', () => {
    const s = byteSplits(2.79 * 1024 ** 3);
    expect(s.name).toBe('GB');
    expect(s.ticks.map((v) => v / 1024 ** 3)).toEqual([0, 0.5, 1, 1.5, 2, 2.5]);
    expect(byteSplits(3500).name).toBe('KB');
    expect(byteSplits(0).ticks[0]).toBe(0);
  });
});

describe('memory deep link', () => {
  it('keeps a device and an ordered range, drops the rest', () => {
    const p = parsePlace('#file=a.json&view=memory&device=GPU1&mem_from=100&mem_to=300.5');
    expect(p).toMatchObject({ view: 'memory', device: 'GPU1', mem_from: '100', mem_to: '300.5' });
    expect(formatPlace(p)).toBe('file=a.json&view=memory&device=GPU1&mem_from=100&mem_to=300.5');
    expect(parsePlace('#view=memory&device=TPU&mem_from=300&mem_to=100')).toEqual({ view: 'memory' });
    expect(parsePlace('#mem_from=1')).toEqual({});
    expect(linkRange('100', '300.5')).toEqual([100, 300.5]);
    expect(linkRange('x', '3')).toBeNull();
  });
});
