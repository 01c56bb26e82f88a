// What ends a trace worker's usefulness (issue 12), as the errors its pending calls are failed
// with: its wasm module out of memory, aborted or trapped (an error answer with a `failure`), the
// worker itself dead (an `error` or `messageerror` event) or silent (the watchdog). The pool
// (worker/worker-pool.ts) ends such a worker and fails every pending call with one of these, so
// nothing waits forever; the slot's next call starts a fresh worker.
import { SESSION_GONE, WORKER_DIED, WORKER_STALLED, type Endpoint, type WireError } from './protocol';

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
