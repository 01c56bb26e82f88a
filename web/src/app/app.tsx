// The page: the drop zone, and once traces are open the top bar, the run navigator and the trace
// page or run page shown beside it, with the notices, the keyboard shortcuts and drops anywhere.
// What is loaded where is the loader's (loader.ts); deep links (deep-links.ts) and the run page
// (run-page.ts) have their own files.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { DropZone } from '../components/drop-zone';
import { ErrorBoundary } from '../components/error-boundary';
import { ProgressBar } from '../components/progress-bar';
import { RunNav, type NavState } from '../components/run-nav';
import { ShortcutsHelp } from '../components/shortcuts-help';
import { droppedFiles, type Dropped } from '../lib/folder';
import { isMemoryTimelineFile, PAIR_TIMELINE_EVENT, type PairTimelineDetail } from '../lib/memory-timeline';
import { onLaunchFiles } from '../lib/launch-queue';
import { buildRunTree, placeOf, traceOrder, type NavTrace } from '../lib/run-tree';
import { shortcutFor, takesText, type Shortcut } from '../lib/shortcuts';
import { planOpen } from '../lib/trace-names';
import { linkWithTraceUrl, sameOrigin, traceUrlsOf } from '../lib/trace-url';
import type { Entry } from '../worker/entry';
import { failureSentence } from '../worker/failure';
import { RunPage } from '../views/distributed-view';
import { RunFilePage } from '../views/run-file-view';
import type { RunFile } from '../lib/run-file';
import { TracePage } from '../views/trace-page';
import { useDeepLinks } from './deep-links';
import { fetchSample, fileEntries, sumProgress, urlEntries, useLoader, useOpenModels } from './loader';
import { useRunPage } from './run-page';
import type { SnapshotFocus } from '../views/snapshot-view';
import { fetchRunFile, isRunFile, isRunFileUrl, readRunFile } from './run-file';

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

export function App() {
  const loader = useLoader();
  const { entries, progress, still } = loader;
  const [notice, setNotice] = useState<Notice | null>(null);
  const info = (text: string) => setNotice({ kind: 'info', text });
  const fail = (text: string) => setNotice({ kind: 'error', text });
  // The trace shown right of the navigator (its Entry key), and whether the user picked it there.
  const [selected, setSelected] = useState<number | null>(null);
  const [picked, setPicked] = useState<number | null>(null);
  // The navigator's tree: runs, workers, spans (lib/run-tree.ts).
  const navTraces = useMemo(() => entries.map(navOf), [entries]);
  const runs = useMemo(() => buildRunTree(navTraces), [navTraces]);
  const runPage = useRunPage(entries, runs);
  // A run file (kinetoscope-fleet's reduce, app/run-file.ts) opened in the page: shown instead of
  // a trace until a trace or run is picked, and again by the top bar's button.
  const [runFile, setRunFile] = useState<RunFile | null>(null);
  const [runFileShown, setRunFileShown] = useState(false);
  const [runFileStep, setRunFileStep] = useState<string | null>(null);
  const showRunFile = (r: RunFile) => {
    setRunFile(r);
    setRunFileShown(true);
    setRunFileStep(null);
    runPage.close();
  };
  const pick = (key: number) => {
    setRunFileShown(false);
    runPage.close();
    setSelected(key);
    setPicked(key);
  };

  /** New traces are loaded (loader.ts) and the first of them shown, not a run page picked before. */
  const enqueue = (fresh: Entry[]) => {
    setNotice(null);
    if (!fresh.length) return;
    setRunFileShown(false);
    setSelected(fresh[0].key);
    runPage.close();
    loader.enqueue(fresh);
  };

  const remove = (entry: Entry) => {
    loader.remove(entry);
    if (selected === entry.key) {
      // The next trace in the navigator takes its place (the previous one after the last).
      const order = traceOrder(runs).map((t) => t.key);
      const at = order.indexOf(entry.key);
      const rest = order.filter((k) => k !== entry.key);
      setSelected(rest.length ? rest[Math.min(at, rest.length - 1)] : null);
    }
  };

  /**
   * A URL pasted into the drop zone. The page's CSP was fixed when it loaded and allows only the
   * site and the link's url= origins, so another origin is opened by loading the page with it as
   * url= (in a new tab when traces are open here, so they are not lost). The site's own origin is
   * always allowed: that one opens here at once.
   */
  const openUrl = (url: string) => {
    if (sameOrigin(url, location.href)) {
      enqueue(urlEntries([url]));
      return;
    }
    const link = linkWithTraceUrl(location.href, url);
    if (!entries.length) location.assign(link);
    else if (window.open(link, '_blank', 'noopener')) info(`The trace opens in a new tab, so the traces here stay open.`);
    else fail(`The trace could not be opened in a new tab (pop-ups blocked?). Open this link: ${link}`);
  };

  /**
   * A rank's trace from a run file, by its URL: here at once on the site's own origin; else in a
   * new tab with it as ?url= (the page's CSP allows only the link's origins), so the run file
   * stays open here.
   */
  const openRankUrl = (url: string) => {
    if (sameOrigin(url, location.href)) {
      enqueue(urlEntries([url]));
      return;
    }
    const link = linkWithTraceUrl(location.href, url);
    if (window.open(link, '_blank', 'noopener')) info('The trace opens in a new tab, so the run file stays open here.');
    else fail(`The trace could not be opened in a new tab (pop-ups blocked?). Open this link: ${link}`);
  };

  /** Run files among the loose files are opened as runs (the last one shown), the rest as traces. */
  const openDropped = (d: Dropped) => {
    // export_memory_timeline files (told by content) pair with the snapshot open; the rest open.
    void Promise.all(d.loose.map((f) => isMemoryTimelineFile(f).catch(() => false))).then((timeline) => {
      const pairs = d.loose.filter((_, i) => timeline[i]);
      if (pairs.length) pairTimelines(pairs);
      if (pairs.length < d.loose.length || d.inFolders.length || d.unreadable.length) openFiles({ ...d, loose: d.loose.filter((_, i) => !timeline[i]) });
    });
  };

  /** One snapshot open: each timeline pairs with it; none or several: a sentence says what to do. */
  const pairTimelines = (files: File[]) => {
    const snaps = entries.filter((e) => e.snapshot?.ok && e.status === 'done');
    const names = files.map((f) => f.name).join(', ');
    if (snaps.length === 1) {
      for (const file of files) window.dispatchEvent(new CustomEvent<PairTimelineDetail>(PAIR_TIMELINE_EVENT, { detail: { snapshot: snaps[0].name, file } }));
      setSelected(snaps[0].key);
      info(`${names}: an export_memory_timeline, paired with ${snaps[0].name} (its Memory by kind panel).`);
    } else if (snaps.length === 0) {
      fail(`${names}: an export_memory_timeline file; open its memory snapshot first, then drop it again.`);
    } else {
      info(`${names}: an export_memory_timeline file, and ${snaps.length} snapshots are open: drop it on the Memory by kind panel of the one it belongs to.`);
    }
  };

  const openFiles = (d: Dropped) => {
    void Promise.all(d.loose.map((f) => isRunFile(f).catch(() => false))).then((flags) => {
      const runFiles = d.loose.filter((_, i) => flags[i]);
      for (const f of runFiles)
        readRunFile(f).then(showRunFile, (e: Error) => fail(e.message || String(e)));
      if (!runFiles.length) openTraces(d);
      else if (runFiles.length < d.loose.length || d.inFolders.length || d.unreadable.length)
        openTraces({ ...d, loose: d.loose.filter((_, i) => !flags[i]) });
    });
  };

  /** A drop or a pick: loose files as they are, folders' traces by run, span and worker. */
  const openTraces = (d: Dropped) => {
    const plan = planOpen(
      d.loose.map((f) => ({ name: f.name, file: f })),
      d.inFolders,
      d.truncated,
    );
    if (plan.open.length) enqueue(fileEntries(plan.open.map((o) => o.file), plan.open.map((o) => o.label)));
    const notes = plan.notice ? [plan.notice] : [];
    if (d.unreadable.length) notes.push(`${d.unreadable.length} item${d.unreadable.length === 1 ? '' : 's'} could not be read: ${d.unreadable.slice(0, 3).join(', ')}${d.unreadable.length > 3 ? ', …' : ''}.`);
    // Nothing opened, or something unreadable: a problem; otherwise what was opened and skipped.
    if (!notes.length) setNotice(null);
    else setNotice({ kind: plan.open.length && !d.unreadable.length ? 'info' : 'error', text: notes.join(' '), opening: plan.open.length > 0 });
  };

  const openSample = async () => {
    try {
      enqueue(fileEntries([await fetchSample()]));
    } catch (e) {
      fail(`The sample trace could not be fetched (${(e as Error).message}).`);
    }
  };

  // Traces the OS opens with the installed app take the same path as a drop (run files too).
  useEffect(
    () =>
      onLaunchFiles((files) => {
        void Promise.all(files.map((f) => isRunFile(f).catch(() => false))).then((flags) => {
          for (const f of files.filter((_, i) => flags[i])) readRunFile(f).then(showRunFile, (e: Error) => fail(e.message || String(e)));
          const traces = files.filter((_, i) => !flags[i]);
          if (traces.length) enqueue(fileEntries(traces));
        });
      }),
    [],
  );

  // A link with ?url=<trace> (one or several) opens them as if dropped, in order.
  useEffect(() => {
    const { urls: all, refused } = traceUrlsOf(location.search, location.href);
    // Run files by their name (app/run-file.ts); the others are traces.
    for (const u of all.filter(isRunFileUrl))
      fetchRunFile(u, new AbortController().signal).then(showRunFile, (e: Error) => fail(e.message || String(e)));
    const urls = all.filter((u) => !isRunFileUrl(u));
    if (urls.length) enqueue(urlEntries(urls));
    if (refused.length) fail(refused.join(' '));
  }, []);

  // The Diff view's pickers: every trace, in the navigator's order, with its Session and place.
  const diffTraces = useMemo(() => {
    const order = new Map(traceOrder(runs).map((t, i) => [t.key, i]));
    return [...entries]
      .sort((a, b) => (order.get(a.key) ?? 1e9) - (order.get(b.key) ?? 1e9))
      .map((e) => ({ key: e.key, name: e.name, status: e.status, session: e.session ?? null, gen: e.gen ?? null, place: e.label != null ? placeOf(runs, e.key) : null, snapshot: !!e.snapshot?.ok }));
  }, [entries, runs]);

  const links = useDeepLinks(entries, runs, runPage, setSelected);

  // A trace's Memory view showing a snapshot's page at its range (views/memory-snapshot-link.tsx).
  const [snapshotFocus, setSnapshotFocus] = useState<(SnapshotFocus & { key: number }) | null>(null);
  const showSnapshot = (key: number, device: number, fromUs: number, toUs: number) => {
    pick(key);
    setSnapshotFocus({ key, device, fromUs, toUs, seq: (snapshotFocus?.seq ?? 0) + 1 });
  };

  // Which full models stay loaded (loader.ts): the trace shown and the experiment of its Diff view.
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
  const showingRun = runPage.showing || (runFile != null && runFileShown);
  const openKeys = useMemo(() => {
    if (showingRun || selected == null) return [];
    const x = pairs.get(selected);
    return x != null && x !== selected ? [selected, x] : [selected];
  }, [showingRun, selected, pairs]);
  useOpenModels(loader, selected, showingRun, openKeys);

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
  const queueOrder = loader.queued();
  // "Opening N traces…" is true while they load: once none is loading or queued it says what was
  // opened only when it has more to say (files skipped, unreadable), else it goes.
  const busyLoading = entries.some((e) => e.status === 'loading' || e.status === 'queued');
  useEffect(() => {
    if (busyLoading || !notice?.opening) return;
    setNotice(openedNotice(notice));
  }, [busyLoading, notice]);

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
      onCancel={loader.cancel}
    />
  );
  const help_ = help && <ShortcutsHelp onClose={() => setHelp(false)} />;
  const { slots, used: poolUsed, warm, rereads, models } = loader.pool;

  const runFileEl = runFile && runFileShown && (
    <ErrorBoundary key={`run-file:${runFile.name}`}>
      <RunFilePage
        run={runFile}
        onOpenUrl={openRankUrl}
        onClose={() => {
          setRunFile(null);
          setRunFileShown(false);
        }}
        step={runFileStep}
        onStep={setRunFileStep}
      />
    </ErrorBoundary>
  );
  const runFileButton = runFile && !runFileShown && (
    <button type="button" class="run-file-button" data-testid="run-file-show" onClick={() => { runPage.close(); setRunFileShown(true); }}>
      Run file
    </button>
  );

  if (!entries.length && runFile) {
    // A run file alone: its page, no navigator (no trace is open).
    return (
      <div class={`app${dragging ? ' dragging' : ''}`} data-pool-warm={warm} data-pool-size={slots}>
        <header class="topbar">
          <h1 class="brand">Kinetoscope</h1>
          <DropZone compact onDropped={openDropped} onSample={openSample} onUrl={openUrl} busy={false} />
          {runFileButton}
          <button type="button" class="help-button" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" data-testid="shortcuts-button" onClick={() => setHelp(true)}>
            ?
          </button>
        </header>
        {help_}
        <main class="analysis run-file-only" data-testid="analysis">
          <ErrorBoundary>
            {noticeEl}
            {runFileEl || <p class="muted">The run file is closed: drop a trace or a run file.</p>}
          </ErrorBoundary>
        </main>
      </div>
    );
  }

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
        {runFileButton}
        <button type="button" class="help-button" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" data-testid="shortcuts-button" onClick={() => setHelp(true)}>
          ?
        </button>
      </header>
      {help_}
      <div class="shell">
        <RunNav
          runs={runs}
          states={states}
          selected={selected}
          onSelect={pick}
          selectedRun={runPage.run}
          onSelectRun={(run) => {
            setRunFileShown(false);
            runPage.pick(run);
          }}
        />
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
            {runFileEl}
            {runPage.showing && !runFileShown && (
              <ErrorBoundary key={`run:${runPage.run}`}>
                <RunPage
                  run={runPage.run!}
                  traces={runPage.traces}
                  runner={loader.distRunner}
                  step={runPage.step}
                  onStep={runPage.setStep}
                  onCompare={runPage.compare}
                  onOpenTrace={pick}
                  forceDistributed={runPage.forced}
                />
              </ErrorBoundary>
            )}
            {entries
              .filter((e) => visited.has(e.key) || e.key === selected)
              .map((e) => (
                <ErrorBoundary key={e.key}>
                  <TracePage
                    entry={e}
                    runner={loader.runner}
                    onRemove={() => remove(e)}
                    onRetry={(one) => loader.retry(e, one)}
                    link={links.linkFor(e)}
                    onLinkTaken={links.linkTaken}
                    active={e.key === selected && !showingRun}
                    picked={e.key === selected && e.key === picked && !showingRun}
                    place={placeOf(runs, e.key)}
                    onOpenRun={(st) => runPage.openForTrace(placeOf(runs, e.key)?.run ?? '', st)}
                    waiting={e.status === 'queued' ? queueOrder.indexOf(e.key) + loadingAll.length : 0}
                    traces={diffTraces}
                    onDiffPair={(x) => setPair(e.key, x)}
                    onShowSnapshot={showSnapshot}
                    snapshotFocus={snapshotFocus?.key === e.key ? snapshotFocus : null}
                    rereadProgress={progress.get(e.key) ?? null}
                    onReread={() => loader.update(e.key, { reread: undefined })}
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
