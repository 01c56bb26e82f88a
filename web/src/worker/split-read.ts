// One big file read by several trace workers at once (issue 12 §2; docs/contracts.md "One file,
// several workers"). The core reads a plain trace in byte ranges and merges the later ranges'
// partial models into the first one's; this file is the page's coordination of it, free of wasm
// (the core's parts come in through SplitCore and MergeTarget) and of Workers, so that it is
// tested with fakes and the Node build of the core (tests/web/split-read.test.ts):
//
//   page            how many workers (rangeCount; app/loader.ts), one MessageChannel per helper; the
//                   first worker gets a `load` with the helpers' ports, each helper a `loadRange` with its port;
//                   a helper whose call fails (it died, trapped, stalled: the pool's supervisor) is
//                   reported to the first worker (`rangeLost`).
//   first worker    reads small windows at size/k*i, proposes the splits (chooseSplits), sends each
//                   helper its range ({start, stopAt: the later splits, root}) on its port, reads
//                   [0, S1) itself, then merges the ranges in the core's order (mergeRanges pumps
//                   pieces into RangeMerge, core/trace/model_merge.h): on a refusal or a lost
//                   helper it reads on itself; a helper lost part-way through its pieces leaves a
//                   half-merged model, so the file is read again in one range.
//   helper worker   reads [Si, end) (its own reader worker on File.slice(Si)), stops at the next
//                   split, finishes, then sends its partial model as pieces on the port, at most
//                   `credit` ahead of what the first has merged (servePieces), and deletes its
//                   Session.
//
// The pieces go worker to worker over the MessageChannel (transferred), never through the page:
// the page's thread only forwards small messages, so it stays responsive.
import type { Port } from './protocol';

/** Files smaller than this are read by one worker: splitting costs a wasm start and a merge. */
export const SPLIT_MIN_BYTES = 64 * 1024 * 1024;
/** The window read at each nominal split to find an event boundary in (proposeSplit). */
export const SPLIT_WINDOW = 64 * 1024;
/** The most bytes of a piece of a partial model (a longer single string gets a piece of its own). */
export const PIECE_BYTES = 4 * 1024 * 1024;
/** Pieces a helper may send ahead of what the first worker has merged (back-pressure). */
export const PIECES_AHEAD = 2;

/** The page's split settings: the threshold, and at most how many workers read one file. */
export interface SplitSettings {
  minBytes: number;
  /** At most this many workers read one file (1: never split); absent: the pool's size. */
  workers?: number;
}

/**
 * At most how many workers read one file by default on a machine of `cores` logical cores: all but
 * one. The rest of a load (the browser reading the file: a reader worker and its I/O threads; the
 * page drawing) takes about a core's worth of CPU while the trace workers parse; on the 2 cores
 * measured, a second worker took that core's CPU and was slower (Overview drawn in 2.15 s against
 * 2.08 s with one; docs/benchmarks.md). A run's files still load one per worker, every worker.
 */
export function defaultSplitWorkers(cores: number | undefined): number {
  const n = Math.floor(Number(cores));
  return Number.isFinite(n) ? Math.max(1, n - 1) : 1;
}

/**
 * How many workers read a file of `size` bytes: 1 unless it is plain (not gzip: a gzip stream
 * cannot be entered part-way) and at least `minBytes`; else the idle workers of the pool (`idle`
 * counts the one that will read the start), capped by the setting and so that every range is at
 * least two windows long.
 */
export function rangeCount(size: number, plain: boolean, poolSize: number, idle: number, s: SplitSettings): number {
  if (!plain || size < s.minBytes || poolSize < 2) return 1;
  const k = Math.min(poolSize, idle, s.workers ?? poolSize, Math.floor(size / (2 * SPLIT_WINDOW)));
  return Math.max(1, k);
}

/**
 * What planSplits needs of the core (the wasm module's functions of these names): the plan is
 * the core's (core/trace/model_merge.h nominal_splits / choose_splits, the CLI's too); this file
 * only reads the windows it names from the File.
 */
export interface SplitCore {
  rootIsArray(firstBytes: Uint8Array): number;
  proposeSplit(window: Uint8Array): number;
  nominalSplits(size: number, k: number): number[];
  chooseSplits(nominal: number[], found: number[], size: number): number[];
}

/** What planSplits needs of the file: its size and byte ranges (a File; a fake in tests). */
export interface SplitSource {
  readonly size: number;
  slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

/**
 * Where a file read by `k` workers is split: the root kind from its first bytes, then the event
 * boundary the core proposes in a window at each size/k*i. No split when the root is neither an
 * array nor an object (one range reads it, as the core would). Offsets are JavaScript numbers,
 * exact to 2^53: a 10 GB file's splits lie past 4 GiB (tests/web/split-read.test.ts checks them
 * with a source of 10^10 bytes made up as read).
 */
export async function planSplits(core: SplitCore, file: SplitSource, k: number): Promise<{ splits: number[]; root: number }> {
  const bytes = async (from: number, n: number) => new Uint8Array(await file.slice(from, Math.min(file.size, from + n)).arrayBuffer());
  const root = core.rootIsArray(await bytes(0, 4096));
  if (root < 0) return { splits: [], root };
  const nominal = core.nominalSplits(file.size, k);
  const found = await Promise.all(nominal.map(async (n) => core.proposeSplit(await bytes(n, SPLIT_WINDOW))));
  return { splits: core.chooseSplits(nominal, found, file.size), root };
}

// ------------------------------------------------------------------ the port between two workers

/** First worker -> helper. */
export type ToHelper =
  /** Read [start, end), stopping at the first of `stopAt` that is a clean boundary. */
  | { kind: 'range'; start: number; stopAt: number[]; root: boolean }
  /** No range for you (a gzip file, no split found, the first worker gave up): end. */
  | { kind: 'none' }
  /** Send `n` more pieces. */
  | { kind: 'more'; n: number }
  /** Your pieces are not wanted (any more): delete the Session and end. */
  | { kind: 'skip' };

/** Helper -> first worker. */
export type FromHelper =
  | { kind: 'piece'; bytes: Uint8Array } // owns its buffer: transferred
  | { kind: 'end' }
  /** The helper could not read its range (the reason said): its range must be read by the first. */
  | { kind: 'failed'; message: string };

/** A MessagePort listened to with addEventListener delivers nothing until it is started. */
function startPort(port: Port): void {
  (port as { start?: () => void }).start?.();
}

/** Thrown by PieceSource.next() once the helper is known to be lost. */
export class HelperLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HelperLost';
  }
}

/**
 * The first worker's side of one helper's port: the helper's range to send, then its pieces in
 * order, asked for PIECES_AHEAD at a time. `lose` (the page said the helper failed, or it said so
 * itself) makes the pending and later next() throw HelperLost.
 */
export class PieceSource {
  private readonly queue: FromHelper[] = [];
  private waiter: (() => void) | null = null;
  private lostWith: string | null = null;
  private asked = false;
  private closed = false;
  /** Pieces received so far. */
  received = 0;

  constructor(private readonly port: Port, readonly ahead = PIECES_AHEAD) {
    port.addEventListener('message', (ev: MessageEvent<FromHelper>) => {
      const m = ev.data;
      if (m.kind === 'failed') this.lose(m.message);
      else this.queue.push(m);
      this.wake();
    });
    startPort(port);
  }

  /** Tells the helper which range to read (or none). */
  assign(m: Extract<ToHelper, { kind: 'range' | 'none' }>): void {
    this.send(m);
  }

  /** The helper is gone (died, trapped, stalled, or could not read): nothing more will come. */
  lose(message: string): void {
    this.lostWith ??= message;
    this.wake();
  }

  get lost(): boolean {
    return this.lostWith != null;
  }

  /** The next piece; null once the helper said it sent all. Throws HelperLost. */
  async next(): Promise<Uint8Array | null> {
    if (!this.asked) {
      this.asked = true;
      this.send({ kind: 'more', n: this.ahead });
    }
    for (;;) {
      const m = this.queue.shift();
      if (m?.kind === 'piece') {
        this.received++;
        this.send({ kind: 'more', n: 1 });
        return m.bytes;
      }
      if (m?.kind === 'end') return null;
      if (this.lostWith != null) throw new HelperLost(this.lostWith);
      if (this.closed) return null;
      await new Promise<void>((r) => (this.waiter = r));
    }
  }

  /** Done with this helper (merged, refused, or not needed): it deletes its Session and ends. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.send({ kind: 'skip' });
    this.wake();
  }

  private send(m: ToHelper): void {
    if (!this.closed || m.kind === 'skip') this.port.postMessage(m);
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}

/**
 * The helper's side of its port: waits for its range (null: none, or skipped before it came).
 * Messages that come before the caller listens are kept.
 */
export class HelperPort {
  private range: Promise<Extract<ToHelper, { kind: 'range' }> | null>;
  private credit = 0;
  private skipped = false;
  private waiter: (() => void) | null = null;
  private gotRange!: (r: Extract<ToHelper, { kind: 'range' }> | null) => void;

  constructor(private readonly port: Port) {
    this.range = new Promise((r) => (this.gotRange = r));
    port.addEventListener('message', (ev: MessageEvent<ToHelper>) => {
      const m = ev.data;
      if (m.kind === 'range') this.gotRange(m);
      else if (m.kind === 'none') this.gotRange(null);
      else if (m.kind === 'more') this.credit += m.n;
      else {
        this.skipped = true;
        this.gotRange(null);
      }
      this.wake();
    });
    startPort(port);
  }

  /** The range to read; null when there is none. */
  assigned(): Promise<Extract<ToHelper, { kind: 'range' }> | null> {
    return this.range;
  }

  /** Whether the first worker said it no longer wants the pieces. */
  get wanted(): boolean {
    return !this.skipped;
  }

  /** Tells the first worker this range could not be read (it reads it itself). */
  fail(message: string): void {
    this.port.postMessage({ kind: 'failed', message } satisfies FromHelper);
  }

  /**
   * Sends the pieces `nextPiece` gives (null: all sent), each once the first worker has asked for
   * it; stops if it skips them (or stop() is called). Answers how many were sent, and whether all were.
   */
  async servePieces(nextPiece: () => Uint8Array | null): Promise<{ sent: number; all: boolean }> {
    let sent = 0;
    for (;;) {
      while (this.credit <= 0 && !this.skipped) await new Promise<void>((r) => (this.waiter = r));
      if (this.skipped) return { sent, all: false };
      const piece = nextPiece();
      if (!piece) {
        this.port.postMessage({ kind: 'end' } satisfies FromHelper);
        return { sent, all: true };
      }
      // Its own buffer, exactly its bytes, so that it can be transferred.
      const bytes = piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength ? piece : piece.slice();
      this.credit--;
      sent++;
      this.port.postMessage({ kind: 'piece', bytes } satisfies FromHelper, [bytes.buffer]);
    }
  }

  /** The load was cancelled: no range is read, no more pieces are sent. */
  stop(): void {
    this.skipped = true;
    this.gotRange(null);
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}

// ------------------------------------------------------------------ merging, in the first worker

/** What the core's merge order says to do next (core/trace/model_merge.h RangeMerge). */
export type MergeAction = 'ask' | 'readOn' | 'readAgain' | 'finished';
/** How a piece merged: the Session's mergeCommit answer. */
export type PieceState = 'merging' | 'done' | 'refused' | 'broken';

/**
 * The core's merge order (core/trace/model_merge.h RangeMerge; the wasm module's RangeMerge):
 * every decision of mergeRanges is its. Told where the first Session stands and how each piece of
 * the range it asked for went (merged, ended, lost, none), it answers what to do next.
 */
export interface RangeMergeCore {
  /** Where the first Session stands, at the start and after reading on. */
  at(stopped: boolean, coveredEnd: number): MergeAction;
  /** How a piece of range() merged, and where the first Session stands after it. */
  piece(state: PieceState, stopped: boolean, coveredEnd: number): MergeAction;
  /** range()'s source said it sent every piece. */
  ended(): MergeAction;
  /** range()'s source was lost (why). */
  lost(why: string): MergeAction;
  /** No source reads range(). */
  noSource(): MergeAction;
  /** The range to ask a piece of ('ask'): its index in the splits. */
  range(): number;
  /** Where to read on from ('readOn'). */
  from(): number;
  /** The counts and the last reason so far. */
  outcome(): MergeOutcome;
  delete(): void;
}

/** What mergeRanges needs of the first worker's Session (wasm Session, or a fake) and of the core. */
export interface MergeTarget {
  stopped(): boolean;
  coveredEnd(): number;
  readOn(): void;
  /** mergePrepare + copy + mergeCommit of one piece. */
  merge(piece: Uint8Array): PieceState;
  /** The core's merge order over these splits (`new mod.RangeMerge(splits)`). */
  rangeMerge(splits: readonly number[]): RangeMergeCore;
}

export interface MergeOutcome {
  /** Ranges merged from helpers. */
  merged: number;
  /** Times the first worker read on itself (a range refused, or its helper lost or missing). */
  readOn: number;
  /** A helper was lost part-way through its pieces, or a piece was broken: read the file again in one range. */
  broken: boolean;
  /** Why the first worker read on or broke off, for the record (the last reason). */
  reason: string | null;
}

/**
 * Merges the helpers' ranges into `t` in the core's order (RangeMerge, as the CLI's
 * merge_ranges): this is only the pump. It waits for the piece of the range the core asks for
 * (from that range's source; the helper sends them on its port), merges it into `t`, and tells
 * the core how it went — or that the source ended, was lost (HelperLost) or is missing — and does
 * what the core answers: ask again, read on (`readOn`, then `readRest(from)`: read the file from
 * `from` until `t` stops again or the file ends), stop with `broken` (a half-merged model: the
 * caller reads the file again in one range) or stop. A source is closed once the core leaves its
 * range, and every source at the end (the helpers not merged delete their Sessions).
 * `checkCancelled` throws to stop.
 */
export async function mergeRanges(
  t: MergeTarget,
  splits: readonly number[],
  sources: readonly (PieceSource | null)[],
  readRest: (from: number) => Promise<void>,
  checkCancelled: () => void = () => {},
): Promise<MergeOutcome> {
  const order = t.rangeMerge(splits);
  try {
    let next = order.at(t.stopped(), t.coveredEnd());
    while (next === 'ask' || next === 'readOn') {
      if (next === 'readOn') {
        const from = order.from();
        t.readOn();
        await readRest(from);
        checkCancelled();
        next = order.at(t.stopped(), t.coveredEnd());
        continue;
      }
      const range = order.range();
      const src = sources[range] ?? null;
      if (!src) {
        next = order.noSource();
        continue;
      }
      try {
        const piece = await src.next();
        checkCancelled();
        next = piece ? order.piece(t.merge(piece), t.stopped(), t.coveredEnd()) : order.ended();
      } catch (e) {
        if (!(e instanceof HelperLost)) throw e;
        next = order.lost(e.message);
      }
      if (next !== 'ask' || order.range() !== range) src.close();
    }
    return order.outcome();
  } finally {
    order.delete();
    for (const s of sources) s?.close();
  }
}
