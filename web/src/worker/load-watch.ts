// The watch over one load as a whole (issue 21: "never a silent stop at any size"). The worker
// watchdog (worker/watchdog.ts) hears any message from a trace worker as a sign of life, and a
// trace worker waiting for its reader's next chunk, or for a helper's next piece, answers every
// ping: a reader that stops sending (a blob read the browser never completes, a message lost
// between the reader and the trace worker), a helper that waits forever, a merge waiting for a
// part that never comes, all looked alive while nothing moved. So the page also watches what the
// load delivers: bytes read by every worker, bytes fed, pieces merged, the phase.
//
//   reading  some bytes came and the file still has bytes: nothing new for `readStallMs` is a
//            stall (a File's bytes come every few ms; a download's network may pause, so a
//            download gets `waitStallMs`).
//   waiting  before the first byte (the module compiling on a busy machine), or every byte read
//            and the workers linking or merging: nothing for `waitStallMs` (as the worker
//            watchdog's silence) is a stall.
//   computing once a phase is reported (the Overview's parts), the worker's heartbeats and the
//            worker watchdog take over: nothing is checked here.
//
// `onStill(ms)` says for how long nothing has moved (null once something moves again), so the
// progress bar stops showing a rate and a time left that are no longer true.
import { realTimers, type Timers } from './watchdog';

export interface LoadWatchOptions {
  /**
   * No new byte for this long, while reading a File that still has bytes: a stall. It is said at
   * most this long after the last byte (issue 21: "within 10 s of the stop"): the watch looks every
   * `tickMs`, so it calls it at the last look before the limit would pass, tickMs early at most.
   */
  readStallMs: number;
  /** Nothing new for this long while waiting (first byte, merge, link, a download): a stall (said as readStallMs is). */
  waitStallMs: number;
  /** How often the watch looks. */
  tickMs: number;
  /** The progress bar says "nothing for N s" after this long without movement. */
  stillMs: number;
  timers?: Timers;
}

export const DEFAULT_LOAD_WATCH: LoadWatchOptions = { readStallMs: 10_000, waitStallMs: 60_000, tickMs: 1_000, stillMs: 3_000 };

/** What the watch is told: the load's progress summed over its workers (not capped at the size). */
export interface Moves {
  bytesRead: number;
  /** The file's size; null for a download without a Content-Length. */
  totalBytes: number | null;
  decodedBytes: number;
  /** Pieces of the helpers' partial models merged so far (a file read by several workers). */
  pieces?: number;
  /** Set once the file is read and the Overview's parts are computed. */
  phase?: string | null;
}

export interface LoadStall {
  /** 'read': bytes stopped while the file had more; 'wait': nothing came while waiting (merge, link, first byte). */
  kind: 'read' | 'wait';
  bytesRead: number;
  totalBytes: number | null;
  /** How long nothing moved. */
  stillMs: number;
}

export class LoadWatch {
  private last: Moves | null = null;
  private lastMove: number;
  private stop: (() => void) | null;
  private still: number | null = null;
  private readonly timers: Timers;

  /** `download`: the bytes come over a network, which may pause (only `waitStallMs` applies). */
  constructor(
    private readonly options: LoadWatchOptions,
    private readonly onStall: (s: LoadStall) => void,
    private readonly onStill: (ms: number | null) => void = () => {},
    private readonly download = false,
  ) {
    this.timers = options.timers ?? realTimers;
    this.lastMove = this.timers.now();
    this.stop = this.timers.every(options.tickMs, () => this.tick());
  }

  /** The load's progress now; any change from the last is movement. */
  progress(m: Moves): void {
    const l = this.last;
    if (!l || l.bytesRead !== m.bytesRead || l.decodedBytes !== m.decodedBytes || (l.pieces ?? 0) !== (m.pieces ?? 0) || (l.phase ?? null) !== (m.phase ?? null)) {
      this.lastMove = this.timers.now();
      if (this.still != null) {
        this.still = null;
        this.onStill(null);
      }
    }
    this.last = m;
  }

  /** The load is over (done, failed, cancelled): stop looking. */
  halt(): void {
    this.stop?.();
    this.stop = null;
  }

  get watching(): boolean {
    return this.stop != null;
  }

  private tick(): void {
    const m = this.last;
    if (m?.phase) return; // computing: the worker watchdog's business
    const still = this.timers.now() - this.lastMove;
    if (still >= this.options.stillMs) {
      this.still = still;
      this.onStill(still);
    }
    const reading = !!m && !this.download && m.bytesRead > 0 && (m.totalBytes == null || m.bytesRead < m.totalBytes);
    const limit = reading ? this.options.readStallMs : this.options.waitStallMs;
    // The next look would come past the limit: say it now. A load whose last byte came between two
    // looks was said up to a look late (11 s after the stop at a 10 s limit, on the bench).
    if (still + this.options.tickMs > limit) {
      this.halt();
      this.onStall({ kind: reading ? 'read' : 'wait', bytesRead: m?.bytesRead ?? 0, totalBytes: m?.totalBytes ?? null, stillMs: still });
    }
  }
}
