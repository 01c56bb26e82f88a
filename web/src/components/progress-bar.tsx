import { formatBytes, formatEta, formatRate } from '../lib/format';
import { progressStats } from '../lib/progress';
import type { LoadProgress } from '../worker/protocol';

interface Props {
  fileName: string;
  /** Files waiting after this one. */
  queued: number;
  progress: LoadProgress | null;
  totalBytes: number;
  onCancel(): void;
}

export function ProgressBar({ fileName, queued, progress, totalBytes, onCancel }: Props) {
  const p = progress ?? { bytesRead: 0, totalBytes, decodedBytes: 0, elapsedMs: 0 };
  const s = progressStats(p);
  const pct = Math.round(s.fraction * 100);
  return (
    <section class="progress" data-testid="progress" aria-live="polite">
      <div class="progress-head">
        <span>
          Loading <strong>{fileName}</strong>
          {queued > 0 ? ` (${queued} more waiting)` : ''}
        </span>
        <button type="button" onClick={onCancel} data-testid="cancel">
          Cancel
        </button>
      </div>
      <div
        class="bar"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-label={`Loading ${fileName}`}
      >
        <div class="bar-fill" style={{ width: `${pct}%` }} />
      </div>
      <div class="progress-stats muted">
        <span data-testid="progress-bytes">
          {formatBytes(p.bytesRead)} of {formatBytes(p.totalBytes)} ({pct}%)
        </span>
        <span data-testid="progress-rate">{formatRate(s.bytesPerSecond)}</span>
        <span data-testid="progress-eta">{formatEta(s.secondsLeft)} left</span>
      </div>
    </section>
  );
}
