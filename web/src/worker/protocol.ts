// The one typed message protocol between the page and the trace worker.
// Every request carries an id; every response names the id it answers. A call is a promise that
// settles on the `result` or `error` response of its id; `progress` responses stream in between.
// Errors cross as plain {name, message}: Error objects do not survive structured clone everywhere.
//
// A loaded file's wasm Session stays in the worker, keyed by the id of its load call, so the views
// can ask it for more (`query`) until the page sends `close`. Query answers are columns (typed
// arrays, transferred) and small objects, already checked against the shapes the views expect.
import type { DistributedAnswers } from '../lib/distributed';
import { openAnswer, type WireAnswer } from '../lib/answer';
import type { ViewName } from '../generated/views';
import type { KernelGroupBy } from '../lib/kernels';
import type { OpGroupBy } from '../lib/operators';
import { gpuMetricsOf, overviewInfoOf, stepBreakdownOf, type Overview } from '../lib/overview';
import { summaryOf, type Summary } from '../lib/summary';
import { snapshotOf, snapshotSummary, type SnapshotInfo } from '../lib/snapshot';
import { Watchdog, type WatchdogOptions } from './watchdog';

export interface LoadProgress {
  bytesRead: number; // compressed bytes read from the file (or downloaded)
  totalBytes: number | null; // file.size, or a download's Content-Length (null: not sent)
  decodedBytes: number; // JSON bytes fed to the core
  elapsedMs: number;
  /** Once the file is read: the part being computed (absent while reading). */
  phase?: Phase;
  /** A file read by several workers: the helpers' pieces merged so far (a sign the merge moves). */
  pieces?: number;
}

/**
 * A part of the analysis the core computes after reading (wasm Session.setProgress): the
 * Overview's parts as `index` of `count` ("operator trees", 4 of 5), parts only other views need
 * ("module trees") with index and count 0.
 */
export interface Phase {
  name: string;
  index: number;
  count: number;
}

/**
 * How a worker failed beyond one call (issue 12): the wasm module ran out of memory ("oom"),
 * aborted ("abort", Emscripten's Aborted()) or trapped ("trap", any other WebAssembly
 * RuntimeError), so it and every Session in it are gone; or the worker itself died ("died": an
 * error event, or a message that could not be read) or stopped answering ("stalled": the
 * watchdog). worker/failure.ts says each in a sentence.
 */
export type Failure = 'oom' | 'abort' | 'trap' | 'died' | 'stalled' | 'read-stall';

export interface WireError {
  name: string;
  message: string;
  /** Set when the worker (or its module) is gone, not just this call. */
  failure?: Failure;
  /** What the call was doing then: a Phase name, "reading" or "query". */
  phase?: string;
}

/**
 * Test hooks of the failure paths (docs/contracts.md, "Failure paths and their test hooks"): the
 * worker makes the load fail this way when the core reaches `phase` (an Overview phase name,
 * "operator trees" when absent). "oom" and "abort" run in the wasm core (Session.debugFault);
 * "hang" stops answering (a busy loop), "throw" kills the worker with an uncaught error. The page
 * sends one only when it was opened for a failure test.
 */
export interface TestFault {
  /** "stall" (phase "reading" only): the reader stops sending after its first chunk and stays silent. */
  kind: 'oom' | 'abort' | 'hang' | 'throw' | 'stall';
  phase?: string;
  /**
   * "helper": the fault is for the first helper worker of a file read by several (worker/split-read.ts),
   * fired once it has read its range, before it sends its pieces; with `phase` "pieces", once it
   * has sent its first piece (lost part-way: the first worker holds a half-merged model).
   */
  target?: 'helper';
  /** A helper's pieces cut at this many bytes instead of PIECE_BYTES (so a small file has several). */
  pieceBytes?: number;
}

/**
 * What a view can ask a loaded file's Session. `step`: the name of the step whose work to count
 * (as the steps list it); absent: all steps. Details name a row of the table they belong to.
 */
export type Query =
  /**
   * Any view on the answer path, by its name and parameters (generated/views.ts): the core's
   * answer as it is (lib/answer.ts openAnswer; components/use-answer.ts). A new view needs no
   * query kind of its own.
   */
  | { what: 'view'; view: ViewName; params?: Record<string, string> }
  | { what: 'operators'; groupBy: OpGroupBy; step?: string; peak?: string }
  | { what: 'operatorDetail'; groupBy: OpGroupBy; name: string; inputShape: string; step?: string }
  | { what: 'kernels'; groupBy: KernelGroupBy; step?: string; peak?: string }
  | {
      what: 'kernelDetail';
      groupBy: KernelGroupBy;
      name: string;
      /** "props" rows: the launching operator and [grid x, y, z, block x, y, z, registers, shared memory]. */
      operator: string;
      props: number[];
      step?: string;
    }
  /** Whether the trace has nn.Module frames or Lightning modules (the Module tab is shown then). */
  | { what: 'modulePresence'; step?: string }
  /** The Module view's tables (nn.Module and Lightning), as `kinetoscope modules --json`. */
  | { what: 'modules'; step?: string }
  /** One thread's tree for the flame graph and the operator tree ("" : the main thread). */
  | { what: 'moduleTree'; tid: string; step?: string }
  /** The Ranges view: the user's record_function ranges as a tree (columns; lib/ranges.ts). */
  | { what: 'ranges'; step?: string }
  /** The kernels launched in one Ranges row, by its key. */
  | { what: 'rangeKernels'; key: string; step?: string }
  /**
   * This trace's part of its run's Distributed view (the map step): its rank summary, the core's
   * answer in binary form (its buffer transferred) for `distributed` requests. `worker` and `span` name it in the run (`span`: "default" or 1..n).
   */
  | { what: 'distributedRank'; worker: string; span: string }
  /**
   * Memory view (lib/memory.ts): `device` a label ("GPU0"); `fromUs`/`toUs` the window in µs from
   * the time origin (absent: open); `columns` the pixel columns the curve is drawn over.
   */
  | { what: 'memoryDevices'; fromUs?: number; toUs?: number; step?: string }
  /** The Overview's GPU summary of `step` (absent: all steps), as `kinetoscope gpus --step N --json`. */
  | { what: 'gpuSummary'; step?: string }
  /** FLOPs, TFLOP/s and MFU per step, from the operators' shapes (the flops view, docs/flops.md). */
  | { what: 'flops'; step?: string; peak?: string }
  | { what: 'memory'; device: string; fromUs?: number; toUs?: number; step?: string }
  | { what: 'memoryCurve'; device: string; fromUs?: number; toUs?: number; columns: number; step?: string }
  | { what: 'memoryAlive'; device: string; atUs: number; limit: number; step?: string }
  /**
   * The Diff view with this query's Session as the baseline and load call `experiment`'s Session
   * (of the same worker) as the experiment; the names label the two in the answer.
   */
  | { what: 'diff'; experiment: number; baselineName: string; experimentName: string; step?: string }
  /**
   * A memory snapshot's only query besides its views: pairs the same run's export_memory_timeline
   * (its JSON text, gunzipped; `name` its file) with the snapshot, whose snapshot-memory-timeline
   * views then answer from it (core SnapshotSession::set_memory_timeline).
   */
  | { what: 'pairMemoryTimeline'; name: string; text: string };

export type QueryResult =
  | { what: 'view'; answer: WireAnswer }
  /** The core's answer as it is (lib/answer.ts openAnswer; lib/operators.ts operatorTable). */
  | { what: 'operators'; answer: WireAnswer }
  /** A row's detail: the answers of operator_detail and operator_kernels (lib/operators.ts operatorDetail). */
  | { what: 'operatorDetail'; stacks: WireAnswer; kernels: WireAnswer }
  | { what: 'kernels'; answer: WireAnswer }
  /** A row's detail: kernel_detail, kernel_operators and kernel_launches (lib/kernels.ts kernelDetail). */
  | { what: 'kernelDetail'; stacks: WireAnswer; operators: WireAnswer; launches: WireAnswer }
  | { what: 'modulePresence'; answer: WireAnswer }
  /** The modules view's two tables: table modules and table lightning (lib/modules.ts modulesOf). */
  | { what: 'modules'; modules: WireAnswer; lightning: WireAnswer }
  | { what: 'moduleTree'; answer: WireAnswer }
  | { what: 'ranges'; answer: WireAnswer }
  | { what: 'rangeKernels'; answer: WireAnswer }
  | { what: 'distributedRank'; summary: Uint8Array }
  | { what: 'memoryDevices'; answer: WireAnswer }
  /** The gpu_summary view's answer as it is (lib/overview.ts gpuSummaryOf). */
  | { what: 'gpuSummary'; answer: WireAnswer }
  /** The flops view's answer as it is (the Overview's FLOPs card reads its metadata). */
  | { what: 'flops'; answer: WireAnswer }
  /** The memory_stats and memory_events answers of one window (both tables show it). */
  | { what: 'memory'; stats: WireAnswer; events: WireAnswer }
  | { what: 'memoryCurve'; answer: WireAnswer }
  | { what: 'memoryAlive'; answer: WireAnswer }
  /** The comparison's two answers, diff and diff_operators (lib/diff.ts openDiff). */
  | { what: 'diff'; tree: WireAnswer; operators: WireAnswer }
  /** The file paired and its samples (the snapshot-memory-timeline-series answer's metadata). */
  | { what: 'pairMemoryTimeline'; file: string; samples: number };

export type QueryWhat = Query['what'];
export type QueryOf<W extends QueryWhat> = Extract<Query, { what: W }>;
export type ResultOf<W extends QueryWhat> = Extract<QueryResult, { what: W }>;

export type Request =
  /**
   * `ranges`: a big plain file read by several workers (worker/split-read.ts): one port per helper
   * worker (transferred), this worker reading the start and merging the helpers' ranges.
   */
  | { kind: 'load'; id: number; file: File; fault?: TestFault; ranges?: MessagePort[] }
  /**
   * A helper's part of such a read: the range the first worker sends on `port`, read from `file`,
   * its partial model then sent as pieces on the port; answered by `rangeDone`.
   */
  | { kind: 'loadRange'; id: number; file: File; port: MessagePort; fault?: TestFault }
  /** Helper `range` (index into the load's `ranges`) of load `target` failed: read its range yourself. */
  | { kind: 'rangeLost'; id: number; target: number; range: number; message: string }
  /**
   * A download's body, transferred as it arrives (the page fetched it: its CSP checks that
   * request). Parsed like a file; gzip is told by its first bytes. `totalBytes`: Content-Length.
   */
  | { kind: 'loadStream'; id: number; stream: ReadableStream<Uint8Array>; name: string; totalBytes: number | null; fault?: TestFault }
  /** Are you there? Answered by a `pong` as soon as the worker's event loop is free (the watchdog). */
  | { kind: 'ping'; id: number }
  | { kind: 'cancel'; id: number; target: number }
  /** `session` is the id of the load call that made it. */
  | { kind: 'query'; id: number; session: number; query: Query }
  | { kind: 'close'; id: number; session: number }
  /** Reads `file` again (gunzipped) into a core Trimmer: the events overlapping [startUs, endUs]. */
  | { kind: 'trim'; id: number; file: File; startUs: number; endUs: number }
  /** The reduce step of a run's Distributed view: rank summaries (from `distributedRank`) in, the view out. */
  | { kind: 'distributed'; id: number; ranks: Uint8Array[] }
  /**
   * While the page waits for a file: compile the module, then run the core over the trace at
   * `sample` (the bundled sample) a few times and drop it, so the engine has optimized the core's
   * code before a real trace comes. Answered by `warmed` (also when stopped early): a load that
   * comes meanwhile goes first, and a `cancel` of this call (the page sends one to every worker
   * when any load starts) stops it after its current run.
   */
  | { kind: 'warm'; id: number; sample: string };

export type Response =
  | { kind: 'progress'; id: number; progress: LoadProgress }
  /** The answer to a ping: the worker is alive (any message counts as much). */
  | { kind: 'pong'; id: number }
  /** `file`: for a loadStream, the bytes as received (gzip kept), to be used as a dropped File. */
  | { kind: 'result'; id: number; answers: LoadAnswers; file?: File; read?: ReadWorkers }
  | { kind: 'answer'; id: number; result: QueryResult }
  /** A valid trace JSON (its buffer transferred) holding the window, and its event counts. */
  | { kind: 'trimmed'; id: number; trimmed: Trimmed }
  /** Per span of the run, its answers (their buffers transferred; lib/distributed.ts openDistributed). */
  | { kind: 'distributed'; id: number; views: DistributedAnswers[] }
  | { kind: 'warmed'; id: number; warmed: Warmed }
  | { kind: 'error'; id: number; error: WireError }
  /** A helper's range read and its pieces sent (`all`), or not wanted; its Session is deleted. */
  | { kind: 'rangeDone'; id: number; done: RangeDone }
  /**
   * A load's summary, sent as soon as the file is read, before the overview is computed (1-2 s
   * on a 1 GiB trace): the card shows it meanwhile. Sent again with the steps and GPU metrics once
   * they are computed (the overview's answer still absent: the operator trees and recommendations
   * follow), so the card draws them meanwhile. The `result` repeats them all.
   */
  | { kind: 'summary'; id: number; answers: LoadAnswers };

// Between the trace worker and its reader worker, which reads the file (and gunzips it) on its
// own thread so that file I/O and decompression overlap parsing. Chunks are ArrayBuffers moved
// (transferred, not copied) to the trace worker; the reader runs at most `credit` chunks ahead and
// each `more` grants another. The bytes stay bytes.
//
// A download's body is moved on to the reader the same way (a ReadableStream is transferable). The
// reader keeps its bytes as received and hands them back at the end as `kept`, a File: the page
// has no other copy, and the Timeline needs the file.
export type ReadInput =
  | { file: Blob; gzip: boolean }
  | { stream: ReadableStream<Uint8Array>; name: string };

export type ReaderRequest =
  | { kind: 'start'; input: ReadInput; chunkBytes: number; credit: number }
  | { kind: 'more'; n: number }
  /** A chunk's buffer, fed and free again: the reader reads into it rather than a new one. */
  | { kind: 'recycle'; buffer: ArrayBuffer }
  /** The trace worker needs no more: a download is cancelled (its request ends), then the reader stops. */
  | { kind: 'stop' }
  /** A failure test's "stall" (docs/contracts.md): send nothing more, alive and silent, as a stuck blob read. */
  | { kind: 'debugStall' };

export type ReaderResponse =
  /** Sent once, as the reader's script starts: a warm-up waits for it (worker.ts startSpareReader). */
  | { kind: 'ready' }
  | { kind: 'chunk'; bytes: Uint8Array; bytesRead: number } // bytes own their whole buffer
  | { kind: 'end'; bytesRead: number; kept?: File }
  /** The input failed part-way: in its gzip decoding (`gzip`), else in reading its bytes. */
  | { kind: 'error'; error: WireError; bytesRead: number; gzip: boolean; kept?: File };

/** A Worker, a worker's global scope or a MessagePort, as the reader protocol uses them. */
export interface Port {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (ev: MessageEvent) => void): void;
}

/** Name of the error a cancelled call rejects with. */
export const ABORT = 'AbortError';
/** Name of the error of a query whose Session is gone (closed, or the worker restarted). */
export const SESSION_GONE = 'SessionGone';
/** Name of a wasm trap (WebAssembly.RuntimeError): the module is unusable, restart the worker. */
export const TRAP = 'RuntimeError';
/** Name of the error of calls pending when their worker died (an error event, an unreadable message). */
export const WORKER_DIED = 'WorkerDied';
/** Name of the error of calls pending when their worker stopped answering (the watchdog). */
export const WORKER_STALLED = 'WorkerStalled';

export function toWireError(e: unknown): WireError {
  if (e && typeof e === 'object' && 'message' in e) {
    const o = e as { name?: unknown; message?: unknown; failure?: unknown; phase?: unknown };
    return {
      name: typeof o.name === 'string' ? o.name : 'Error',
      message: String(o.message),
      ...(typeof o.failure === 'string' ? { failure: o.failure as Failure } : {}),
      ...(typeof o.phase === 'string' ? { phase: o.phase } : {}),
    };
  }
  return { name: 'Error', message: String(e) };
}

/**
 * What kind of failure a wasm RuntimeError is. Emscripten turns abort() into "Aborted(<reason>)";
 * built with -sABORTING_MALLOC=1, a heap that cannot grow aborts with reason "OOM". An abort with
 * no reason at a heap of `oomHeapBytes` or more (`operator new` aborts when malloc fails) is
 * counted as out of memory too.
 */
export function trapFailure(message: string, heapBytes = 0, oomHeapBytes = 3.5 * 2 ** 30): Failure {
  if (/Aborted\(OOM\)|out of memory|Cannot enlarge memory/i.test(message)) return 'oom';
  if (/Aborted\(/.test(message)) return heapBytes >= oomHeapBytes ? 'oom' : 'abort';
  return 'trap';
}

/** An Error rebuilt on the page from a WireError, keeping its name (and failure, phase). */
export class RemoteError extends Error {
  readonly failure?: Failure;
  readonly phase?: string;
  constructor(w: WireError) {
    super(w.message);
    this.name = w.name;
    if (w.failure) this.failure = w.failure;
    if (w.phase) this.phase = w.phase;
  }
}

/** What the client needs of a Worker (or a MessagePort): lets tests drive it without a browser. */
export interface Endpoint {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (ev: MessageEvent) => void): void;
}

/**
 * What a trim answers: the trimmed trace's bytes (they own their buffer), a byte stream and not a
 * table, and its report, the trim view's answer (what it kept and dropped; lib/answer.ts openAnswer).
 */
export interface Trimmed {
  bytes: Uint8Array;
  report: WireAnswer;
}

/**
 * A load's answers as the core gives them (lib/answer.ts): the summary view's, and once computed
 * the steps', GPU metrics' and overview's (the recommendations). Small: sent as they are (copied,
 * since the `result` repeats what a `summary` message sent), opened on the page's side (loadOf).
 */
export interface LoadAnswers {
  /** A trace's summary view answer (absent for a memory snapshot). */
  summary?: WireAnswer;
  /** A memory snapshot's (a pickle, told by content): its snapshot-summary answer, and no other. */
  snapshot?: WireAnswer;
  steps?: WireAnswer;
  gpus?: WireAnswer;
  overview?: WireAnswer;
  /** One sentence when the overview (or its recommendations) could not be computed. */
  overviewError?: string;
}

/** The page's summary and overview from a load's answers (the overview: null while the summary is not ok). */
export function loadOf(a: LoadAnswers): { summary: Summary; overview: Overview | null; snapshot?: SnapshotInfo } {
  if (a.snapshot) {
    const snapshot = snapshotOf(openAnswer('snapshot-summary', a.snapshot));
    return { summary: snapshotSummary(snapshot), overview: null, snapshot };
  }
  const summary = summaryOf(openAnswer('summary', a.summary!));
  if (!summary.ok) return { summary, overview: null };
  if (!a.steps || !a.gpus) return { summary, overview: a.overviewError ? { steps: null, gpus: null, error: a.overviewError } : null };
  const overview: Overview = {
    steps: stepBreakdownOf(openAnswer('steps', a.steps)),
    gpus: gpuMetricsOf(openAnswer('gpu_metrics', a.gpus)),
    info: a.overview ? overviewInfoOf(openAnswer('overview', a.overview)) : null,
  };
  if (a.overviewError) overview.error = a.overviewError;
  return { summary, overview };
}

/** What a load answers: the summary, and the overview when the summary is ok. */
export interface LoadResult {
  summary: Summary;
  overview: Overview | null;
  /** The file is a memory snapshot: its numbers (the summary then only says whether it read). */
  snapshot?: SnapshotInfo;
  /** A loadStream's bytes as received (none if it stopped early: not a trace). */
  file?: File;
  /** A file read by several workers: how it went (absent: read by one). */
  read?: ReadWorkers;
}

/** How a file given helpers was read (worker/split-read.ts). */
export interface ReadWorkers {
  /** Workers that read a range of it (1 + helpers given a range). */
  workers: number;
  /** Helpers' ranges merged into the model. */
  merged: number;
  /** Times the first worker read on itself (a range refused, a helper lost). */
  readOn: number;
  /** The file was read again in one range (a helper lost part-way through its pieces). */
  again: boolean;
  /** Why the first worker read on, if it did. */
  reason: string | null;
}

/** What a `warm` answers. */
export interface Warmed {
  /** Times the core ran over the sample (0: the module was compiled only, e.g. the sample could not be fetched). */
  runs: number;
  /** From the request to the answer. */
  ms: number;
}

/** What a helper's `loadRange` answers. */
export interface RangeDone {
  /** Pieces sent. */
  sent: number;
  /** All were sent (false: not wanted, or no range). */
  all: boolean;
  /** Bytes of the file it read. */
  bytesRead: number;
}

interface Pending {
  resolve(r: unknown): void;
  reject(e: Error): void;
  onProgress?: (p: LoadProgress) => void;
  onSummary?: (s: Summary, early?: Overview) => void;
  /** What the call is doing, for the sentence if its worker fails (WireError.phase). */
  phase: string;
}

/** How a client watches its worker (issue 12); without `watchdog`, it does not. */
export interface ClientOptions {
  /** Pings the worker while calls are pending; `onStall` once it has been silent for stallMs. */
  watchdog?: WatchdogOptions;
  onStall?: (silentMs: number) => void;
  /**
   * An error answer saying the worker's module is gone (WireError.failure: out of memory, an
   * abort, a trap): its own call is rejected first, then this is called (restart the worker).
   */
  onFatal?: (error: WireError) => void;
}

export interface Call<T> {
  id: number;
  promise: Promise<T>;
}

export class TraceClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly watchdog: Watchdog | null;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly options: ClientOptions = {},
  ) {
    this.watchdog = options.watchdog
      ? new Watchdog(options.watchdog, () => this.ping(), (ms) => this.options.onStall?.(ms))
      : null;
    endpoint.addEventListener('message', (ev) => {
      this.watchdog?.alive();
      this.onResponse(ev.data as Response);
    });
  }

  /**
   * `onSummary` gets the summary as soon as the file is read, before the overview is done, and
   * again with the overview's first part (steps, GPU metrics; `info` null) once that is computed.
   * `fault`: a failure test's (docs/contracts.md); never set otherwise.
   */
  load(
    file: File,
    onProgress?: (p: LoadProgress) => void,
    onSummary?: (s: Summary, early?: Overview) => void,
    fault?: TestFault,
    ranges?: MessagePort[],
  ): Call<LoadResult> {
    const id = this.nextId++;
    const promise = new Promise<LoadResult>((resolve, reject) => {
      this.track(id, { resolve: resolve as (r: unknown) => void, reject, onProgress, onSummary, phase: 'reading' });
    });
    const req: Request = { kind: 'load', id, file, ...(fault ? { fault } : {}), ...(ranges?.length ? { ranges } : {}) };
    this.endpoint.postMessage(req, ranges ?? []);
    return { id, promise };
  }

  /** A helper's range of `file` (worker/split-read.ts): the first worker's load tells it which on `port`. */
  loadRange(file: File, port: MessagePort, onProgress?: (p: LoadProgress) => void, fault?: TestFault): Call<RangeDone> {
    const id = this.nextId++;
    const promise = new Promise<RangeDone>((resolve, reject) => {
      this.track(id, { resolve: resolve as (r: unknown) => void, reject, onProgress, phase: 'reading a range' });
    });
    const req: Request = { kind: 'loadRange', id, file, port, ...(fault ? { fault } : {}) };
    this.endpoint.postMessage(req, [port]);
    return { id, promise };
  }

  /** Tells load `target` that its helper `range` failed. Nothing answers it. */
  rangeLost(target: number, range: number, message: string): void {
    if (!this.pending.has(target)) return;
    const req: Request = { kind: 'rangeLost', id: this.nextId++, target, range, message };
    this.endpoint.postMessage(req);
  }

  /**
   * Loads a download as it arrives. The stream is transferred: it is the worker's from now on.
   * Cancel it with cancel(id), which also cancels the stream (and so the request behind it).
   */
  loadStream(
    stream: ReadableStream<Uint8Array>,
    name: string,
    totalBytes: number | null,
    onProgress?: (p: LoadProgress) => void,
    onSummary?: (s: Summary, early?: Overview) => void,
    fault?: TestFault,
  ): Call<LoadResult> {
    const id = this.nextId++;
    const promise = new Promise<LoadResult>((resolve, reject) => {
      this.track(id, { resolve: resolve as (r: unknown) => void, reject, onProgress, onSummary, phase: 'reading' });
    });
    const req: Request = { kind: 'loadStream', id, stream, name, totalBytes, ...(fault ? { fault } : {}) };
    this.endpoint.postMessage(req, [stream]);
    return { id, promise };
  }

  /** Asks the Session of load call `session`; the answer has the kind of the question. */
  query<W extends QueryWhat>(session: number, query: QueryOf<W>): Call<ResultOf<W>> {
    const id = this.nextId++;
    const promise = new Promise<ResultOf<W>>((resolve, reject) => {
      this.track(id, {
        resolve: (r) => {
          const res = r as QueryResult;
          if (res.what === query.what) resolve(res as ResultOf<W>);
          else reject(new RemoteError({ name: 'ProtocolError', message: `asked for ${query.what}, got ${res.what}` }));
        },
        reject,
        phase: 'query',
      });
    });
    const req: Request = { kind: 'query', id, session, query };
    this.endpoint.postMessage(req);
    return { id, promise };
  }

  /** Writes the part of `file` inside [startUs, endUs] (absolute trace µs) as a trace of its own. */
  trim(file: File, startUs: number, endUs: number, onProgress?: (p: LoadProgress) => void): Call<Trimmed> {
    const id = this.nextId++;
    const promise = new Promise<Trimmed>((resolve, reject) => {
      this.track(id, { resolve: resolve as (r: unknown) => void, reject, onProgress, phase: 'trim' });
    });
    const req: Request = { kind: 'trim', id, file, startUs, endUs };
    this.endpoint.postMessage(req);
    return { id, promise };
  }

  /** Matches and reduces a run's rank summaries into its Distributed view's answers (one set per span). */
  distributed(ranks: Uint8Array[]): Call<DistributedAnswers[]> {
    const id = this.nextId++;
    const promise = new Promise<DistributedAnswers[]>((resolve, reject) => {
      this.track(id, { resolve: resolve as (r: unknown) => void, reject, phase: 'distributed' });
    });
    const req: Request = { kind: 'distributed', id, ranks };
    this.endpoint.postMessage(req);
    return { id, promise };
  }

  /** Readies the worker while the page waits for a file (the `warm` request). */
  warm(sample: string): Call<Warmed> {
    const id = this.nextId++;
    const promise = new Promise<Warmed>((resolve, reject) => {
      this.track(id, { resolve: resolve as (r: unknown) => void, reject, phase: 'warm-up' });
    });
    const req: Request = { kind: 'warm', id, sample };
    this.endpoint.postMessage(req);
    return { id, promise };
  }

  /** Frees the Session of load call `session` (a card was removed). Nothing answers it. */
  close(session: number): void {
    const req: Request = { kind: 'close', id: this.nextId++, session };
    this.endpoint.postMessage(req);
  }

  /** Asks the worker to stop call `target`; its promise rejects with an AbortError. */
  cancel(target: number): void {
    if (!this.pending.has(target)) return;
    const req: Request = { kind: 'cancel', id: this.nextId++, target };
    this.endpoint.postMessage(req);
  }

  /**
   * Gives up call `target` here (the page's load watch found it stalled: worker/load-watch.ts): its
   * promise rejects with `error` now, and the worker is asked to cancel it (its reader is ended,
   * its helpers told to stop). Whatever the worker still answers for it is dropped.
   */
  abandon(target: number, error: WireError): void {
    const p = this.pending.get(target);
    if (!p) return;
    this.cancel(target);
    this.settle(target);
    p.reject(new RemoteError({ ...error, phase: error.phase ?? p.phase }));
  }

  /**
   * Rejects every pending call, e.g. when the worker itself died, each with what it was doing
   * (unless `error` says), and stops watching.
   */
  failAll(error: WireError): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    this.watchdog?.halt();
    for (const p of all) p.reject(new RemoteError({ ...error, phase: error.phase ?? p.phase }));
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Whether the watchdog is watching (calls are pending). */
  get watching(): boolean {
    return this.watchdog?.watching ?? false;
  }

  private ping(): void {
    const req: Request = { kind: 'ping', id: this.nextId++ };
    this.endpoint.postMessage(req);
  }

  private track(id: number, p: Pending): void {
    this.pending.set(id, p);
    this.watchdog?.busy(this.pending.size);
  }

  private settle(id: number): void {
    this.pending.delete(id);
    this.watchdog?.busy(this.pending.size);
  }

  private onResponse(res: Response): void {
    const p = this.pending.get(res.id);
    if (!p) return; // a pong, or late progress of a settled call
    switch (res.kind) {
      case 'progress':
        if (res.progress.phase) p.phase = res.progress.phase.name;
        p.onProgress?.(res.progress);
        break;
      case 'summary': {
        p.phase = 'overview';
        const { summary, overview } = loadOf(res.answers);
        p.onSummary?.(summary, overview ?? undefined);
        break;
      }
      case 'pong':
        break;
      case 'result':
        this.settle(res.id);
        p.resolve({ ...loadOf(res.answers), ...(res.file ? { file: res.file } : {}), ...(res.read ? { read: res.read } : {}) } satisfies LoadResult);
        break;
      case 'answer':
        this.settle(res.id);
        p.resolve(res.result);
        break;
      case 'trimmed':
        this.settle(res.id);
        p.resolve(res.trimmed);
        break;
      case 'distributed':
        this.settle(res.id);
        p.resolve(res.views);
        break;
      case 'rangeDone':
        this.settle(res.id);
        p.resolve(res.done);
        break;
      case 'warmed':
        this.settle(res.id);
        p.resolve(res.warmed);
        break;
      case 'error':
        this.settle(res.id);
        p.reject(new RemoteError({ ...res.error, ...(res.error.failure ? { phase: res.error.phase ?? p.phase } : {}) }));
        if (res.error.failure) this.options.onFatal?.(res.error);
        break;
    }
  }
}
