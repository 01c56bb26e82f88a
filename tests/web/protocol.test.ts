import { describe, expect, it } from 'vitest';
import type { Summary } from '../../web/src/lib/summary';
import type { Overview, StepValues } from '../../web/src/lib/overview';
import { answerOf, summaryWire, wireOf } from './answer-fixture';
import {
  ABORT,
  RemoteError,
  toWireError,
  TraceClient,
  type Endpoint,
  type LoadProgress,
  type Request,
  type Response,
} from '../../web/src/worker/protocol';

/** A worker stand-in: records requests, lets the test answer them in any order. */
class FakeWorker implements Endpoint {
  sent: Request[] = [];
  transfers: (Transferable[] | undefined)[] = [];
  private listeners: ((ev: MessageEvent) => void)[] = [];
  postMessage(m: unknown, transfer?: Transferable[]) {
    this.sent.push(m as Request);
    this.transfers.push(transfer);
  }
  addEventListener(_t: 'message', l: (ev: MessageEvent) => void) {
    this.listeners.push(l);
  }
  reply(r: Response) {
    for (const l of this.listeners) l({ data: r } as MessageEvent);
  }
}

const file = (name: string) => new File([new Uint8Array([1, 2, 3])], name);
/** A load's answers as the worker sends them: the summary view's, of a trace of `events` events. */
const summary = (events: number) => ({ summary: summaryWire({ events }) });

describe('TraceClient', () => {
  it('gives each call its own id and settles each promise from the response with its id', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const a = c.load(file('a.json'));
    const b = c.load(file('b.json.gz'));
    expect(a.id).not.toBe(b.id);
    expect(w.sent.map((r) => r.kind)).toEqual(['load', 'load']);
    expect(w.sent.map((r) => r.id)).toEqual([a.id, b.id]);
    expect((w.sent[1] as Extract<Request, { kind: 'load' }>).file.name).toBe('b.json.gz');

    // Answer out of order.
    w.reply({ kind: 'result', id: b.id, answers: summary(7) });
    w.reply({ kind: 'result', id: a.id, answers: summary(3) });
    await expect(a.promise).resolves.toMatchObject({ summary: { events: 3 }, overview: null });
    await expect(b.promise).resolves.toMatchObject({ summary: { events: 7 }, overview: null });
    expect(c.inFlight).toBe(0);
  });

  it('hands the summary to its own call ahead of the result, and keeps the call pending', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const seenA: Summary[] = [];
    const seenB: Summary[] = [];
    const a = c.load(file('a.json'), undefined, (s) => seenA.push(s));
    const b = c.loadStream(new ReadableStream(), 'b.json', null, undefined, (s) => seenB.push(s));
    w.reply({ kind: 'summary', id: b.id, answers: summary(5) });
    expect(seenB.map((s) => s.events)).toEqual([5]);
    expect(seenA).toEqual([]);
    expect(c.inFlight).toBe(2); // the summary does not settle the load
    w.reply({ kind: 'result', id: b.id, answers: summary(5) });
    await expect(b.promise).resolves.toMatchObject({ summary: { events: 5 } });
    w.reply({ kind: 'result', id: a.id, answers: summary(1) });
    await a.promise;
    expect(seenA).toEqual([]); // no summary message came for a: none reported
  });

  it("hands the overview's first part (steps, GPU metrics) to its call with the summary, ahead of the result", async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const seen: [number, Overview | undefined][] = [];
    const a = c.load(file('a.json'), undefined, (s, early) => seen.push([s.events, early]));
    const steps = wireOf(answerOf('steps', { file: '', rows: [{ name: '5', start_us: 10, end_us: 30, total_us: 20, kernel_us: 15, memcpy_us: 0, memset_us: 0, communication_us: 0, runtime_us: 1, dataloader_us: 0, cpu_exec_us: 4, other_us: 0 }], average: { total_us: 20, kernel_us: 15 }, roles: {} }));
    const gpus = wireOf(answerOf('gpu_metrics', { file: '', window_start_us: 10, window_end_us: 30, bucket_us: 10, rows: [{ device: 0, utilization_pct: 75, sm_efficiency_pct: null, achieved_occupancy_pct: 40, blocks_per_sm_count: 0, occupancy_count: 2, timeline: [[10, 0.5], [20, 1], [30, 0]] }] }));
    const early: Overview = {
      steps: { steps: [{ name: '5', start_us: 10, end_us: 30, total_us: 20, kernel_us: 15, memcpy_us: 0, memset_us: 0, communication_us: 0, runtime_us: 1, dataloader_us: 0, cpu_exec_us: 4, other_us: 0 }], average: { total_us: 20, kernel_us: 15 } as unknown as StepValues, roles: {} },
      gpus: { window_start_us: 10, window_end_us: 30, bucket_us: 10, gpus: [{ device: 0, utilization_pct: 75, sm_efficiency_pct: null, achieved_occupancy_pct: 40, timeline: [[10, 0.5], [20, 1], [30, 0]] }] },
      info: null,
    };
    w.reply({ kind: 'summary', id: a.id, answers: summary(3) });
    w.reply({ kind: 'summary', id: a.id, answers: { ...summary(3), steps, gpus } });
    expect(seen).toEqual([[3, undefined], [3, early]]);
    expect(c.inFlight).toBe(1); // neither settles the load
    w.reply({ kind: 'result', id: a.id, answers: { ...summary(3), steps, gpus } });
    await expect(a.promise).resolves.toMatchObject({ summary: { events: 3 } });
  });

  it('routes progress to the right call and ignores responses for unknown ids', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const seenA: LoadProgress[] = [];
    const seenB: LoadProgress[] = [];
    const a = c.load(file('a.json'), (p) => seenA.push(p));
    const b = c.load(file('b.json'), (p) => seenB.push(p));
    const p1 = { bytesRead: 10, totalBytes: 100, decodedBytes: 40, elapsedMs: 5 };
    w.reply({ kind: 'progress', id: a.id, progress: p1 });
    w.reply({ kind: 'progress', id: 999, progress: p1 });
    w.reply({ kind: 'result', id: 999, answers: summary(1) });
    expect(seenA).toEqual([p1]);
    expect(seenB).toEqual([]);
    w.reply({ kind: 'result', id: a.id, answers: summary(1) });
    // Progress after the result is dropped.
    w.reply({ kind: 'progress', id: a.id, progress: p1 });
    expect(seenA).toHaveLength(1);
    await a.promise;
    expect(c.inFlight).toBe(1);
    w.reply({ kind: 'error', id: b.id, error: { name: 'TypeError', message: 'boom' } });
    const err = await b.promise.catch((e) => e);
    expect(err).toBeInstanceOf(RemoteError);
    expect(err.name).toBe('TypeError');
    expect(err.message).toBe('boom');
  });

  it('sends cancel for a pending call only, and the call rejects with AbortError', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const a = c.load(file('a.json'));
    c.cancel(a.id);
    c.cancel(12345); // unknown: nothing sent
    expect(w.sent).toHaveLength(2);
    const cancel = w.sent[1] as Extract<Request, { kind: 'cancel' }>;
    expect(cancel.kind).toBe('cancel');
    expect(cancel.target).toBe(a.id);
    expect(cancel.id).not.toBe(a.id);
    w.reply({ kind: 'error', id: a.id, error: { name: ABORT, message: 'Loading was cancelled.' } });
    await expect(a.promise).rejects.toMatchObject({ name: ABORT });
  });

  it('loadStream transfers the stream and resolves with the File the worker kept', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const stream = new ReadableStream<Uint8Array>();
    const seen: LoadProgress[] = [];
    const a = c.loadStream(stream, 'rank-0.json.gz', null, (p) => seen.push(p));
    const req = w.sent[0] as Extract<Request, { kind: 'loadStream' }>;
    expect(req).toMatchObject({ kind: 'loadStream', id: a.id, name: 'rank-0.json.gz', totalBytes: null });
    expect(req.stream).toBe(stream);
    expect(w.transfers[0]).toEqual([stream]); // moved to the worker, not cloned
    const p1 = { bytesRead: 10, totalBytes: null, decodedBytes: 40, elapsedMs: 5 };
    w.reply({ kind: 'progress', id: a.id, progress: p1 });
    const kept = file('rank-0.json.gz');
    w.reply({ kind: 'result', id: a.id, answers: summary(3), file: kept });
    const got = await a.promise;
    expect(got.file).toBe(kept);
    expect(got.summary.events).toBe(3);
    expect(seen).toEqual([p1]);
    // A file load answers no File.
    const b = c.load(file('b.json'));
    w.reply({ kind: 'result', id: b.id, answers: summary(1) });
    expect('file' in (await b.promise)).toBe(false);
  });

  it('failAll rejects every pending call', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const a = c.load(file('a.json'));
    const b = c.load(file('b.json'));
    c.failAll({ name: 'WorkerError', message: 'wasm failed to load' });
    await expect(a.promise).rejects.toMatchObject({ name: 'WorkerError', message: 'wasm failed to load' });
    await expect(b.promise).rejects.toMatchObject({ name: 'WorkerError' });
    expect(c.inFlight).toBe(0);
  });
});

describe('toWireError', () => {
  it('keeps name and message as plain data', () => {
    const e = new RangeError('too big');
    const w = toWireError(e);
    expect(w).toEqual({ name: 'RangeError', message: 'too big' });
    expect(Object.getPrototypeOf(w)).toBe(Object.prototype);
    expect(toWireError('text')).toEqual({ name: 'Error', message: 'text' });
    expect(toWireError({ message: 42 })).toEqual({ name: 'Error', message: '42' });
  });
});
