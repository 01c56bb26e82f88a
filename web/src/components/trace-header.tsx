// The compact header of the trace shown: its file and place (run, worker, span), then one line of
// what it is (events, duration, GPUs, distributed rank and world size) and a health badge that
// opens the health table. Everything else about the file is in the Trace tab.
import { useEffect, useRef, useState } from 'preact/hooks';
import { HealthTable } from './health-table';
import { healthLevel } from './run-nav';
import { formatBytes, formatCount, formatDurationUs } from '../lib/format';
import type { GpuMetrics } from '../lib/overview';
import type { Summary } from '../lib/summary';
import { describeLabel, type TraceLabel } from '../lib/trace-names';

/** "8 × NVIDIA A100-SXM4-80GB", "2 GPUs (4 in the trace)", "CPU only" — what ran the trace. */
export function gpusLine(summary: Summary, gpus: GpuMetrics | null | undefined): string {
  const devices = summary.devices ?? [];
  const used = gpus?.gpus?.length ?? null; // GPUs with kernels, once the overview is in
  const names = [...new Set(devices.map((d) => (d.arch ? `${d.name} (${d.arch})` : d.name)).filter(Boolean))];
  if (!devices.length) {
    if (used) return `${used} GPU${used === 1 ? '' : 's'} with kernels`;
    return (summary.kinds?.kernel ?? 0) > 0 ? 'GPU kernels, no device properties' : 'CPU only';
  }
  const what = names.length === 1 ? names[0] : `${names.length} kinds`;
  if (used != null && used < devices.length) return `${used} of ${devices.length} GPUs ran kernels · ${what}`;
  return `${devices.length} × ${what}`;
}

/** "rank 3 of 8 · nccl"; null when the trace is not distributed. */
export function distributedLine(summary: Summary): string | null {
  const d = summary.distributed;
  if (!d) return null;
  const parts = [d.world_size > 0 ? `rank ${d.rank} of ${d.world_size}` : `rank ${d.rank}`];
  if (d.backend) parts.push(d.backend);
  return parts.join(' · ');
}

export function TraceHeader({
  name,
  size,
  label,
  url,
  summary,
  gpus,
  status,
  onClose,
  onShowTrace,
}: {
  name: string;
  size: number | null;
  label?: TraceLabel | null;
  url?: string;
  summary?: Summary;
  gpus?: GpuMetrics | null;
  status: string;
  onClose: () => void;
  /** Opens the Trace tab (where the health table also is). */
  onShowTrace?: () => void;
}) {
  const [healthOpen, setHealthOpen] = useState(false);
  const pop = useRef<HTMLDivElement>(null);
  // The popover closes on a click elsewhere or Esc, like any menu.
  useEffect(() => {
    if (!healthOpen) return;
    const onDown = (e: Event) => {
      if (pop.current && !pop.current.contains(e.target as Node)) setHealthOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setHealthOpen(false);
    document.addEventListener('pointerdown', onDown, true);
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('pointerdown', onDown, true);
      document.removeEventListener('keydown', onKey, true);
    };
  }, [healthOpen]);

  const ok = summary?.ok;
  const health = summary?.health ?? [];
  const level = healthLevel(health);
  const counted = health.filter((h) => h.severity === level).reduce((n, h) => n + h.count, 0);
  const badge =
    level === 'ok' ? 'Healthy' : level === 'info' ? 'Healthy (notes)' : `${formatCount(counted)} ${level}${counted === 1 ? '' : 's'}`;
  const dist = summary && ok ? distributedLine(summary) : null;
  const sizeText = size != null ? formatBytes(size) : status === 'queued' || status === 'loading' ? 'size not known yet' : '';
  const statusText = status === 'queued' ? 'waiting' : status === 'loading' ? 'loading…' : status === 'cancelled' ? 'cancelled' : '';

  return (
    <header class="trace-head" data-testid="trace-header">
      <div class="trace-title">
        <h2 data-testid="file-name" title={name}>
          {name}
        </h2>
        {label && (
          <span class="muted card-label" data-testid="file-label" data-run={label.run} data-worker={label.worker} data-span={label.spanRank || ''}>
            {describeLabel(label)}
          </span>
        )}
        <span class="muted card-head" data-testid="file-size">
          {[sizeText, statusText].filter(Boolean).join(' · ')}
        </span>
        <button type="button" class="card-close" data-testid="remove-file" aria-label={`Close ${name}`} title="Close this trace" onClick={onClose}>
          ×
        </button>
      </div>
      {url && (
        <p class="muted card-label" data-testid="file-url">
          From {url}
        </p>
      )}
      {summary && ok && (
        <dl class="trace-facts" data-testid="trace-facts">
          <div>
            <dt>Events</dt>
            <dd data-testid="header-events">{formatCount(summary.events)}</dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd data-testid="header-duration">{summary.span_us == null ? '—' : formatDurationUs(summary.span_us)}</dd>
          </div>
          <div>
            <dt>Devices</dt>
            <dd data-testid="header-gpus">{gpusLine(summary, gpus)}</dd>
          </div>
          <div>
            <dt>Distributed</dt>
            <dd data-testid="header-distributed">{dist ?? 'no'}</dd>
          </div>
          <div class="health-badge-wrap" ref={pop}>
            <dt>Trace health</dt>
            <dd>
              <button
                type="button"
                class={`health-badge level-${level}`}
                data-testid="health-badge"
                data-level={level}
                aria-expanded={healthOpen ? 'true' : 'false'}
                aria-haspopup="dialog"
                onClick={() => setHealthOpen((o) => !o)}
              >
                {level === 'warning' || level === 'error' ? '⚠ ' : '✓ '}
                {badge}
              </button>
            </dd>
            {healthOpen && (
              <div class="health-pop" role="dialog" aria-label="Trace health" data-testid="health-pop">
                {summary.truncated ? (
                  <p class="warn" data-testid="health-pop-truncated">
                    The trace is cut off: everything complete before the cut was loaded.
                  </p>
                ) : null}
                <HealthTable rows={health} />
                {onShowTrace && (
                  <button
                    type="button"
                    class="link-button"
                    onClick={() => {
                      setHealthOpen(false);
                      onShowTrace();
                    }}
                  >
                    All about this file in the Trace tab
                  </button>
                )}
              </div>
            )}
          </div>
        </dl>
      )}
    </header>
  );
}
