// A chunk source whose first chunk is read ahead, so that the load can tell what the file is by
// its first bytes (a trace's JSON or a memory snapshot's pickle: lib/pickle.ts) after any gzip
// was undone, whatever the file is called; then every chunk, the first included, is handed out
// as the source gives them. A failure of that first read is thrown at the first next().
import type { Chunk, ChunkSource } from './feeder';

export class PeekedSource implements ChunkSource {
  private ahead: Promise<Chunk | null> | null = null;
  private taken = false;
  constructor(private readonly source: ChunkSource) {}

  /** The first chunk's first bytes (empty for an empty input or a failed read). */
  async head(n = 8): Promise<Uint8Array> {
    this.ahead ??= this.source.next();
    try {
      const first = await this.ahead;
      return first ? first.bytes.subarray(0, n) : new Uint8Array(0);
    } catch {
      return new Uint8Array(0);
    }
  }

  next(): Promise<Chunk | null> {
    if (!this.taken && this.ahead) {
      this.taken = true;
      return this.ahead;
    }
    this.taken = true;
    return this.source.next();
  }

  close(): void {
    this.source.close();
  }

  kept(): File | null {
    return this.source.kept();
  }

  debugStall(): void {
    this.source.debugStall?.();
  }
}
