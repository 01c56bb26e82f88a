// The page's pool of trace workers (web/src/worker/worker-pool.ts) with fake workers: how many, which
// file goes to which, a dead worker's slot started afresh, and the policy of which full models are
// kept, closed, read again and moved next to a Diff view's baseline.
import { describe, expect, it } from 'vitest';
import { KEEP_RECENT, keptModels, MAX_WORKERS, planModels, poolSize, WorkerPool, type ModelState, type Started } from '../../web/src/worker/worker-pool';
import { WORKER_DIED, type Endpoint, type Request, type Response } from '../../web/src/worker/protocol';

class FakeWorker implements Endpoint {
  sent: Request[] = [];
  terminated = false;
  die: (message: string) => void = () => {};
  private listeners: ((ev: MessageEvent) => void)[] = [];
  postMessage(m: unknown) {
    this.sent.push(m as Request);
  }
  addEventListener(_t: 'message', l: (ev: MessageEvent) => void) {
    this.listeners.push(l);
  }
  reply(r: Response) {
    for (const l of this.listeners) l({ data: r } as MessageEvent);
  }
}

function fakePool(size: number, onDeath?: (id: number) => void) {
  const made: FakeWorker[] = [];
  const start = (): Started => {
    const w = new FakeWorker();
    made.push(w);
    return { endpoint: w, terminate: () => (w.terminated = true), onDeath: (cb) => (w.die = cb) };
  };
  return { pool: new WorkerPool(size, start, onDeath), made };
}

const file = (name: string) => new File([new Uint8Array([1])], name);

describe('poolSize', () => {
  it('is the core count, at least 1 and at most MAX_WORKERS', () => {
    expect(poolSize(undefined)).toBe(1);
    expect(poolSize(0)).toBe(1);
    expect(poolSize(1)).toBe(1);
    expect(poolSize(2)).toBe(2);
    expect(poolSize(3.5)).toBe(3);
    expect(poolSize(64)).toBe(MAX_WORKERS);
    expect(poolSize(NaN)).toBe(1);
  });
});

describe('WorkerPool', () => {
  it('gives loads under way different workers, started only when needed', () => {
    const { pool, made } = fakePool(2);
    expect(made).toHaveLength(0);
    const a = pool.forLoad();
    a.loads++;
    const b = pool.forLoad();
    b.loads++;
    expect(a).not.toBe(b);
    expect(made).toHaveLength(2);
    expect(pool.usedSlots.size).toBe(2);
    // Each file is loaded by its own worker's client.
    a.client.load(file('rank0.pt.trace.json'));
    b.client.load(file('rank1.pt.trace.json'));
    expect(made.map((w) => w.sent.map((r) => (r.kind === 'load' ? r.file.name : r.kind)))).toEqual([['rank0.pt.trace.json'], ['rank1.pt.trace.json']]);
    // A third load waits for neither: it goes to the least busy, then the one holding fewer models.
    a.sessions = 3;
    expect(pool.forLoad()).toBe(b);
    b.loads++;
    expect(pool.forLoad()).toBe(a);
    expect(made).toHaveLength(2);
  });

  it('one worker when the machine says one core: every load shares it', () => {
    const { pool, made } = fakePool(poolSize(1));
    const a = pool.forLoad();
    a.loads++;
    expect(pool.forLoad()).toBe(a);
    expect(made).toHaveLength(1);
  });

  it('a worker that dies is ended, its calls fail, and its slot starts a fresh worker with a new id', async () => {
    const dead: number[] = [];
    const { pool, made } = fakePool(2, (id) => dead.push(id));
    const a = pool.forLoad();
    const call = a.client.load(file('x.json'));
    made[0].die('out of memory');
    await expect(call.promise).rejects.toMatchObject({ name: WORKER_DIED, failure: 'died', message: 'The analysis worker stopped (out of memory).' });
    expect(made[0].terminated).toBe(true);
    expect(dead).toEqual([a.id]);
    expect(pool.byId(a.id)).toBeUndefined();
    const again = pool.forLoad();
    expect(again.slot).toBe(a.slot);
    expect(again.id).not.toBe(a.id);
    expect(made).toHaveLength(2);
  });

  it('warm() starts every empty slot and readies it on the sample; loads then use those workers, and a failed warm-up is not a load', async () => {
    const { pool, made } = fakePool(3);
    const a = pool.forLoad(); // slot 0, started by a load before the warm-up
    const warmed: number[] = [];
    pool.warm('https://kinetoscope.test/samples/rank-0.json.gz', (w) => warmed.push(w.runs));
    expect(made).toHaveLength(3);
    // Only the slots it started are asked to warm up, with the sample's address.
    expect(made.map((w) => w.sent.map((r) => (r.kind === 'warm' ? r.sample : r.kind)))).toEqual([[], ['https://kinetoscope.test/samples/rank-0.json.gz'], ['https://kinetoscope.test/samples/rank-0.json.gz']]);
    expect(pool.usedSlots).toEqual(new Set([a.slot]));
    const [w1, w2] = [made[1], made[2]];
    const id1 = w1.sent[0].id;
    w1.reply({ kind: 'warmed', id: id1, warmed: { runs: 3, ms: 420 } });
    w2.reply({ kind: 'error', id: w2.sent[0].id, error: { name: 'TypeError', message: 'Failed to fetch' } });
    await new Promise((r) => setTimeout(r, 0));
    expect(warmed).toEqual([3]);
    // The warmed workers are the ones later loads go to: no worker more is started.
    a.loads++;
    const b = pool.forLoad();
    expect(b.slot).toBe(1);
    expect(made).toHaveLength(3);
    expect(pool.live.every((w) => w.client.inFlight === 0)).toBe(true);
    // A second warm() starts nothing (every slot is taken).
    pool.warm('x');
    expect(made).toHaveLength(3);
  });

  it('no warm-up starts while a load is under way (a page opened on a file)', () => {
    const { pool, made } = fakePool(2);
    const a = pool.forLoad();
    a.loads++;
    pool.warm('s');
    expect(made).toHaveLength(1);
    expect(made[0].sent.filter((r) => r.kind === 'warm')).toEqual([]);
    a.loads--;
    pool.warm('s');
    expect(made).toHaveLength(2);
    expect(made[1].sent.map((r) => r.kind)).toEqual(['warm']);
  });

  it('a load stops the warm-ups under way in every worker (they would take its CPU)', async () => {
    const { pool, made } = fakePool(2);
    const warmed: number[] = [];
    pool.warm('s', (w) => warmed.push(w.runs));
    const ids = made.map((w) => w.sent[0].id);
    const a = pool.forLoad();
    expect(made.map((w) => w.sent.filter((r) => r.kind === 'cancel'))).toEqual([
      [{ kind: 'cancel', id: expect.any(Number), target: ids[0] }],
      [{ kind: 'cancel', id: expect.any(Number), target: ids[1] }],
    ]);
    // They answer with the runs they did; a later load cancels nothing more.
    made.forEach((w, i) => w.reply({ kind: 'warmed', id: ids[i], warmed: { runs: i, ms: 10 } }));
    await new Promise((r) => setTimeout(r, 0));
    expect(warmed).toEqual([0, 1]);
    a.loads++;
    pool.forLoad();
    expect(made.flatMap((w) => w.sent.filter((r) => r.kind === 'cancel'))).toHaveLength(2);
  });

  it('restart() (a trap) ends only that worker', () => {
    const { pool } = fakePool(2);
    const a = pool.forLoad();
    a.loads++;
    const b = pool.forLoad();
    pool.restart(a.id, { name: 'RuntimeError', message: 'unreachable' });
    expect(pool.byId(a.id)).toBeUndefined();
    expect(pool.byId(b.id)).toBe(b);
    expect(pool.live).toEqual([b]);
    expect(pool.any()).toBe(b);
  });
});

describe('which full models are kept', () => {
  it('the open traces, then the KEEP_RECENT shown last', () => {
    expect(KEEP_RECENT).toBe(2);
    expect([...keptModels([5], [5, 4, 3, 2, 1])]).toEqual([5, 4, 3]);
    expect([...keptModels([5, 9], [9, 5, 4, 3])]).toEqual([5, 9, 4, 3]);
    expect([...keptModels([], [], 2)]).toEqual([]);
  });

  const t = (key: number, o: Partial<ModelState> = {}): ModelState => ({ key, done: true, canReread: true, worker: null, reading: null, failed: false, ...o });

  it('closes the models of traces neither open nor recent, whatever the number of ranks', () => {
    const ranks = Array.from({ length: 64 }, (_, i) => t(i, { worker: 1 + (i % 2) }));
    const plan = planModels(ranks, [10], [10, 3, 7, 8]);
    expect(plan.close.sort((a, b) => a - b)).toEqual(ranks.map((r) => r.key).filter((k) => ![10, 3, 7].includes(k)));
    expect(plan.read).toEqual([]);
  });

  it('reads a closed trace again when it is shown; not one that cannot be, nor one that failed', () => {
    expect(planModels([t(1), t(2, { worker: 1 })], [1], [1, 2]).read).toEqual([{ key: 1, into: null }]);
    expect(planModels([t(1, { reading: 2 })], [1], []).read).toEqual([]);
    expect(planModels([t(1, { failed: true })], [1], []).read).toEqual([]);
    expect(planModels([t(1, { done: false })], [1], []).read).toEqual([]);
    // Never closed without its File (it could not come back).
    expect(planModels([t(1, { worker: 1, canReread: false })], [], []).close).toEqual([]);
  });

  it('puts a Diff pair in one worker: the experiment is read into, or moved to, the baseline\'s', () => {
    // Both closed: the baseline first (anywhere; the experiment follows once its worker is known).
    expect(planModels([t(1), t(2)], [1, 2], []).read).toEqual([{ key: 1, into: null }]);
    expect(planModels([t(1, { reading: 3 }), t(2)], [1, 2], []).read).toEqual([{ key: 2, into: 3 }]);
    // The experiment loaded: the baseline is read next to it.
    expect(planModels([t(1), t(2, { worker: 4 })], [1, 2], []).read).toEqual([{ key: 1, into: 4 }]);
    // Both loaded in different workers: the experiment moves.
    expect(planModels([t(1, { worker: 1 }), t(2, { worker: 2 })], [1, 2], [])).toEqual({ close: [2], read: [{ key: 2, into: 1 }] });
    // ... unless it cannot be read again: then the baseline moves to it.
    expect(planModels([t(1, { worker: 1 }), t(2, { worker: 2, canReread: false })], [1, 2], [])).toEqual({ close: [1], read: [{ key: 1, into: 2 }] });
    // Side by side already: nothing to do.
    expect(planModels([t(1, { worker: 1 }), t(2, { worker: 1 })], [1, 2], [])).toEqual({ close: [], read: [] });
  });
});
