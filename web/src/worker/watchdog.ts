// The watchdog of one trace worker (issue 12, "never a silent hang"). A worker that aborts answers
// with an error and one that crashes fires an error event, but one the browser ends (out of
// memory) or that loops forever says nothing at all: its calls would stay pending for good. So
// while a call is pending the client pings the worker, and any message from it (a pong, progress,
// an answer) is a sign of life. Silence for `stallMs` while calls are pending declares it stalled.
//
// A busy worker is not silent: it answers pings between chunks while reading, and the core reports
// each part it computes after reading (Session.setProgress) and beats from inside its long loops
// (setHeartbeat), which the worker posts as progress.
// `stallMs` must exceed the longest single part on the largest trace a tab can hold (see
// DEFAULT_WATCHDOG). The clock starts when a call starts: an idle worker has nothing to say.

/** Time and repetition, injectable so that tests drive them by hand. */
export interface Timers {
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

export const realTimers: Timers = {
  now: () => performance.now(),
  every: (ms, fn) => {
    const t = setInterval(fn, ms);
    return () => clearInterval(t);
  },
};

export interface WatchdogOptions {
  /** How often to ping while calls are pending. */
  pingMs: number;
  /** Silence (no message at all) after which the worker is declared stalled. */
  stallMs: number;
  timers?: Timers;
}

/**
 * 2 s pings; stalled after 60 s of silence. Besides the pongs between chunks, the core beats from
 * inside its long loops (core/util/heartbeat.h: step scan, breakdown, each stage of an operator
 * tree, module view), so the longest silence of a busy worker is one stage of one loop — a sort of
 * a tree's nodes, seconds on a trace near the 4 GB heap limit; 60 s leaves room for a machine
 * under heavy load.
 */
export const DEFAULT_WATCHDOG: WatchdogOptions = { pingMs: 2_000, stallMs: 60_000 };

export class Watchdog {
  private lastLife = 0;
  private stop: (() => void) | null = null;
  private readonly timers: Timers;

  /**
   * `ping` asks the worker for a sign of life; `onStall(silentMs)` is called once when it has said
   * nothing for `stallMs` while calls were pending (the watchdog then stays off until busy again).
   */
  constructor(
    private readonly options: WatchdogOptions,
    private readonly ping: () => void,
    private readonly onStall: (silentMs: number) => void,
  ) {
    this.timers = options.timers ?? realTimers;
  }

  /** A message came from the worker. */
  alive(): void {
    this.lastLife = this.timers.now();
  }

  /** The number of pending calls changed: watch while there are some. */
  busy(pending: number): void {
    if (pending > 0 && !this.stop) {
      this.lastLife = this.timers.now();
      this.stop = this.timers.every(this.options.pingMs, () => this.tick());
    } else if (pending === 0) {
      this.halt();
    }
  }

  /** Stops watching (the worker is gone). */
  halt(): void {
    this.stop?.();
    this.stop = null;
  }

  get watching(): boolean {
    return this.stop != null;
  }

  private tick(): void {
    const silent = this.timers.now() - this.lastLife;
    if (silent >= this.options.stallMs) {
      this.halt();
      this.onStall(silent);
    } else {
      this.ping();
    }
  }
}
