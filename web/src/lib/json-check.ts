// Checked reads of the small JSON objects the core writes (Session.*Json). A shape mismatch (the
// core and the page out of step) fails with the path of the first bad field, never with a view
// that quietly shows "undefined".

export class ShapeError extends Error {
  constructor(what: string, path: string, expected: string, got: unknown) {
    super(`${what}: ${path} should be ${expected}, got ${describe(got)}`);
    this.name = 'ShapeError';
  }
}

/** What the core said when it could not answer (an unknown step or grouping): shown as it is. */
export class CoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoreError';
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `"${v.length > 40 ? v.slice(0, 40) + '…' : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/** Reads fields of one JSON value, naming `what` (e.g. "operatorsJson") and the path in errors. */
export class Reader {
  constructor(
    readonly what: string,
    readonly path: string,
    readonly value: unknown,
  ) {}

  static parse(what: string, json: string): Reader {
    let v: unknown;
    try {
      v = JSON.parse(json);
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e; // not the text's fault (e.g. out of memory)
      throw new ShapeError(what, '(root)', 'JSON', `unparsable text (${e.message})`);
    }
    // The core answers a question it cannot ({"error": "no step 9 (the steps are …)"}) this way.
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const error = (v as { error?: unknown }).error;
      if (keys.length === 1 && typeof error === 'string') throw new CoreError(error);
    }
    return new Reader(what, '', v).object();
  }

  private at(key: string | number): Reader {
    const o = this.value as Record<string | number, unknown>;
    const path = typeof key === 'number' ? `${this.path}[${key}]` : this.path ? `${this.path}.${key}` : key;
    return new Reader(this.what, path, o[key]);
  }

  private fail(expected: string): never {
    throw new ShapeError(this.what, this.path || '(root)', expected, this.value);
  }

  object(): Reader {
    if (this.value === null || typeof this.value !== 'object' || Array.isArray(this.value)) this.fail('an object');
    return this;
  }

  field(key: string): Reader {
    return this.at(key);
  }

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.value, key);
  }

  isNull(): boolean {
    return this.value === null || this.value === undefined;
  }

  items(): Reader[] {
    if (!Array.isArray(this.value)) this.fail('an array');
    const out: Reader[] = new Array((this.value as unknown[]).length);
    for (let i = 0; i < out.length; i++) out[i] = this.at(i);
    return out;
  }

  num(key: string): number {
    const r = this.at(key);
    if (typeof r.value !== 'number' || !Number.isFinite(r.value)) r.fail('a number');
    return r.value as number;
  }

  /** A number or null (missing counts as null); null becomes NaN, the tables' "no value". */
  numOrNaN(key: string): number {
    const r = this.at(key);
    if (r.value == null) return NaN;
    if (typeof r.value !== 'number' || !Number.isFinite(r.value)) r.fail('a number or null');
    return r.value as number;
  }

  numOrNull(key: string): number | null {
    const v = this.numOrNaN(key);
    return Number.isNaN(v) ? null : v;
  }

  str(key: string): string {
    const r = this.at(key);
    if (typeof r.value !== 'string') r.fail('a string');
    return r.value as string;
  }

  strOrNull(key: string): string | null {
    const r = this.at(key);
    if (r.value == null) return null;
    if (typeof r.value !== 'string') r.fail('a string or null');
    return r.value as string;
  }

  bool(key: string): boolean {
    const r = this.at(key);
    if (typeof r.value !== 'boolean') r.fail('true or false');
    return r.value as boolean;
  }

  /** true/false/null as 1/0/2, for a Uint8Array column. */
  tri(key: string): number {
    const r = this.at(key);
    if (r.value == null) return TRI_NULL;
    if (typeof r.value !== 'boolean') r.fail('true, false or null');
    return r.value ? 1 : 0;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T {
    const v = this.str(key);
    if (!(allowed as readonly string[]).includes(v)) this.at(key).fail(`one of ${allowed.join(', ')}`);
    return v as T;
  }

  /** An array of exactly `n` numbers, or null. */
  tupleOrNull(key: string, n: number): number[] | null {
    const r = this.at(key);
    if (r.value == null) return null;
    if (!Array.isArray(r.value) || r.value.length !== n || !r.value.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      r.fail(`an array of ${n} numbers or null`);
    }
    return r.value as number[];
  }
}

/** The null of a true/false/null column stored as a Uint8Array. */
export const TRI_NULL = 2;

/** Keys made unique: a repeated key gets " #2", " #3"… (the core should never repeat one). */
export function uniqueKeys(keys: string[]): string[] {
  const seen = new Map<string, number>();
  return keys.map((k) => {
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return n === 1 ? k : `${k} #${n}`;
  });
}
