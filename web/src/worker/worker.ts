/// <reference lib="webworker" />
// The trace worker: streams each File into a wasm Session and answers with its summary.
// Trace bytes never become a JS string (V8 caps strings at ~512 MB and Chromium then silently
// yields ""): they go file.stream() [-> DecompressionStream] -> staging buffer -> wasm heap.
import createKinetoscope from '../generated/kinetoscope_web.mjs';
import type { KinetoscopeModule, KinetoscopeSession } from '../generated/kinetoscope_web.mjs';
import wasmUrl from '../generated/kinetoscope_web.wasm?url';
import { isGzip } from '../lib/gzip';
import { Throttle } from '../lib/progress';
import type { Summary } from '../lib/summary';
import { ChunkFeeder } from './feeder';
import { ABORT, toWireError, type LoadProgress, type Request, type Response } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

let modulePromise: Promise<KinetoscopeModule> | null = null;
function getModule(): Promise<KinetoscopeModule> {
  modulePromise ??= createKinetoscope({
    // Point the loader at the .wasm Vite emitted (hashed name), whatever its own default is.
    locateFile: (path, prefix) => (path.endsWith('.wasm') ? wasmUrl : prefix + path),
  });
  modulePromise.catch(() => (modulePromise = null));
  return modulePromise;
}

interface Job {
  cancelled: boolean;
  reader: ReadableStreamDefaultReader<Uint8Array> | null;
}
const jobs = new Map<number, Job>();

function post(res: Response): void {
  self.postMessage(res);
}

self.addEventListener('message', (ev: MessageEvent<Request>) => {
  const req = ev.data;
  if (req.kind === 'load') {
    const job: Job = { cancelled: false, reader: null };
    jobs.set(req.id, job);
    loadFile(req.id, req.file, job)
      .then((summary) => post({ kind: 'result', id: req.id, summary }))
      .catch((e) => {
        // A wasm trap (abort, out of memory) leaves the module in an unknown state: start afresh.
        if (e instanceof WebAssembly.RuntimeError || (e as Error)?.name === 'RuntimeError') modulePromise = null;
        post({ kind: 'error', id: req.id, error: toWireError(e) });
      })
      .finally(() => jobs.delete(req.id));
  } else if (req.kind === 'cancel') {
    const job = jobs.get(req.target);
    if (job) {
      job.cancelled = true;
      // Resolves the pending read() with done, so the load loop ends at once.
      job.reader?.cancel().catch(() => {});
    }
  }
});

function abortError(): Error {
  const e = new Error('Loading was cancelled.');
  e.name = ABORT;
  return e;
}

async function loadFile(id: number, file: File, job: Job): Promise<Summary> {
  const t0 = performance.now();
  const mod = await getModule();
  if (job.cancelled) throw abortError();

  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzipped = isGzip(head);

  // Count compressed bytes before decompression: that is what file.size measures.
  let bytesRead = 0;
  let stream: ReadableStream<Uint8Array> = file.stream().pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        bytesRead += chunk.byteLength;
        ctl.enqueue(chunk);
      },
    }),
  );
  if (gzipped) {
    stream = stream.pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>);
  }
  const reader = stream.getReader();
  job.reader = reader;

  const session: KinetoscopeSession = new mod.Session();
  try {
    const feeder = new ChunkFeeder(mod, session);
    const throttle = new Throttle(100);
    const progress = (): LoadProgress => ({
      bytesRead,
      totalBytes: file.size,
      decodedBytes: feeder.fed,
      elapsedMs: performance.now() - t0,
    });
    let streamError: unknown = null;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || job.cancelled) break;
        feeder.push(value);
        if (feeder.stopped) break; // certainly not a trace: reading on is wasted work
        if (throttle.ready(performance.now())) post({ kind: 'progress', id, progress: progress() });
      }
    } catch (e) {
      // A corrupt or cut-off gzip stream errors here; keep what was read and report it.
      streamError = e;
    }
    if (job.cancelled) throw abortError();
    if (feeder.stopped || streamError) reader.cancel().catch(() => {});
    feeder.flush();
    post({ kind: 'progress', id, progress: { ...progress(), bytesRead: streamError ? bytesRead : file.size } });

    // A corrupt or cut-off gzip stream: the core records it in health (as the CLI does) and
    // keeps every event decompressed before it.
    if (streamError) session.inputError(gzipped);
    session.finish();
    // The summary is a small JSON object the core writes, not trace bytes.
    const summary = JSON.parse(session.summaryJson()) as Summary;
    summary.file = file.name;
    return summary;
  } finally {
    session.delete();
  }
}
