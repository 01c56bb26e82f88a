import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DropZone } from './components/drop-zone';
import { ErrorBoundary } from './components/error-boundary';
import { FileCard, goneError, readLink, type Entry, type Link, type RunQuery, type Runner } from './components/file-card';
import { ProgressBar } from './components/progress-bar';
import { ShortcutsHelp } from './components/shortcuts-help';
import type { Dropped } from './lib/folder';
import { fetchTrace } from './lib/fetch-trace';
import { formatBytes } from './lib/format';
import { onLaunchFiles } from './lib/launch-queue';
import { shortcutFor, takesText, type Shortcut } from './lib/shortcuts';
import type { Summary } from './lib/summary';
import { planOpen, type TraceLabel } from './lib/trace-names';
import { linkWithTraceUrl, sameOrigin, traceNameOf, traceUrlsOf } from './lib/trace-url';
import type { TrimFn } from './views/timeline-view';
import { ABORT, SESSION_GONE, TraceClient, TRAP, type Call, type LoadProgress, type LoadResult } from './worker/protocol';


let nextKey = 1;

/** The load under way: its call, once started, and for a download the fetch to abort. */
interface Running {
  entry: Entry;
  callId: number | null;
  abort: AbortController | null;
  /** Bytes downloaded so far (a trace opened by URL). */
  received: number;
  /** Cancel or close was asked: a result that still comes is dropped. */
  cancelled: boolean;
}

function makeClient(): { client: TraceClient; worker: Worker } {
  const worker = new Worker(new URL('./worker/worker.ts', import.meta.url), { type: 'module' });
  return { client: new TraceClient(worker), worker };
}

export function App() {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [progress, setProgress] = useState<LoadProgress | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const queue = useRef<Entry[]>([]);
  const current = useRef<Running | null>(null);
  const running = useRef(false);
  const rpc = useRef<{ client: TraceClient; worker: Worker } | null>(null);
  // Bumped each time the worker is replaced: Sessions of older generations are gone.
  const gen = useRef(0);

  const update = (key: number, patch: Partial<Entry>) =>
    setEntries((es) => es.map((e) => (e.key === key ? { ...e, ...patch } : e)));

  /** Ends the worker and every Session in it; the next call starts a fresh one. */
  const restart = (r: { client: TraceClient; worker: Worker }, name: string, message: string) => {
    if (rpc.current !== r) return;
    rpc.current = null;
    gen.current++;
    r.worker.terminate();
    r.client.failAll({ name, message });
  };

  const client = (): TraceClient => {
    if (!rpc.current) {
      const r = makeClient();
      r.worker.addEventListener('error', (ev) => {
        // The worker itself died (e.g. the wasm could not load): fail the call, start afresh next time.
        ev.preventDefault();
        restart(r, 'WorkerError', ev.message || 'The analysis worker stopped.');
      });
      rpc.current = r;
    }
    return rpc.current.client;
  };

  /**
   * A wasm trap leaves the module (and every Session in it) unusable: replace the worker. Views
   * of files loaded before then learn their Session is gone on their next query.
   */
  const afterTrap = (e: unknown) => {
    if ((e as Error)?.name === TRAP && rpc.current) {
      restart(rpc.current, SESSION_GONE, 'The analysis worker restarted after an error.');
    }
  };

  const runQuery: RunQuery = useCallback(async (session, g, q) => {
    if (g !== gen.current || !rpc.current) throw goneError();
    try {
      return await rpc.current.client.query(session, q).promise;
    } catch (e) {
      afterTrap(e);
      throw e;
    }
  }, []);

  // A trim reads the File again: it needs no Session, only a live worker.
  const runTrim: TrimFn = useCallback((file, startUs, endUs, onProgress) => {
    const c = client();
    const call = c.trim(file, startUs, endUs, onProgress);
    return {
      promise: call.promise.catch((e) => {
        afterTrap(e);
        throw e;
      }),
      cancel: () => c.cancel(call.id),
    };
    // client() and afterTrap read refs only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const runner = useMemo<Runner>(() => ({ query: runQuery, trim: runTrim }), [runQuery, runTrim]);

  /** The summary, ahead of the overview: the card shows it while the overview is computed. */
  const showSummary = (run: Running, summary: Summary) => {
    if (!run.cancelled && current.current === run) update(run.entry.key, { summary });
  };

  /** Stops the load under way: the worker's call, and a download's fetch. */
  const stop = (run: Running) => {
    run.cancelled = true;
    if (run.callId != null) client().cancel(run.callId);
    run.abort?.abort();
  };

  const remove = (entry: Entry) => {
    queue.current = queue.current.filter((e) => e.key !== entry.key);
    const run = current.current?.entry.key === entry.key ? current.current : null;
    if (run) stop(run);
    // A load still running frees its Session itself once it learns the file was closed.
    const session = run ? run.callId : entry.session;
    if (session != null && rpc.current && (entry.gen ?? gen.current) === gen.current) rpc.current.client.close(session);
    setEntries((es) => es.filter((e) => e.key !== entry.key));
  };

  /**
   * Downloads `run`'s URL into the worker: the page fetches it (the request its CSP checks) and
   * hands the body over as it arrives. The bar shows the bytes received here, which run ahead of
   * the worker's 4 MB chunks, with the worker's decoded bytes.
   */
  const download = async (run: Running, url: string): Promise<Call<LoadResult>> => {
    run.abort = new AbortController();
    const t0 = performance.now();
    let total: number | null = null;
    let fromWorker: LoadProgress | null = null;
    let timer = 0;
    const show = () => {
      timer = 0;
      if (current.current !== run) return; // a late tick of a load already over
      const bytesRead = Math.max(run.received, fromWorker?.bytesRead ?? 0);
      setProgress({
        bytesRead,
        // A Content-Length below what came is the compressed size of a body the browser decoded.
        totalBytes: total != null && bytesRead <= total ? total : null,
        decodedBytes: fromWorker?.decodedBytes ?? 0,
        elapsedMs: performance.now() - t0,
      });
    };
    const d = await fetchTrace(url, run.abort.signal, (n) => {
      run.received = n;
      timer ||= window.setTimeout(show, 100);
    });
    if (run.cancelled) throw new DOMException('Loading was cancelled.', ABORT);
    total = d.totalBytes;
    update(run.entry.key, { size: total });
    show();
    const call = client().loadStream(
      d.stream,
      run.entry.name,
      total,
      (p) => {
        fromWorker = p;
        show();
      },
      (summary) => showSummary(run, summary),
    );
    run.callId = call.id;
    return call;
  };

  const pump = async () => {
    if (running.current) return;
    running.current = true;
    try {
      while (queue.current.length) {
        const entry = queue.current.shift()!;
        update(entry.key, { status: 'loading' });
        setProgress(null);
        const g = gen.current;
        const run: Running = { entry, callId: null, abort: null, received: 0, cancelled: false };
        current.current = run;
        try {
          let call: Call<LoadResult>;
          if (entry.url) call = await download(run, entry.url);
          else {
            call = client().load(entry.file!, setProgress, (summary) => showSummary(run, summary));
            run.callId = call.id;
          }
          const { summary, overview, file } = await call.promise;
          if (run.cancelled) {
            // Cancelled while the result was on its way: free the Session nobody will show.
            if (rpc.current && gen.current === g) rpc.current.client.close(call.id);
            update(entry.key, { status: 'cancelled' });
          } else {
            const got: Partial<Entry> = file ? { file, size: file.size } : entry.url ? { size: run.received } : {};
            // A download that broke off is loaded as far as it came (read-error in the health table).
            if (entry.url && summary.health?.some((h) => h.reason === 'read-error')) {
              got.note = `The download broke off after ${formatBytes(run.received)}: the events received before that were loaded.`;
            }
            update(entry.key, { status: summary.ok ? 'done' : 'failed', summary, overview, session: call.id, gen: g, ...got });
          }
        } catch (e) {
          const err = e as Error;
          afterTrap(err);
          if (err.name === ABORT || run.cancelled) update(entry.key, { status: 'cancelled' });
          else update(entry.key, { status: 'failed', error: err.message || String(err) });
        } finally {
          // Whatever the outcome, the download is over: an aborted fetch stops any bytes still coming.
          run.abort?.abort();
        }
        current.current = null;
      }
    } finally {
      running.current = false;
      setProgress(null);
    }
  };

  /** New cards, newest first, loaded one at a time in the order given. */
  const enqueue = (fresh: Entry[]) => {
    setNotice(null);
    queue.current.push(...fresh);
    setEntries((es) => [...fresh.slice().reverse(), ...es]);
    void pump();
  };

  const addFiles = (files: File[], labels: (TraceLabel | null)[] = []) =>
    enqueue(files.map((file, i) => ({ key: nextKey++, file, name: file.name, size: file.size, label: labels[i] ?? null, status: 'queued' })));

  /** Traces by URL (checked http(s), absolute): each is downloaded when its turn comes. */
  const addUrls = (urls: string[]) =>
    enqueue(urls.map((url) => ({ key: nextKey++, url, name: traceNameOf(url), size: null, status: 'queued' })));

  /**
   * A URL pasted into the drop zone. The page's CSP was fixed when it loaded and allows only the
   * site and the link's url= origins, so another origin is opened by loading the page with it as
   * url= (in a new tab when traces are open here, so they are not lost). The site's own origin is
   * always allowed: that one opens here at once.
   */
  const openUrl = (url: string) => {
    if (sameOrigin(url, location.href)) {
      addUrls([url]);
      return;
    }
    const link = linkWithTraceUrl(location.href, url);
    if (!entries.length) location.assign(link);
    else if (window.open(link, '_blank', 'noopener')) setNotice(`The trace opens in a new tab, so the traces here stay open.`);
    else setNotice(`The trace could not be opened in a new tab (pop-ups blocked?). Open this link: ${link}`);
  };

  /** A drop or a pick: loose files as they are, folders' traces by run, span and worker. */
  const openDropped = (d: Dropped) => {
    const plan = planOpen(
      d.loose.map((f) => ({ name: f.name, file: f })),
      d.inFolders,
      d.truncated,
    );
    if (plan.open.length) addFiles(plan.open.map((o) => o.file), plan.open.map((o) => o.label));
    const notes = plan.notice ? [plan.notice] : [];
    if (d.unreadable.length) notes.push(`${d.unreadable.length} item${d.unreadable.length === 1 ? '' : 's'} could not be read: ${d.unreadable.slice(0, 3).join(', ')}${d.unreadable.length > 3 ? ', …' : ''}.`);
    setNotice(notes.length ? notes.join(' ') : null);
  };

  const cancel = () => {
    const dropped = queue.current.splice(0);
    for (const e of dropped) update(e.key, { status: 'cancelled' });
    if (current.current) stop(current.current);
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

  // Traces the OS opens with the installed app take the same path as a drop.
  useEffect(() => onLaunchFiles(addFiles), []);

  // A link with ?url=<trace> (one or several) opens them as if dropped, in order.
  useEffect(() => {
    const { urls, refused } = traceUrlsOf(location.search, location.href);
    if (urls.length) addUrls(urls);
    if (refused.length) setNotice(refused.join(' '));
  }, []);

  // Deep links (lib/deep-link.ts): the place the hash names waits for the card of its file (any
  // file when it names none) to finish loading, which then opens it once; a new hash (a link
  // pasted into this tab) is opened again. The cards write the hash themselves.
  const [link, setLink] = useState<Link | null>(readLink);
  useEffect(() => {
    const onHash = () => setLink(readLink());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const linkCard = link && !link.taken ? entries.find((e) => e.status === 'done' && (link.place.file == null || e.name === link.place.file)) : undefined;
  const linkTaken = useCallback((seq: number) => setLink((l) => (l && l.seq === seq ? { ...l, taken: true } : l)), []);

  // Keyboard shortcuts: "?" and Esc are the page's; the rest go to the file card holding the
  // focus (else the first card) as a "ks-shortcut" event.
  const [help, setHelp] = useState(false);
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      const action = shortcutFor({ key: ev.key, ctrlKey: ev.ctrlKey, metaKey: ev.metaKey, altKey: ev.altKey, inText: takesText(ev.target) });
      if (!action) return;
      if (action.kind === 'help') {
        ev.preventDefault();
        setHelp((h) => !h);
        return;
      }
      // Esc closes one thing at a time: the list, else the search box it is in, else (sent on to
      // the card) the selected table row and the call stacks it shows.
      if (action.kind === 'escape') {
        if (document.querySelector('[data-testid=shortcuts-help]')) {
          setHelp(false);
          return;
        }
        if (takesText(ev.target)) {
          (ev.target as HTMLElement).blur();
          return;
        }
      }
      if (document.querySelector('[data-testid=shortcuts-help]')) return;
      const active = document.activeElement?.closest('[data-testid=file-card]') ?? document.querySelector('[data-testid=file-card]');
      if (!active) return;
      if (action.kind !== 'escape') ev.preventDefault(); // "/" must not be typed into the search it focuses
      active.dispatchEvent(new CustomEvent<Shortcut>('ks-shortcut', { detail: action }));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

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
          <DropZone onDropped={openDropped} onSample={openSample} onUrl={openUrl} busy={!!loading} />
          {notice && (
            <p class="notice" role="alert" data-testid="notice">
              {notice}
            </p>
          )}
          {loading && (
            <ProgressBar
              fileName={loading.name}
              queued={queuedCount}
              totalBytes={loading.size}
              progress={progress}
              onCancel={cancel}
            />
          )}
          {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
          <p class="muted shortcuts-hint">
            Press <kbd>?</kbd> for keyboard shortcuts.
          </p>
          <div class="cards">
            {entries.map((e) => (
              <ErrorBoundary key={e.key}>
                <FileCard entry={e} runner={runner} onRemove={() => remove(e)} link={e === linkCard ? link! : null} onLinkTaken={linkTaken} />
              </ErrorBoundary>
            ))}
          </div>
        </ErrorBoundary>
      </main>
    </>
  );
}
