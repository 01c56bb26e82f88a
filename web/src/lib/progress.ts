// Progress maths for the loading bar. Rates are measured on compressed bytes read vs file size,
// because that is what we know the total of before decompression ends.

export interface ProgressSample {
  bytesRead: number;
  totalBytes: number;
  elapsedMs: number;
}

export interface ProgressStats {
  fraction: number; // 0..1
  bytesPerSecond: number | null; // null until enough time has passed to be meaningful
  secondsLeft: number | null;
}

const MIN_ELAPSED_MS = 50;

export function progressStats(p: ProgressSample): ProgressStats {
  const fraction = p.totalBytes > 0 ? Math.min(1, Math.max(0, p.bytesRead / p.totalBytes)) : 0;
  if (p.elapsedMs < MIN_ELAPSED_MS || p.bytesRead <= 0) {
    return { fraction, bytesPerSecond: null, secondsLeft: null };
  }
  const bytesPerSecond = (p.bytesRead * 1000) / p.elapsedMs;
  const left = Math.max(0, p.totalBytes - p.bytesRead);
  return { fraction, bytesPerSecond, secondsLeft: left / bytesPerSecond };
}

/** Rate limiter for progress messages: at most one per `intervalMs` (100 ms = ~10 per second). */
export class Throttle {
  private last = -Infinity;
  constructor(private readonly intervalMs: number) {}
  ready(nowMs: number): boolean {
    if (nowMs - this.last >= this.intervalMs) {
      this.last = nowMs;
      return true;
    }
    return false;
  }
}
