import { describe, expect, it } from 'vitest';
import { formatPlace, parsePlace } from '../../web/src/lib/deep-link';
import { byteSplits, formatMemBytes, formatMemMs, linkRange, memoryAlive, memoryCurve, memoryDevices, memoryEvents, memoryStats, windowParams } from '../../web/src/lib/memory';
import { eventsModel, statsModel } from '../../web/src/lib/memory-tables';
import { openAnswer } from '../../web/src/lib/answer';
import { answerOf, wireOf } from './answer-fixture';

// Answers in the shapes of `kinetoscope memory --json`'s parts on tests/data/memory-alive-at-peak.json.
const device = { device: 'GPU0', peak_allocated_bytes: 3149824, peak_reserved_bytes: null, records: 9, peak_us: 220, allocated_from_bytes: false, has_addresses: true };

describe('memory answers', () => {
  it('reads the devices, nulls as null, from the columns', () => {
    const cpu = { ...device, device: 'CPU', peak_allocated_bytes: 64, peak_us: 28, records: 2 };
    const d = memoryDevices(answerOf('memory_devices', { origin_us: 100, default_device: 'GPU0', rows: [cpu, device] }));
    expect(d.originUs).toBe(100);
    expect(d.defaultDevice).toBe('GPU0');
    expect(d.devices[1]).toEqual({ device: 'GPU0', peakAllocatedBytes: 3149824, peakReservedBytes: null, records: 9, peakUs: 220, allocatedFromBytes: false, hasAddresses: true });
    expect(d.devices[0].device).toBe('CPU');
  });

  it('reads one device’s statistics in place, its peaks from the metadata', () => {
    const a = answerOf('memory_stats', {
      device,
      rows: [{ device: 'GPU0', name: 'aten::relu', calls: 1, size_increase_bytes: -5, self_size_increase_bytes: -5, allocation_count: 1, self_allocation_count: 1, allocation_size_bytes: 8, self_allocation_size_bytes: 8 }],
    });
    const s = memoryStats(a);
    expect(s.rowCount).toBe(1);
    expect(s.name).toEqual(['aten::relu']);
    expect(s.sizeIncrease).toBe(a.columns.size_increase_bytes); // the answer's own buffer, no copy
    expect(s.sizeIncrease[0]).toBe(-5);
    expect(s.device).toMatchObject({ device: 'GPU0', peakAllocatedBytes: 3149824, peakUs: 220 });
    expect(statsModel(s).columns.find((c) => c.id === 'self_size_increase')!.value(0)).toBe(-5);
    expect(() => memoryStats(answerOf('memory_stats', { device: null, rows: [] }))).toThrow(/without a device/);
  });

  it('reads the events with their operator, call stack and why none through the strings', () => {
    const stack = 'model.py(10): forward;train.py(3): <module>';
    const a = answerOf('memory_events', {
      rows: [
        { device: 'GPU0', operator: 'aten::linear (aten::empty)', size_bytes: 4096, alloc_us: null, release_us: 250, duration_us: null, call_stack: stack, no_stack: '' },
        { device: 'GPU0', operator: 'aten::add', size_bytes: 8192, alloc_us: 350, release_us: null, duration_us: null, call_stack: '', no_stack: 'No Python frames around it on its thread.' },
      ],
    });
    const e = memoryEvents(a);
    expect(e.rowCount).toBe(2);
    expect(e.strings[e.op[0]]).toBe('aten::linear (aten::empty)');
    expect(e.strings[e.stack[0]]).toBe(stack);
    expect(e.strings[e.noStack[1]]).toBe('No Python frames around it on its thread.');
    expect(Number.isNaN(e.allocUs[0])).toBe(true);
    const m = eventsModel(e);
    expect(m.columns[0].value(1)).toBe('aten::add');
    expect(m.columns.find((c) => c.id === 'release_us')!.format!(e.releaseUs[0])).toBe('0.25 ms');
  });

  it('reads the curve’s columns (NaN: reserved not recorded) and the alive list’s metadata', () => {
    const c = memoryCurve(answerOf('memory_curve', { device: 'GPU0', peak_allocated_bytes: 20, peak_reserved_bytes: 64, peak_us: 1.5, rows: [
      { device: 'GPU0', t_us: 0, allocated_bytes: 10, reserved_bytes: null },
      { device: 'GPU0', t_us: 1.5, allocated_bytes: 20, reserved_bytes: 64 },
    ] }));
    expect(c.device).toBe('GPU0');
    expect([...c.t]).toEqual([0, 1.5]);
    expect(Number.isNaN(c.reserved[0])).toBe(true);
    expect(c.reserved[1]).toBe(64);
    const a = memoryAlive(answerOf('memory_alive', { device: 'GPU0', at_us: 220, allocated_bytes: 3149824, alive_bytes: 3149824, addresses: true, count: 3, rows: [
      { operator: 'aten::relu', size_bytes: 2097152, alloc_us: 220, age_us: 0, call_stack: '', no_stack: 'No Python frames around it on its thread.' },
    ] }));
    expect(a).toMatchObject({ device: 'GPU0', atUs: 220, allocatedBytes: 3149824, aliveBytes: 3149824, addresses: true, count: 3 });
    expect(a.rows).toEqual([{ operator: 'aten::relu', sizeBytes: 2097152, allocUs: 220, ageUs: 0, callStack: '', noStack: 'No Python frames around it on its thread.' }]);
  });

  it('opens a wire answer as the worker passes it, and throws the core’s sentence', () => {
    const wire = wireOf(answerOf('memory_curve', { device: 'GPU0', peak_allocated_bytes: null, peak_reserved_bytes: null, peak_us: null, rows: [] }));
    expect(memoryCurve(openAnswer('memory_curve', wire)).t.length).toBe(0);
    expect(() => openAnswer('memory_stats', { ...wire, view: 'memory_stats', error: 'no device GPU3 (the devices are CPU)' })).toThrow(/no device GPU3/);
    expect(() => openAnswer('memory_stats', wire)).toThrow(/memory_curve/);
  });

  it('names a window’s open sides by leaving them out', () => {
    expect(windowParams(100, 300.5)).toEqual({ from_us: '100', to_us: '300.5' });
    expect(windowParams(undefined, NaN)).toEqual({});
    expect(windowParams(0, undefined)).toEqual({ from_us: '0' });
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
