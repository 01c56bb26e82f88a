// Starts the download of a trace opened by URL. The page fetches it, not the trace worker: the
// page's Content-Security-Policy (a <meta> tag) covers the page's own requests only, so this is
// the request it checks (docs/privacy.md). The body is not read here: it is handed on as a stream
// and transferred to the worker, which parses it as it arrives.
import { httpErrorMessage, networkErrorMessage } from './trace-url';

export interface Download {
  /** The response body as it arrives (counted on its way through the page). */
  stream: ReadableStream<Uint8Array>;
  /** Content-Length, when the server sent one and the body is not re-encoded on the way. */
  totalBytes: number | null;
}

/** A download that could not start; its message is the sentence the card shows. */
export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

/**
 * Fetches `url` and answers its body once the server has answered OK. `onBytes` hears the bytes
 * received so far, as they pass. Rejects with an AbortError when `signal` aborts, and with a
 * DownloadError that explains the failure otherwise: an HTTP status, or a network error (CORS,
 * unreachable, or the page's CSP, told apart by its `securitypolicyviolation` event).
 */
export async function fetchTrace(url: string, signal: AbortSignal, onBytes?: (bytes: number) => void): Promise<Download> {
  // The request is the one the event blames: Chromium names the URL asked for even when the
  // redirect it led to was blocked. Only one download runs at a time, so none is mistaken.
  // (Reports leave out the fragment.)
  const asked = url.replace(/#.*$/, '');
  let blocked = false;
  const onViolation = (ev: SecurityPolicyViolationEvent) => {
    if (ev.effectiveDirective === 'connect-src' && ev.blockedURI === asked) blocked = true;
  };
  document.addEventListener('securitypolicyviolation', onViolation);
  let res: Response;
  try {
    res = await fetch(url, { signal });
  } catch (e) {
    if (signal.aborted || (e as Error)?.name === 'AbortError') throw e;
    // The violation event is queued as a task of its own, which may run after the rejection.
    await new Promise((r) => setTimeout(r, 50));
    throw new DownloadError(networkErrorMessage(url, blocked));
  } finally {
    document.removeEventListener('securitypolicyviolation', onViolation);
  }
  if (!res.ok) {
    // The body (an error page) is not wanted: let the connection go.
    res.body?.cancel().catch(() => {});
    throw new DownloadError(httpErrorMessage(res.status, res.statusText, url));
  }
  // With Content-Encoding (HTTP compression) the body arrives decoded, larger than Content-Length.
  // A cross-origin answer hides that header; the progress bar also drops a total it passes.
  const length = res.headers.get('content-length');
  const encoding = res.headers.get('content-encoding');
  const totalBytes = length != null && /^\d+$/.test(length.trim()) && (!encoding || encoding === 'identity') ? Number(length) : null;
  // A body-less answer (204, or 200 with nothing) is an empty trace, which the core reports as such.
  const body = res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  let received = 0;
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        received += chunk.byteLength;
        onBytes?.(received);
        ctl.enqueue(chunk);
      },
    }),
  );
  return { stream, totalBytes };
}
