// lib/counter-tracks.ts: the counter events written from gpu-counter-track answers, and their
// splice into a trace's bytes — where traceEvents opens whatever comes before it (members holding
// brackets and escaped quotes in strings, a UTF-8 BOM, a bare array, an empty array), found in
// chunks of any size; the result parsed back as JSON must be the trace's events after the counters.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { answerOf } from './answer-fixture';
import { counterTracks, fileWithCounters, spliceInto, TraceEventsFinder } from '../../web/src/lib/counter-tracks';

const data = (name: string) => fs.readFileSync(path.join(__dirname, '..', 'data', name));
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: ArrayBuffer) => new TextDecoder().decode(b);
const EVENTS = enc('{"ph":"C","name":"q","pid":0,"ts":1,"args":{"launches":2}}');

function findIn(bytes: Uint8Array, chunk: number): number {
  const f = new TraceEventsFinder();
  for (let at = 0; at < bytes.length && !f.done; at += chunk) f.push(bytes.subarray(at, at + chunk));
  return f.found;
}

describe('TraceEventsFinder', () => {
  it('finds the byte after traceEvents\' [ past members whose strings hold brackets, braces and escaped quotes', () => {
    const bytes = new Uint8Array(data('split-points-in-strings-escapes-args.json'));
    const text = new TextDecoder().decode(bytes);
    const want = text.indexOf('"traceEvents"');
    expect(want).toBeGreaterThan(0);
    const open = text.indexOf('[', want) + 1;
    for (const chunk of [1, 3, 7, 64, bytes.length]) expect(findIn(bytes, chunk)).toBe(open);
  });

  it('a bare array, a BOM, traceEvents first with members after it', () => {
    expect(findIn(new Uint8Array(data('bare-array-pytorch-1.8.json')), 5)).toBe(new TextDecoder().decode(data('bare-array-pytorch-1.8.json')).indexOf('[') + 1);
    const bom = new Uint8Array(data('utf8-bom.json'));
    expect(bom[0]).toBe(0xef);
    expect(findIn(bom, 2)).toBeGreaterThan(3);
    expect(findIn(new Uint8Array(data('members-after-trace-events.json')), 4)).toBe('{"traceEvents":['.length);
  });

  it('a key named traceEvents inside another member, or a document without it, is not taken', () => {
    expect(findIn(enc('{"meta":{"traceEvents":[1]},"traceEvents":[]}'), 3)).toBe('{"meta":{"traceEvents":[1]},"traceEvents":['.length);
    const f = new TraceEventsFinder();
    f.push(enc('{"a":"[traceEvents]","b":[1,2]}'));
    expect(f.found).toBe(-1);
    expect(f.failed).toBe(true);
    const g = new TraceEventsFinder();
    g.push(enc('not json'));
    expect(g.failed).toBe(true);
  });
});

describe('spliceInto / fileWithCounters', () => {
  it('puts the events first in traceEvents, a comma after them unless the array was empty', () => {
    // Before traceEvents, strings holding what a scanner could take for structure.
    const tricky = enc(
      '{"schemaVersion":1,"deviceProperties":[{"name":"}], \\"traceEvents\\":[","x":[[]]}],"traceName":"a\\\\","traceEvents":[{"ph":"X","name":"a\\"]","ts":1,"dur":1}],"after":{"k":"]"}}',
    );
    JSON.parse(new TextDecoder().decode(tricky));
    for (const trace of [tricky, ...['critical-path-stream-wait-event.json', 'members-after-trace-events.json', 'bare-array-pytorch-1.8.json'].map((n) => new Uint8Array(data(n)))]) {
      const doc = JSON.parse(new TextDecoder().decode(trace).replace(/^\uFEFF/, ''));
      const out = JSON.parse(dec(spliceInto(trace, EVENTS)));
      const events = Array.isArray(doc) ? doc : doc.traceEvents;
      const got = Array.isArray(out) ? out : out.traceEvents;
      expect(got[0]).toEqual(JSON.parse(dec(EVENTS.slice().buffer)));
      expect(got.slice(1)).toEqual(events);
      if (!Array.isArray(doc)) expect(Object.keys(out)).toEqual(Object.keys(doc));
    }
    expect(JSON.parse(dec(spliceInto(enc('{"traceEvents": [ ]}'), EVENTS))).traceEvents).toHaveLength(1);
    expect(() => spliceInto(enc('{"a":1}'), EVENTS)).toThrow('The trace has no traceEvents array to add the counter tracks to.');
  });

  it('a plain file through the Blob of its slices, a gzipped one decompressed: the same trace', async () => {
    const plain = data('members-after-trace-events.json');
    const want = JSON.parse(dec(spliceInto(new Uint8Array(plain), EVENTS)));
    expect(JSON.parse(dec(await fileWithCounters(new Blob([plain]), EVENTS)))).toEqual(want);
    expect(JSON.parse(dec(await fileWithCounters(new Blob([zlib.gzipSync(plain)]), EVENTS)))).toEqual(want);
    expect(JSON.parse(dec(await fileWithCounters(new Blob([enc('{"traceEvents":[]}')]), EVENTS))).traceEvents).toHaveLength(1);
  });
});

describe('counterTracks', () => {
  it('one counter event per row: the track named by kind and series, the pid as a number when it is one', () => {
    const queue = answerOf('gpu-counter-track', {
      counter: 'queue',
      reduced: 1,
      from_us: 0,
      to_us: 10,
      rows: [
        { series: '7', pid: '0', ts: 1000.5, value: 2 },
        { series: '7', pid: '0', ts: 1010, value: 0 },
      ],
    });
    const bw = answerOf('gpu-counter-track', { counter: 'bandwidth', reduced: 0, from_us: 0, to_us: 10, rows: [{ series: 'Memcpy HtoD', pid: 'GPU 0', ts: 1001, value: 12.5 }] });
    const t = counterTracks([
      { kind: 'queue', answer: queue },
      { kind: 'bandwidth', answer: bw },
    ]);
    expect(t.events).toBe(3);
    expect(t.reduced).toBe(1);
    expect(JSON.parse(`[${new TextDecoder().decode(t.bytes)}]`)).toEqual([
      { ph: 'C', cat: 'kinetoscope', name: 'Queue length (stream 7)', pid: 0, ts: 1000.5, args: { launches: 2 } },
      { ph: 'C', cat: 'kinetoscope', name: 'Queue length (stream 7)', pid: 0, ts: 1010, args: { launches: 0 } },
      { ph: 'C', cat: 'kinetoscope', name: 'Memory bandwidth (Memcpy HtoD)', pid: 'GPU 0', ts: 1001, args: { 'GB/s': 12.5 } },
    ]);
  });
});
