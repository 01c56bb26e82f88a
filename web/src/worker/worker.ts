/// <reference lib="webworker" />
// The trace worker: streams each File into a wasm Session and answers with its summary.
// Trace bytes never become a JS string (V8 caps strings at ~512 MB and Chromium then silently
// yields ""): a reader worker reads them (slice().arrayBuffer(), or file.stream() ->
// DecompressionStream for gzip) and transfers 4 MB chunks here, copied once into the wasm heap.
import createKinetoscope from '../generated/kinetoscope_web.mjs';
import type { KinetoscopeModule, KinetoscopeSession } from '../generated/kinetoscope_web.mjs';
import wasmUrl from '../generated/kinetoscope_web.wasm?url';
import { isGzip } from '../lib/gzip';
import { Throttle } from '../lib/progress';
import type { GpuMetrics, Overview, StepBreakdown } from '../lib/overview';
import type { Summary } from '../lib/summary';
import { ChunkFeeder, InputError, LocalChunks, MAX_CHUNK, RemoteChunks, type ChunkSource } from './feeder';
import { ABORT, toWireError, type LoadProgress, type LoadResult, type Request, type Response } from './protocol';

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
  source: ChunkSource | null;
}
const jobs = new Map<number, Job>();

function post(res: Response): void {
  self.postMessage(res);
}

self.addEventListener('message', (ev: MessageEvent<Request>) => {
  const req = ev.data;
  if (req.kind === 'load') {
    const job: Job = { cancelled: false, source: null };
    jobs.set(req.id, job);
    loadFile(req.id, req.file, job)
      .then(({ summary, overview }) => post({ kind: 'result', id: req.id, summary, overview }))
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
      // Resolves the pending next() with null, so the load loop ends at once.
      job.source?.close();
    }
  }
});

function abortError(): Error {
  const e = new Error('Loading was cancelled.');
  e.name = ABORT;
  return e;
}

/** Chunks of the file from a reader worker of its own, or read here if none can be started. */
function openSource(file: File, gzip: boolean): ChunkSource {
  let worker: Worker;
  try {
    worker = new Worker(new URL('./reader.ts', import.meta.url), { type: 'module' });
  } catch {
    return new LocalChunks(file, gzip, MAX_CHUNK);
  }
  const source = new RemoteChunks(worker, file, gzip, MAX_CHUNK, 3, () => worker.terminate());
  worker.addEventListener('error', (ev) => {
    ev.preventDefault();
    source.fail(new Error(`The file reader stopped: ${ev.message || 'worker error'}`));
  });
  return source;
}

async function loadFile(id: number, file: File, job: Job): Promise<LoadResult> {
  const t0 = performance.now();
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzipped = isGzip(head);
  if (job.cancelled) throw abortError();

  // Start reading before the module is ready (compiled once per worker, streaming): I/O overlaps it.
  const source = openSource(file, gzipped);
  job.source = source;
  let session: KinetoscopeSession | null = null;
  try {
    const mod = await getModule();
    if (job.cancelled) throw abortError();
    session = new mod.Session();
    const feeder = new ChunkFeeder(mod, session);
    const throttle = new Throttle(100);
    let bytesRead = 0;
    const progress = (): LoadProgress => ({
      bytesRead,
      totalBytes: file.size,
      decodedBytes: feeder.fed,
      elapsedMs: performance.now() - t0,
    });
    let inputError: InputError | null = null;
    try {
      for (;;) {
        const chunk = await source.next();
        if (!chunk || job.cancelled) break;
        bytesRead = chunk.bytesRead;
        feeder.feed(chunk.bytes);
        if (feeder.stopped) break; // certainly not a trace: reading on is wasted work
        if (throttle.ready(performance.now())) post({ kind: 'progress', id, progress: progress() });
      }
    } catch (e) {
      // A corrupt or cut-off gzip stream fails here, after every byte decoded before it was fed;
      // keep what was read and report it. Anything else (the reader died) fails the load.
      if (!(e instanceof InputError)) throw e;
      inputError = e;
      bytesRead = e.bytesRead;
    }
    if (job.cancelled) throw abortError();
    source.close();
    post({ kind: 'progress', id, progress: { ...progress(), bytesRead: inputError ? bytesRead : file.size } });

    // A corrupt or cut-off gzip stream: the core records it in health (as the CLI does) and
    // keeps every event decompressed before it.
    if (inputError) session.inputError(gzipped);
    session.finish();
    // The summary is a small JSON object the core writes, not trace bytes.
    const summary = JSON.parse(session.summaryJson()) as Summary;
    summary.file = file.name;
    return { summary, overview: summary.ok ? overviewOf(session) : null };
  } finally {
    source.close();
    session?.delete();
  }
}

/** The overview's inputs: small JSON objects the core writes (steps, GPU metrics). */
function overviewOf(session: KinetoscopeSession): Overview {
  try {
    const steps = JSON.parse(session.stepBreakdownJson(false)) as StepBreakdown;
    const gpus = JSON.parse(session.gpuMetricsJson(false)) as GpuMetrics;
    return { steps, gpus };
  } catch (e) {
    // A trap leaves the module unusable: let it fail the load (and restart the module).
    if (e instanceof WebAssembly.RuntimeError) throw e;
    return { steps: null, gpus: null, error: `The overview could not be computed (${(e as Error)?.message ?? e}).` };
  }
}
