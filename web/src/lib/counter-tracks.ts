// Counter tracks on the Timeline (issue 24 §6): the GPU time tab's queue length per stream and
// memory bandwidth per copy kind, added to the trace Perfetto opens as Chrome JSON counter events
// ("ph":"C"). The core gives the samples (the gpu-counter-track view: every change point of a
// series, or its greatest value per column when a series has more than the view's bound, so a
// trace of millions of launches adds a few thousand events); here they become JSON text and are
// spliced into the trace's bytes just after the opening of its traceEvents array.
//
// The trace is never a JS string (V8 caps strings at 512 MiB and Chromium silently gives "" above
// it): only its first bytes are scanned, as bytes, for where traceEvents opens. A plain file is
// sent as a Blob of two slices of the File around the inserted events (the browser reads them from
// disk into the one ArrayBuffer Perfetto gets); a window the core cut out is already one buffer.
// A gzipped file cannot be spliced without decompressing it — a gzip stream has no byte to insert
// at, and recompressing would cost more CPU than Perfetto's own gunzip saves — so it is decompressed
// (DecompressionStream) and sent as plain JSON: larger on the wire to the iframe, the same trace
// for Perfetto, whose memory is the parsed trace either way.
import type { Answer } from '../generated/views';
import { isGzip } from './gzip';

/** Which counters the GPU time tab adds. */
export type CounterKind = 'queue' | 'bandwidth';

/** Counter events to splice into a trace: the JSON members (comma-separated, no brackets) and what they are. */
export interface CounterTracks {
  kinds: CounterKind[];
  /** The events' JSON text, UTF-8. */
  bytes: Uint8Array;
  events: number;
  /** Series drawn at the view's bound rather than change by change. */
  reduced: number;
}

const NUMBER = /^-?\d+$/;

/** A counter track's name in Perfetto. */
export function trackName(kind: CounterKind, series: string): string {
  return kind === 'queue' ? `Queue length (stream ${series})` : `Memory bandwidth (${series})`;
}

/**
 * The "ph":"C" events of gpu-counter-track answers: one track per series, on the process of the
 * series' GPU events (the pid as the trace writes it), each sample at its absolute µs.
 */
export function counterTracks(answers: { kind: CounterKind; answer: Answer<'gpu-counter-track'> }[]): CounterTracks {
  const parts: string[] = [];
  let reduced = 0;
  for (const { kind, answer: a } of answers) {
    const c = a.columns;
    const arg = kind === 'queue' ? 'launches' : 'GB/s';
    reduced += a.meta.reduced;
    for (let i = 0; i < a.rowCount; i++) {
      const series = a.strings[c.series[i]];
      const pidText = a.strings[c.pid[i]];
      const pid = NUMBER.test(pidText) ? pidText : JSON.stringify(pidText);
      const value = Number.isFinite(c.value[i]) ? c.value[i] : 0;
      parts.push(`{"ph":"C","cat":"kinetoscope","name":${JSON.stringify(trackName(kind, series))},"pid":${pid},"ts":${c.ts[i]},"args":{${JSON.stringify(arg)}:${value}}}`);
    }
  }
  return { kinds: answers.map((x) => x.kind), bytes: new TextEncoder().encode(parts.join(',')), events: parts.length, reduced };
}

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COLON = 0x3a,
  OPEN_OBJ = 0x7b,
  CLOSE_OBJ = 0x7d,
  OPEN_ARR = 0x5b,
  CLOSE_ARR = 0x5d;
const KEY = new TextEncoder().encode('traceEvents');

/**
 * Finds, in a JSON trace fed chunk by chunk, the byte just after the '[' that opens its event
 * array: the root object's "traceEvents" member, or a root array (the JSON array form). String-
 * and escape-aware; other members (deviceProperties, distributedInfo) are skipped whatever they
 * hold. `push` answers the offset once found, else null; `done` says the scan can stop.
 */
export class TraceEventsFinder {
  private at = 0;
  private depth = 0;
  private inString = false;
  private escape = false;
  private key: number[] | null = null;
  private lastKey = '';
  private member = '';
  private started = false;
  found = -1;
  /** The root ended, or is not JSON: there is no event array to find. */
  failed = false;

  get done(): boolean {
    return this.found >= 0 || this.failed;
  }

  push(chunk: Uint8Array): number | null {
    for (let i = 0; i < chunk.length && !this.done; i++) this.step(chunk[i], this.at + i);
    this.at += chunk.length;
    return this.found >= 0 ? this.found : null;
  }

  private step(b: number, pos: number) {
    if (this.inString) {
      if (this.escape) this.escape = false;
      else if (b === BACKSLASH) this.escape = true;
      else if (b === QUOTE) {
        this.inString = false;
        if (this.key) this.lastKey = String.fromCharCode(...this.key);
        this.key = null;
      } else if (this.key && this.key.length <= KEY.length) this.key.push(b);
      return;
    }
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) return;
    if (!this.started) {
      if (pos < 3 && (b === 0xef || b === 0xbb || b === 0xbf)) return; // a UTF-8 byte order mark
      this.started = true;
      if (b === OPEN_ARR) this.found = pos + 1;
      else if (b === OPEN_OBJ) this.depth = 1;
      else this.failed = true;
      return;
    }
    if (b === QUOTE) {
      this.inString = true;
      // At the root a string is a key (or a value, which a ':' never follows).
      this.key = this.depth === 1 ? [] : null;
      return;
    }
    if (this.depth === 1 && b === COLON) {
      this.member = this.lastKey;
      return;
    }
    if (b === OPEN_OBJ || b === OPEN_ARR) {
      if (this.depth === 1 && b === OPEN_ARR && this.member === 'traceEvents') {
        this.found = pos + 1;
        return;
      }
      this.depth++;
      return;
    }
    if (b === CLOSE_OBJ || b === CLOSE_ARR) {
      this.depth--;
      if (this.depth <= 0) this.failed = true;
      return;
    }
    if (this.depth === 1 && b === 0x2c) this.member = '';
  }
}

/** The first byte after `from` in `bytes` that is not JSON whitespace (-1: none). */
function firstNonSpace(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return b;
  }
  return -1;
}

const COMMA = new Uint8Array([0x2c]);

function noEventArray(): Error {
  return new Error('The trace has no traceEvents array to add the counter tracks to.');
}

/** `events` spliced into one buffer of a trace (a window the core cut out, or a decompressed file). */
export function spliceInto(trace: Uint8Array, events: Uint8Array): ArrayBuffer {
  const f = new TraceEventsFinder();
  const at = f.push(trace);
  if (at == null) throw noEventArray();
  const empty = firstNonSpace(trace, at) === CLOSE_ARR;
  const out = new Uint8Array(trace.length + events.length + (empty ? 0 : 1));
  out.set(trace.subarray(0, at), 0);
  out.set(events, at);
  if (!empty) out[at + events.length] = COMMA[0];
  out.set(trace.subarray(at), at + events.length + (empty ? 0 : 1));
  return out.buffer;
}

/** Reads a stream to its end, as chunks. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * The whole file with `events` spliced in, as the buffer to post to Perfetto. A plain file: only
 * its head is read to find the array (a Blob of the File's two slices around the events, read once
 * into the buffer); a gzipped one: decompressed, then spliced.
 */
export async function fileWithCounters(file: Blob, events: Uint8Array): Promise<ArrayBuffer> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  if (isGzip(head)) {
    const plain = concat(await readAll(file.stream().pipeThrough(new DecompressionStream('gzip'))));
    return spliceInto(plain, events);
  }
  const f = new TraceEventsFinder();
  const reader = file.stream().getReader();
  // The byte after the array's '[' that is not whitespace: a ']' (an empty array) takes no comma.
  let next = -1;
  try {
    for (let pos = 0; ; ) {
      const { done, value } = await reader.read();
      if (done) break;
      if (f.found < 0) f.push(value);
      if (f.failed) break;
      if (f.found >= 0) {
        next = firstNonSpace(value, Math.max(0, f.found - pos));
        if (next >= 0) break;
      }
      pos += value.length;
    }
  } finally {
    void reader.cancel();
  }
  if (f.found < 0) throw noEventArray();
  const parts: BlobPart[] = [file.slice(0, f.found), events as BlobPart];
  if (next !== CLOSE_ARR) parts.push(COMMA as BlobPart);
  parts.push(file.slice(f.found));
  return new Blob(parts).arrayBuffer();
}
