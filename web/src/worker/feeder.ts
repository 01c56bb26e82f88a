// Moves stream chunks into the wasm Session in pieces of at most 4 MB.
// Reader chunks are small (64 KB from file.stream(), less from DecompressionStream) and one simdjson
// iterate per commit is cheapest on big pieces, so small chunks are gathered in a staging buffer;
// big chunks are split. The bytes stay bytes: nothing here decodes them to a string.

export const MAX_CHUNK = 4 * 1024 * 1024;

export interface SessionLike {
  prepare(n: number): number;
  commit(n: number): void;
  failed(): boolean;
}

export interface HeapOwner {
  HEAPU8: Uint8Array;
}

export class ChunkFeeder {
  private readonly staging: Uint8Array;
  private filled = 0;
  /** JSON bytes handed to the core so far. */
  fed = 0;
  /** True once the core said the input is certainly not a trace: the caller stops reading. */
  stopped = false;

  constructor(
    private readonly mod: HeapOwner,
    private readonly session: SessionLike,
    readonly maxChunk: number = MAX_CHUNK,
  ) {
    this.staging = new Uint8Array(maxChunk);
  }

  push(bytes: Uint8Array): void {
    let off = 0;
    while (off < bytes.length && !this.stopped) {
      const n = Math.min(bytes.length - off, this.maxChunk - this.filled);
      this.staging.set(bytes.subarray(off, off + n), this.filled);
      this.filled += n;
      off += n;
      if (this.filled === this.maxChunk) this.flush();
    }
  }

  flush(): void {
    if (this.filled === 0 || this.stopped) return;
    const n = this.filled;
    const at = this.session.prepare(n);
    // prepare may grow memory, which replaces the HEAPU8 view: read it only now.
    this.mod.HEAPU8.set(this.staging.subarray(0, n), at);
    this.session.commit(n);
    this.fed += n;
    this.filled = 0;
    if (this.session.failed()) this.stopped = true;
  }
}
