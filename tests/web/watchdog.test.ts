// Issue 12, "never a silent hang": the watchdog of one trace worker, its client and the pool,
// driven by a fake worker and a hand-wound clock (no real time passes, so no timing races).
import { describe, expect, it } from 'vitest';
import { failureSentence, loadFailure, whileDoing } from '../../web/src/worker/failure';
import { parsePlan } from '../../web/src/worker/test-faults';
import { summaryWire } from './answer-fixture';
import {
  RemoteError,
  SESSION_GONE,
  TraceClient,
  trapFailure,
  WORKER_DIED,
  WORKER_STALLED,
  type Request,
  type Response,
} from '../../web/src/worker/protocol';
import { WorkerPool } from '../../web/src/worker/worker-pool';
import type { WorkerLike } from '../../web/src/worker/supervisor';
import { Watchdog, type Timers } from '../../web/src/worker/watchdog';

/** A clock moved by hand; `every` timers fire as it passes their times. */
class FakeTimers implements Timers {
  t = 0;
  private timers: { next: number; ms: number; fn: () => void; live: boolean }[] = [];
  now = () => this.t;
  every = (ms: number, fn: () => void) => {
    const timer = { next: this.t + ms, ms, fn, live: true };
    this.timers.push(timer);
    return () => {
      timer.live = false;
    };
  };
  /** Moves the clock by `ms`, firing each timer due on the way, in order. */
  advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.live && x.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.t = due.next;
      due.next += due.ms;
      due.fn();
    }
    this.t = end;
    this.timers = this.timers.filter((x) => x.live);
  }
  get active() {
    return this.timers.filter((x) => x.live).length;
  }
}

/** A worker stand-in: records requests, answers as told, fires error events. */
class FakeWorker implements WorkerLike {
  sent: Request[] = [];
  terminated = false;
  /** Answer pings by itself (a worker whose event loop is free). */
  answersPings = false;
  private listeners: Record<string, ((ev: never) => void)[]> = {};
  postMessage(m: unknown) {
    const req = m as Request;
    this.sent.push(req);
    if (req.kind === 'ping' && this.answersPings) queueMicrotask(() => this.reply({ kind: 'pong', id: req.id }));
  }
  addEventListener(type: string, l: (ev: never) => void) {
    (this.listeners[type] ??= []).push(l);
  }
  terminate() {
    this.terminated = true;
  }
  reply(r: Response) {
    for (const l of this.listeners.message ?? []) l({ data: r } as never);
  }
  fire(type: 'error' | 'messageerror', message = '') {
    for (const l of this.listeners[type] ?? []) l({ message, preventDefault() {} } as never);
  }
  pings() {
    return this.sent.filter((r) => r.kind === 'ping').length;
  }
}

const file = (name: string) => new File([new Uint8Array([1, 2, 3])], name);
/** A load's answers as the worker sends them: the summary view's, of a trace of 3 events. */
const answers = { summary: summaryWire({ events: 3 }) };
const options = (timers: FakeTimers) => ({ pingMs: 1_000, stallMs: 10_000, timers });
const progress = (phase?: string) => ({
  bytesRead: 3,
  totalBytes: 3,
  decodedBytes: 3,
  elapsedMs: 1,
  ...(phase ? { phase: { name: phase, index: 4, count: 5 } } : {}),
});
const failureOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as RemoteError;
  }
  throw new Error('the call did not fail');
};

describe('Watchdog', () => {
  it('pings only while calls are pending, and stalls after stallMs of silence', () => {
    const timers = new FakeTimers();
    let pings = 0;
    const stalls: number[] = [];
    const w = new Watchdog(options(timers), () => pings++, (ms) => stalls.push(ms));
    timers.advance(60_000); // idle for a minute: nothing to watch, however long
    expect(pings).toBe(0);
    expect(stalls).toEqual([]);
    w.busy(1);
    timers.advance(9_000);
    expect(pings).toBe(9);
    expect(stalls).toEqual([]);
    timers.advance(1_000);
    expect(stalls).toEqual([10_000]);
    expect(w.watching).toBe(false); // once, then off
    timers.advance(60_000);
    expect(stalls).toHaveLength(1);
  });

  it('never stalls a busy worker that keeps saying something, however long it works', () => {
    const timers = new FakeTimers();
    const stalls: number[] = [];
    const w = new Watchdog(options(timers), () => {}, (ms) => stalls.push(ms));
    w.busy(1);
    // Half an hour of work, a sign of life every 9.9 s (just under stallMs).
    for (let i = 0; i < 180; i++) {
      timers.advance(9_900);
      w.alive();
    }
    expect(stalls).toEqual([]);
    expect(w.watching).toBe(true);
  });

  it('starts the clock afresh when a call starts after an idle time, and stops when calls end', () => {
    const timers = new FakeTimers();
    const stalls: number[] = [];
    const w = new Watchdog(options(timers), () => {}, (ms) => stalls.push(ms));
    w.busy(1);
    timers.advance(5_000);
    w.busy(0);
    expect(timers.active).toBe(0);
    timers.advance(100_000);
    w.busy(2);
    timers.advance(9_000);
    expect(stalls).toEqual([]);
    w.busy(1); // still busy: the clock runs on from the start of the busy spell
    timers.advance(1_000);
    expect(stalls).toEqual([10_000]);
  });
});

describe('TraceClient watchdog', () => {
  it('pings while a load is pending and counts progress and pongs as signs of life', async () => {
    const timers = new FakeTimers();
    const w = new FakeWorker();
    const stalls: number[] = [];
    const c = new TraceClient(w, { watchdog: options(timers), onStall: (ms) => stalls.push(ms) });
    const load = c.load(file('a.json'));
    expect(c.watching).toBe(true);
    timers.advance(3_000);
    expect(w.pings()).toBe(3);
    for (let i = 0; i < 30; i++) {
      timers.advance(5_000);
      w.reply({ kind: i % 2 ? 'pong' : 'progress', id: i % 2 ? 999 : load.id, progress: progress('operator trees') } as Response);
    }
    expect(stalls).toEqual([]);
    w.reply({ kind: 'result', id: load.id, answers });
    await load.promise;
    expect(c.watching).toBe(false);
    timers.advance(60_000);
    expect(stalls).toEqual([]);
  });

  it('calls onStall when the worker goes silent with a call pending', () => {
    const timers = new FakeTimers();
    const w = new FakeWorker();
    const stalls: number[] = [];
    const c = new TraceClient(w, { watchdog: options(timers), onStall: (ms) => stalls.push(ms) });
    c.query(1, { what: 'operators', groupBy: 'op' });
    timers.advance(10_000);
    expect(stalls).toEqual([10_000]);
  });

  it('fails every pending call with the phase each was in', async () => {
    const w = new FakeWorker();
    const c = new TraceClient(w);
    const reading = c.load(file('a.json'));
    const computing = c.load(file('b.json'));
    const asking = c.query(7, { what: 'kernels', groupBy: 'name' });
    w.reply({ kind: 'summary', id: computing.id, answers });
    w.reply({ kind: 'progress', id: computing.id, progress: progress('operator trees') });
    c.failAll({ name: WORKER_DIED, failure: 'died', message: 'gone' });
    const [a, b, q] = await Promise.all([failureOf(reading.promise), failureOf(computing.promise), failureOf(asking.promise)]);
    expect([a.phase, b.phase, q.phase]).toEqual(['reading', 'operator trees', 'query']);
    expect([a.failure, b.failure, q.failure]).toEqual(['died', 'died', 'died']);
    expect(a.name).toBe(WORKER_DIED);
  });

  it('hands a fatal error answer to onFatal after rejecting its call (with its phase)', async () => {
    const w = new FakeWorker();
    const fatal: string[] = [];
    const c = new TraceClient(w, { onFatal: (e) => fatal.push(e.failure!) });
    const load = c.load(file('a.json'));
    w.reply({ kind: 'summary', id: load.id, answers });
    w.reply({ kind: 'error', id: load.id, error: { name: 'RuntimeError', message: 'Aborted(OOM)', failure: 'oom' } });
    const e = await failureOf(load.promise);
    expect(e.failure).toBe('oom');
    expect(e.phase).toBe('overview');
    expect(fatal).toEqual(['oom']);
  });
});

describe('WorkerPool watching its workers', () => {
  // One slot, so a restarted worker is the same slot's next one; `gen()`: the live worker's id.
  const setup = () => {
    const timers = new FakeTimers();
    const workers: FakeWorker[] = [];
    const restarts: string[] = [];
    const pool = new WorkerPool(
      1,
      () => {
        const w = new FakeWorker();
        workers.push(w);
        return {
          endpoint: w,
          terminate: () => w.terminate(),
          onDeath: (cb) => {
            w.addEventListener('error', (ev: ErrorEvent) => cb(ev.message));
            w.addEventListener('messageerror', () => cb('a message from it could not be read'));
          },
        };
      },
      (_id, why) => restarts.push(why.name),
      { watchdog: options(timers) },
    );
    const client = () => pool.forLoad().client;
    const gen = () => pool.live[0]?.id ?? null;
    return { timers, workers, restarts, pool, client, gen };
  };

  it('restarts a worker that fires an error event: pending calls fail as died, the next call gets a new worker', async () => {
    const { workers, restarts, client, gen } = setup();
    const load = client().load(file('a.json'));
    expect(gen()).toBe(1);
    workers[0].fire('error', 'Uncaught Error: boom');
    const e = await failureOf(load.promise);
    expect(e.name).toBe(WORKER_DIED);
    expect(e.failure).toBe('died');
    expect(e.message).toMatch(/boom/);
    expect(workers[0].terminated).toBe(true);
    expect(restarts).toEqual([WORKER_DIED]);
    expect(gen()).toBeNull();
    client().load(file('b.json'));
    expect(workers).toHaveLength(2);
    expect(gen()).toBe(2);
    // A late event of the dead worker changes nothing.
    workers[0].fire('error', 'late');
    expect(restarts).toEqual([WORKER_DIED]);
    expect(gen()).toBe(2);
  });

  it('restarts on a message that could not be read', async () => {
    const { workers, client } = setup();
    const q = client().query(1, { what: 'modules' });
    workers[0].fire('messageerror');
    expect((await failureOf(q.promise)).failure).toBe('died');
  });

  it('restarts a silent worker (stalled) but never a busy one that answers pings', async () => {
    const { timers, workers, client, gen } = setup();
    const load = client().load(file('a.json'));
    workers[0].answersPings = true;
    for (let i = 0; i < 100; i++) {
      timers.advance(1_000);
      await Promise.resolve(); // the pong
    }
    expect(gen()).toBe(1);
    workers[0].answersPings = false; // it stops answering (the browser ended it, or it loops)
    timers.advance(10_000);
    const e = await failureOf(load.promise);
    expect(e.name).toBe(WORKER_STALLED);
    expect(e.failure).toBe('stalled');
    expect(e.phase).toBe('reading');
    expect(workers[0].terminated).toBe(true);
    expect(gen()).toBeNull();
  });

  it('after an out-of-memory answer, fails the other calls as gone and ends the worker (its heap with it)', async () => {
    const { workers, client, gen, restarts } = setup();
    const other = client().query(1, { what: 'operators', groupBy: 'op' });
    const load = client().load(file('big.json'));
    workers[0].reply({ kind: 'error', id: load.id, error: { name: 'RuntimeError', message: 'Aborted(OOM)', failure: 'oom' } });
    expect((await failureOf(load.promise)).failure).toBe('oom');
    const e = await failureOf(other.promise);
    expect(e.name).toBe(SESSION_GONE);
    expect(e.failure).toBeUndefined();
    expect(workers[0].terminated).toBe(true);
    expect(gen()).toBeNull();
    expect(restarts).toEqual([SESSION_GONE]);
  });

  it('leaves the worker alone after an ordinary error answer', async () => {
    const { workers, client, gen } = setup();
    const load = client().load(file('notes.json'));
    workers[0].reply({ kind: 'error', id: load.id, error: { name: 'Error', message: 'not a trace' } });
    await failureOf(load.promise);
    expect(workers[0].terminated).toBe(false);
    expect(gen()).toBe(1);
  });
});

describe('failures in words', () => {
  it('tells an out-of-memory abort from another abort and from other traps', () => {
    expect(trapFailure('Aborted(OOM). Build with -s ASSERTIONS=1 for more info.')).toBe('oom');
    expect(trapFailure('Aborted(). Build with -s ASSERTIONS=1 for more info.', 100 << 20)).toBe('abort');
    // operator new aborts without a reason when malloc fails: at a full heap that is out of memory.
    expect(trapFailure('Aborted(). Build with -s ASSERTIONS=1 for more info.', 4 * 2 ** 30 - 65536)).toBe('oom');
    expect(trapFailure('memory access out of bounds')).toBe('trap');
    expect(trapFailure('unreachable')).toBe('trap');
  });

  it('says in one sentence what happened, what is still shown and what to do', () => {
    const oom = failureSentence({ failure: 'oom', phase: 'operator trees', detail: 'Aborted(OOM)' }, 'big.pt.trace.json', true);
    expect(oom).toMatch(/^The analysis ran out of memory .* while computing the overview \(operator trees\); the summary of what was read is shown below; .*kinetoscope trim --step N -o part\.json big\.pt\.trace\.json.*kinetoscope overview big\.pt\.trace\.json.*\.$/);
    expect(oom.split(/\.\s/)).toHaveLength(1); // one sentence
    const stalled = failureSentence({ failure: 'stalled', phase: 'reading', detail: '' }, 'my trace.json', false);
    expect(stalled).toMatch(/stopped answering .* while reading the file; nothing of the file could be shown; .*'my trace\.json'/);
    expect(failureSentence({ failure: 'abort', phase: 'overview', detail: '' }, 'a.json', true)).toMatch(/internal error while computing the overview; .*retry, or use the command line/);
    expect(whileDoing('linking events')).toBe('while linking the events it read');
    // Failed after the overview's steps and GPU metrics came (issue 12): those are said to be kept.
    const later = failureSentence({ failure: 'oom', phase: 'operator trees', detail: '' }, 'big.json', true, true);
    expect(later).toMatch(/operator trees\); the steps, their time breakdown and the GPU metrics are shown below, with the summary of what was read; open a part/);
    expect(later.split(/\.\s/)).toHaveLength(1);
  });

  it('finds the failure of a load error, and none in an ordinary one', () => {
    expect(loadFailure(new RemoteError({ name: WORKER_DIED, message: 'x', failure: 'died', phase: 'reading' }))).toEqual({ failure: 'died', phase: 'reading', detail: 'x' });
    expect(loadFailure(new Error('not a trace'))).toBeNull();
    expect(loadFailure(null)).toBeNull();
  });
});

describe('failure test plan (localStorage)', () => {
  it('reads faults by file name and watchdog settings, ignoring anything else', () => {
    const p = parsePlan(JSON.stringify({ faults: { 'a.json': { kind: 'oom' }, 'b.json': { kind: 'hang', phase: 'steps' }, 'c.json': { kind: 'rm -rf' } }, watchdog: { stallMs: 3000, pingMs: -1 } }));
    expect([...p!.faults]).toEqual([
      ['a.json', { kind: 'oom' }],
      ['b.json', { kind: 'hang', phase: 'steps' }],
    ]);
    expect(p!.watchdog).toEqual({ stallMs: 3000 });
    expect(parsePlan(null)).toBeNull();
    expect(parsePlan('{')).toBeNull();
  });

  it('reads a helper fault part-way through its pieces, with a piece size of at least 1 KiB', () => {
    const p = parsePlan(JSON.stringify({ faults: {
      'a.json': { kind: 'throw', target: 'helper', phase: 'pieces', pieceBytes: 65536.5 },
      'b.json': { kind: 'throw', target: 'helper', pieceBytes: 10 },
      'c.json': { kind: 'throw', pieceBytes: 'big' },
    } }));
    expect([...p!.faults]).toEqual([
      ['a.json', { kind: 'throw', target: 'helper', phase: 'pieces', pieceBytes: 65536 }],
      ['b.json', { kind: 'throw', target: 'helper' }],
      ['c.json', { kind: 'throw' }],
    ]);
  });
});
