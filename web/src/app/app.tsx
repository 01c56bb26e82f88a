import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { DropZone } from '../components/drop-zone';
import { ErrorBoundary } from '../components/error-boundary';
import { ProgressBar } from '../components/progress-bar';
import { RunNav, type NavState } from '../components/run-nav';
import { ShortcutsHelp } from '../components/shortcuts-help';
import { droppedFiles, type Dropped } from '../lib/folder';
import { fetchTrace } from '../lib/fetch-trace';
import { brokenDownloadNote } from '../lib/format';
import { onLaunchFiles } from '../lib/launch-queue';
import { formatPlace, readLink, type Link, type Place } from '../lib/deep-link';
import { buildRunTree, findByPlace, placeOf, traceOrder, type NavTrace } from '../lib/run-tree';
import { shortcutFor, takesText, type Shortcut } from '../lib/shortcuts';
import type { Overview } from '../lib/overview';
import type { Summary } from '../lib/summary';
import { parseTraceName, planOpen, type TraceLabel } from '../lib/trace-names';
import { linkWithTraceUrl, sameOrigin, traceNameOf, traceUrlsOf } from '../lib/trace-url';
import { goneError, planModels, poolSize, WorkerPool, type PoolWorker, type Started } from '../worker/worker-pool';
import type { Entry } from '../worker/entry';
import { RunPage, workerOfFile, type DistributedRunner, type RunTrace } from '../views/distributed-view';
import { TracePage, type RunQuery, type Runner } from '../views/trace-page';
import type { TrimFn } from '../views/timeline-view';
import { failureSentence, loadFailure, stallError } from '../worker/failure';
import { splitSettings, takeFault, testLoadWatch, testWatchdog } from '../worker/test-faults';
import { DEFAULT_LOAD_WATCH, LoadWatch } from '../worker/load-watch';
import { rangeCount } from '../worker/split-read';
import { ABORT, type Call, type LoadProgress, type LoadResult } from '../worker/protocol';
import { DEFAULT_WATCHDOG } from '../worker/watchdog';


let nextKey = 1;

/** The load under way: its call, once started, and for a download the fetch to abort. */
interface Running {
  entry: Entry;
  /** The pool's worker it loads in. */
  worker: PoolWorker;
  callId: number | null;
  abort: AbortController | null;
  /** Bytes downloaded so far (a trace opened by URL). */
  received: number;
  /** Cancel or close was asked: a result that still comes is dropped. */
  cancelled: boolean;
  /** A big plain file read by several workers: the helpers' calls (worker/split-read.ts). */
  helpers: { worker: PoolWorker; callId: number; settled: boolean }[];
}

/** A sentence above the analysis: something to know (info) or something that went wrong (error). */
interface Notice {
  kind: 'info' | 'error';
  text: string;
  /** Says what is being opened ("Opening N traces…"): put in the past, or closed, once every load has ended. */
  opening?: boolean;
}

/** How the navigator files an entry: its folder's run, its worker and span (lib/run-tree.ts). */
function navOf(e: Entry): NavTrace {
  const l = e.label;
  const rank = e.summary?.distributed?.rank;
  return {
    key: e.key,
    name: e.name,
    run: l?.run ?? '',
    worker: l?.worker ?? e.name,
    span: l?.span ?? null,
    rank: typeof rank === 'number' && rank >= 0 ? rank : null,
  };
}

/** A URL's trace named as tb_plugin names traces gets its worker and span, as a loose file does. */
function urlLabel(name: string): TraceLabel | null {
  const ws = parseTraceName(name);
  return ws ? { run: '', worker: ws.worker, span: ws.span, spanRank: ws.span == null ? 0 : 1, spanCount: ws.span == null ? 0 : 1 } : null;
}

/** The bundled sample trace (web/public/samples): the drop zone's "open the sample", and what the workers warm up on. */
const SAMPLE_URL = './samples/rank-0.json.gz';

/** A trace worker for the pool (worker/worker-pool.ts): the page's Worker, its death reported once. */
function startWorker(): Started {
  const worker = new Worker(new URL('../worker/worker.ts', import.meta.url), { type: 'module' });
  return {
    endpoint: worker,
    terminate: () => worker.terminate(),
    onDeath: (cb) => {
      // The worker itself died (e.g. the wasm could not load), or sent what cannot be read: its
      // calls fail, its slot restarts (the pool ends a worker once, whichever comes first).
      worker.addEventListener('error', (ev) => {
        ev.preventDefault();
        cb(ev.message);
      });
      worker.addEventListener('messageerror', () => cb('a message from it could not be read'));
    },
  };
}

/** The worker and span a trace has in its run, as its rank summary names it (the CLI's rule). */
function rankPlace(e: Entry): { worker: string; span: string } {
  return { worker: e.label?.worker ?? workerOfFile(e.name), span: e.label?.spanRank ? String(e.label.spanRank) : 'default' };
}

/** Several loads' progress as one: bytes summed; the total known only if every load knows its own. */
function sumProgress(ps: LoadProgress[]): LoadProgress | null {
  if (ps.length <= 1) return ps[0] ?? null;
  const totals = ps.map((p) => p.totalBytes);
  return {
    bytesRead: ps.reduce((n, p) => n + p.bytesRead, 0),
    totalBytes: totals.every((t) => t != null) ? totals.reduce((n, t) => n! + t!, 0) : null,
    decodedBytes: ps.reduce((n, p) => n + p.decodedBytes, 0),
    elapsedMs: Math.max(...ps.map((p) => p.elapsedMs)),
  };
}

export function App() {
  const [entries, setEntries] = useState<Entry[]>([]);
  // Loads under way (first loads and re-reads), by entry key.
  const [progress, setProgressMap] = useState<ReadonlyMap<number, LoadProgress>>(new Map());
  const setProgress = (key: number, p: LoadProgress | null) =>
    setProgressMap((m) => {
      const n = new Map(m);
      if (p) n.set(key, p);
      else n.delete(key);
      return n;
    });
  // How long nothing has moved in a load, by entry key, once it is 3 s or more (worker/load-watch.ts).
  const [still, setStillMap] = useState<ReadonlyMap<number, number>>(new Map());
  const setStill = (key: number, ms: number | null) =>
    setStillMap((m) => {
      if (ms == null && !m.has(key)) return m;
      const n = new Map(m);
      if (ms != null) n.set(key, ms);
      else n.delete(key);
      return n;
    });
  const [notice, setNotice] = useState<Notice | null>(null);
  const info = (text: string) => setNotice({ kind: 'info', text });
  const fail = (text: string) => setNotice({ kind: 'error', text });
  // The trace shown right of the navigator (its Entry key), and whether the user picked it there.
  const [selected, setSelected] = useState<number | null>(null);
  const [picked, setPicked] = useState<number | null>(null);
  // The run whose page (its Distributed view) is shown instead of a trace, and its step.
  const [runPage, setRunPage] = useState<string | null>(null);
  const [runStep, setRunStep] = useState<string | null>(null);
  const runPageUsed = useRef(false);
  const pick = (key: number) => {
    setRunPage(null);
    setSelected(key);
    setPicked(key);
  };
  // A recommendation's evidence asks for the Distributed view itself: shown even for opened files
  // that are not one run's ranks (a click on the group lists them instead).
  const [runForced, setRunForced] = useState(false);
  const pickRun = (run: string, forced = false) => {
    runPageUsed.current = true;
    setRunPage(run);
    setRunForced(forced);
  };
  const queue = useRef<Entry[]>([]);
  // First loads under way, by entry key (as many at once as the pool has workers).
  const running = useRef(new Map<number, Running>());
  // Re-reads under way (a closed model read again from its File), by entry key: the worker it goes to.
  const rereading = useRef(new Map<number, PoolWorker>());
  const entriesRef = useRef(entries);
  entriesRef.current = entries;
  // The worker pool (worker/worker-pool.ts), made on first use. `poolUsed`: how many of its workers
  // have loaded a file (shown as data-pool-used, for tests and the benchmark).
  const poolRef = useRef<WorkerPool | null>(null);
  const [poolUsed, setPoolUsed] = useState(0);
  // Closed models read again so far (shown as data-rereads).
  const [rereads, setRereads] = useState(0);
  // Trace workers readied while the page waited for a file (shown as data-pool-warm).
  const [warm, setWarm] = useState(0);

  const update = (key: number, patch: Partial<Entry>) =>
    setEntries((es) => es.map((e) => (e.key === key ? { ...e, ...patch } : e)));

  const pool = (): WorkerPool => {
    poolRef.current ??= new WorkerPool(
      poolSize(navigator.hardwareConcurrency),
      startWorker,
      (id, error) => {
        // A worker died, trapped, ran out of memory or went silent (worker/supervisor.ts says
        // which): every Session in it is gone. Its traces keep their summaries; their cards say so
        // and offer to read the file again. Not at once by themselves: a view whose question traps
        // the worker would ask it again after every re-read, for ever.
        setEntries((es) => es.map((e) => (e.gen === id ? { ...e, session: undefined, gen: undefined, reread: { error: error.message } } : e)));
      },
      // Each worker's client pings it while calls are pending (worker/watchdog.ts).
      { watchdog: { ...DEFAULT_WATCHDOG, ...testWatchdog() } },
    );
    return poolRef.current;
  };

  // A wasm trap (out of memory, an abort) in any call ends its worker: the answer says so and the
  // worker's client hands it to the pool (worker/worker-pool.ts onFatal), whose onDeath above marks
  // the traces it held. Their views learn their Session is gone meanwhile.
  const runQuery: RunQuery = useCallback(async (session, gen, q) => {
    const w = poolRef.current?.byId(gen);
    if (!w) throw goneError();
    return w.client.query(session, q).promise;
    // poolRef is a ref.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A trim reads the File again: it needs no Session, only a live worker.
  const runTrim: TrimFn = useCallback((file, startUs, endUs, onProgress) => {
    const w = pool().any();
    const call = w.client.trim(file, startUs, endUs, onProgress);
    return { promise: call.promise, cancel: () => w.client.cancel(call.id) };
    // pool() reads refs only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const runner = useMemo<Runner>(() => ({ query: runQuery, trim: runTrim }), [runQuery, runTrim]);
  // The run page's reduce: the rank summaries (taken when each trace loaded) in, the view out.
  const distRunner = useMemo<DistributedRunner>(
    () => ({
      reduce: (ranks) => pool().any().client.distributed(ranks).promise,
    }),
    // pool() reads refs only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );

  /**
   * The summary, ahead of the overview: the card shows it while the overview is computed; then
   * the overview's steps and GPU metrics (`early`), drawn while the operator trees and the
   * recommendations are computed, and kept if that part fails.
   */
  const showSummary = (run: Running, summary: Summary, early?: Overview) => {
    if (!run.cancelled && running.current.get(run.entry.key) === run) update(run.entry.key, early ? { summary, overview: early } : { summary });
  };

  /** The part of the overview being computed, for the card (a few times per load). */
  const showPhase = (run: Running, p: LoadProgress) => {
    if (p.phase && !run.cancelled && running.current.get(run.entry.key) === run) update(run.entry.key, { phase: p.phase });
  };

  /** Helpers still reading a range of `run`'s file stop and delete their Sessions. */
  const stopHelpers = (run: Running) => {
    for (const h of run.helpers) if (!h.settled) h.worker.client.cancel(h.callId);
  };

  /** Stops a load under way: the worker's call, its helpers', and a download's fetch. */
  const stop = (run: Running) => {
    run.cancelled = true;
    if (run.callId != null) run.worker.client.cancel(run.callId);
    stopHelpers(run);
    run.abort?.abort();
  };

  /** Frees a trace's full model (its Session); its summaries stay. */
  const closeModel = (e: Entry) => {
    const w = poolRef.current?.byId(e.gen);
    if (w && e.session != null) {
      w.client.close(e.session);
      w.sessions--;
    }
  };

  const remove = (entry: Entry) => {
    queue.current = queue.current.filter((e) => e.key !== entry.key);
    const run = running.current.get(entry.key);
    if (run) {
      stop(run);
      // A load still running frees its Session itself once it learns the file was closed.
      if (run.callId != null) run.worker.client.close(run.callId);
    } else closeModel(entry);
    if (selected === entry.key) {
      // The next trace in the navigator takes its place (the previous one after the last).
      const order = traceOrder(runs).map((t) => t.key);
      const at = order.indexOf(entry.key);
      const rest = order.filter((k) => k !== entry.key);
      setSelected(rest.length ? rest[Math.min(at, rest.length - 1)] : null);
    }
    setEntries((es) => es.filter((e) => e.key !== entry.key));
  };

  /**
   * Downloads `run`'s URL into its worker: the page fetches it (the request its CSP checks) and
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
      if (running.current.get(run.entry.key) !== run) return; // a late tick of a load already over
      const bytesRead = Math.max(run.received, fromWorker?.bytesRead ?? 0);
      setProgress(run.entry.key, {
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
    const call = run.worker.client.loadStream(
      d.stream,
      run.entry.name,
      total,
      (p) => {
        fromWorker = p;
        show();
        showPhase(run, p);
      },
      (summary, early) => showSummary(run, summary, early),
      takeFault(run.entry.name),
    );
    run.callId = call.id;
    return call;
  };

  /**
   * One trace's first load, in the worker the pool gives it. Once read, its rank summary (its part
   * of the run's Distributed view) is taken from the Session at once, so the model can be closed
   * later without losing what the run page needs.
   */
  const loadOne = async (entry: Entry) => {
    const w = pool().forLoad();
    setPoolUsed(pool().usedSlots.size);
    w.loads++;
    const run: Running = { entry, worker: w, callId: null, abort: null, received: 0, cancelled: false, helpers: [] };
    running.current.set(entry.key, run);
    update(entry.key, { status: 'loading' });
    try {
      let call: Call<LoadResult>;
      if (entry.url) call = await download(run, entry.url);
      else call = loadFile(run, entry.file!);
      const { summary, overview, file, read } = await call.promise;
      let rank: string | null = null;
      let rankError: string | undefined;
      if (summary.ok && !run.cancelled) {
        try {
          const r = await w.client.query(call.id, { what: 'distributedRank', ...rankPlace(entry) }).promise;
          rank = r.summary;
        } catch (e) {
          rankError = (e as Error).message || String(e);
        }
      }
      const alive = pool().byId(w.id) === w;
      if (run.cancelled) {
        // Cancelled while the result was on its way: free the Session nobody will show.
        if (alive) w.client.close(call.id);
        update(entry.key, { status: 'cancelled' });
      } else {
        const got: Partial<Entry> = file ? { file, size: file.size } : entry.url ? { size: run.received } : {};
        // A download that broke off is loaded as far as it came (read-error in the health table).
        if (entry.url && summary.health?.some((h) => h.reason === 'read-error')) got.note = brokenDownloadNote(run.received);
        const kept = summary.ok && alive;
        if (kept) w.sessions++;
        update(entry.key, {
          status: summary.ok ? 'done' : 'failed',
          summary,
          overview,
          session: kept ? call.id : undefined,
          gen: kept ? w.id : undefined,
          rank,
          rankError,
          readWorkers: read?.workers ?? 1,
          ...(read ? { readMerged: read.merged, readAgain: read.again } : {}),
          ...got,
        });
      }
    } catch (e) {
      const err = e as Error;
      if (err.name === ABORT || run.cancelled) update(entry.key, { status: 'cancelled' });
      // A failed worker (out of memory, an abort, dead, silent) says what happened on the card.
      else update(entry.key, { status: 'failed', error: err.message || String(err), failure: loadFailure(err) ?? undefined });
    } finally {
      // Whatever the outcome, the download is over: an aborted fetch stops any bytes still coming.
      run.abort?.abort();
      // The load is over (done, failed or cancelled): helpers still reading are not needed.
      stopHelpers(run);
      w.loads--;
      running.current.delete(entry.key);
      setProgress(entry.key, null);
      pump();
    }
  };

  /**
   * A dropped or picked File into `run`'s worker. A plain one of SPLIT_MIN_BYTES or more is read
   * by several workers when the pool has idle ones and nothing else waits (worker/split-read.ts):
   * `run`'s worker reads the start and merges the helpers' ranges, which come worker to worker
   * on a MessageChannel each; a helper whose call fails (it died, trapped, stalled) is reported
   * to the first worker, which reads its range itself. Progress sums every worker's bytes.
   */
  const loadFile = (run: Running, file: File): Call<LoadResult> => {
    const p = pool();
    const w = run.worker;
    const plain = !/\.gz$/i.test(file.name); // the first worker checks the bytes too
    const k = queue.current.length || run.entry.oneWorker ? 1 : rangeCount(file.size, plain, p.size, 1 + p.idleOthers(w), splitSettings());
    const helpers = k > 1 ? p.helpersFor(w, k - 1) : [];
    if (helpers.length) setPoolUsed(p.usedSlots.size);
    const channels = helpers.map(() => new MessageChannel());
    let first: LoadProgress | null = null;
    const others = helpers.map((): LoadProgress | null => null);
    const show = () => {
      const all = [first, ...others].filter((x): x is LoadProgress => x != null);
      if (!all.length) return;
      const total = file.size;
      setProgress(run.entry.key, {
        bytesRead: Math.min(total, all.reduce((n, x) => n + x.bytesRead, 0)),
        totalBytes: total,
        decodedBytes: Math.min(total, all.reduce((n, x) => n + x.decodedBytes, 0)),
        elapsedMs: Math.max(...all.map((x) => x.elapsedMs)),
        ...(first?.phase ? { phase: first.phase } : {}),
      });
    };
    // The load as a whole (worker/load-watch.ts): bytes that stop while the file has more, or a merge
    // that waits for a part that never comes, are said on the card rather than waited on forever.
    let stalled: (e: Error) => void = () => {};
    const stall = new Promise<never>((_, reject) => (stalled = reject));
    const watch = new LoadWatch(
      { ...DEFAULT_LOAD_WATCH, ...testLoadWatch() },
      (s) => {
        const err = stallError(s, 1 + helpers.length);
        stalled(err); // first: the load fails with this, not with the call's own rejection below
        w.client.abandon(call.id, { name: err.name, message: err.message, failure: 'read-stall', phase: 'reading' });
        stopHelpers(run);
      },
      (ms) => setStill(run.entry.key, ms),
    );
    const watchMoves = () => {
      const all = [first, ...others].filter((x): x is LoadProgress => x != null);
      watch.progress({
        bytesRead: all.reduce((n, x) => n + x.bytesRead, 0),
        totalBytes: file.size,
        decodedBytes: all.reduce((n, x) => n + x.decodedBytes, 0),
        pieces: first?.pieces ?? 0,
        phase: first?.phase?.name ?? null,
      });
    };
    const call = w.client.load(
      file,
      (prog) => {
        first = prog;
        watchMoves();
        if (helpers.length) show();
        else setProgress(run.entry.key, prog);
        showPhase(run, prog);
      },
      (summary, early) => showSummary(run, summary, early),
      takeFault(run.entry.name),
      channels.map((c) => c.port1),
    );
    run.callId = call.id;
    const helperFault = helpers.length ? takeFault(run.entry.name, true) : undefined;
    helpers.forEach((h, j) => {
      h.loads++;
      const hc = h.client.loadRange(
        file,
        channels[j].port2,
        (prog) => {
          others[j] = prog;
          watchMoves();
          show();
        },
        j === 0 ? helperFault : undefined,
      );
      const rec = { worker: h, callId: hc.id, settled: false };
      run.helpers.push(rec);
      hc.promise
        .catch((e) => {
          // Died, trapped or stalled (the pool restarts it), or failed reading: the first worker
          // reads this range itself.
          if (!run.cancelled) w.client.rangeLost(call.id, j, (e as Error)?.message || String(e));
        })
        .finally(() => {
          rec.settled = true;
          h.loads--;
          pump();
        });
    });
    const promise = Promise.race([call.promise, stall]).finally(() => {
      watch.halt();
      setStill(run.entry.key, null);
    });
    return { id: call.id, promise };
  };

  /** Starts queued loads while a worker of the pool has none: a run's files load in parallel. */
  const pump = () => {
    const size = pool().size;
    while (queue.current.length && running.current.size < size) void loadOne(queue.current.shift()!);
  };

  /**
   * Reads a closed trace again from its File into worker `w` (its model only: the summaries are
   * kept). The card shows the progress; a failure is said there, with a button to try again.
   */
  const reread = (e: Entry, w: PoolWorker) => {
    if (!e.file || rereading.current.has(e.key)) return;
    rereading.current.set(e.key, w);
    setRereads((n) => n + 1);
    w.loads++;
    update(e.key, { reread: { error: null } });
    // A re-read whose bytes stop coming fails with the same sentence's first part (worker/load-watch.ts).
    const watch = new LoadWatch({ ...DEFAULT_LOAD_WATCH, ...testLoadWatch() }, (s) => {
      const err = stallError(s, 1);
      w.client.abandon(call.id, { name: err.name, message: `${err.message}.`, failure: 'read-stall', phase: 'reading' });
    });
    const call = w.client.load(e.file, (p) => {
      watch.progress({ ...p, phase: p.phase?.name ?? null });
      setProgress(e.key, p);
    });
    call.promise
      .finally(() => watch.halt())
      .then(({ summary }) => {
        if (!summary.ok) throw new Error(summary.error || 'The file no longer reads as a trace.');
        if (pool().byId(w.id) !== w) throw goneError();
        if (!entriesRef.current.some((x) => x.key === e.key)) {
          w.client.close(call.id); // closed meanwhile
          return;
        }
        w.sessions++;
        update(e.key, { session: call.id, gen: w.id, reread: undefined });
      })
      .catch((err) => {
        update(e.key, { reread: { error: (err as Error).message || String(err) } });
      })
      .finally(() => {
        w.loads--;
        rereading.current.delete(e.key);
        setProgress(e.key, null);
      });
  };

  /**
   * New traces, loaded in the order given, as many at a time as the pool has workers; the first
   * of them is shown (the navigator files them all by run, worker and span whatever their order).
   */
  const enqueue = (fresh: Entry[]) => {
    setNotice(null);
    if (!fresh.length) return;
    queue.current.push(...fresh);
    setEntries((es) => [...es, ...fresh]);
    setSelected(fresh[0].key);
    setRunPage(null); // the new traces are shown, not a run page picked before
    pump();
  };

  /** The card's Retry: the trace is loaded again, in its place, as if just dropped. */
  const retry = (entry: Entry, oneWorker = false) => {
    if (entry.status !== 'failed') return;
    const fresh: Entry = { key: entry.key, file: entry.file, url: entry.url, name: entry.name, size: entry.size, label: entry.label, status: 'queued', ...(oneWorker ? { oneWorker } : {}) };
    queue.current.push(fresh);
    setEntries((es) => es.map((e) => (e.key === entry.key ? fresh : e)));
    void pump();
  };

  const addFiles = (files: File[], labels: (TraceLabel | null)[] = []) =>
    enqueue(files.map((file, i) => ({ key: nextKey++, file, name: file.name, size: file.size, label: labels[i] ?? null, status: 'queued' })));

  /** Traces by URL (checked http(s), absolute): each is downloaded when its turn comes. */
  const addUrls = (urls: string[]) =>
    enqueue(urls.map((url) => {
      const name = traceNameOf(url);
      return { key: nextKey++, url, name, size: null, label: urlLabel(name), status: 'queued' };
    }));

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
    else if (window.open(link, '_blank', 'noopener')) info(`The trace opens in a new tab, so the traces here stay open.`);
    else fail(`The trace could not be opened in a new tab (pop-ups blocked?). Open this link: ${link}`);
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
    // Nothing opened, or something unreadable: a problem; otherwise what was opened and skipped.
    if (!notes.length) setNotice(null);
    else setNotice({ kind: plan.open.length && !d.unreadable.length ? 'info' : 'error', text: notes.join(' '), opening: plan.open.length > 0 });
  };

  const cancel = () => {
    const dropped = queue.current.splice(0);
    for (const e of dropped) update(e.key, { status: 'cancelled' });
    for (const run of running.current.values()) stop(run);
  };

  const openSample = async () => {
    try {
      const res = await fetch(SAMPLE_URL);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const blob = await res.blob();
      addFiles([new File([blob], 'rank-0.json.gz')]);
    } catch (e) {
      fail(`The sample trace could not be fetched (${(e as Error).message}).`);
    }
  };

  // The trace workers start, and ready themselves on the bundled sample, while the page waits for
  // a file (worker/worker-pool.ts warm): a first load then parses with optimized code. After the first
  // render, so that the page is drawn first.
  useEffect(() => {
    const t = setTimeout(() => pool().warm(new URL(SAMPLE_URL, document.baseURI).href, () => setWarm((n) => n + 1)));
    return () => clearTimeout(t);
  }, []);

  // Traces the OS opens with the installed app take the same path as a drop.
  useEffect(() => onLaunchFiles(addFiles), []);

  // A link with ?url=<trace> (one or several) opens them as if dropped, in order.
  useEffect(() => {
    const { urls, refused } = traceUrlsOf(location.search, location.href);
    if (urls.length) addUrls(urls);
    if (refused.length) fail(refused.join(' '));
  }, []);

  // The navigator's tree: runs, workers, spans (lib/run-tree.ts).
  const navTraces = useMemo(() => entries.map(navOf), [entries]);
  const runs = useMemo(() => buildRunTree(navTraces), [navTraces]);
  // The Diff view's pickers: every trace, in the navigator's order, with its Session and place.
  const diffTraces = useMemo(() => {
    const order = new Map(traceOrder(runs).map((t, i) => [t.key, i]));
    return [...entries]
      .sort((a, b) => (order.get(a.key) ?? 1e9) - (order.get(b.key) ?? 1e9))
      .map((e) => ({ key: e.key, name: e.name, status: e.status, session: e.session ?? null, gen: e.gen ?? null, place: e.label != null ? placeOf(runs, e.key) : null }));
  }, [entries, runs]);

  // Deep links (lib/deep-link.ts): the trace the hash names (by run, worker and span; by file name
  // for links that have only that; else the first trace) is shown as soon as it is open, and its
  // place opened once it has loaded; a new hash (a link pasted into this tab) is opened again.
  // The card shown writes the hash itself.
  const [link, setLink] = useState<Link | null>(readLink);
  useEffect(() => {
    const onHash = () => setLink(readLink());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const linkTarget = useMemo(() => {
    if (!link || link.taken) return undefined;
    const p = link.place;
    if (p.runView) return undefined; // a run page: opened below, no card takes this link
    if (p.worker != null) {
      const t = findByPlace(runs, p.run ?? '', p.worker, p.span ?? 0);
      if (t) return entries.find((e) => e.key === t.key);
    }
    if (p.file != null) return entries.find((e) => e.name === p.file);
    return entries.find((e) => e.status === 'done');
  }, [link, runs, entries]);
  useEffect(() => {
    if (!linkTarget) return;
    setSelected(linkTarget.key);
    setRunPage(null); // a link to a trace (the run page's "Compare…" makes one) shows its card
  }, [linkTarget?.key, link?.seq]);
  const linkCard = linkTarget?.status === 'done' ? linkTarget : undefined;
  const linkTaken = useCallback((seq: number) => setLink((l) => (l && l.seq === seq ? { ...l, taken: true } : l)), []);
  // A link to a run page (view=distributed without a worker) opens it once that run is open.
  useEffect(() => {
    if (!link || link.taken || !link.place.runView) return;
    const run = link.place.run ?? '';
    if (!runs.some((r) => r.name === run)) return;
    runPageUsed.current = true;
    setRunPage(run);
    setRunStep(link.place.step ?? null);
    linkTaken(link.seq);
  }, [link, runs, linkTaken]);
  // The run page shown writes the hash once used (picked in the navigator or opened by a link).
  useEffect(() => {
    if (runPage == null || !runPageUsed.current) return;
    const hash = '#' + formatPlace({ run: runPage || undefined, runView: 'distributed', step: runStep ?? undefined });
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }, [runPage, runStep]);
  const runTraces = useMemo<RunTrace[]>(() => {
    const node = runPage == null ? undefined : runs.find((r) => r.name === runPage);
    if (!node) return [];
    const byKey = new Map(entries.map((e) => [e.key, e]));
    return node.workers.flatMap((w) =>
      w.spans.flatMap((sp) => {
        const e = byKey.get(sp.trace.key);
        if (!e) return [];
        return [{
          key: e.key,
          name: e.name,
          ...rankPlace(e),
          status: e.status,
          rank: e.rank ?? null,
          rankError: e.rankError ?? null,
          summary: e.summary?.ok ? e.summary : null,
        }];
      }),
    );
  }, [runPage, runs, entries]);
  /** The run page's "Compare…": a link to the Diff view of the pair, opened as any pasted link. */
  const compare = (baseline: number, experiment: number) => {
    const b = entries.find((e) => e.key === baseline);
    const x = entries.find((e) => e.key === experiment);
    if (!b || !x) return;
    const bp = b.label != null ? placeOf(runs, b.key) : null;
    const xp = x.label != null ? placeOf(runs, x.key) : null;
    const p: Place = {
      ...(bp ? { ...(bp.run ? { run: bp.run } : {}), worker: bp.worker, ...(bp.span ? { span: bp.span } : {}) } : {}),
      file: b.name,
      view: 'diff',
      ...(xp ? { ...(xp.run ? { vs_run: xp.run } : {}), vs_worker: xp.worker, ...(xp.span ? { vs_span: xp.span } : {}) } : { vs_file: x.name }),
    };
    location.hash = '#' + formatPlace(p);
  };

  // Which full models stay loaded (worker/worker-pool.ts): the trace shown and the experiment of its
  // Diff view are open; the KEEP_RECENT shown before them are kept too; every other trace's Session
  // is closed (its summary, overview and rank summary stay) and read again from its File when it
  // is shown. The Diff view needs both Sessions in one worker: the experiment is read into the
  // baseline's worker (moved there if it is loaded in another).
  const recent = useRef<number[]>([]);
  const [pairs, setPairs] = useState<ReadonlyMap<number, number>>(new Map());
  const setPair = useCallback(
    (baseline: number, experiment: number | null) =>
      setPairs((m) => {
        if ((m.get(baseline) ?? null) === experiment) return m;
        const n = new Map(m);
        if (experiment == null) n.delete(baseline);
        else n.set(baseline, experiment);
        return n;
      }),
    [],
  );
  const showingRun = runPage != null && runs.some((r) => r.name === runPage);
  const openKeys = useMemo(() => {
    if (showingRun || selected == null) return [];
    const x = pairs.get(selected);
    return x != null && x !== selected ? [selected, x] : [selected];
  }, [showingRun, selected, pairs]);
  useEffect(() => {
    if (selected != null && !showingRun) recent.current = [selected, ...recent.current.filter((k) => k !== selected)].slice(0, 32);
  }, [selected, showingRun]);
  useEffect(() => {
    const p = poolRef.current;
    if (!p) return;
    const plan = planModels(
      entries.map((e) => ({
        key: e.key,
        done: e.status === 'done',
        canReread: !!e.file,
        worker: e.session != null ? p.byId(e.gen)?.id ?? null : null,
        reading: rereading.current.get(e.key)?.id ?? null,
        failed: e.reread?.error != null,
      })),
      openKeys,
      recent.current,
    );
    if (!plan.close.length && !plan.read.length) return;
    const byKey = new Map(entries.map((e) => [e.key, e]));
    for (const k of plan.close) closeModel(byKey.get(k)!);
    for (const r of plan.read) reread(byKey.get(r.key)!, p.byId(r.into) ?? p.forLoad());
    if (plan.close.length) setEntries((es) => es.map((e) => (plan.close.includes(e.key) ? { ...e, session: undefined, gen: undefined } : e)));
    // closeModel and reread read refs and set state only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [entries, openKeys]);

  // Files can be dropped anywhere on the page once traces are open (the drop bar is small).
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    const hasFiles = (ev: DragEvent) => !!ev.dataTransfer && Array.from(ev.dataTransfer.types ?? []).includes('Files');
    const onOver = (ev: DragEvent) => {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      if (ev.dataTransfer) ev.dataTransfer.dropEffect = 'copy';
      setDragging(true);
    };
    const onLeave = (ev: DragEvent) => {
      // Leaving the window (no element to go to), not moving between elements.
      if (!ev.relatedTarget) setDragging(false);
    };
    const onDrop = (ev: DragEvent) => {
      setDragging(false);
      // The drop zone took it already (its handler runs first and prevents the default).
      if (ev.defaultPrevented || !ev.dataTransfer) return;
      ev.preventDefault();
      void droppedFiles(ev.dataTransfer).then((d) => {
        if (d.loose.length || d.inFolders.length || d.unreadable.length) openDropped(d);
      });
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  });

  // Keyboard shortcuts: "?" and Esc are the page's; the rest go to the trace shown as a
  // "ks-shortcut" event.
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
      const active = document.querySelector('[data-testid=file-card]:not([hidden])');
      if (!active) return;
      if (action.kind !== 'escape') ev.preventDefault(); // "/" must not be typed into the search it focuses
      active.dispatchEvent(new CustomEvent<Shortcut>('ks-shortcut', { detail: action }));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const onRejection = (ev: PromiseRejectionEvent) =>
      fail(`Unexpected error: ${String((ev.reason as Error)?.message ?? ev.reason)}`);
    window.addEventListener('unhandledrejection', onRejection);
    return () => window.removeEventListener('unhandledrejection', onRejection);
  }, []);

  const loadingAll = entries.filter((e) => e.status === 'loading');
  const loading = loadingAll[0];
  const loadProgress = sumProgress(loadingAll.flatMap((e) => progress.get(e.key) ?? []));
  const queuedCount = useMemo(() => entries.filter((e) => e.status === 'queued').length, [entries]);
  const states = useMemo(() => {
    const m = new Map<number, NavState>();
    for (const e of entries) {
      const p = progress.get(e.key);
      const total = e.size ?? p?.totalBytes ?? null;
      m.set(e.key, {
        status: e.status,
        fraction: e.status === 'loading' && p && total ? Math.min(1, p.bytesRead / total) : null,
        health: e.summary?.health,
        error: e.failure ? failureSentence(e.failure, e.name, !!e.summary?.ok, !!e.overview?.steps) : e.error ?? (e.summary && !e.summary.ok ? e.summary.error : null),
      });
    }
    return m;
  }, [entries, progress]);
  // Cards stay mounted once shown (hidden while another is), so each keeps its views' state.
  const [visited, setVisited] = useState<Set<number>>(() => new Set());
  useEffect(() => {
    if (selected != null && !visited.has(selected)) setVisited((v) => new Set([...v, selected]));
  }, [selected]);
  const queueOrder = queue.current.map((e) => e.key);
  // "Opening N traces…" is true while they load: once none is loading or queued it says what was
  // opened only when it has more to say (files skipped, unreadable), else it goes.
  const busyLoading = entries.some((e) => e.status === 'loading' || e.status === 'queued');
  useEffect(() => {
    if (busyLoading || !notice?.opening) return;
    setNotice(openedNotice(notice));
  }, [busyLoading, notice]);
  const models = entries.filter((e) => e.session != null).length;

  const noticeEl = notice && (
    <div class={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      <span class="notice-icon" aria-hidden="true">{notice.kind === 'error' ? '⚠' : 'ℹ'}</span>
      <p data-testid="notice" data-kind={notice.kind}>
        {notice.text}
      </p>
      <button type="button" class="notice-close" aria-label="Dismiss" data-testid="notice-close" onClick={() => setNotice(null)}>
        ×
      </button>
    </div>
  );
  const progressEl = loading && (
    <ProgressBar
      fileName={loadingAll.length > 1 ? `${loadingAll.length} traces in parallel` : loading.name}
      queued={queuedCount}
      totalBytes={loadingAll.length > 1 ? loadProgress?.totalBytes ?? null : loading.size}
      progress={loadProgress}
      stillMs={loadingAll.every((e) => still.has(e.key)) ? Math.min(...loadingAll.map((e) => still.get(e.key)!)) : null}
      onCancel={cancel}
    />
  );
  const help_ = help && <ShortcutsHelp onClose={() => setHelp(false)} />;
  // Trace workers in the pool (data-pool, and data-pool-size beside data-pool-warm).
  const slots = poolRef.current?.size ?? poolSize(navigator.hardwareConcurrency);

  if (!entries.length) {
    // Nothing open yet: the page is the drop zone.
    return (
      <div class="landing" data-pool-warm={warm} data-pool-size={slots}>
        <header class="top">
          <h1>Kinetoscope</h1>
          <p class="muted">PyTorch profiler (Kineto) traces, analyzed in your browser.</p>
        </header>
        <main>
          <ErrorBoundary>
            <DropZone onDropped={openDropped} onSample={openSample} onUrl={openUrl} busy={false} />
            {noticeEl}
            {help_}
            <p class="muted shortcuts-hint">
              Press <kbd>?</kbd> for keyboard shortcuts.
            </p>
          </ErrorBoundary>
        </main>
      </div>
    );
  }

  return (
    <div class={`app${dragging ? ' dragging' : ''}`} data-pool-warm={warm} data-pool-size={slots}>
      <header class="topbar">
        <h1 class="brand">Kinetoscope</h1>
        <DropZone compact onDropped={openDropped} onSample={openSample} onUrl={openUrl} busy={!!loading} />
        {progressEl}
        <button type="button" class="help-button" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" data-testid="shortcuts-button" onClick={() => setHelp(true)}>
          ?
        </button>
      </header>
      {help_}
      <div class="shell">
        <RunNav runs={runs} states={states} selected={selected} onSelect={pick} selectedRun={runPage} onSelectRun={pickRun} />
        <main
          class="analysis"
          data-testid="analysis"
          data-pool={slots}
          data-pool-used={poolUsed}
          data-models={models}
          data-rereads={rereads}
        >
          <ErrorBoundary>
            {noticeEl}
            {runPage != null && runs.some((r) => r.name === runPage) && (
              <ErrorBoundary key={`run:${runPage}`}>
                <RunPage
                  run={runPage}
                  traces={runTraces}
                  runner={distRunner}
                  step={runStep}
                  onStep={(st) => {
                    runPageUsed.current = true;
                    setRunStep(st);
                  }}
                  onCompare={compare}
                  onOpenTrace={pick}
                  forceDistributed={runForced}
                />
              </ErrorBoundary>
            )}
            {entries
              .filter((e) => visited.has(e.key) || e.key === selected)
              .map((e) => (
                <ErrorBoundary key={e.key}>
                  <TracePage
                    entry={e}
                    runner={runner}
                    onRemove={() => remove(e)}
                    onRetry={(one) => retry(e, one)}
                    link={e === linkCard ? link! : null}
                    onLinkTaken={linkTaken}
                    active={e.key === selected && !showingRun}
                    picked={e.key === selected && e.key === picked && !showingRun}
                    place={placeOf(runs, e.key)}
                    onOpenRun={(st) => {
                      pickRun(placeOf(runs, e.key)?.run ?? '', true);
                      setRunStep(st);
                    }}
                    waiting={e.status === 'queued' ? queueOrder.indexOf(e.key) + loadingAll.length : 0}
                    traces={diffTraces}
                    onDiffPair={(x) => setPair(e.key, x)}
                    rereadProgress={progress.get(e.key) ?? null}
                    onReread={() => update(e.key, { reread: undefined })}
                  />
                </ErrorBoundary>
              ))}
          </ErrorBoundary>
        </main>
      </div>
      {dragging && (
        <div class="drop-overlay" aria-hidden="true">
          <p>Drop traces or folders to open them</p>
        </div>
      )}
    </div>
  );
}

/** An "Opening …" notice once its loads have ended: in the past tense with what else it said, or none. */
export function openedNotice(n: Notice): Notice | null {
  const rest = n.text.replace(/^Opening [^;.]*[;.]\s*/, '');
  if (rest === n.text) return { ...n, opening: false };
  return rest ? { kind: n.kind, text: n.text.replace(/^Opening /, 'Opened ') } : null;
}
