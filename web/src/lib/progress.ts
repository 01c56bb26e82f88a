// Progress maths for the loading bar. Rates are measured on compressed bytes read vs file size,
// because that is what we know the total of before decompression ends. A download may have no
// known total (no Content-Length): then there is a rate but no fraction and no time left.

export interface ProgressSample {
  bytesRead: number;
  /** null: not known (a download without Content-Length). */
  totalBytes: number | null;
  elapsedMs: number;
}

export interface ProgressStats {
  fraction: number | null; // 0..1; null when the total is not known
  bytesPerSecond: number | null; // null until enough time has passed to be meaningful
  secondsLeft: number | null;
}

const MIN_ELAPSED_MS = 50;

export function progressStats(p: ProgressSample): ProgressStats {
  const total = p.totalBytes;
  const fraction = total == null ? null : total > 0 ? Math.min(1, Math.max(0, p.bytesRead / total)) : 0;
  if (p.elapsedMs < MIN_ELAPSED_MS || p.bytesRead <= 0) {
    return { fraction, bytesPerSecond: null, secondsLeft: null };
  }
  const bytesPerSecond = (p.bytesRead * 1000) / p.elapsedMs;
  const secondsLeft = total == null ? null : Math.max(0, total - p.bytesRead) / bytesPerSecond;
  return { fraction, bytesPerSecond, secondsLeft };
}

/** Rate limiter for progress messages: at most one per `intervalMs` (the worker posts reading progress every 250 ms). */
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
