// The page's trace workers: a pool of them, each with its own wasm module (its own 4 GB heap) and
// its own TraceClient, so a run's rank files load in parallel, one file per worker at a time.
//
// Which file goes where: a new load goes to the worker with the fewest loads under way, then the
// fewest Sessions held, then the lowest slot; a worker is started on first use, so one file uses
// one worker. A worker that dies (or traps: its module is unusable) is ended and its slot started
// afresh on the next use; each started worker gets a new id, never reused, and a Session is named
// by (worker id, load call id), so a Session of an ended worker can never be mistaken for a live
// one. What happens inside one worker when it dies or stalls (death detection, messages, retry) is
// TraceClient's and the card's business, not the pool's.
//
// How many: navigator.hardwareConcurrency, at least 1, at most MAX_WORKERS. Each worker holds a
// whole model while it loads (~0.3-1x the file) plus its reader worker (file reading and gunzip on
// a thread of its own), so beyond a few the cores are shared anyway and memory, not parallelism,
// sets the limit.
//
// Which models are kept (the memory policy, docs/contracts.md "Many ranks in one tab"): every
// trace's summary, overview and rank summary (the map step of the run's Distributed view) stay in
// the page; its full model (the wasm Session) is kept only while the trace is open (the card shown,
// the experiment of the Diff view shown) or among the KEEP_RECENT traces shown last. The others are
// closed once their rank summary is taken, and read again from their File, with progress, when
// they are shown again. So memory grows with the number of ranks by their summaries only.
import { RemoteError, SESSION_GONE, TraceClient, type ClientOptions, type Endpoint, type Warmed, type WireError } from './protocol';
import { diedError, goneAfter, stalledError } from './supervisor';

/** The most trace workers a page starts, whatever the machine's core count. */
export const MAX_WORKERS = 4;
/** Traces whose full model stays loaded after they were shown, besides the ones open now. */
export const KEEP_RECENT = 2;

/** How many trace workers a machine with `cores` logical cores gets (cores unknown: 1). */
export function poolSize(cores: number | undefined): number {
  const n = Math.floor(Number(cores));
  return Math.max(1, Math.min(MAX_WORKERS, Number.isFinite(n) ? n : 1));
}

/** A started worker: what the pool needs of it. */
export interface Started {
  endpoint: Endpoint;
  /** Ends the worker (Worker.terminate). */
  terminate(): void;
  /** Calls `onDeath` once if the worker itself dies (its `error` or `messageerror` event). */
  onDeath(onDeath: (message: string) => void): void;
}

export interface PoolWorker {
  /** Unique for the page's life: a restarted slot's worker gets a new id. */
  id: number;
  slot: number;
  client: TraceClient;
  /** Loads under way in it (first loads and re-reads). */
  loads: number;
  /** Sessions (full models) it holds. */
  sessions: number;
}

type Slot = PoolWorker & { started: Started };

export class WorkerPool {
  private readonly slots: (Slot | null)[];
  private nextId = 1;
  /** Slots that ever loaded a file (the "workers used" a benchmark reports). */
  readonly usedSlots = new Set<number>();
  /** Workers whose warm-up (warm) is under way: the id of its call. */
  private readonly warming = new Map<PoolWorker, number>();

  /**
   * `start` makes a worker (new Worker(...) in the page, a fake in tests); `onDeath` hears of a
   * worker that died, after its calls were failed: the Sessions it held are gone. `watch`: how
   * each worker's client watches it (worker/watchdog.ts); a worker that stalls, or whose module an
   * answer reports dead (out of memory, abort, trap), is ended like one that died.
   */
  constructor(
    readonly size: number,
    private readonly start: () => Started,
    private readonly onDeath: (id: number, error: WireError) => void = () => {},
    private readonly watch: Pick<ClientOptions, 'watchdog'> = {},
  ) {
    this.slots = Array.from({ length: size }, () => null);
  }

  private startSlot(slot: number): PoolWorker {
    const started = this.start();
    const id = this.nextId++;
    const client = new TraceClient(started.endpoint, {
      ...this.watch,
      onStall: (ms) => this.restart(id, stalledError(ms)),
      onFatal: (e) => this.restart(id, goneAfter(e)),
    });
    const w: Slot = { id, slot, client, loads: 0, sessions: 0, started };
    this.slots[slot] = w;
    started.onDeath((message) => this.restart(id, diedError(message)));
    return w;
  }

  /** The worker for a new load (started if its slot is empty): fewest loads, then Sessions, then slot. */
  forLoad(): PoolWorker {
    let best = -1;
    let bestKey = [Infinity, Infinity];
    for (let s = 0; s < this.size; s++) {
      const w = this.slots[s];
      const key = w ? [w.loads, w.sessions] : [0, 0];
      if (key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = s;
        bestKey = key;
      }
    }
    const w = this.slots[best] ?? this.startSlot(best);
    this.usedSlots.add(w.slot);
    this.stopWarming();
    return w;
  }

  /**
   * Starts every empty slot now, while the page waits for a file, and has it ready itself
   * (TraceClient.warm: the module compiled and the core's code optimized on `sample`); `onWarm`
   * hears of each that is. Slots started later (a restart) start cold. Nothing is started while a
   * load is under way (a page opened on a file, by a ?url= link or from the OS): a warm-up would
   * only take that load's CPU.
   */
  warm(sample: string, onWarm: (w: Warmed) => void = () => {}): void {
    if (this.slots.some((w) => w && w.loads > 0)) return;
    for (let s = 0; s < this.size; s++) {
      if (this.slots[s]) continue;
      const w = this.startSlot(s);
      const call = w.client.warm(sample);
      this.warming.set(w, call.id);
      call.promise
        .finally(() => this.warming.delete(w))
        // A worker that fails here fails its next call the same way: nothing more to do now.
        .then(onWarm, () => {});
    }
  }

  /**
   * A load is starting: warm-ups still running stop after their current run (they would take the
   * load's CPU; on 2 cores the difference did not show in the benchmark, docs/benchmarks.md).
   */
  private stopWarming(): void {
    for (const [w, id] of this.warming) w.client.cancel(id);
  }

  /** Workers with no load under way (started or not), `first` excepted. */
  idleOthers(first: PoolWorker): number {
    return this.slots.filter((w, s) => s !== first.slot && (!w || w.loads === 0)).length;
  }

  /**
   * Up to `n` helpers for a file `first` reads with others (worker/split-read.ts): workers with no
   * load under way, `first` excepted, by slot, started if their slot is empty. The caller counts
   * their loads while they read.
   */
  helpersFor(first: PoolWorker, n: number): PoolWorker[] {
    const out: PoolWorker[] = [];
    for (let s = 0; s < this.size && out.length < n; s++) {
      if (s === first.slot) continue;
      const w = this.slots[s];
      if (w && w.loads > 0) continue;
      const h = w ?? this.startSlot(s);
      this.usedSlots.add(h.slot);
      out.push(h);
    }
    return out;
  }

  /** Any live worker for a call that needs no Session (a reduce, a trim): the least busy. */
  any(): PoolWorker {
    let best: PoolWorker | null = null;
    for (const w of this.slots) if (w && (!best || w.loads < best.loads)) best = w;
    return best ?? this.forLoad();
  }

  /** The live worker of id `id`; undefined once it was ended (its Sessions are gone). */
  byId(id: number | null | undefined): PoolWorker | undefined {
    if (id == null) return undefined;
    return this.slots.find((w) => w?.id === id) ?? undefined;
  }

  /** Live workers, by slot. */
  get live(): PoolWorker[] {
    return this.slots.filter((w): w is Slot => w != null);
  }

  /** Ends worker `id` and fails its calls; its slot starts a fresh worker when next needed. */
  restart(id: number, error: WireError): void {
    const w = this.slots.find((x) => x?.id === id);
    if (!w) return;
    this.slots[w.slot] = null;
    w.started.terminate();
    w.client.failAll(error);
    this.onDeath(id, error);
  }
}

/**
 * The traces whose full model stays loaded: the open ones (in their order), then the KEEP_RECENT
 * shown last (`recent`: most recent first) that are not open.
 */
export function keptModels(open: readonly number[], recent: readonly number[], keepRecent = KEEP_RECENT): Set<number> {
  const keep = new Set(open);
  let extra = 0;
  for (const k of recent) {
    if (extra >= keepRecent) break;
    if (keep.has(k)) continue;
    keep.add(k);
    extra++;
  }
  return keep;
}

/** A trace as the model policy sees it. Worker ids are PoolWorker ids. */
export interface ModelState {
  key: number;
  /** Loaded (its summaries are in the page). */
  done: boolean;
  /** Its File is kept, so a closed model can be read again (a download cut short has none). */
  canReread: boolean;
  /** The live worker holding its model, or null (closed, or never kept). */
  worker: number | null;
  /** The worker it is being read again into, or null. */
  reading: number | null;
  /** Its last re-read failed: not tried again until the user asks. */
  failed: boolean;
}

export interface ModelPlan {
  /** Models to close (their traces keep their summaries). */
  close: number[];
  /** Models to read again from their File: into worker `into`, or (null) the pool's pick. */
  read: { key: number; into: number | null }[];
}

/**
 * What to close and what to read again, given the open traces (`open`: the trace shown, then the
 * experiment of its Diff view) and the ones shown before (`recent`, most recent first). The Diff
 * view needs both models in one worker: the experiment goes to the baseline's worker (read there,
 * or moved there when loaded elsewhere); it is planned once the baseline's worker is known (the
 * plan is made again after every change, so a baseline read "anywhere" now gets its experiment
 * next time). A model that cannot be read again is never closed, and never moved (the other one
 * moves to it instead).
 */
export function planModels(traces: readonly ModelState[], open: readonly number[], recent: readonly number[], keepRecent = KEEP_RECENT): ModelPlan {
  const keep = keptModels(open, recent, keepRecent);
  const close: number[] = [];
  const read: { key: number; into: number | null }[] = [];
  for (const t of traces) if (t.done && t.worker != null && t.canReread && !keep.has(t.key)) close.push(t.key);
  const byKey = new Map(traces.map((t) => [t.key, t]));
  const b = open[0] != null ? byKey.get(open[0]) : undefined;
  const x = open[1] != null ? byKey.get(open[1]) : undefined;
  const wants = (t: ModelState | undefined): t is ModelState => !!t && t.done && t.canReread && t.worker == null && t.reading == null && !t.failed;
  if (wants(b)) read.push({ key: b.key, into: x?.worker ?? null });
  if (b && x && x.done) {
    const home = b.worker ?? b.reading;
    if (home != null) {
      if (x.worker != null && x.worker !== home) {
        if (x.canReread) {
          close.push(x.key);
          read.push({ key: x.key, into: home });
        } else if (b.canReread && b.worker != null) {
          close.push(b.key);
          read.push({ key: b.key, into: x.worker });
        }
      } else if (wants(x)) read.push({ key: x.key, into: home });
    }
  }
  return { close, read };
}

/** What a call to a Session fails with once the pool restarted the worker that held it. */
export const goneError = () =>
  new RemoteError({ name: SESSION_GONE, message: 'The analysis worker restarted, so this file is no longer loaded.' });
