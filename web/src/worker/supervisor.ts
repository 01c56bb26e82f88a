// One trace worker and its client, kept alive (issue 12). Whatever ends the worker's usefulness —
// its wasm module out of memory, aborted or trapped (an error answer with a `failure`), the worker
// itself dead (an `error` or `messageerror` event) or silent (the watchdog) — the supervisor ends
// it and fails every pending call with what happened, so nothing waits forever. The next call
// starts a fresh worker. `gen` counts the workers: Sessions made in an older one are gone.
//
// A pool of workers is a set of these, one per worker; or, where a pool keeps its own slots, each
// slot's TraceClient gets the same options (watchdog, onStall, onFatal) and the errors below.
import { TraceClient, SESSION_GONE, WORKER_DIED, WORKER_STALLED, type Endpoint, type WireError } from './protocol';
import { DEFAULT_WATCHDOG, type WatchdogOptions } from './watchdog';

/** What the supervisor needs of a Worker. */
export interface WorkerLike extends Endpoint {
  addEventListener(type: 'message', listener: (ev: MessageEvent) => void): void;
  addEventListener(type: 'error', listener: (ev: ErrorEvent) => void): void;
  addEventListener(type: 'messageerror', listener: (ev: MessageEvent) => void): void;
  terminate(): void;
}

/** What the pending calls of a worker that stopped answering for `ms` are failed with. */
export const stalledError = (ms: number): WireError => ({
  name: WORKER_STALLED,
  failure: 'stalled',
  message: `The analysis worker did not answer for ${Math.round(ms / 1000)} s.`,
});

/** What the pending calls of a worker that died (error event, unreadable message) are failed with. */
export const diedError = (message: string): WireError => ({
  name: WORKER_DIED,
  failure: 'died',
  message: `The analysis worker stopped (${message || 'no reason given'}).`,
});

/** What the other pending calls are failed with when one call's answer says the module is gone. */
export const goneAfter = (fatal: WireError): WireError => ({
  name: SESSION_GONE,
  message: `The analysis worker restarted after an error (${fatal.message}).`,
});

export interface SupervisorOptions {
  watchdog?: WatchdogOptions;
  /** Told after each restart: why (the error the pending calls got) and the new generation. */
  onRestart?: (why: WireError, gen: number) => void;
}

export class WorkerSupervisor {
  private current: { worker: WorkerLike; client: TraceClient } | null = null;
  private generation = 0;

  constructor(
    private readonly make: () => WorkerLike,
    private readonly options: SupervisorOptions = {},
  ) {}

  /** The live worker's client (a worker is started if there is none). */
  get client(): TraceClient {
    return (this.current ??= this.start()).client;
  }

  /** The client of the live worker, if one is running (no worker is started). */
  get running(): TraceClient | null {
    return this.current?.client ?? null;
  }

  /** The worker generation: bumped by each restart. */
  get gen(): number {
    return this.generation;
  }

  /**
   * Ends the worker (its heap goes with it) and rejects its pending calls with `why` (each gets
   * the phase it was in). The next call starts a fresh worker.
   */
  restart(why: WireError): void {
    const r = this.current;
    if (!r) return;
    this.current = null;
    this.generation++;
    r.worker.terminate();
    r.client.failAll(why);
    this.options.onRestart?.(why, this.generation);
  }

  /** Ends the worker for good (the page is going away); pending calls fail as gone. */
  dispose(): void {
    this.restart({ name: SESSION_GONE, message: 'The analysis worker was closed.' });
  }

  private start(): { worker: WorkerLike; client: TraceClient } {
    const worker = this.make();
    const watchdog = this.options.watchdog ?? DEFAULT_WATCHDOG;
    const r: { worker: WorkerLike; client: TraceClient } = {
      worker,
      client: new TraceClient(worker, {
        watchdog,
        onStall: (ms) => {
          if (this.current === r) this.restart(stalledError(ms));
        },
        // The call that failed has its answer; the others lose their Sessions with the module.
        onFatal: (e) => {
          if (this.current === r) this.restart(goneAfter(e));
        },
      }),
    };
    worker.addEventListener('error', (ev) => {
      // The worker itself died (an uncaught error, the wasm could not load, the browser ended it).
      ev.preventDefault?.();
      if (this.current === r) this.restart(diedError(ev.message));
    });
    worker.addEventListener('messageerror', () => {
      // An answer that could not be read is lost: its call would wait forever.
      if (this.current === r) this.restart(diedError('a message from it could not be read'));
    });
    return r;
  }
}
