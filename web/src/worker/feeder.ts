// How trace bytes travel from a File to the wasm Session, in pieces of at most 4 MB (one simdjson
// iterate per commit is cheapest on big pieces). The bytes stay bytes: nothing here decodes them
// to a string (V8 caps strings at ~512 MB and Chromium then silently yields "").
//
//   reader worker:  readChunks(file) or streamChunks(download)  ->  serveChunks(port)  --transfer-->
//   trace worker:   RemoteChunks.next()  ->  ChunkFeeder.feed()  ->  HEAPU8 at session.prepare(n)
//
// Reading a Blob in a worker (file.stream() or slice().arrayBuffer()) drains Chromium's data pipe
// on that worker's own thread, so a worker busy parsing reads nothing meanwhile: measured on a
// 1 GiB trace, reading in the parsing thread added 1.2-1.9 s of waits to ~5.6 s of parsing even
// with a read kept in flight, against ~0.2 s from a second worker. Hence the reader worker.
import { isGzip } from '../lib/gzip';
import {
  toWireError,
  type Port,
  type ReadInput,
  type ReaderRequest,
  type ReaderResponse,
  type WireError,
} from './protocol';

export const MAX_CHUNK = 4 * 1024 * 1024;

export interface SessionLike {
  prepare(n: number): number;
  commit(n: number): void;
  failed(): boolean;
  /** A range's reader stopped at a split (worker/split-read.ts): the bytes after it are not its. */
  stopped?(): boolean;
}

export interface HeapOwner {
  HEAPU8: Uint8Array;
}

/** Copies chunks straight into the wasm heap, splitting any bigger than maxChunk. */
export class ChunkFeeder {
  /** JSON bytes handed to the core so far. */
  fed = 0;
  /** True once the core said the input is certainly not a trace: the caller stops reading. */
  stopped = false;
  /** True once the Session stopped at a split: the caller stops reading (the rest is another range's). */
  atSplit = false;

  constructor(
    private readonly mod: HeapOwner,
    private readonly session: SessionLike,
    readonly maxChunk: number = MAX_CHUNK,
  ) {}

  feed(bytes: Uint8Array): void {
    for (let off = 0; off < bytes.length && !this.stopped; ) {
      const n = Math.min(bytes.length - off, this.maxChunk);
      const at = this.session.prepare(n);
      // prepare may grow memory, which replaces the HEAPU8 view: read it only now.
      this.mod.HEAPU8.set(bytes.subarray(off, off + n), at);
      this.session.commit(n);
      this.fed += n;
      off += n;
      if (this.session.failed()) this.stopped = true;
      else if (this.session.stopped?.()) {
        this.atSplit = true;
        this.stopped = true;
      }
    }
  }
}

/**
 * Buffers of one size handed back by the trace worker once fed (RemoteChunks), for the reader to
 * read the next chunks into. A fresh 4 MB ArrayBuffer per chunk was ~120 allocations of zeroed
 * memory per 503 MB, each page faulted in as the read filled it and unmapped when collected, on
 * the cores the parse runs on.
 */
export class BufferPool {
  private readonly free: ArrayBuffer[] = [];
  constructor(readonly size: number, readonly most = 4) {}
  /** Keeps `b` if it is of the pool's size, not detached, and the pool is not full. */
  give(b: ArrayBuffer): void {
    if (b.byteLength === this.size && this.free.length < this.most) this.free.push(b);
  }
  /** A kept buffer for a chunk of `size` bytes: only a chunk of the pool's size gets one. */
  take(size: number): ArrayBuffer | undefined {
    return size === this.size ? this.free.pop() : undefined;
  }
  get length(): number {
    return this.free.length;
  }
}

/**
 * Gathers small stream chunks into chunks of exactly `size` bytes, each owning its buffer: a fresh
 * one, or one of `pool` (of the same size) when it has any.
 */
export class Gatherer {
  private buf: Uint8Array;
  private filled = 0;

  constructor(readonly size: number = MAX_CHUNK, private readonly pool: BufferPool | null = null) {
    this.buf = this.fresh();
  }

  private fresh(): Uint8Array {
    const b = this.pool?.take(this.size);
    return b ? new Uint8Array(b) : new Uint8Array(this.size);
  }

  /** Returns the chunks completed by `bytes` (often none). */
  push(bytes: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let off = 0; off < bytes.length; ) {
      const n = Math.min(bytes.length - off, this.size - this.filled);
      this.buf.set(bytes.subarray(off, off + n), this.filled);
      this.filled += n;
      off += n;
      if (this.filled === this.size) {
        out.push(this.buf);
        this.buf = this.fresh();
        this.filled = 0;
      }
    }
    return out;
  }

  /** The unfinished chunk (its own, exactly sized buffer), or null when nothing is gathered. */
  rest(): Uint8Array | null {
    if (this.filled === 0) return null;
    const r = this.buf.slice(0, this.filled);
    this.filled = 0;
    return r;
  }
}

export interface Chunk {
  bytes: Uint8Array; // owns its whole buffer: it can be transferred
  bytesRead: number; // file bytes (compressed, for gzip) read so far
}

/**
 * The input itself failed part-way (a corrupt or cut-off gzip, a read error, a download that
 * broke off): not a bug. `gzip`: it failed in the gzip decoding, not in reading the bytes.
 */
export class InputError extends Error {
  constructor(w: WireError, readonly bytesRead: number, readonly gzip = true) {
    super(w.message);
    this.name = w.name;
  }
}

/**
 * How long one read of a File's stream may wait before that stream is given up and the chunk read
 * again from its start on a new one (issue 21). Measured: a 10 GiB File read on this 2-core machine
 * while other builds ran (load 9-16) stopped at 5.7-8.5 GiB in Chromium 156 with a BYOB
 * `reader.read()` that never resolved — the reader worker had credit, the trace worker waited for
 * the chunk, nothing failed — in four loads of five; none of four loads had stopped an hour before
 * on a quieter machine (docs/benchmarks.md, "Current table"). A chunk normally comes in a few ms; 3 s leaves room for a busy machine, and a read
 * given up too soon costs one chunk read twice.
 */
export const READ_STALL_MS = 3_000;

const STALLED: unique symbol = Symbol('stalled');

/** `p`, or STALLED if it has not settled within `ms` (it may still settle later: it is dropped then). */
function within<T>(p: Promise<T>, ms: number): Promise<T | typeof STALLED> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof STALLED>((r) => (timer = setTimeout(() => r(STALLED), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The file's JSON bytes in chunks of `chunkBytes` (the last may be shorter). Plain files are read
 * from file.stream() with a BYOB reader straight into each chunk's own buffer; gzip goes
 * file.stream() -> DecompressionStream and is gathered (streamChunks). On a failing stream the
 * bytes decoded before it are yielded first, then an InputError is thrown.
 *
 * A plain file's read that does not settle within `stallMs` (READ_STALL_MS) is given up: the
 * stream is cancelled and the chunk read again from its first byte on `file.slice(off).stream()`
 * (its buffer went with the read that never came back). `onRestart(off)` hears of each. A gzip
 * stream cannot be entered part-way: the page's load watch says when one stops (worker/load-watch.ts).
 *
 * Why BYOB and not slice().arrayBuffer() per chunk (what this did before): on a 503 MB file in
 * Chromium 156 the slices cost 1.2-1.7 CPU-seconds and 0.9 s, the BYOB stream 0.7 CPU-seconds
 * and 0.4 s (docs/benchmarks.md, "Reading the file") — CPU the parse needs on a 2-core machine,
 * and more so when two trace workers read one file.
 */
export async function* readChunks(
  file: Blob,
  gzip: boolean,
  chunkBytes = MAX_CHUNK,
  pool: BufferPool | null = null,
  stallMs = READ_STALL_MS,
  onRestart: (off: number) => void = () => {},
): AsyncGenerator<Chunk> {
  if (gzip) {
    yield* streamChunks(file.stream(), { gzip: true, chunkBytes, pool });
    return;
  }
  const open = (from: number) => (from === 0 ? file : file.slice(from)).stream().getReader({ mode: 'byob' });
  let reader: ReadableStreamBYOBReader | null = null;
  try {
    reader = open(0);
  } catch {
    // Not a byte stream here (some non-browser Blob): one slice per chunk instead.
  }
  if (!reader) {
    yield* sliceChunks(file, chunkBytes);
    return;
  }
  try {
    for (let off = 0; off < file.size; ) {
      // Each chunk fills a buffer of exactly its size (a BYOB read may give less than asked).
      const size = Math.min(chunkBytes, file.size - off);
      let buf = pool?.take(size) ?? new ArrayBuffer(size);
      let filled = 0;
      let done = false;
      let stalled = false;
      while (filled < buf.byteLength && !done) {
        const r = await within(reader.read(new Uint8Array(buf, filled, buf.byteLength - filled)), stallMs);
        if (r === STALLED) {
          stalled = true;
          break;
        }
        done = r.done;
        if (r.value) {
          buf = r.value.buffer as ArrayBuffer; // the read moved the buffer: this is it now
          filled += r.value.byteLength;
        }
      }
      if (stalled) {
        // The browser stopped delivering this stream: a new one from this chunk's first byte.
        reader.cancel().catch(() => {});
        onRestart(off);
        reader = open(off);
        continue;
      }
      off += filled;
      if (filled > 0) yield { bytes: filled === buf.byteLength ? new Uint8Array(buf) : new Uint8Array(buf.slice(0, filled)), bytesRead: off };
      if (done) break; // the file was shorter than its size said
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** readChunks for a Blob without a byte stream: slice().arrayBuffer(), the next read in flight. */
async function* sliceChunks(file: Blob, chunkBytes: number): AsyncGenerator<Chunk> {
  const read = (off: number) => file.slice(off, off + chunkBytes).arrayBuffer();
  let next = file.size > 0 ? read(0) : null;
  for (let off = 0; next; ) {
    const buf = await next;
    off += buf.byteLength;
    next = off < file.size && buf.byteLength > 0 ? read(off) : null;
    yield { bytes: new Uint8Array(buf), bytesRead: off };
  }
}

/**
 * A download's bytes as they come, kept for the Timeline. Every KEEP_FOLD bytes the pieces are
 * folded into a Blob, which Chromium moves out of this thread's heap into its blob store (which
 * spills to disk when big); a File made of those Blobs references them without copying. Holding
 * a multi-GB download as thousands of 64 KB ArrayBuffers instead kept it all in the tab's memory
 * and copied it once more when the File was made (scripts/bench, path url).
 */
export class Keeper {
  private readonly blobs: Blob[] = [];
  private pending: Uint8Array<ArrayBuffer>[] = [];
  private pendingBytes = 0;
  constructor(private readonly fold = KEEP_FOLD) {}
  push(piece: Uint8Array<ArrayBuffer>): void {
    this.pending.push(piece);
    this.pendingBytes += piece.byteLength;
    if (this.pendingBytes >= this.fold) {
      this.blobs.push(new Blob(this.pending));
      this.pending = [];
      this.pendingBytes = 0;
    }
  }
  file(name: string): File {
    return new File([...this.blobs, ...this.pending], name);
  }
}

export const KEEP_FOLD = 32 * 1024 * 1024;

export interface StreamOptions {
  /** Gunzip it; 'detect': when its first two bytes are gzip's magic (a download: names lie). */
  gzip: boolean | 'detect';
  chunkBytes?: number;
  /** Receives every piece of the stream as read, before decoding (a download keeps its bytes). */
  keep?: Keeper;
  /** Cancels the stream at once, even while a read waits on a stalled download. */
  signal?: AbortSignal;
  /** Buffers to gather into, handed back by the trace worker (serveChunks). */
  pool?: BufferPool | null;
}

/**
 * The JSON bytes of a byte stream, gunzipped if need be, gathered into chunks of `chunkBytes`
 * (the last may be shorter); bytesRead counts the stream's own bytes (compressed, for gzip). The
 * one path of gzip files and downloads. If the stream fails part-way, the bytes decoded before it
 * are yielded first, then an InputError says whether the source itself failed (a download broke
 * off: gzip false) or the gzip decoding did. Stopping early cancels the stream.
 */
export async function* streamChunks(stream: ReadableStream<Uint8Array>, opts: StreamOptions): AsyncGenerator<Chunk> {
  const chunkBytes = opts.chunkBytes ?? MAX_CHUNK;
  const source = stream.getReader();
  let bytesRead = 0;
  let sourceFailed = false;
  // One piece of the source: counted and kept on arrival, null at its end.
  const readSource = async (): Promise<Uint8Array | null> => {
    let r: ReadableStreamReadResult<Uint8Array>;
    try {
      r = await source.read();
    } catch (e) {
      sourceFailed = true;
      throw e;
    }
    if (r.done) return null;
    bytesRead += r.value.byteLength;
    // A stream's pieces are never views of shared memory: they can be parts of a File.
    opts.keep?.push(r.value as Uint8Array<ArrayBuffer>);
    return r.value;
  };
  // Stopping the generator (return()) waits for a pending read; a download may stall for good.
  // Cancelling the source ends that read now, and tells the page its request can go.
  const cancel = () => void source.cancel(opts.signal?.reason).catch(() => {});
  if (opts.signal?.aborted) cancel();
  else opts.signal?.addEventListener('abort', cancel, { once: true });
  // Pieces read ahead to look at the first two bytes, handed on before the rest.
  const ahead: Uint8Array[] = [];
  let gzip = opts.gzip;
  if (gzip === 'detect') {
    const head: number[] = [];
    try {
      while (head.length < 2) {
        const piece = await readSource();
        if (!piece) break;
        ahead.push(piece);
        head.push(...piece.subarray(0, 2 - head.length));
      }
    } catch {
      // Failed before two bytes came: the counted stream below reads the same failure again.
    }
    gzip = isGzip(Uint8Array.from(head));
  }
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(ctl) {
        const piece = ahead.shift() ?? (await readSource());
        if (piece) ctl.enqueue(piece);
        else ctl.close();
      },
      cancel: (reason) => source.cancel(reason),
    },
    // Read only when asked: a source read ahead here would be counted before it is used.
    { highWaterMark: 0 },
  );
  const decoded = gzip
    ? counted.pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)
    : counted;
  const reader = decoded.getReader();
  const gather = new Gatherer(chunkBytes, opts.pool);
  let failed = false;
  let failure: unknown = null;
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        failed = true; // the reason may be anything, even undefined
        failure = e;
        break;
      }
      if (r.done) break;
      for (const bytes of gather.push(r.value)) yield { bytes, bytesRead };
    }
    const rest = gather.rest();
    if (rest) yield { bytes: rest, bytesRead };
    if (failed) throw new InputError(toWireError(failure), bytesRead, !sourceFailed && gzip);
  } finally {
    // Stopped early (cancel, not a trace) or failed: release the file, or end the download.
    reader.cancel().catch(() => {});
  }
}

/**
 * The chunks of a reader input: a File (gzip known) or a download (gzip told by its bytes, raw
 * pieces kept in `keep`, cancelled by `signal`).
 */
export function readInput(input: ReadInput, chunkBytes = MAX_CHUNK, keep?: Keeper, signal?: AbortSignal, pool: BufferPool | null = null): AsyncGenerator<Chunk> {
  return 'stream' in input ? streamChunks(input.stream, { gzip: 'detect', chunkBytes, keep, signal, pool }) : readChunks(input.file, input.gzip, chunkBytes, pool, READ_STALL_MS, restarted);
}

/** Said in the console (not an error: the read goes on), so that a stop and its recovery are seen. */
function restarted(off: number): void {
  console.warn(`Kinetoscope: the browser stopped delivering the file at byte ${off} for ${READ_STALL_MS / 1000} s; reading on from there with a new stream.`);
}

/**
 * The reader worker's side: serves readInput over `port`, at most `credit` chunks ahead. A
 * download's bytes, kept as read, go back with its end (or its failure) as one File. On `stop` a
 * download is cancelled (its request ends) and `onStopped` runs once reading has stopped.
 */
export function serveChunks(port: Port, onStopped: () => void = () => {}): void {
  let credit = 0;
  // A failure test's "stall": alive, answering nothing, sending nothing (as a blob read that never completes).
  let stalled = false;
  let wake: (() => void) | null = null;
  const stop = new AbortController();
  let pool: BufferPool | null = null;
  port.addEventListener('message', (ev: MessageEvent<ReaderRequest>) => {
    const req = ev.data;
    if (req.kind === 'recycle') {
      pool?.give(req.buffer);
      return;
    }
    if (req.kind === 'debugStall') {
      stalled = true;
      return;
    }
    if (req.kind === 'more' || req.kind === 'stop') {
      if (req.kind === 'more') credit += req.n;
      else stop.abort();
      wake?.();
      wake = null;
      return;
    }
    credit += req.credit;
    const input = req.input;
    pool = new BufferPool(req.chunkBytes);
    const keep = 'stream' in input ? new Keeper() : undefined;
    const kept = () => (keep && 'stream' in input ? { kept: keep.file(input.name) } : {});
    void (async () => {
      let bytesRead = 0;
      const post = (r: ReaderResponse, transfer: Transferable[] = []) => port.postMessage(r, transfer);
      try {
        for await (const c of readInput(input, req.chunkBytes, keep, stop.signal, pool)) {
          while ((credit <= 0 || stalled) && !stop.signal.aborted) await new Promise<void>((r) => (wake = r));
          if (stop.signal.aborted) break;
          credit--;
          bytesRead = c.bytesRead;
          post({ kind: 'chunk', bytes: c.bytes, bytesRead }, [c.bytes.buffer]);
        }
        if (!stop.signal.aborted) post({ kind: 'end', bytesRead, ...kept() });
      } catch (e) {
        const bad = e instanceof InputError; // else the reader itself failed
        if (!stop.signal.aborted) post({ kind: 'error', error: toWireError(e), bytesRead: bad ? e.bytesRead : bytesRead, gzip: bad ? e.gzip : false, ...kept() });
      }
      if (stop.signal.aborted) onStopped();
    })();
  });
}

export interface ChunkSource {
  /**
   * The next chunk; null at the end or once closed. Throws InputError if the input failed. A
   * chunk's bytes are the caller's until it calls next() again: RemoteChunks then hands their
   * buffer back to the reader to read into.
   */
  next(): Promise<Chunk | null>;
  /** Stops reading; a pending next() resolves null. */
  close(): void;
  /** A download's bytes as read, once its end (or failure) was handed out; null for a File. */
  kept(): File | null;
  /** A failure test's "stall": the reader sends nothing more and stays alive (docs/contracts.md). */
  debugStall?(): void;
}

/** Chunks read in this thread: the fallback when no reader worker can be started. */
export class LocalChunks implements ChunkSource {
  private readonly it: AsyncGenerator<Chunk>;
  private closed = false;
  private readonly keep: Keeper | undefined;
  private readonly stop = new AbortController();
  constructor(private readonly input: ReadInput, chunkBytes = MAX_CHUNK) {
    this.keep = 'stream' in input ? new Keeper() : undefined;
    this.it = readInput(input, chunkBytes, this.keep, this.stop.signal);
  }
  kept(): File | null {
    return this.keep && 'stream' in this.input ? this.keep.file(this.input.name) : null;
  }
  async next(): Promise<Chunk | null> {
    if (this.closed) return null;
    const r = await this.it.next();
    return r.done || this.closed ? null : r.value;
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort(); // a download ends now, even if a read is waiting
    void this.it.return(undefined).catch(() => {});
  }
}

/** What a reader sends about its input (all but 'ready'). */
type ReaderData = Exclude<ReaderResponse, { kind: 'ready' }>;

/** The trace worker's side of a reader worker (or any port running serveChunks). */
export class RemoteChunks implements ChunkSource {
  private readonly queue: ReaderData[] = [];
  private waiter: ((r: ReaderData | null) => void) | null = null;
  private closed = false;
  private ended = false; // 'end' or 'error' was handed out: nothing more will come
  private crash: Error | null = null;
  private keptFile: File | null = null;
  /** Chunks received so far. */
  received = 0;
  /** The buffer of the chunk last handed out: back to the reader at the next next(). */
  private lent: ArrayBuffer | null = null;

  constructor(
    private readonly port: Port,
    input: ReadInput,
    private readonly chunkBytes = MAX_CHUNK,
    ahead = 3,
    private readonly onClose: () => void = () => {},
  ) {
    port.addEventListener('message', (ev: MessageEvent<ReaderResponse>) => ev.data.kind !== 'ready' && this.deliver(ev.data)); // 'ready': for the warm-up
    const start: ReaderRequest = { kind: 'start', input, chunkBytes, credit: ahead };
    // A download's stream moves to the reader; a File is only cloned (a handle, not its bytes).
    port.postMessage(start, 'stream' in input ? [input.stream] : []);
  }

  kept(): File | null {
    return this.keptFile;
  }

  debugStall(): void {
    const stall: ReaderRequest = { kind: 'debugStall' };
    this.port.postMessage(stall);
  }

  /** The reader itself died (not the input): the pending and later next() calls throw `e`. */
  fail(e: Error): void {
    this.crash = e;
    this.deliver(null);
  }

  async next(): Promise<Chunk | null> {
    const lent = this.lent;
    this.lent = null;
    if (lent && lent.byteLength > 0 && !this.closed && !this.ended) {
      const recycle: ReaderRequest = { kind: 'recycle', buffer: lent };
      this.port.postMessage(recycle, [lent]);
    }
    if (this.closed || this.ended) return null;
    if (this.crash) throw this.crash;
    const r = this.queue.shift() ?? (await new Promise<ReaderData | null>((res) => (this.waiter = res)));
    if (this.closed) return null;
    if (!r) throw this.crash ?? new Error('The file reader stopped.');
    switch (r.kind) {
      case 'chunk': {
        this.received++;
        const more: ReaderRequest = { kind: 'more', n: 1 };
        this.port.postMessage(more);
        // A whole chunk's buffer (the reader's pool takes no other size) goes back at the next next().
        if (r.bytes.byteOffset === 0 && r.bytes.byteLength === this.chunkBytes && r.bytes.buffer.byteLength === this.chunkBytes) this.lent = r.bytes.buffer as ArrayBuffer;
        return { bytes: r.bytes, bytesRead: r.bytesRead };
      }
      case 'end':
        this.ended = true;
        this.keptFile = r.kept ?? null;
        return null;
      case 'error':
        this.ended = true;
        this.keptFile = r.kept ?? null;
        throw new InputError(r.error, r.bytesRead, r.gzip);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // The reader cancels a download it is reading (a terminated worker would only drop it).
    const stop: ReaderRequest = { kind: 'stop' };
    this.port.postMessage(stop);
    this.deliver(null);
    this.onClose();
  }

  private deliver(r: ReaderData | null): void {
    const w = this.waiter;
    this.waiter = null;
    if (w) w(r);
    else if (r) this.queue.push(r);
  }
}
