/// <reference lib="webworker" />
// The trace worker: streams each File (or download) into a wasm Session and answers with its
// summary, then keeps the Session (keyed by the load's id) to answer the views' queries until the
// page closes it. Trace bytes never become a JS string (V8 caps strings at ~512 MB and Chromium then
// silently yields ""): a reader worker reads them (slice().arrayBuffer(), or file.stream() ->
// DecompressionStream for gzip; a download's body as it arrives) and transfers 4 MB chunks here,
// copied once into the wasm heap.
import createKinetoscope from '../generated/kinetoscope_web.mjs';
import type { KinetoscopeModule, KinetoscopeSession, KinetoscopeSnapshotSession } from '../generated/kinetoscope_web.mjs';
import wasmUrl from '../generated/kinetoscope_web.wasm?url';
import { isGzip } from '../lib/gzip';
import { readAsSnapshot } from '../lib/pickle';
import { PeekedSource } from './peek';
import { Throttle } from '../lib/progress';
import { answerTransferables, type WireAnswer } from '../lib/answer';
import { CoreError } from '../lib/json-check';
import { kernelDetailParams } from '../lib/kernels';
import { windowParams } from '../lib/memory';
import { transferables } from '../lib/operators';
import { HelperPort, mergeRanges, PIECE_BYTES, PieceSource, planSplits, type MergeTarget } from './split-read';
import { ChunkFeeder, InputError, LocalChunks, MAX_CHUNK, RemoteChunks, type ChunkSource } from './feeder';
import {
  ABORT,
  SESSION_GONE,
  toWireError,
  trapFailure,
  TRAP,
  type LoadAnswers,
  type LoadProgress,
  type Phase,
  type Query,
  type QueryResult,
  type RangeDone,
  type ReaderResponse,
  type ReadInput,
  type ReadWorkers,
  type Request,
  type Response,
  type TestFault,
  type Trimmed,
  type Warmed,
} from './protocol';

declare const self: DedicatedWorkerGlobalScope;

let modulePromise: Promise<KinetoscopeModule> | null = null;
/** The module once loaded: its heap size tells an out-of-memory abort from another. */
let loadedModule: KinetoscopeModule | null = null;
function getModule(): Promise<KinetoscopeModule> {
  if (!modulePromise) {
    const p = createKinetoscope({
      // Point the loader at the .wasm Vite emitted (hashed name), whatever its own default is.
      locateFile: (path, prefix) => (path.endsWith('.wasm') ? wasmUrl : prefix + path),
    });
    modulePromise = p;
    p.then(
      (m) => {
        if (modulePromise !== p) return;
        loadedModule = m;
        m.setHeartbeat?.(heartbeat);
      },
      () => modulePromise === p && (modulePromise = null),
    );
  }
  return modulePromise;
}

interface Job {
  cancelled: boolean;
  /** The page closed the file before its load ended: do not keep its Session. */
  closed: boolean;
  source: ChunkSource | null;
  /** A failure test's fault for this load (docs/contracts.md); never set otherwise. */
  fault?: TestFault;
  /** A file read by several workers, the first's side: one per helper (worker/split-read.ts). */
  helpers?: PieceSource[];
  /** A helper's side of such a read. */
  helperPort?: HelperPort;
}

/**
 * The call the core is computing for right now (its calls are synchronous): each Session's
 * progress reports (setProgress) are posted as this call's progress, a sign of life for the page's
 * watchdog and, for a load, the card's progress through the Overview.
 */
let active: { id: number; base: LoadProgress; job?: Job; session: KinetoscopeSession; phase?: Phase } | null = null;
const beats = new Throttle(500);

/**
 * Reading progress is posted at most this often (the bar's fill steps with each post, styles.css
 * .bar-fill). Each post re-renders the bar, the card and the navigator's row on the page's thread,
 * on the cores the parse needs: every 250 ms instead of 100 drew a 480 MiB trace's Overview
 * ~0.05 s sooner on 2 cores (medians of 12 runs, docs/benchmarks.md).
 */
const PROGRESS_MS = 250;

/**
 * Reading progress posted at most every PROGRESS_MS, and the last one held back posted once that
 * time has passed: a read that stops right after a burst of chunks (a reader that stalls) still
 * tells the page every byte it read, so the page's load watch says where it stopped. `done()`
 * ends it (no late reading progress among the phases).
 */
class ReadProgress {
  private readonly throttle = new Throttle(PROGRESS_MS);
  private timer: ReturnType<typeof setTimeout> | null = null;
  private over = false;
  constructor(private readonly id: number, private readonly now: () => LoadProgress) {}
  tell(): void {
    if (this.over) return;
    if (this.throttle.ready(performance.now())) {
      this.cancel();
      post({ kind: 'progress', id: this.id, progress: this.now() });
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = null;
        if (!this.over) post({ kind: 'progress', id: this.id, progress: this.now() });
      }, PROGRESS_MS);
    }
  }
  /** Posts now (a range read to its end). */
  flush(): void {
    if (this.over) return;
    this.cancel();
    post({ kind: 'progress', id: this.id, progress: this.now() });
  }
  done(): void {
    this.over = true;
    this.cancel();
  }
  private cancel(): void {
    if (this.timer != null) clearTimeout(this.timer);
    this.timer = null;
  }
}

function reportPhase(name: string, index: number, count: number): void {
  const a = active;
  if (!a) return;
  const phase: Phase = { name, index, count };
  a.phase = phase;
  post({ kind: 'progress', id: a.id, progress: { ...a.base, phase } });
  const fault = a.job?.fault;
  if (fault && name === (fault.phase ?? 'operator trees')) {
    a.job!.fault = undefined;
    fireFault(fault, a.session);
  }
}

/** The core's heartbeat from inside a long loop: the running call's progress again (at most 2/s). */
function heartbeat(): void {
  const a = active;
  if (!a || !beats.ready(performance.now())) return;
  post({ kind: 'progress', id: a.id, progress: { ...a.base, ...(a.phase ? { phase: a.phase } : {}) } });
}

/**
 * A failure test's "stall" (phase "reading"): once a chunk came, the load's reader is told to send
 * nothing more and stay alive, as a blob read the browser never completes would (issue 21): this
 * worker then waits for a chunk, answering pings, and only the page's load watch can tell.
 */
function stallOnFault(job: Job): void {
  if (job.fault?.kind !== 'stall') return;
  job.fault = undefined;
  job.source?.debugStall?.();
}

/** Thrown by a "throw" fault: the load ends without an answer and the worker dies of it. */
class TestDeath extends Error {}

function fireFault(fault: TestFault, session: KinetoscopeSession): void {
  switch (fault.kind) {
    case 'oom':
    case 'abort':
      session.debugFault(fault.kind); // throws the RuntimeError the core's own failure would
      break;
    case 'hang':
      // Silence, as a worker the browser stopped or one looping forever: only the watchdog sees it.
      for (;;) {
        /* busy */
      }
    case 'throw':
      throw new TestDeath('Test fault: the analysis worker dies of an uncaught error.');
    case 'stall':
      break; // fired in the reading (stallOnFault), never at a phase
  }
}

/** Runs a synchronous Session call as call `id`, its progress reported as that call's. */
function asCall<T>(id: number, session: KinetoscopeSession, base: LoadProgress, job: Job | undefined, f: () => T): T {
  const outer = active;
  active = { id, base, job, session };
  try {
    return f();
  } finally {
    active = outer;
  }
}

const NO_PROGRESS: LoadProgress = { bytesRead: 0, totalBytes: null, decodedBytes: 0, elapsedMs: 0 };
const jobs = new Map<number, Job>();

/** The Session of each loaded file, by the id of its load call, until the page closes it. */
const sessions = new Map<number, KinetoscopeSession>();
/** The SnapshotSession of each loaded memory snapshot (a pickle), by the id of its load call. */
const snapshots = new Map<number, KinetoscopeSnapshotSession>();

function post(res: Response, transfer: Transferable[] = []): void {
  self.postMessage(res, transfer);
}

function isTrap(e: unknown): boolean {
  return e instanceof WebAssembly.RuntimeError || (e as Error)?.name === TRAP;
}

/**
 * The error answer of call `id`. A trap (out of memory, an abort, any other RuntimeError) says
 * which, so that the page restarts this worker and says what happened; the module is dropped.
 */
function replyError(id: number, e: unknown): void {
  const error = toWireError(e);
  if (isTrap(e)) {
    error.failure = trapFailure(error.message, loadedModule?.HEAPU8.length ?? 0);
    onTrap();
  }
  post({ kind: 'error', id, error });
}

/**
 * A wasm trap (abort, out of memory) leaves the module in an unknown state, and every Session
 * lives in it: forget them all (their memory goes with the module) and start afresh. The page
 * restarts this worker on a trap anyway; this keeps the worker sane until it does.
 */
function onTrap(): void {
  modulePromise = null;
  loadedModule = null;
  sessions.clear();
  snapshots.clear();
}

/** A "throw" fault dies outside any promise: the page's Worker gets an error event. */
function dieOr(id: number, e: unknown): void {
  if (e instanceof TestDeath) {
    setTimeout(() => {
      throw e;
    });
    return;
  }
  replyError(id, e);
}

/** What a load answers, as the `result` message carries it (the page opens the answers: protocol.ts loadOf). */
interface Loaded {
  answers: LoadAnswers;
  file?: File;
  read?: ReadWorkers;
}

/** Runs load `id` and answers it; its Session stays here unless the page closed it meanwhile. */
function startLoad(id: number, input: LoadInput, fault?: TestFault, ranges?: MessagePort[]): void {
  const job: Job = { cancelled: false, closed: false, source: null, ...(fault ? { fault } : {}) };
  if (ranges?.length) job.helpers = ranges.map((p) => new PieceSource(p));
  jobs.set(id, job);
  loadTrace(id, input, job)
    .then(({ result, session, snapshot }) => {
      if (session) {
        if (job.closed) session.delete();
        else sessions.set(id, session);
      }
      if (snapshot) {
        if (job.closed) snapshot.delete();
        else snapshots.set(id, snapshot);
      }
      post({ kind: 'result', id, answers: result.answers, ...(result.file ? { file: result.file } : {}), ...(result.read ? { read: result.read } : {}) });
    })
    .catch((e) => dieOr(id, e))
    .finally(() => {
      for (const h of job.helpers ?? []) h.close();
      jobs.delete(id);
    });
}

/** Runs helper load `id` (a range of a file read by several workers) and answers it. */
function startRange(id: number, file: File, port: MessagePort, fault?: TestFault): void {
  const job: Job = { cancelled: false, closed: false, source: null, helperPort: new HelperPort(port), ...(fault ? { fault } : {}) };
  jobs.set(id, job);
  readRange(id, file, job)
    .then((done) => post({ kind: 'rangeDone', id, done }))
    .catch((e) => {
      // Said on the port at once, so the first worker reads on; a worker that dies says nothing
      // (nor does the test death, which stands for one): the page tells the first worker then.
      if (!(e instanceof TestDeath)) job.helperPort!.fail((e as Error)?.message ?? String(e));
      dieOr(id, e);
    })
    .finally(() => jobs.delete(id));
}

/** How many times a warm-up runs the core over the sample (docs/benchmarks.md, issue 12's fifth session). */
const WARM_RUNS = 3;

/**
 * Readies this worker while the page waits for a file: starts a reader worker for the first
 * load, compiles the module, then runs the core over the sample trace at `sampleUrl` (gzip or
 * not) WARM_RUNS times, through the summary and the whole Overview, and drops it. V8 compiles wasm
 * with a fast baseline compiler first and optimizes a function only once it has run a while, on
 * background threads: a first load paid for that on the cores the parse needs. A load that comes
 * meanwhile goes first, and a cancel stops it: both are checked between runs (one takes ~50-100
 * ms). The sample not fetched (offline before the service worker cached it, say) leaves the
 * module compiled only.
 */
async function warmUp(sampleUrl: string, job: Job): Promise<Warmed> {
  const t0 = performance.now();
  const readerReady = startSpareReader();
  const mod = await getModule();
  let bytes: Uint8Array | null = null;
  try {
    const res = await fetch(sampleUrl);
    if (res.ok) {
      const raw = new Uint8Array(await res.arrayBuffer());
      bytes = isGzip(raw) ? new Uint8Array(await new Response(new Blob([raw]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer()) : raw;
    }
  } catch {
    bytes = null;
  }
  // Stopped by the page (a load started in any worker: this one would take its CPU) or by a load here.
  const wanted = () => !job.cancelled && [...jobs.values()].every((j) => j === job);
  let runs = 0;
  while (bytes && runs < WARM_RUNS && wanted()) {
    const session = new mod.Session();
    try {
      new ChunkFeeder(mod, session).feed(bytes);
      session.finish();
      if (summaryOk(session.query('summary', {}))) {
        session.query('steps', {});
        session.query('gpu_metrics', {});
        session.query('overview', {});
      }
    } finally {
      session.delete();
    }
    runs++;
    await new Promise((r) => setTimeout(r, 0)); // a load sent meanwhile is started before the next run
  }
  await readerReady;
  return { runs, ms: performance.now() - t0 };
}

self.addEventListener('message', (ev: MessageEvent<Request>) => {
  const req = ev.data;
  if (req.kind === 'ping') {
    post({ kind: 'pong', id: req.id });
  } else if (req.kind === 'load') {
    startLoad(req.id, { file: req.file }, req.fault, req.ranges);
  } else if (req.kind === 'loadRange') {
    startRange(req.id, req.file, req.port, req.fault);
  } else if (req.kind === 'rangeLost') {
    jobs.get(req.target)?.helpers?.[req.range]?.lose(req.message);
  } else if (req.kind === 'loadStream') {
    startLoad(req.id, { stream: req.stream, name: req.name, totalBytes: req.totalBytes }, req.fault);
  } else if (req.kind === 'cancel') {
    const job = jobs.get(req.target);
    if (job) {
      job.cancelled = true;
      // Resolves the pending next() with null, so the load loop ends at once.
      job.source?.close();
      // A file read by several workers: its helpers stop (their Sessions are deleted).
      for (const h of job.helpers ?? []) h.close();
      job.helperPort?.stop();
    }
  } else if (req.kind === 'close') {
    const job = jobs.get(req.session);
    if (job) job.closed = true;
    const session = sessions.get(req.session);
    sessions.delete(req.session);
    session?.delete();
    const snapshot = snapshots.get(req.session);
    snapshots.delete(req.session);
    snapshot?.delete();
  } else if (req.kind === 'trim') {
    const job: Job = { cancelled: false, closed: false, source: null };
    jobs.set(req.id, job);
    trimFile(req.id, req.file, req.startUs, req.endUs, job)
      .then((trimmed) => post({ kind: 'trimmed', id: req.id, trimmed }, [trimmed.bytes.buffer as ArrayBuffer, ...answerTransferables(trimmed.report)]))
      .catch((e) => replyError(req.id, e))
      .finally(() => jobs.delete(req.id));
  } else if (req.kind === 'warm') {
    const job: Job = { cancelled: false, closed: false, source: null };
    jobs.set(req.id, job);
    warmUp(req.sample, job)
      .then((warmed) => post({ kind: 'warmed', id: req.id, warmed }))
      .catch((e) => replyError(req.id, e))
      .finally(() => jobs.delete(req.id));
  } else if (req.kind === 'distributed') {
    getModule()
      .then((mod) => {
        const run = mod.reduceDistributed(req.ranks, false);
        if (run.error) throw new CoreError(run.error);
        return run.spans;
      })
      .then((views) => post({ kind: 'distributed', id: req.id, views }, transferables(views)))
      .catch((e) => replyError(req.id, e));
  } else if (req.kind === 'query' && snapshots.has(req.session)) {
    // A memory snapshot answers its views by name only (the snapshot-* views).
    const snapshot = snapshots.get(req.session)!;
    try {
      if (req.query.what === 'pairMemoryTimeline') {
        const error = snapshot.setMemoryTimeline(req.query.name, req.query.text);
        if (error) throw new CoreError(error);
        const meta = JSON.parse(snapshot.query('snapshot-memory-timeline-series', { points: '1' }).meta) as { file: string; samples: number };
        post({ kind: 'answer', id: req.id, result: { what: 'pairMemoryTimeline', file: meta.file, samples: meta.samples } });
        return;
      }
      if (req.query.what !== 'view') throw new CoreError(`A memory snapshot has no ${req.query.what} view.`);
      const a = snapshot.query(req.query.view, req.query.params ?? {});
      if (a.error) throw new CoreError(a.error);
      const result: QueryResult = { what: 'view', answer: a };
      post({ kind: 'answer', id: req.id, result }, transferables(result));
    } catch (e) {
      replyError(req.id, e);
    }
  } else if (req.kind === 'query') {
    const session = sessions.get(req.session);
    if (!session) {
      post({ kind: 'error', id: req.id, error: { name: SESSION_GONE, message: 'This file is no longer loaded in the analysis worker.' } });
      return;
    }
    try {
      const result = asCall(req.id, session, NO_PROGRESS, undefined, () => answer(session, req.query));
      post({ kind: 'answer', id: req.id, result }, transferables(result));
    } catch (e) {
      replyError(req.id, e);
    }
  }
});

/**
 * A view's answer from the core as it is (lib/answer.ts): its column buffers are transferred to
 * the page untouched. A step the trace does not have comes back as the core's sentence (a CoreError).
 * `other`: the second Session of a view of two traces (the Diff view's experiment).
 */
function viewAnswer(session: KinetoscopeSession, view: string, params: Record<string, string>, other?: KinetoscopeSession): WireAnswer {
  const a = other ? session.query(view, params, other) : session.query(view, params);
  if (a.error) throw new CoreError(a.error);
  return a;
}

/**
 * One query against a Session: the core's answers, passed on as they are (no JSON of rows). A
 * step the trace does not have comes back as the core's sentence (a CoreError).
 */
function answer(session: KinetoscopeSession, q: Query): QueryResult {
  const step = ('step' in q ? q.step : undefined) ?? '';
  switch (q.what) {
    case 'view':
      return { what: 'view', answer: viewAnswer(session, q.view, q.params ?? {}) };
    case 'operators':
      return { what: 'operators', answer: viewAnswer(session, 'operators', { group_by: q.groupBy, step, peak: q.peak ?? '' }) };
    case 'operatorDetail': {
      const p = { group_by: q.groupBy, name: q.name, input_shape: q.inputShape, step };
      return { what: 'operatorDetail', stacks: viewAnswer(session, 'operator_detail', p), kernels: viewAnswer(session, 'operator_kernels', p) };
    }
    case 'kernels':
      return { what: 'kernels', answer: viewAnswer(session, 'kernels', { group_by: q.groupBy, step, peak: q.peak ?? '' }) };
    case 'kernelDetail': {
      // Three views of one computation, which the Session keeps for the second and third.
      const p = kernelDetailParams(q, step);
      return {
        what: 'kernelDetail',
        stacks: viewAnswer(session, 'kernel_detail', p),
        operators: viewAnswer(session, 'kernel_operators', p),
        launches: viewAnswer(session, 'kernel_launches', p),
      };
    }
    // The Module view is over the whole trace (as tb_plugin's): `step` does not apply.
    case 'modulePresence':
      return { what: 'modulePresence', answer: viewAnswer(session, 'module_presence', {}) };
    case 'modules':
      return { what: 'modules', modules: viewAnswer(session, 'modules', { table: 'modules' }), lightning: viewAnswer(session, 'modules', { table: 'lightning' }) };
    case 'moduleTree':
      return { what: 'moduleTree', answer: viewAnswer(session, 'module_tree', { tid: q.tid }) };
    // The Ranges view is over the whole trace (as the Module view): `step` does not apply.
    case 'ranges':
      return { what: 'ranges', answer: viewAnswer(session, 'ranges', {}) };
    case 'rangeKernels':
      return { what: 'rangeKernels', answer: viewAnswer(session, 'range_kernels', { key: q.key }) };
    case 'distributedRank':
      return { what: 'distributedRank', summary: session.queryBytes('distributed_rank', { worker: q.worker, span: q.span }) };
    case 'memoryDevices':
      return { what: 'memoryDevices', answer: viewAnswer(session, 'memory_devices', windowParams(q.fromUs, q.toUs)) };
    case 'gpuSummary':
      return { what: 'gpuSummary', answer: viewAnswer(session, 'gpu_summary', step ? { step } : {}) };
    case 'flops':
      return { what: 'flops', answer: viewAnswer(session, 'flops', { ...(step ? { step } : {}), ...(q.peak ? { peak: q.peak } : {}) }) };
    case 'memory': {
      const p = { device: q.device, ...windowParams(q.fromUs, q.toUs) };
      return { what: 'memory', stats: viewAnswer(session, 'memory_stats', p), events: viewAnswer(session, 'memory_events', p) };
    }
    case 'memoryCurve':
      return { what: 'memoryCurve', answer: viewAnswer(session, 'memory_curve', { device: q.device, ...windowParams(q.fromUs, q.toUs), columns: String(q.columns) }) };
    case 'memoryAlive':
      return { what: 'memoryAlive', answer: viewAnswer(session, 'memory_alive', { device: q.device, at_us: String(q.atUs), limit: String(q.limit) }) };
    // Two traces' operator trees, whole (as tb_plugin's Diff view): `step` does not apply.
    case 'diff': {
      const experiment = sessions.get(q.experiment);
      if (!experiment) throw Object.assign(new Error('The experiment trace is no longer loaded in the analysis worker.'), { name: SESSION_GONE });
      // Two views of one comparison, which the baseline's Session keeps for the second.
      const p = { baseline: q.baselineName, experiment: q.experimentName };
      return { what: 'diff', tree: viewAnswer(session, 'diff', p, experiment), operators: viewAnswer(session, 'diff_operators', p, experiment) };
    }
    case 'pairMemoryTimeline':
      throw new CoreError('An export_memory_timeline file pairs with a memory snapshot, not with a trace.');
  }
}

function abortError(): Error {
  const e = new Error('Loading was cancelled.');
  e.name = ABORT;
  return e;
}

/** Chunks of the input from a reader worker of its own, or read here if none can be started. */
function openSource(input: ReadInput): ChunkSource {
  let worker: Worker;
  try {
    worker = spareReader ?? newReader();
    spareReader = null;
  } catch {
    return new LocalChunks(input, MAX_CHUNK);
  }
  // Closing ends the reader. A File's reader is simply terminated. A download's reader is first
  // told to cancel the stream (so its request ends: the page aborts its fetch as well) and ends
  // itself then; terminated later in case it does not.
  const end = () => worker.terminate();
  const source = new RemoteChunks(worker, input, MAX_CHUNK, 3, () => ('stream' in input ? setTimeout(end, 10_000) : end()));
  worker.addEventListener('error', (ev) => {
    ev.preventDefault();
    source.fail(new Error(`The file reader stopped: ${ev.message || 'worker error'}`));
  });
  return source;
}

function newReader(): Worker {
  return new Worker(new URL('./reader.ts', import.meta.url), { type: 'module' });
}

/**
 * A reader worker started by the warm-up, for the next load: its first chunk then does not wait
 * for a worker to start (~30 ms). Forgotten if it fails to start. The promise settles once its
 * script runs (its 'ready'), fails, or READER_READY_MS have passed: a warm-up is done only then,
 * so a page that is left once warm does not abort the script's request (a test counts that as a
 * request that failed; a user loses nothing). The cap is only for a script that neither runs nor
 * fails: generous, since on a loaded machine a module worker's start took more than 5 s (the
 * warm-up's reply waits for it; nothing else does).
 */
let spareReader: Worker | null = null;
const READER_READY_MS = 60_000;

function startSpareReader(): Promise<void> {
  if (spareReader) return Promise.resolve();
  try {
    const w = newReader();
    spareReader = w;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, READER_READY_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      w.addEventListener('message', (ev: MessageEvent<ReaderResponse>) => ev.data?.kind === 'ready' && done());
      w.addEventListener('error', () => {
        if (spareReader === w) spareReader = null;
        done();
      });
    });
  } catch {
    // No reader workers here: each load reads in this worker (LocalChunks).
    return Promise.resolve();
  }
}

/** A dropped or picked File, or a download's body (gzip or not: its first bytes tell). */
type LoadInput = { file: File } | { stream: ReadableStream<Uint8Array>; name: string; totalBytes: number | null };

/**
 * Feeds `source` into `feeder` until it ends, the Session fails or stops at a split, or the job is
 * cancelled. A corrupt or cut-off gzip stream, or a download that broke off, fails after every
 * byte decoded before it was fed: that InputError is returned (keep what was read); anything else
 * (the reader died) is thrown. `onChunk` gets the source's bytes read so far.
 */
async function feedAll(source: ChunkSource, feeder: ChunkFeeder, job: Job, onChunk: (bytesRead: number) => void): Promise<InputError | null> {
  try {
    for (;;) {
      const chunk = await source.next();
      if (!chunk || job.cancelled) break;
      onChunk(chunk.bytesRead);
      feeder.feed(chunk.bytes);
      if (feeder.stopped) break; // not a trace (reading on is wasted work), or at a split
    }
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    onChunk(e.bytesRead);
    return e;
  }
  return null;
}

/**
 * The load's answer, and its Session when the input is a trace (the caller keeps or frees it).
 * A download's answer also holds its bytes as received, as a File: the page has no other copy.
 * With helpers (job.helpers: a big plain File read by several workers) this worker reads the
 * start of the file and merges the helpers' ranges (worker/split-read.ts), reading on itself where a
 * range is refused or its helper lost, and the whole file again if a helper was lost part-way.
 */
async function loadTrace(
  id: number,
  input: LoadInput,
  job: Job,
): Promise<{ result: Loaded; session: KinetoscopeSession | null; snapshot?: KinetoscopeSnapshotSession }> {
  const t0 = performance.now();
  const isFile = 'file' in input;
  const name = isFile ? input.file.name : input.name;
  const totalBytes = isFile ? input.file.size : input.totalBytes;
  let read: ReadInput;
  if (isFile) {
    const head = new Uint8Array(await input.file.slice(0, 2).arrayBuffer());
    read = { file: input.file, gzip: isGzip(head) };
  } else {
    read = { stream: input.stream, name };
  }
  if (job.cancelled) throw abortError();

  // Start reading before the module is ready (compiled once per worker, streaming): I/O overlaps it.
  let source = openSource(read);
  job.source = source;
  let session: KinetoscopeSession | null = null;
  const helpers = job.helpers ?? [];
  try {
    const mod = await getModule();
    if (job.cancelled) throw abortError();
    // A memory snapshot (a pickle, gunzipped or not, whatever its name) is read by a
    // SnapshotSession instead; its first bytes tell.
    const peeked = new PeekedSource(source);
    source = peeked;
    job.source = peeked;
    if (readAsSnapshot(await peeked.head(), name)) {
      for (const h of helpers) {
        h.assign({ kind: 'none' });
        h.close();
      }
      return await loadSnapshot(id, mod, peeked, job, name, isFile && 'gzip' in read && !read.gzip ? totalBytes : null, !isFile, t0, totalBytes);
    }
    if (job.cancelled) throw abortError();
    // Split only a plain File (a gzip stream cannot be entered part-way); the helpers without a
    // range end at once.
    const { splits, root } = helpers.length && isFile && 'gzip' in read && !read.gzip ? await planSplits(mod, input.file, helpers.length + 1) : { splits: [], root: -1 };
    helpers.forEach((h, j) => h.assign(j < splits.length ? { kind: 'range', start: splits[j], stopAt: splits.slice(j + 1), root: root === 1 } : { kind: 'none' }));
    for (const h of helpers.slice(splits.length)) h.close();
    if (job.cancelled) throw abortError();
    session = new mod.Session();
    if (splits.length) session.stopAt(splits);
    let feeder = new ChunkFeeder(mod, session);
    // Bytes this worker read (all its sources) and fed, for the progress bar.
    let bytesRead = 0, readBefore = 0, fedBefore = 0;
    // Helpers' pieces merged: posted as progress, so the page's load watch sees the merge move.
    let pieces = 0;
    const progress = (): LoadProgress => ({
      bytesRead,
      totalBytes,
      decodedBytes: fedBefore + feeder.fed,
      elapsedMs: performance.now() - t0,
      ...(pieces ? { pieces } : {}),
    });
    const told = new ReadProgress(id, progress);
    const onChunk = (n: number) => {
      bytesRead = readBefore + n;
      stallOnFault(job);
      told.tell();
    };
    // Reads the file from `from` with a reader of its own (into `feeder`'s Session).
    const readFrom = async (from: number) => {
      source.close();
      readBefore = bytesRead;
      fedBefore += feeder.fed;
      feeder = new ChunkFeeder(mod, session!);
      source = openSource({ file: (input as { file: File }).file.slice(from), gzip: false });
      job.source = source;
      const e = await feedAll(source, feeder, job, onChunk);
      if (e) throw e; // a plain File that cannot be read part-way: as a reader that died
    };
    const inputError = await feedAll(source, feeder, job, onChunk);
    if (job.cancelled) throw abortError();
    told.flush(); // its own range read: every byte of it counted while the helpers' come
    let ranges: ReadWorkers | undefined;
    if (splits.length) {
      const s = session;
      const target: MergeTarget = {
        stopped: () => s.stopped(),
        coveredEnd: () => s.coveredEnd(),
        readOn: () => s.readOn(),
        merge: (piece) => {
          const off = s.mergePrepare(piece.length);
          mod.HEAPU8.set(piece, off); // after mergePrepare: memory may have grown
          const state = s.mergeCommit(piece.length);
          pieces++;
          told.tell();
          return state;
        },
        rangeMerge: (at) => new mod.RangeMerge(at),
      };
      const outcome = inputError ? null : await mergeRanges(target, splits, helpers.slice(0, splits.length), readFrom, () => {
        if (job.cancelled) throw abortError();
      });
      if (outcome?.broken) {
        // A helper lost part-way through its pieces left a half-merged model: read it all here.
        session.delete();
        session = new mod.Session();
        await readFrom(0);
        if (job.cancelled) throw abortError();
      }
      ranges = { workers: 1 + splits.length, merged: outcome?.merged ?? 0, readOn: outcome?.readOn ?? 0, again: !!outcome?.broken, reason: outcome?.reason ?? (inputError ? inputError.message : null) };
    }
    // A download's bytes, known once its end (or failure) came; none if reading stopped early.
    const downloaded = source.kept();
    source.close();
    const readAll = inputError || !isFile ? bytesRead : input.file.size;
    told.done();
    post({ kind: 'progress', id, progress: { ...progress(), bytesRead: readAll } });

    // The input failed part-way: the core records it in health (gzip-error or read-error, as the
    // CLI does) and keeps every event decoded before it.
    if (inputError) session.inputError(inputError.gzip);
    // From here the core computes without a break (no chunk to wait for, so no pong): it reports
    // each part it builds, posted as this load's progress (setProgress was absent before issue 12).
    const base = { ...progress(), bytesRead: readAll };
    const s = session;
    s.setProgress?.(reportPhase);
    const computed = asCall(id, s, base, job, () => {
      reportPhase('linking events', 0, 0);
      s.finish();
      // The summary view's answer (the page opens it: protocol.ts loadOf), named as the file.
      const summary = s.query('summary', { file: name });
      const ok = summaryOk(summary);
      // The overview takes a while on a big trace: the summary goes ahead so the card shows it,
      // then the steps and GPU metrics (a few hundred ms) ahead of the operator trees and the
      // recommendations (most of the Overview's time, and its memory on a big trace).
      if (ok) post({ kind: 'summary', id, answers: { summary } });
      const early = (answers: LoadAnswers) => post({ kind: 'summary', id, answers });
      return { ok, answers: ok ? overviewOf(s, summary, early) : { summary } };
    });
    const result: Loaded = { answers: computed.answers, ...(downloaded ? { file: downloaded } : {}), ...(ranges ? { read: ranges } : {}) };
    if (!computed.ok) return { result, session: null };
    const kept = session;
    session = null; // handed over: not freed below
    return { result, session: kept };
  } finally {
    source.close();
    session?.delete();
  }
}

/**
 * Reads a memory snapshot (core/session/snapshot_session.h) from `source` into a SnapshotSession,
 * with the load's progress, and answers its snapshot-summary view. A pickle the core refused or
 * could not read at all answers ok: false with the reader's sentence (and no Session is kept); a
 * cut-off one loads what was read, its sentence in the health table. `plainBytes`: the file's
 * size when it is read as it is (the reader refuses a string longer than what is left).
 */
async function loadSnapshot(
  id: number,
  mod: KinetoscopeModule,
  source: ChunkSource,
  job: Job,
  name: string,
  plainBytes: number | null,
  download: boolean,
  t0: number,
  totalBytes: number | null,
): Promise<{ result: Loaded; session: null; snapshot?: KinetoscopeSnapshotSession }> {
  let snap: KinetoscopeSnapshotSession | null = new mod.SnapshotSession();
  try {
    snap.setFile(name);
    if (plainBytes != null) snap.setTotalSize(plainBytes);
    const feeder = new ChunkFeeder(mod, snap);
    let bytesRead = 0;
    const progress = (): LoadProgress => ({ bytesRead, totalBytes, decodedBytes: feeder.fed, elapsedMs: performance.now() - t0 });
    const told = new ReadProgress(id, progress);
    const inputError = await feedAll(source, feeder, job, (n) => {
      bytesRead = n;
      stallOnFault(job);
      told.tell();
    });
    if (job.cancelled) throw abortError();
    told.done();
    const downloaded = download ? source.kept() : null;
    source.close();
    post({ kind: 'progress', id, progress: progress() });
    if (inputError) snap.inputError(inputError.gzip);
    const s = snap;
    s.finish();
    const snapshot = s.query('snapshot-summary', {});
    const result: Loaded = { answers: { snapshot }, ...(downloaded ? { file: downloaded } : {}) };
    if (s.failed()) return { result, session: null };
    snap = null; // handed over: not freed below
    return { result, session: null, snapshot: s };
  } finally {
    snap?.delete();
  }
}

/**
 * A helper's range of a file read by several workers (worker/split-read.ts): waits for the range the
 * first worker assigns, reads it (its own reader worker on File.slice(start)) into a partial
 * Session that stops at the next split, then sends it as pieces, as fast as the first worker
 * merges them, and deletes it. A failure test's helper fault fires once the range is read, or with
 * phase "pieces" once the first piece was sent.
 */
async function readRange(id: number, file: File, job: Job): Promise<RangeDone> {
  const t0 = performance.now();
  const port = job.helperPort!;
  // Compile the module while the first worker plans the splits.
  const modP = getModule();
  const range = await port.assigned();
  if (job.cancelled) throw abortError();
  if (!range) return { sent: 0, all: false, bytesRead: 0 };
  const mod = await modP;
  if (job.cancelled) throw abortError();
  const source = openSource({ file: file.slice(range.start), gzip: false });
  job.source = source;
  const session = new mod.Session();
  try {
    session.startAt(range.start, range.root);
    session.stopAt(range.stopAt);
    const feeder = new ChunkFeeder(mod, session);
    let bytesRead = 0;
    const progress = (): LoadProgress => ({ bytesRead, totalBytes: file.size, decodedBytes: feeder.fed, elapsedMs: performance.now() - t0 });
    const told = new ReadProgress(id, progress);
    const inputError = await feedAll(source, feeder, job, (n) => {
      bytesRead = n;
      // A helper's fault with phase "reading" fires at its first chunk, mid-range.
      if (job.fault?.kind === 'stall') stallOnFault(job);
      else if (job.fault?.phase === 'reading') {
        const f = job.fault;
        job.fault = undefined;
        asCall(id, session, progress(), job, () => fireFault(f, session));
      }
      told.tell();
    });
    told.done();
    source.close();
    if (job.cancelled) throw abortError();
    // A plain File that cannot be read part-way: the first worker reads this range itself.
    if (inputError) throw inputError;
    post({ kind: 'progress', id, progress: progress() });
    session.finish();
    const fault = job.fault;
    const fire = () => {
      job.fault = undefined;
      asCall(id, session, progress(), job, () => fireFault(fault!, session));
    };
    const partWay = fault?.phase === 'pieces';
    if (fault && !partWay) fire();
    const pieceBytes = fault?.pieceBytes ?? PIECE_BYTES;
    let pieces = 0;
    const { sent, all } = await port.servePieces(() => {
      if (partWay && pieces++ === 1) fire();
      return session.nextPiece(pieceBytes);
    });
    if (job.cancelled) throw abortError();
    return { sent, all, bytesRead };
  } finally {
    source.close();
    session.delete();
  }
}

/**
 * The events of `file` overlapping [startUs, endUs], written by the core as a trace of its own
 * (for the Timeline view: Perfetto struggles with JSON traces over ~1 GB). The file is read again
 * through the same reader (gunzip included) rather than kept: the Session holds columns, not the
 * bytes, and keeping multi-GB bytes around for a view nobody may open is not worth it.
 */
async function trimFile(id: number, file: File, startUs: number, endUs: number, job: Job): Promise<Trimmed> {
  const t0 = performance.now();
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzipped = isGzip(head);
  const mod = await getModule();
  if (!mod.Trimmer) throw new Error('This build of the analysis core cannot cut a time window out of a trace yet.');
  if (job.cancelled) throw abortError();
  const source = openSource({ file, gzip: gzipped });
  job.source = source;
  const trimmer = new mod.Trimmer(startUs, endUs);
  try {
    const feeder = new ChunkFeeder(mod, trimmer);
    const throttle = new Throttle(PROGRESS_MS);
    const inputError = await feedAll(source, feeder, job, (bytesRead) => {
      if (throttle.ready(performance.now())) {
        post({ kind: 'progress', id, progress: { bytesRead, totalBytes: file.size, decodedBytes: feeder.fed, elapsedMs: performance.now() - t0 } });
      }
    });
    // A corrupt or cut-off gzip: keep the events decoded before it, as the load does.
    if (inputError) trimmer.inputError(inputError.gzip);
    if (job.cancelled) throw abortError();
    trimmer.finish();
    const err = trimmer.error();
    if (err) throw new Error(err);
    const out = trimmer.output();
    // output() is a copy; make sure its buffer is exactly its bytes so it can be transferred.
    const bytes = out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out : out.slice();
    // The bytes are a trace, not a table; what was kept and dropped is the trim view's answer.
    return { bytes, report: trimmer.report() };
  } finally {
    source.close();
    trimmer.delete();
  }
}

/** The summary view's answer says the file is a trace (its small metadata's `ok`). */
function summaryOk(a: WireAnswer): boolean {
  return !a.error && (JSON.parse(a.meta) as { ok?: boolean }).ok === true;
}

/**
 * The overview's answers (steps, GPU metrics, then the overview's recommendations), as the core
 * gives them. `early` gets the steps and GPU metrics before the rest is computed.
 */
function overviewOf(session: KinetoscopeSession, summary: WireAnswer, early?: (a: LoadAnswers) => void): LoadAnswers {
  let steps: WireAnswer;
  let gpus: WireAnswer;
  try {
    steps = viewAnswer(session, 'steps', {});
    gpus = viewAnswer(session, 'gpu_metrics', {});
  } catch (e) {
    // A trap leaves the module unusable: let it fail the load (and restart the module).
    if (isTrap(e) || e instanceof TestDeath) throw e;
    return { summary, overviewError: `The overview could not be computed (${(e as Error)?.message ?? e}).` };
  }
  early?.({ summary, steps, gpus });
  try {
    return { summary, steps, gpus, overview: viewAnswer(session, 'overview', {}) };
  } catch (e) {
    if (isTrap(e) || e instanceof TestDeath) throw e;
    return { summary, steps, gpus, overviewError: `The recommendations could not be computed (${(e as Error)?.message ?? e}).` };
  }
}
