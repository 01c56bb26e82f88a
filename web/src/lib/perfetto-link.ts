// The PING/PONG handshake with a Perfetto UI window (an iframe's contentWindow, or a tab opened
// with window.open), kept apart from the view so tests can drive it with stand-in windows.
import { HANDSHAKE_TIMEOUT_MS, PING_INTERVAL_MS } from './perfetto';

/** Name of the error of a UI that did not answer in time. */
export const NO_ANSWER = 'PerfettoNoAnswer';
/** Name of the error of a tab the person closed before it answered. */
export const WINDOW_CLOSED = 'PerfettoWindowClosed';

export interface MessageTarget {
  postMessage(message: unknown, targetOrigin: string, transfer?: Transferable[]): void;
  readonly closed?: boolean;
}

export interface MessageHost {
  addEventListener(type: 'message', l: (ev: MessageEvent) => void): void;
  removeEventListener(type: 'message', l: (ev: MessageEvent) => void): void;
}

export interface Handshake {
  /** Resolves on the first 'PONG' from `origin` and that window; rejects on timeout or close. */
  promise: Promise<void>;
  /** Stops pinging; the promise then never settles. */
  cancel(): void;
}

/**
 * Pings `target()` every `intervalMs` until it answers 'PONG'. The window is read on each ping
 * because an iframe's contentWindow exists before its page does. PINGs go to '*': until the UI's
 * page has loaded the window is about:blank, and a PING aimed at the UI's origin would be refused
 * with a console error; a PING carries nothing. The answer counts only from `origin` and from that
 * window, so nothing else on the page can start the trace on its way.
 */
export function handshake(
  target: () => MessageTarget | null,
  origin: string,
  host: MessageHost,
  { intervalMs = PING_INTERVAL_MS, timeoutMs = HANDSHAKE_TIMEOUT_MS } = {},
): Handshake {
  let stop = () => {};
  const promise = new Promise<void>((resolve, reject) => {
    const onMessage = (ev: MessageEvent) => {
      const w = target();
      if (ev.data === 'PONG' && ev.origin === origin && w && ev.source === (w as unknown)) {
        stop();
        resolve();
      }
    };
    const fail = (name: string, message: string) => {
      stop();
      const e = new Error(message);
      e.name = name;
      reject(e);
    };
    const ping = () => {
      const w = target();
      if (w?.closed) return fail(WINDOW_CLOSED, 'The Perfetto tab was closed before it answered.');
      try {
        w?.postMessage('PING', '*');
      } catch {
        // A window being torn down: the next ping or the timeout settles it.
      }
    };
    const timer = setInterval(ping, intervalMs);
    const deadline = setTimeout(
      () => fail(NO_ANSWER, `The Perfetto UI at ${origin} did not answer within ${Math.round(timeoutMs / 1000)} s.`),
      timeoutMs,
    );
    stop = () => {
      clearInterval(timer);
      clearTimeout(deadline);
      host.removeEventListener('message', onMessage);
    };
    host.addEventListener('message', onMessage);
    ping();
  });
  return { promise, cancel: () => stop() };
}
