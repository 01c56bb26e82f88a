// A view's answer built from rows written by hand in the shape of its --json (docs/contracts.md),
// as the core builds it: typed columns by the generated schema, each string once.
import * as views from '../../web/src/generated/views';
import { NULL_I32, NULL_STRING, TRI_UNKNOWN, type Answer, type ColumnSpec, type ViewName } from '../../web/src/generated/views';
import type { WireAnswer } from '../../web/src/lib/answer';

/** A view's generated columns ("operator_detail" → OPERATOR_DETAIL_COLUMNS, "gpu-time" → GPU_TIME_COLUMNS). */
const schemaOf = (view: ViewName): readonly ColumnSpec[] =>
  (views as unknown as Record<string, readonly ColumnSpec[]>)[`${view.toUpperCase().replaceAll('-', '_')}_COLUMNS`];

type Row = Record<string, unknown>;

export function answerOf<V extends ViewName>(view: V, json: { rows: Row[] } & Record<string, unknown>): Answer<V> {
  const { rows, ...meta } = json;
  const strings: string[] = [];
  const ids = new Map<string, number>();
  const intern = (s: string) => {
    if (!ids.has(s)) {
      ids.set(s, strings.length);
      strings.push(s);
    }
    return ids.get(s)!;
  };
  const columns: Record<string, ArrayBufferView> = {};
  const ends: Record<string, Uint32Array> = {};
  const absent: string[] = [];
  const n = rows.length;
  for (const spec of schemaOf(view)) {
    if (n > 0 && !(spec.name in rows[0]) && spec.optional) continue; // a grouping's own column
    if (n > 0 && rows.every((r) => r[spec.name] == null)) absent.push(spec.name);
    const v = (i: number) => rows[i][spec.name];
    switch (spec.type) {
      case 'f64':
      case 'count':
        columns[spec.name] = Float64Array.from({ length: n }, (_, i) => (v(i) == null ? NaN : (v(i) as number)));
        break;
      case 'i32':
        columns[spec.name] = Int32Array.from({ length: n }, (_, i) => (v(i) == null ? NULL_I32 : (v(i) as number)));
        break;
      case 'i32x3': {
        const out = new Int32Array(3 * n);
        for (let i = 0; i < n; i++) out.set((v(i) as number[] | null) ?? [NULL_I32, 0, 0], 3 * i);
        columns[spec.name] = out;
        break;
      }
      case 'string':
        columns[spec.name] = Uint32Array.from({ length: n }, (_, i) => (v(i) == null ? NULL_STRING : intern(v(i) as string)));
        break;
      case 'tri':
        columns[spec.name] = Uint8Array.from({ length: n }, (_, i) => (v(i) == null ? TRI_UNKNOWN : v(i) ? 1 : 0));
        break;
      case 'bool':
        columns[spec.name] = Uint8Array.from({ length: n }, (_, i) => (v(i) ? 1 : 0));
        break;
      case 'f64pairs': {
        const pairs = rows.map((_, i) => (v(i) as [number, number][] | null) ?? []);
        columns[spec.name] = Float64Array.from(pairs.flat(2));
        let at = 0;
        ends[spec.name] = Uint32Array.from(pairs, (p) => (at += p.length));
        break;
      }
    }
  }
  return { view, rowCount: n, columns: columns as unknown as Answer<V>['columns'], ends, absent, strings, meta: meta as unknown as Answer<V>['meta'] };
}

/** The same answer as the wasm Session.query gives it (strings as UTF-8, each followed by a 0). */
export function wireOf<V extends ViewName>(a: Answer<V>, error = ''): WireAnswer {
  const enc = new TextEncoder();
  const parts = a.strings.map((s) => enc.encode(s));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length + 1, 0));
  const ends = new Uint32Array(parts.length);
  let at = 0;
  parts.forEach((p, i) => {
    bytes.set(p, at);
    at += p.length;
    ends[i] = at++;
  });
  return {
    view: a.view,
    error,
    rowCount: a.rowCount,
    columns: a.columns as unknown as WireAnswer['columns'],
    ends: a.ends,
    absent: a.absent,
    stringBytes: bytes,
    stringEnds: ends,
    stringCount: a.strings.length,
    meta: JSON.stringify(a.meta),
  };
}

/** A summary view's wire answer: a trace with `events` events and the fields given, no health rows. */
export function summaryWire(meta: Record<string, unknown> = {}): WireAnswer {
  const base = { file: '', ok: true, error: '', format: 'object', schema: null, events: 0, categories: {}, phases: {}, kinds: {}, devices: [], accelerator: 'none', distributed: null, start_us: 0, end_us: 0, span_us: 0, bytes: 0, model_bytes: 0, truncated: false };
  return wireOf(answerOf('summary', { ...base, ...meta, rows: [] }));
}
