import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DropZone } from './components/drop-zone';
import { ErrorBoundary } from './components/error-boundary';
import { ProgressBar } from './components/progress-bar';
import type { Ask } from './components/use-query';
import type { Dropped } from './lib/folder';
import { fetchTrace } from './lib/fetch-trace';
import { formatBytes } from './lib/format';
import { linkWithTraceUrl, sameOrigin, traceNameOf, traceUrlsOf } from './lib/trace-url';
import { describeLabel, planOpen, type TraceLabel } from './lib/trace-names';
import { onLaunchFiles } from './lib/launch-queue';
import type { Overview } from './lib/overview';
import type { Summary } from './lib/summary';
import {
  ABORT,
  RemoteError,
  SESSION_GONE,
  TraceClient,
  TRAP,
  type Call,
  type LoadProgress,
  type LoadResult,
  type Query,
  type QueryResult,
} from './worker/protocol';
import { KernelsView } from './views/kernels-view';
import { OperatorsView } from './views/operators-view';
import { OverviewView, VIEW_LABELS } from './views/overview-view';
import { ShortcutsHelp } from './components/shortcuts-help';
import { shortcutFor, takesText, type Shortcut } from './lib/shortcuts';
import { TimelineView, type TimelineRequest, type TrimFn } from './views/timeline-view';
import { SummaryView } from './views/summary-view';
import { formatPlace, parsePlace, stepIndexOf, stepNameOf, type Place, type TablePlace } from './lib/deep-link';

type Status = 'queued' | 'loading' | 'done' | 'failed' | 'cancelled';

interface Entry {
  key: number;
  /** The trace's bytes: the File dropped or picked, or a download's once its load has ended. */
  file?: File;
  /** Where a trace opened by URL is downloaded from. */
  url?: string;
  /** What the card shows: the File's name, or the URL's last path segment. */
  name: string;
  /** Bytes; null while a download's size is not known (no answer yet, or no Content-Length). */
  size: number | null;
  /** Said on the card beside the summary: a download that broke off part-way. */
  note?: string;
  /** Its run, worker and span when it came in a folder or is named as tb_plugin names traces. */
  label?: TraceLabel | null;
  status: Status;
  summary?: Summary;
  overview?: Overview | null;
  error?: string;
  /** The id of the load call: the worker keeps the file's Session under it. */
  session?: number;
  /** The worker generation the Session lives in: after a restart it is gone. */
  gen?: number;
}

/** Asks the Session of load `session`, made in worker generation `gen`. */
type RunQuery = (session: number, gen: number, q: Query) => Promise<QueryResult>;

/** Everything a card needs of the app's worker. */
interface Runner {
  query: RunQuery;
  trim: TrimFn;
}

const goneError = () =>
  new RemoteError({ name: SESSION_GONE, message: 'The analysis worker restarted, so this file is no longer loaded.' });

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

/** A deep link's place, numbered so a card opens each link once; taken once a card opened it. */
interface Link {
  seq: number;
  place: Place;
  taken: boolean;
}

let nextLinkSeq = 1;

/** The place in the page's hash; null when it names nothing (no hash, or nothing valid in it). */
function readLink(): Link | null {
  const place = parsePlace(location.hash);
  return Object.keys(place).length ? { seq: nextLinkSeq++, place, taken: false } : null;
}

/**
 * The key of the card the hash describes: the one the user last used (or that last opened a
 * link). Only it writes the hash, so with several files open the link follows the one in use.
 */
let hashOwner: number | null = null;
const USE_EVENTS = ['pointerdown', 'keydown', 'focusin', 'input', 'change'];

type Tab = 'overview' | 'operators' | 'kernels' | 'timeline';

function FileCard({
  entry,
  runner,
  onRemove,
  link,
  onLinkTaken,
}: {
  entry: Entry;
  runner: Runner;
  onRemove: () => void;
  /** A deep link for this card to open (once per link). */
  link: Link | null;
  onLinkTaken: (seq: number) => void;
}) {
  const runQuery = runner.query;
  const [tab, setTab] = useState<Tab>('overview');
  // The step chosen in the Overview ('all' or its index): "Show in timeline" opens on it.
  const [step, setStep] = useState('all');
  const [timelineReq, setTimelineReq] = useState<TimelineRequest | null>(null);
  // Views stay mounted once opened (hidden when not shown), so their sorting and selection last.
  const [opened, setOpened] = useState<Set<Tab>>(() => new Set<Tab>(['overview']));
  const { session, gen } = entry;
  const ask = useCallback(
    ((q: Query) => (session == null || gen == null ? Promise.reject(goneError()) : runQuery(session, gen, q))) as Ask,
    [session, gen, runQuery],
  );
  const analysed = !!(entry.summary?.ok && entry.overview);
  const tabs: Tab[] = ['overview', 'operators'];
  if ((entry.summary?.kinds?.kernel ?? 0) > 0) tabs.push('kernels');
  // The Timeline sends the file's bytes: a download has them once its load has ended.
  if (entry.file) tabs.push('timeline');
  const show = (t: string) => {
    if (!tabs.includes(t as Tab)) return;
    setTab(t as Tab);
    setOpened((o) => (o.has(t as Tab) ? o : new Set([...o, t as Tab])));
  };
  // Keyboard shortcuts sent by the App to this card.
  const root = useRef<HTMLElement>(null);
  const tabsRef = useRef(tabs);
  tabsRef.current = tabs;
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const onShortcut = (ev: Event) => {
      const action = (ev as CustomEvent<Shortcut>).detail;
      if (action.kind === 'view') {
        const t = tabsRef.current[action.index];
        if (t) {
          show(t);
          el.querySelector<HTMLElement>(`[data-testid=tab-${t}]`)?.focus();
        }
      } else if (action.kind === 'search') {
        const panel = el.querySelector('[role=tabpanel]:not([hidden])');
        panel?.querySelector<HTMLInputElement>('input[type=search], input[data-testid$="-search"]')?.focus();
      } else if (action.kind === 'escape') {
        // The table holding the focus, else those of the view shown, drop their selected row.
        const inTable = document.activeElement?.closest('.data-table');
        const tables = inTable && el.contains(inTable) ? [inTable] : el.querySelectorAll('[role=tabpanel]:not([hidden]) .data-table');
        for (const t of tables) t.dispatchEvent(new CustomEvent('ks-deselect'));
      }
      own();
    };
    el.addEventListener('ks-shortcut', onShortcut);
    return () => el.removeEventListener('ks-shortcut', onShortcut);
  });
  const steps = entry.overview?.steps?.steps ?? [];

  // Deep links (lib/deep-link.ts). The place is the tab, the step (by name) and the shown view's
  // table part, which the Operators and Kernels views report as it changes.
  const tableParts = useRef<Partial<Record<Tab, TablePlace>>>({});
  const latest = useRef({ tab, step, steps });
  latest.current = { tab, step, steps };
  /** Writes this card's place into the hash, when the hash is this card's. */
  const writeHash = () => {
    if (hashOwner !== entry.key) return;
    const { tab: t, step: s, steps: ss } = latest.current;
    const place: Place = { file: entry.name, view: t, step: stepNameOf(ss, s), ...tableParts.current[t] };
    const hash = '#' + formatPlace(place);
    // replaceState: every sort or keystroke would otherwise be a Back step; no hashchange fires.
    if (hash !== location.hash) history.replaceState(history.state, '', hash);
  };
  const own = () => {
    if (hashOwner === entry.key) return;
    hashOwner = entry.key;
    writeHash();
  };
  const placeOf = (t: Tab) => (part: TablePlace) => {
    tableParts.current[t] = part;
    writeHash();
  };
  useEffect(writeHash, [tab, step]);
  // Any use of the card (a click, a key, the focus coming in, a value changed by assistive
  // software) makes the hash describe it.
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    for (const type of USE_EVENTS) el.addEventListener(type, own, true);
    return () => {
      for (const type of USE_EVENTS) el.removeEventListener(type, own, true);
    };
  });
  // A closed card's place is nowhere to go back to.
  useEffect(
    () => () => {
      if (hashOwner !== entry.key) return;
      hashOwner = null;
      history.replaceState(history.state, '', location.pathname + location.search);
    },
    [],
  );
  // The views a link set up, numbered so that a new link mounts them afresh with its state.
  const [linked, setLinked] = useState<Partial<Record<Tab, { seq: number; place: TablePlace }>>>({});
  useEffect(() => {
    if (!link || !analysed) return;
    const p = link.place;
    setStep(stepIndexOf(steps, p.step));
    // The Timeline hands the trace to the Perfetto UI, which only a click on its tab may do:
    // a link to it opens the Overview, one click away from "Show in timeline".
    const view: Tab = p.view && p.view !== 'timeline' && tabs.includes(p.view) ? p.view : 'overview';
    if (view !== 'overview') setLinked((l) => ({ ...l, [view]: { seq: link.seq, place: p } }));
    show(view);
    hashOwner = entry.key;
    onLinkTaken(link.seq);
    // Once per link, when the card has its views.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [link?.seq, analysed]);

  const stepIndex = step === 'all' ? -1 : Number(step);
  const stepName = stepIndex >= 0 && stepIndex < steps.length ? steps[stepIndex].name : null;
  /** Opens the Timeline on the chosen step (trimmed to it), or on the whole file. */
  const showTimeline = (index: number | null = stepName != null ? stepIndex : null) => {
    setTimelineReq((r) => ({ window: index == null ? { kind: 'whole' } : { kind: 'step', index }, seq: (r?.seq ?? 0) + 1 }));
    show('timeline');
  };
  // A function: one vnode must not be rendered in two places.
  const timelineButton = () => (
    <button
      type="button"
      class="link-button"
      data-testid="show-in-timeline"
      title={stepName != null ? `Open the Timeline on step ${stepName} (only that step is sent to Perfetto)` : 'Open the whole trace in the Timeline'}
      onClick={() => showTimeline()}
    >
      {stepName != null ? `Show step ${stepName} in timeline` : 'Show in timeline'}
    </button>
  );

  const label: Record<Status, string> = {
    queued: 'waiting',
    loading: 'loading…',
    done: '',
    failed: '',
    cancelled: 'cancelled',
  };
  return (
    <article ref={root} class="card" data-testid="file-card" data-file={entry.name} data-status={entry.status}>
      <header class="card-head">
        <h2 data-testid="file-name">{entry.name}</h2>
        <span class="muted">
          {[entry.size != null ? formatBytes(entry.size) : entry.status === 'queued' || entry.status === 'loading' ? 'size not known yet' : '', label[entry.status]]
            .filter(Boolean)
            .join(' · ')}
          <button type="button" class="card-close" data-testid="remove-file" aria-label={`Close ${entry.name}`} title="Close this file" onClick={onRemove}>
            ×
          </button>
        </span>
      </header>
      {entry.label && (
        <p class="muted card-label" data-testid="file-label" data-run={entry.label.run} data-worker={entry.label.worker} data-span={entry.label.spanRank || ''}>
          {describeLabel(entry.label)}
        </p>
      )}
      {entry.url && (
        <p class="muted card-label" data-testid="file-url">
          From {entry.url}
        </p>
      )}
      {entry.note && (
        <p class="warn" data-testid="file-note">
          {entry.note}
        </p>
      )}
      {entry.summary && <SummaryView summary={entry.summary} fileSize={entry.size ?? 0} />}
      {entry.summary && entry.status === 'loading' && (
        <p class="muted" data-testid="overview-pending" role="status">
          Computing the overview, operators and recommendations…
        </p>
      )}
      {analysed && (
        <>
          <div class="tabs" role="tablist" aria-label={`Views of ${entry.name}`}>
            {tabs.map((t) => (
              <button
                key={t}
                type="button"
                role="tab"
                class={t === tab ? 'tab selected' : 'tab'}
                aria-selected={t === tab ? 'true' : 'false'}
                data-testid={`tab-${t}`}
                onClick={() => show(t)}
              >
                {VIEW_LABELS[t]}
              </button>
            ))}
          </div>
          <div role="tabpanel" hidden={tab !== 'overview'} data-testid="panel-overview">
            <ErrorBoundary>
              <OverviewView
                overview={entry.overview!}
                summary={entry.summary!}
                views={tabs}
                onShowView={show}
                step={step}
                onStep={setStep}
                onShowTimeline={(i) => showTimeline(i)}
              />
            </ErrorBoundary>
          </div>
          {opened.has('operators') && (
            <div role="tabpanel" hidden={tab !== 'operators'} data-testid="panel-operators">
              <ErrorBoundary>
                <OperatorsView
                  key={linked.operators?.seq ?? 0}
                  ask={ask}
                  fileName={entry.name}
                  toolbar={timelineButton()}
                  link={linked.operators?.place}
                  onPlace={placeOf('operators')}
                />
              </ErrorBoundary>
            </div>
          )}
          {opened.has('kernels') && tabs.includes('kernels') && (
            <div role="tabpanel" hidden={tab !== 'kernels'} data-testid="panel-kernels">
              <ErrorBoundary>
                <KernelsView
                  key={linked.kernels?.seq ?? 0}
                  ask={ask}
                  fileName={entry.name}
                  toolbar={timelineButton()}
                  link={linked.kernels?.place}
                  onPlace={placeOf('kernels')}
                />
              </ErrorBoundary>
            </div>
          )}
          {opened.has('timeline') && entry.file && (
            <div role="tabpanel" hidden={tab !== 'timeline'} data-testid="panel-timeline">
              <ErrorBoundary>
                <TimelineView
                  file={entry.file}
                  steps={steps}
                  traceStartUs={entry.summary?.start_us ?? null}
                  request={timelineReq}
                  trim={runner.trim}
                />
              </ErrorBoundary>
            </div>
          )}
        </>
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
