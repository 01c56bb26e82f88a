// The loader: the traces opened in the page (one Entry each), the queue of their first loads, the
// pool of trace workers they load in (worker/worker-pool.ts), a big plain file read by several
// workers (worker/split-read.ts) under the load watch (worker/load-watch.ts), closed models read
// again, and the calls the trace pages and the run page make to the workers (the Runner). The app
// (app.tsx) decides what is shown; this decides what is loaded where.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { fetchTrace } from '../lib/fetch-trace';
import { brokenDownloadNote } from '../lib/format';
import type { Overview } from '../lib/overview';
import type { Summary } from '../lib/summary';
import { parseTraceName, type TraceLabel } from '../lib/trace-names';
import { traceNameOf } from '../lib/trace-url';
import type { Entry } from '../worker/entry';
import { loadFailure, stallError } from '../worker/failure';
import { DEFAULT_LOAD_WATCH, LoadWatch } from '../worker/load-watch';
import { ABORT, type Call, type LoadProgress, type LoadResult } from '../worker/protocol';
import { rangeCount } from '../worker/split-read';
import { splitSettings, takeFault, testLoadWatch, testWatchdog } from '../worker/test-faults';
import { DEFAULT_WATCHDOG } from '../worker/watchdog';
import { goneError, planModels, poolSize, WorkerPool, type PoolWorker, type Started } from '../worker/worker-pool';
import { openDistributed } from '../lib/distributed';
import { workerOfFile, type DistributedRunner } from '../views/distributed-view';
import type { RunQuery, Runner } from '../views/trace-page';
import type { TrimFn } from '../views/timeline-view';

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

/** A URL's trace named as tb_plugin names traces gets its worker and span, as a loose file does. */
function urlLabel(name: string): TraceLabel | null {
  const ws = parseTraceName(name);
  return ws ? { run: '', worker: ws.worker, span: ws.span, spanRank: ws.span == null ? 0 : 1, spanCount: ws.span == null ? 0 : 1 } : null;
}

/** The bundled sample trace (web/public/samples): the drop zone's "open the sample", and what the workers warm up on. */
export const SAMPLE_URL = './samples/rank-0.json.gz';

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
export function rankPlace(e: Entry): { worker: string; span: string } {
  return { worker: e.label?.worker ?? workerOfFile(e.name), span: e.label?.spanRank ? String(e.label.spanRank) : 'default' };
}

/** Several loads' progress as one: bytes summed; the total known only if every load knows its own. */
export function sumProgress(ps: LoadProgress[]): LoadProgress | null {
  if (ps.length <= 1) return ps[0] ?? null;
  const totals = ps.map((p) => p.totalBytes);
  return {
    bytesRead: ps.reduce((n, p) => n + p.bytesRead, 0),
    totalBytes: totals.every((t) => t != null) ? totals.reduce((n, t) => n! + t!, 0) : null,
    decodedBytes: ps.reduce((n, p) => n + p.decodedBytes, 0),
    elapsedMs: Math.max(...ps.map((p) => p.elapsedMs)),
  };
}

/** New entries for dropped or picked Files, with their run, worker and span where known. */
export function fileEntries(files: File[], labels: (TraceLabel | null)[] = []): Entry[] {
  return files.map((file, i) => ({ key: nextKey++, file, name: file.name, size: file.size, label: labels[i] ?? null, status: 'queued' }));
}

/** New entries for traces by URL (checked http(s), absolute): each is downloaded when its turn comes. */
export function urlEntries(urls: string[]): Entry[] {
  return urls.map((url) => {
    const name = traceNameOf(url);
    return { key: nextKey++, url, name, size: null, label: urlLabel(name), status: 'queued' };
  });
}

/** The bundled sample as a File (the drop zone's "Open sample"). */
export async function fetchSample(): Promise<File> {
  const res = await fetch(SAMPLE_URL);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return new File([await res.blob()], 'rank-0.json.gz');
}

export function useLoader() {
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
        // which): every Session in it is gone. Its traces keep their summaries. While a load was
        // under way in it (a first load, a helper's range, a re-read), the failure is that load's
        // and its own card says so: the other traces there only lost their models, which are read
        // again when shown, as closed ones are. Otherwise a question to one of them failed it: their
        // cards say so and offer to read the file again, not at once by themselves, or a view whose
        // question traps the worker would ask it again after every re-read, for ever.
        const loading =
          [...running.current.values()].some((r) => r.worker.id === id || r.helpers.some((h) => h.worker.id === id && !h.settled)) ||
          [...rereading.current.values()].some((w) => w.id === id);
        const lost = loading ? {} : { reread: { error: error.message } };
        setEntries((es) => es.map((e) => (e.gen === id ? { ...e, session: undefined, gen: undefined, ...lost } : e)));
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
  }, []);

  // A trim reads the File again: it needs no Session, only a live worker.
  const runTrim: TrimFn = useCallback((file, startUs, endUs, onProgress) => {
    const w = pool().any();
    const call = w.client.trim(file, startUs, endUs, onProgress);
    return { promise: call.promise, cancel: () => w.client.cancel(call.id) };
    // pool() reads refs only.
  }, []);
  const runner = useMemo<Runner>(() => ({ query: runQuery, trim: runTrim }), [runQuery, runTrim]);
  // The run page's reduce: the rank summaries (taken when each trace loaded) in, the view out.
  const distRunner = useMemo<DistributedRunner>(
    () => ({
      reduce: (ranks) => pool().any().client.distributed(ranks).promise.then((spans) => spans.map(openDistributed)),
    }),
    // pool() reads refs only.
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

  /** Closes a trace: its load stops (or its model is freed) and it leaves the list. */
  const remove = (entry: Entry) => {
    queue.current = queue.current.filter((e) => e.key !== entry.key);
    const run = running.current.get(entry.key);
    if (run) {
      stop(run);
      // A load still running frees its Session itself once it learns the file was closed.
      if (run.callId != null) run.worker.client.close(run.callId);
    } else closeModel(entry);
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
      const { summary, overview, file, read, snapshot } = await call.promise;
      let rank: Uint8Array | null = null;
      let rankError: string | undefined;
      // A memory snapshot is no rank of a run.
      if (summary.ok && !run.cancelled && !snapshot) {
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
          ...(snapshot ? { snapshot } : {}),
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
   * New traces, loaded in the order given, as many at a time as the pool has workers (the
   * navigator files them all by run, worker and span whatever their order).
   */
  const enqueue = (fresh: Entry[]) => {
    if (!fresh.length) return;
    queue.current.push(...fresh);
    setEntries((es) => [...es, ...fresh]);
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

  const cancel = () => {
    const dropped = queue.current.splice(0);
    for (const e of dropped) update(e.key, { status: 'cancelled' });
    for (const run of running.current.values()) stop(run);
  };

  // The trace workers start, and ready themselves on the bundled sample, while the page waits for
  // a file (worker/worker-pool.ts warm): a first load then parses with optimized code. After the first
  // render, so that the page is drawn first.
  useEffect(() => {
    const t = setTimeout(() => pool().warm(new URL(SAMPLE_URL, document.baseURI).href, () => setWarm((n) => n + 1)));
    return () => clearTimeout(t);
  }, []);

  const models = entries.filter((e) => e.session != null).length;
  // Trace workers in the pool (data-pool, and data-pool-size beside data-pool-warm).
  const slots = poolRef.current?.size ?? poolSize(navigator.hardwareConcurrency);
  return {
    entries,
    update,
    progress,
    still,
    runner,
    distRunner,
    enqueue,
    retry,
    remove,
    cancel,
    queued: () => queue.current.map((e) => e.key),
    pool: { slots, used: poolUsed, warm, rereads, models },
    models: { poolRef, rereading, closeModel, reread, setEntries },
  };
}

export type Loader = ReturnType<typeof useLoader>;

/** Closes and reads again the loader's models for the trace shown (`selected`) and `openKeys`. */
export function useOpenModels(loader: Loader, selected: number | null, showingRun: boolean, openKeys: number[]) {
  const { entries } = loader;
  const { poolRef, rereading, closeModel, reread, setEntries } = loader.models;
  // Which full models stay loaded (worker/worker-pool.ts): the trace shown and the experiment of its
  // Diff view are open; the KEEP_RECENT shown before them are kept too; every other trace's Session
  // is closed (its summary, overview and rank summary stay) and read again from its File when it
  // is shown. The Diff view needs both Sessions in one worker: the experiment is read into the
  // baseline's worker (moved there if it is loaded in another).
  const recent = useRef<number[]>([]);
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
  }, [entries, openKeys]);
}
