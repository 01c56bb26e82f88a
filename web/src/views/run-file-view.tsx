// The run page of a run file (`*.kinetoscope-run.json`, written by kinetoscope-fleet): a run of
// any number of ranks reduced on a cluster, shown without loading any trace — the Distributed
// view (lib/run-file.ts reads the same JSON `kinetoscope distributed --json` prints), the GPU
// time per rank and the step table, and the ranks as the fleet listed them (failed ones with their
// error). A rank's row opens its trace by its URL when the run file records one the browser can
// fetch, else says where the trace is and how to open it.
import { useMemo, useState } from 'preact/hooks';
import { DataTable } from '../components/data-table';
import { csvStem } from '../lib/download';
import { formatCount } from '../lib/format';
import { rankTraceLink, type RunFile, type RunFileRank } from '../lib/run-file';
import { rowsModel, type RowKey } from '../lib/table-model';
import { DistributedBody, SpanStepPicks } from './distributed-view';
import './distributed-view.css';

type Columns<R> = Parameters<typeof rowsModel<R>>[2];

const RANK_COLUMNS: Columns<RunFileRank> = [
  { id: 'rank', label: 'Rank', type: 'number', unit: 'count', width: 70, get: (r) => r.rank ?? NaN },
  { id: 'status', label: 'Status', type: 'text', width: 80, get: (r) => r.status },
  { id: 'file', label: 'Trace', type: 'text', grow: 3, get: (r) => r.file },
  { id: 'error', label: 'Error or what was lost', header: 'Error', type: 'text', grow: 2, get: (r) => r.error ?? '' },
  { id: 'steps', label: 'Steps', type: 'number', unit: 'count', width: 70, get: (r) => r.steps ?? NaN },
  { id: 'calls', label: 'Collective calls', header: 'Calls', type: 'number', unit: 'count', width: 80, get: (r) => r.calls ?? NaN },
  { id: 'bytes_read', label: 'Bytes read', header: 'Read', type: 'number', unit: 'bytes', width: 90, get: (r) => r.bytesRead ?? NaN },
  { id: 'seconds', label: 'Map time (s)', header: 'Map s', type: 'number', width: 80, get: (r) => r.seconds ?? NaN, format: (v) => (Number.isFinite(v as number) ? (v as number).toFixed(2) : '—') },
];

export function RunFilePage({
  run,
  onOpenUrl,
  onClose,
  step,
  onStep,
}: {
  run: RunFile;
  /** Opens a rank's trace by its URL (as a pasted URL: at once on the site's origin, else through ?url=). */
  onOpenUrl: (url: string) => void;
  onClose: () => void;
  step: string | null;
  onStep: (step: string | null) => void;
}) {
  const [spanIdx, setSpanIdx] = useState(0);
  const view = run.views[Math.min(spanIdx, Math.max(0, run.views.length - 1))] ?? null;
  const steps = view?.steps ?? [];
  const stepKey = step != null && steps.includes(step) ? step : 'all';
  const failed = useMemo(() => run.ranks.filter((r) => r.status === 'failed'), [run]);
  const partial = run.ranks.filter((r) => r.status === 'partial').length;
  const model = useMemo(() => rowsModel(run.ranks, (_r, i) => i, RANK_COLUMNS), [run]);
  const [picked, setPicked] = useState<number | null>(null);
  const pickedRank = picked != null ? run.ranks[picked] : null;
  const link = pickedRank ? rankTraceLink(pickedRank.file, location.href) : null;
  const label = (r: RunFileRank) => (r.rank != null ? `rank ${r.rank}` : r.file.split('/').pop() || r.file);

  return (
    <section class="run-page card" data-testid="run-page" data-run={run.name} data-state="run-file" aria-label={`Run file ${run.name}`}>
      <header class="run-head">
        <div>
          <h2 class="run-title">{run.name}</h2>
          <p class="muted run-sub" data-testid="run-counts">
            Run file: {formatCount(run.ranks.length)} rank{run.ranks.length === 1 ? '' : 's'}
            {failed.length ? ` · ${formatCount(failed.length)} failed (left out)` : ''}
            {partial ? ` · ${formatCount(partial)} partial` : ''}
            {run.mode === 'tb_plugin' ? " · tb_plugin's reading" : ''}
            {run.version ? ` · reduced by ${run.version}` : ''}
          </p>
        </div>
        <div class="run-controls">
          {view && <SpanStepPicks spans={run.views.map((v) => v.span)} spanIdx={spanIdx} onSpan={setSpanIdx} steps={steps} stepKey={stepKey} onStep={onStep} />}
          <button type="button" data-testid="run-file-close" onClick={onClose}>
            Close run file
          </button>
        </div>
      </header>
      {run.reduceError && (
        <div class="notice notice-error" role="alert">
          <span class="notice-icon" aria-hidden="true">⚠</span>
          <p data-testid="run-reduce-error">The run could not be reduced: {run.reduceError}</p>
        </div>
      )}
      {failed.length > 0 && (
        <div class="notice notice-error" data-testid="run-failed">
          <span class="notice-icon" aria-hidden="true">⚠</span>
          <div>
            <p>
              {formatCount(failed.length)} rank{failed.length === 1 ? '' : 's'} could not be read and {failed.length === 1 ? 'is' : 'are'} left out of the views below:
            </p>
            <ul>
              {failed.slice(0, 10).map((r, i) => (
                <li key={i} data-testid="run-failed-rank">
                  <strong>{label(r)}</strong> ({r.file}): {r.error ?? 'no reason recorded'}
                </li>
              ))}
            </ul>
            {failed.length > 10 && <p class="muted">…and {formatCount(failed.length - 10)} more: search “failed” in the ranks table.</p>}
          </div>
        </div>
      )}
      <section class="ov-panel" data-testid="run-ranks">
        <h4>Ranks</h4>
        <p class="muted">Pick a rank to open its trace.</p>
        <DataTable
          model={model}
          stem="run-ranks"
          label="Ranks of the run"
          csvName={`${csvStem(run.name)}-ranks.csv`}
          searchPlaceholder="Search traces, statuses and errors"
          emptyText="No rank."
          maxHeight={300}
          initialSort={{ column: 'rank', dir: 'asc' }}
          onSelect={(k: RowKey | null) => setPicked(k == null ? null : Number(k))}
        />
        {pickedRank && link && (
          <p class="run-rank-open" data-testid="run-rank-open">
            {'url' in link ? (
              <>
                <button type="button" data-testid="run-rank-open-button" onClick={() => onOpenUrl(link.url)}>
                  Open {label(pickedRank)}'s trace
                </button>{' '}
                <span class="muted">from {link.url}</span>
              </>
            ) : (
              <span data-testid="run-rank-how">{link.how}</span>
            )}
          </p>
        )}
      </section>
      <h3 class="run-view-title">Distributed</h3>
      {!view && <p class="muted">No rank of this run could be reduced.</p>}
      {view && <DistributedBody view={view} stepKey={stepKey} run={run.name} />}
    </section>
  );
}
