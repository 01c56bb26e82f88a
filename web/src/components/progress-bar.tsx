import { formatBytes, formatEta, formatRate } from '../lib/format';
import { progressStats } from '../lib/progress';
import type { LoadProgress } from '../worker/protocol';

interface Props {
  fileName: string;
  /** Files waiting after this one. */
  queued: number;
  progress: LoadProgress | null;
  /** null: not known yet (a download before its answer, or without Content-Length). */
  totalBytes: number | null;
  /**
   * How long nothing has moved (worker/load-watch.ts), or null: then no rate and no time left are
   * shown, since neither is true of a load that stopped.
   */
  stillMs?: number | null;
  onCancel(): void;
}

export function ProgressBar({ fileName, queued, progress, totalBytes, stillMs = null, onCancel }: Props) {
  const p = progress ?? { bytesRead: 0, totalBytes, decodedBytes: 0, elapsedMs: 0 };
  const s = progressStats(p);
  // Without a total (a download without Content-Length) the bar cannot fill: it only shows that
  // bytes are coming, and the text says how many so far.
  const pct = s.fraction == null ? null : Math.round(s.fraction * 100);
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
        class={pct == null ? 'bar unknown' : 'bar'}
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? undefined}
        aria-label={`Loading ${fileName}`}
        data-read={p.bytesRead}
        data-total={p.totalBytes ?? undefined}
      >
        <div class="bar-fill" style={{ transform: pct == null ? undefined : `scaleX(${pct / 100})` }} />
      </div>
      <div class="progress-stats muted">
        <span data-testid="progress-bytes">
          {pct == null ? `${formatBytes(p.bytesRead)} so far` : `${formatBytes(p.bytesRead)} of ${formatBytes(p.totalBytes)} (${pct}%)`}
        </span>
        {stillMs != null ? (
          <span data-testid="progress-still" class="progress-still">
            nothing has come for {Math.floor(stillMs / 1000)} s
          </span>
        ) : (
          <>
            <span data-testid="progress-rate">{formatRate(s.bytesPerSecond)}</span>
            {pct != null && <span data-testid="progress-eta">{formatEta(s.secondsLeft)} left</span>}
          </>
        )}
      </div>
    </section>
  );
}
