// A view's answer (docs/contracts.md "Session and answers"): the core's columns as typed arrays,
// its strings, and a small metadata object. The worker hands the page the wasm Session.query
// result as it is (`WireAnswer`), its buffers transferred, not copied; the page opens it here:
// the strings decoded in one pass, the metadata read. No row is ever JSON.
import type { Answer, ViewName } from '../generated/views';
import { CoreError } from './json-check';

/** The answer as the wasm Session.query gives it and the worker passes it on (docs/contracts.md "Session and answers"). */
export interface WireAnswer {
  view: string;
  /** "" or the core's sentence (an unknown step, a bad parameter). */
  error: string;
  rowCount: number;
  columns: Record<string, Float64Array | Int32Array | Uint32Array | Uint8Array>;
  /** Where each row's pairs end (in pairs), for each f64pairs column. */
  ends: Record<string, Uint32Array>;
  /** The columns without a value in this answer (their cells are null). */
  absent: string[];
  /** The answer's strings in UTF-8, each followed by a 0 byte. */
  stringBytes: Uint8Array;
  /** Where each string's 0 byte is. */
  stringEnds: Uint32Array;
  stringCount: number;
  /** The metadata object as JSON (a few fields; never rows). */
  meta: string;
}

/** The buffers of a wire answer, to transfer them from the worker. */
export function answerTransferables(w: WireAnswer): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>([w.stringBytes.buffer as ArrayBuffer, w.stringEnds.buffer as ArrayBuffer]);
  for (const c of Object.values(w.columns)) out.add(c.buffer as ArrayBuffer);
  for (const e of Object.values(w.ends ?? {})) out.add(e.buffer as ArrayBuffer);
  return [...out];
}

/** The answer's strings: one decode of all the bytes, then split at the 0 bytes. */
export function decodeStrings(bytes: Uint8Array, ends: Uint32Array, count: number): string[] {
  if (count === 0) return [];
  const parts = new TextDecoder().decode(bytes).split('\0');
  if (parts.length === count + 1) return parts.slice(0, count);
  // A string holding a 0 itself (a \u0000 in the trace): decode each between its ends.
  const dec = new TextDecoder();
  const out: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    out.push(dec.decode(bytes.subarray(at, ends[i])));
    at = ends[i] + 1;
  }
  return out;
}

/** The page's form of a wire answer; the core's error sentence is thrown as a CoreError. */
export function openAnswer<V extends ViewName>(view: V, w: WireAnswer): Answer<V> {
  if (w.error) throw new CoreError(w.error);
  if (w.view !== view) throw new CoreError(`expected the ${view} view's answer, got ${w.view}'s`);
  return {
    view,
    rowCount: w.rowCount,
    columns: w.columns as unknown as Answer<V>['columns'],
    ends: w.ends ?? {},
    absent: w.absent,
    strings: decodeStrings(w.stringBytes, w.stringEnds, w.stringCount),
    meta: JSON.parse(w.meta) as Answer<V>['meta'],
  };
}

/** Row `row`'s pairs of an f64pairs column ([x, y] each), read from its values and `ends`. */
export function pairsOf(values: Float64Array, ends: Uint32Array | undefined, row: number): [number, number][] {
  if (!ends) return [];
  const out: [number, number][] = [];
  for (let p = row ? ends[row - 1] : 0; p < ends[row]; p++) out.push([values[2 * p], values[2 * p + 1]]);
  return out;
}

/** A string column's values (null where the core has none). */
export function stringColumn(ids: Uint32Array, strings: string[]): (string | null)[] {
  const out = new Array<string | null>(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = ids[i] === 0xffffffff ? null : strings[ids[i]];
  return out;
}
