// How trace bytes travel from a File to the wasm Session, in pieces of at most 4 MB (one simdjson
// iterate per commit is cheapest on big pieces). The bytes stay bytes: nothing here decodes them
// to a string (V8 caps strings at ~512 MB and Chromium then silently yields "").
//
//   reader worker:  readChunks(file)  ->  serveChunks(port)  --transfer-->
//   trace worker:   RemoteChunks.next()  ->  ChunkFeeder.feed()  ->  HEAPU8 at session.prepare(n)
//
// Reading a Blob in a worker (file.stream() or slice().arrayBuffer()) drains Chromium's data pipe
// on that worker's own thread, so a worker busy parsing reads nothing meanwhile: measured on a
// 1 GiB trace, reading in the parsing thread added 1.2-1.9 s of waits to ~5.6 s of parsing even
// with a read kept in flight, against ~0.2 s from a second worker. Hence the reader worker.
import {
  toWireError,
  type Port,
  type ReaderRequest,
  type ReaderResponse,
  type WireError,
} from './protocol';

export const MAX_CHUNK = 4 * 1024 * 1024;

export interface SessionLike {
  prepare(n: number): number;
  commit(n: number): void;
  failed(): boolean;
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
    }
  }
}

/** Gathers small stream chunks into chunks of exactly `size` bytes, each owning a fresh buffer. */
export class Gatherer {
  private buf: Uint8Array;
  private filled = 0;

  constructor(readonly size: number = MAX_CHUNK) {
    this.buf = new Uint8Array(size);
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
        this.buf = new Uint8Array(this.size);
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

/** The input itself failed part-way (a corrupt or cut-off gzip, a read error): not a bug. */
export class InputError extends Error {
  constructor(w: WireError, readonly bytesRead: number) {
    super(w.message);
    this.name = w.name;
  }
}

/**
 * The file's JSON bytes in chunks of `chunkBytes` (the last may be shorter). Plain files are read
 * with slice().arrayBuffer(), the next read in flight while the caller handles the current one;
 * gzip goes file.stream() -> DecompressionStream and is gathered. On a failing stream the bytes
 * decoded before it are yielded first, then an InputError is thrown.
 */
export async function* readChunks(file: Blob, gzip: boolean, chunkBytes = MAX_CHUNK): AsyncGenerator<Chunk> {
  if (!gzip) {
    const read = (off: number) => file.slice(off, off + chunkBytes).arrayBuffer();
    let next = file.size > 0 ? read(0) : null;
    for (let off = 0; next; ) {
      const buf = await next;
      off += buf.byteLength;
      next = off < file.size && buf.byteLength > 0 ? read(off) : null;
      yield { bytes: new Uint8Array(buf), bytesRead: off };
    }
    return;
  }
  let bytesRead = 0;
  const counted = file.stream().pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        bytesRead += chunk.byteLength; // compressed bytes: what file.size measures
        ctl.enqueue(chunk);
      },
    }),
  );
  const reader = counted
    .pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)
    .getReader();
  const gather = new Gatherer(chunkBytes);
  let failure: unknown = null;
  try {
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        failure = e;
        break;
      }
      if (r.done) break;
      for (const bytes of gather.push(r.value)) yield { bytes, bytesRead };
    }
    const rest = gather.rest();
    if (rest) yield { bytes: rest, bytesRead };
    if (failure) throw new InputError(toWireError(failure), bytesRead);
  } finally {
    // Stopped early (cancel, not a trace) or failed: release the file.
    reader.cancel().catch(() => {});
  }
}

/** The reader worker's side: serves readChunks over `port`, at most `credit` chunks ahead. */
export function serveChunks(port: Port): void {
  let credit = 0;
  let wake: (() => void) | null = null;
  port.addEventListener('message', (ev: MessageEvent<ReaderRequest>) => {
    const req = ev.data;
    if (req.kind === 'more') {
      credit += req.n;
      wake?.();
      wake = null;
      return;
    }
    credit += req.credit;
    void (async () => {
      let bytesRead = 0;
      const post = (r: ReaderResponse, transfer: Transferable[] = []) => port.postMessage(r, transfer);
      try {
        for await (const c of readChunks(req.file, req.gzip, req.chunkBytes)) {
          while (credit <= 0) await new Promise<void>((r) => (wake = r));
          credit--;
          bytesRead = c.bytesRead;
          post({ kind: 'chunk', bytes: c.bytes, bytesRead }, [c.bytes.buffer]);
        }
        post({ kind: 'end', bytesRead });
      } catch (e) {
        post({ kind: 'error', error: toWireError(e), bytesRead: e instanceof InputError ? e.bytesRead : bytesRead });
      }
    })();
  });
}

export interface ChunkSource {
  /** The next chunk; null at the end or once closed. Throws InputError if the input failed. */
  next(): Promise<Chunk | null>;
  /** Stops reading; a pending next() resolves null. */
  close(): void;
}

/** Chunks read in this thread: the fallback when no reader worker can be started. */
export class LocalChunks implements ChunkSource {
  private readonly it: AsyncGenerator<Chunk>;
  private closed = false;
  constructor(file: Blob, gzip: boolean, chunkBytes = MAX_CHUNK) {
    this.it = readChunks(file, gzip, chunkBytes);
  }
  async next(): Promise<Chunk | null> {
    if (this.closed) return null;
    const r = await this.it.next();
    return r.done || this.closed ? null : r.value;
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.it.return(undefined).catch(() => {});
  }
}

/** The trace worker's side of a reader worker (or any port running serveChunks). */
export class RemoteChunks implements ChunkSource {
  private readonly queue: ReaderResponse[] = [];
  private waiter: ((r: ReaderResponse | null) => void) | null = null;
  private closed = false;
  private ended = false; // 'end' or 'error' was handed out: nothing more will come
  private crash: Error | null = null;
  /** Chunks received so far. */
  received = 0;

  constructor(
    private readonly port: Port,
    file: Blob,
    gzip: boolean,
    chunkBytes = MAX_CHUNK,
    ahead = 3,
    private readonly onClose: () => void = () => {},
  ) {
    port.addEventListener('message', (ev: MessageEvent<ReaderResponse>) => this.deliver(ev.data));
    const start: ReaderRequest = { kind: 'start', file: file as File, gzip, chunkBytes, credit: ahead };
    port.postMessage(start);
  }

  /** The reader itself died (not the input): the pending and later next() calls throw `e`. */
  fail(e: Error): void {
    this.crash = e;
    this.deliver(null);
  }

  async next(): Promise<Chunk | null> {
    if (this.closed || this.ended) return null;
    if (this.crash) throw this.crash;
    const r = this.queue.shift() ?? (await new Promise<ReaderResponse | null>((res) => (this.waiter = res)));
    if (this.closed) return null;
    if (!r) throw this.crash ?? new Error('The file reader stopped.');
    switch (r.kind) {
      case 'chunk': {
        this.received++;
        const more: ReaderRequest = { kind: 'more', n: 1 };
        this.port.postMessage(more);
        return { bytes: r.bytes, bytesRead: r.bytesRead };
      }
      case 'end':
        this.ended = true;
        return null;
      case 'error':
        this.ended = true;
        throw new InputError(r.error, r.bytesRead);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.deliver(null);
    this.onClose();
  }

  private deliver(r: ReaderResponse | null): void {
    const w = this.waiter;
    this.waiter = null;
    if (w) w(r);
    else if (r) this.queue.push(r);
  }
}
