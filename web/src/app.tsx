import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DropZone } from './components/drop-zone';
import { ErrorBoundary } from './components/error-boundary';
import { ProgressBar } from './components/progress-bar';
import { formatBytes } from './lib/format';
import type { Overview } from './lib/overview';
import type { Summary } from './lib/summary';
import { ABORT, TraceClient, type LoadProgress } from './worker/protocol';
import { OverviewView } from './views/overview-view';
import { SummaryView } from './views/summary-view';

type Status = 'queued' | 'loading' | 'done' | 'failed' | 'cancelled';

interface Entry {
  key: number;
  file: File;
  status: Status;
  summary?: Summary;
  overview?: Overview | null;
  error?: string;
}

let nextKey = 1;

function makeClient(): { client: TraceClient; worker: Worker } {
  const worker = new Worker(new URL('./worker/worker.ts', import.meta.url), { type: 'module' });
  return { client: new TraceClient(worker), worker };
}

export function App() {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [progress, setProgress] = useState<LoadProgress | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const queue = useRef<Entry[]>([]);
  const current = useRef<{ entry: Entry; callId: number } | null>(null);
  const running = useRef(false);
  const rpc = useRef<{ client: TraceClient; worker: Worker } | null>(null);

  const update = (key: number, patch: Partial<Entry>) =>
    setEntries((es) => es.map((e) => (e.key === key ? { ...e, ...patch } : e)));

  const client = (): TraceClient => {
    if (!rpc.current) {
      const r = makeClient();
      r.worker.addEventListener('error', (ev) => {
        // The worker itself died (e.g. the wasm could not load): fail the call, start afresh next time.
        ev.preventDefault();
        rpc.current = null;
        r.worker.terminate();
        r.client.failAll({ name: 'WorkerError', message: ev.message || 'The analysis worker stopped.' });
      });
      rpc.current = r;
    }
    return rpc.current.client;
  };

  const pump = async () => {
    if (running.current) return;
    running.current = true;
    try {
      while (queue.current.length) {
        const entry = queue.current.shift()!;
        update(entry.key, { status: 'loading' });
        setProgress(null);
        const call = client().load(entry.file, setProgress);
        current.current = { entry, callId: call.id };
        try {
          const { summary, overview } = await call.promise;
          update(entry.key, { status: summary.ok ? 'done' : 'failed', summary, overview });
        } catch (e) {
          const err = e as Error;
          if (err.name === ABORT) update(entry.key, { status: 'cancelled' });
          else update(entry.key, { status: 'failed', error: err.message || String(err) });
        }
        current.current = null;
      }
    } finally {
      running.current = false;
      setProgress(null);
    }
  };

  const addFiles = (files: File[]) => {
    setNotice(null);
    const fresh = files.map((file) => ({ key: nextKey++, file, status: 'queued' as Status }));
    queue.current.push(...fresh);
    setEntries((es) => [...fresh.slice().reverse(), ...es]);
    void pump();
  };

  const cancel = () => {
    const dropped = queue.current.splice(0);
    for (const e of dropped) update(e.key, { status: 'cancelled' });
    if (current.current) client().cancel(current.current.callId);
  };

  const openSample = async () => {
    try {
      const res = await fetch('./samples/rank-0.json.gz');
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const blob = await res.blob();
      addFiles([new File([blob], 'rank-0.json.gz')]);
    } catch (e) {
      setNotice(`The sample trace could not be fetched (${(e as Error).message}).`);
    }
  };

  useEffect(() => {
    const onRejection = (ev: PromiseRejectionEvent) =>
      setNotice(`Unexpected error: ${String((ev.reason as Error)?.message ?? ev.reason)}`);
    window.addEventListener('unhandledrejection', onRejection);
    return () => window.removeEventListener('unhandledrejection', onRejection);
  }, []);

  const loading = entries.find((e) => e.status === 'loading');
  const queuedCount = useMemo(() => entries.filter((e) => e.status === 'queued').length, [entries]);

  return (
    <>
      <header class="top">
        <h1>Kinetoscope</h1>
        <p class="muted">PyTorch profiler (Kineto) traces, analyzed in your browser.</p>
      </header>
      <main>
        <ErrorBoundary>
          <DropZone onFiles={addFiles} onSample={openSample} busy={!!loading} />
          {notice && (
            <p class="notice" role="alert" data-testid="notice">
              {notice}
            </p>
          )}
          {loading && (
            <ProgressBar
              fileName={loading.file.name}
              queued={queuedCount}
              totalBytes={loading.file.size}
              progress={progress}
              onCancel={cancel}
            />
          )}
          <div class="cards">
            {entries.map((e) => (
              <ErrorBoundary key={e.key}>
                <FileCard entry={e} />
              </ErrorBoundary>
            ))}
          </div>
        </ErrorBoundary>
      </main>
    </>
  );
}

function FileCard({ entry }: { entry: Entry }) {
  const label: Record<Status, string> = {
    queued: 'waiting',
    loading: 'loading…',
    done: '',
    failed: '',
    cancelled: 'cancelled',
  };
  return (
    <article class="card" data-testid="file-card" data-file={entry.file.name} data-status={entry.status}>
      <header class="card-head">
        <h2 data-testid="file-name">{entry.file.name}</h2>
        <span class="muted">
          {formatBytes(entry.file.size)}
          {label[entry.status] ? ` · ${label[entry.status]}` : ''}
        </span>
      </header>
      {entry.summary && <SummaryView summary={entry.summary} fileSize={entry.file.size} />}
      {entry.summary?.ok && entry.overview && (
        <ErrorBoundary>
          <OverviewView overview={entry.overview} summary={entry.summary} />
        </ErrorBoundary>
      )}
      {!entry.summary && entry.error && (
        <p class="file-error" data-testid="file-error" role="alert">
          {entry.error}
        </p>
      )}
      {entry.status === 'cancelled' && (
        <p class="muted" data-testid="file-cancelled">
          Loading was cancelled.
        </p>
      )}
    </article>
  );
}
